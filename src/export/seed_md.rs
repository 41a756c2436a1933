//! The seed's `summary.md`: the same tables with the same number formats, for the sections
//! the run holds. Where the seed hard-codes its evidence boundary (4x V100, NCCL 2.22.3),
//! nccl-report states the run's own hardware and versions.

use crate::analysis::summarize::RunSummary;
use crate::export::pyfmt::{fixed, percent};
use std::fmt::Write;

pub(crate) fn render(run: &RunSummary) -> Vec<u8> {
    let mut md = String::new();
    let out = &mut md;
    line(out, "# NCCL Interview Detail Experiments");
    line(out, "");
    line(out, &format!("Run ID: `{}`", run.raw.id));
    line(out, "");
    match &run.contracts {
        Some(c) if c.failures.is_empty() => {
            line(out, &format!("All {} per-rank contracts passed; failures: 0.", c.total))
        }
        Some(c) => line(out, &format!("{} per-rank contracts checked; failures: {}.", c.total, c.failures.len())),
        None => line(out, "No per-rank contracts in this run."),
    }
    line(out, "Critical-path samples use the slowest rank in each cycle.");
    if let Some(rows) = &run.sections.async_rows {
        heading(
            out,
            "Async completion",
            "| bytes | host enqueue us | Work.wait host us | GPU dependency us | event ready after wait | CV |",
            "|---:|---:|---:|---:|---:|---:|",
        );
        for r in rows {
            line(
                out,
                &format!(
                    "| {} | {} | {} | {} | {} | {}% |",
                    r.size_bytes,
                    fixed(r.median_host_enqueue_us, 3),
                    fixed(r.median_host_wait_us, 3),
                    fixed(r.median_gpu_dependency_us, 3),
                    percent(r.event_ready_after_wait_rate, 1),
                    fixed(r.gpu_cv_percent, 2)
                ),
            );
        }
    }
    if let Some(rows) = &run.sections.decomposition {
        heading(
            out,
            "AllReduce versus explicit ReduceScatter plus AllGather",
            "| bytes | mode | median us | overhead vs AllReduce | CV |",
            "|---:|---|---:|---:|---:|",
        );
        for r in rows {
            let overhead = r.overhead_vs_allreduce_percent.map_or("n/a".to_string(), |o| format!("{}%", fixed(o, 2)));
            line(
                out,
                &format!(
                    "| {} | {} | {} | {} | {}% |",
                    r.size_bytes,
                    r.mode,
                    fixed(r.median_duration_us, 3),
                    overhead,
                    fixed(r.cv_percent, 2)
                ),
            );
        }
    }
    if let Some(rows) = &run.sections.fragmentation {
        heading(
            out,
            "Same 80 MiB logical payload split into multiple collectives",
            "| calls | bytes/call | median total us | slowdown vs one call | per call us | CV |",
            "|---:|---:|---:|---:|---:|---:|",
        );
        for r in rows {
            let slowdown = r.slowdown_vs_one_collective.map_or("n/a".to_string(), |s| format!("{}x", fixed(s, 2)));
            line(
                out,
                &format!(
                    "| {} | {} | {} | {} | {} | {}% |",
                    r.fragment_count,
                    r.fragment_bytes,
                    fixed(r.median_duration_us, 3),
                    slowdown,
                    fixed(r.median_per_collective_us, 3),
                    fixed(r.cv_percent, 2)
                ),
            );
        }
    }
    if let Some(rows) = &run.sections.decode {
        heading(
            out,
            "Decode communication-only replay",
            "| TP | tokens | bytes/call | calls | median total us | per call us | CV |",
            "|---:|---:|---:|---:|---:|---:|---:|",
        );
        for r in rows {
            line(
                out,
                &format!(
                    "| {} | {} | {} | {} | {} | {} | {}% |",
                    r.world_size,
                    r.tokens,
                    r.message_bytes,
                    r.collectives,
                    fixed(r.median_total_us, 3),
                    fixed(r.median_per_collective_us, 3),
                    fixed(r.cv_percent, 2)
                ),
            );
        }
    }
    if let Some(rows) = &run.sections.nccl_tests {
        heading(
            out,
            "nccl-tests control for Decode-sized messages",
            "| ranks | bytes | median us | P95 us | algbw GB/s | busbw GB/s | CV | wrong |",
            "|---:|---:|---:|---:|---:|---:|---:|---:|",
        );
        for r in rows {
            line(
                out,
                &format!(
                    "| {} | {} | {} | {} | {} | {} | {}% | {} |",
                    r.world_size,
                    r.size_bytes,
                    fixed(r.median_time_us, 3),
                    fixed(r.p95_time_us, 3),
                    fixed(r.median_algbw_gbs, 3),
                    fixed(r.median_busbw_gbs, 3),
                    fixed(r.cv_percent, 2),
                    r.wrong_total
                ),
            );
        }
    }
    if let Some(rows) = &run.sections.numerics {
        heading(
            out,
            "FP16 reduction counterexamples",
            "| scenario | permutations | FP16 mismatches | FP16 nonfinite | FP32 mismatches | FP16 outputs |",
            "|---|---:|---:|---:|---:|---|",
        );
        for r in rows {
            line(
                out,
                &format!(
                    "| {} | {} | {} | {} | {} | {} |",
                    r.scenario,
                    r.cases,
                    r.fp16_mismatch_count,
                    r.fp16_nonfinite_count,
                    r.fp32_mismatch_count,
                    r.unique_fp16_results
                ),
            );
        }
    }
    line(out, "");
    line(out, "## Evidence boundary");
    line(out, "");
    let facts = &run.facts;
    let gpu = facts.gpu.as_deref().unwrap_or("unknown GPU");
    let topology = facts.topology.as_deref().unwrap_or("topology not recorded");
    let nccl = facts.nccl_version.as_deref().unwrap_or("an unrecorded version");
    line(out, &format!("- These are single-node {gpu} ({topology}) results for NCCL {nccl}."));
    line(
        out,
        "- Decode replay contains communication only; it excludes GEMM, scheduling, CUDA Graph, and Custom AllReduce.",
    );
    line(out, "- FP16 counterexamples prove that callers cannot assume implicit FP32 accumulation; they do not specify every GPU architecture's internal instruction sequence.");
    line(
        out,
        "- Exact performance percentages are valid only for the recorded hardware, software, and message matrix.",
    );
    md.into_bytes()
}

fn line(out: &mut String, text: &str) {
    out.push_str(text);
    out.push('\n');
}

fn heading(out: &mut String, title: &str, header: &str, align: &str) {
    let _ = write!(out, "\n## {title}\n\n{header}\n{align}\n");
}
