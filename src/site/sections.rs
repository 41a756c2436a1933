//! Per-section tables and chart specs for one run: used on the run page, and (with a run
//! column and one series per run) on the cross-run section pages.

use crate::model::summary::*;
use crate::site::chart::{ChartSpec, Scale, Series};
use crate::site::digest::RunDigest;
use crate::site::format::{bytes, num3, pct2, rate, yes_no};
use crate::site::spread::{plain, point};
use crate::site::view::{Cell, Table};

/// The sections with pages, in page order: (slug, title).
pub const SECTIONS: [(&str, &str); 6] = [
    ("async", "Async completion"),
    ("decomposition", "AllReduce vs ReduceScatter + AllGather"),
    ("fragmentation", "One 80 MiB payload split into many collectives"),
    ("decode", "Decode-time tensor-parallel AllReduce replay"),
    ("nccl-tests", "nccl-tests all_reduce_perf control"),
    ("numerics", "FP16 reduction-order counterexamples"),
];

/// Whether a run has data for a section.
pub fn has(run: &RunDigest, slug: &str) -> bool {
    match slug {
        "async" => run.async_rows.as_ref().is_some_and(|r| !r.is_empty()),
        "decomposition" => run.decomposition.as_ref().is_some_and(|r| !r.is_empty()),
        "fragmentation" => run.fragmentation.as_ref().is_some_and(|r| !r.is_empty()),
        "decode" => run.decode.as_ref().is_some_and(|r| !r.is_empty()),
        "nccl-tests" => run.nccl_tests_raw.as_ref().is_some_and(|r| !r.is_empty()),
        "numerics" => run.numerics.as_ref().is_some_and(|r| !r.is_empty()),
        _ => false,
    }
}

/// A table of one section; with `run_column`, every row starts with a link to its run page.
pub fn table(runs: &[(&RunDigest, String)], slug: &str) -> Table {
    let with_run = runs.len() > 1 || runs.first().is_some_and(|(_, href)| !href.is_empty());
    let mut columns: Vec<(&str, bool)> = if with_run { vec![("run", false)] } else { Vec::new() };
    columns.extend_from_slice(columns_of(slug));
    let mut table = Table::new(caption_of(slug), &columns);
    for (run, href) in runs {
        for mut row in rows_of(run, slug) {
            if with_run {
                row.insert(0, Cell::link(run.id.clone(), href.clone()));
            }
            table.push(row);
        }
    }
    table
}

fn caption_of(slug: &str) -> &'static str {
    match slug {
        "async" => "Critical-path medians over cycles; GPU dependency with P95 and CV",
        "decomposition" => "Critical-path duration per mode; overhead against AllReduce (direct)",
        "fragmentation" => "Total time for the whole payload per number of calls",
        "decode" => "Replay of `calls` AllReduces of tokens x 4096 FP16 per step",
        "nccl-tests" => "Decode-sized messages, out-of-place time, over -N cycles",
        "numerics" => "Rank 0's results over all placements of the values on ranks",
        _ => "",
    }
}

fn columns_of(slug: &str) -> &'static [(&'static str, bool)] {
    match slug {
        "async" => &[
            ("ranks", true),
            ("size", true),
            ("host enqueue (µs)", true),
            ("Work.wait host (µs)", true),
            ("GPU dependency (µs)", true),
            ("GPU P95 (µs)", true),
            ("GPU CV", true),
            ("done at return", true),
            ("event ready after wait", true),
            ("correct", false),
        ],
        "decomposition" => &[
            ("ranks", true),
            ("size", true),
            ("mode", false),
            ("cycles", true),
            ("median (µs)", true),
            ("P95 (µs)", true),
            ("CV", true),
            ("overhead vs AllReduce", true),
            ("host issue · device-only (µs)", false),
        ],
        "fragmentation" => &[
            ("ranks", true),
            ("calls", true),
            ("bytes/call", true),
            ("median total (µs)", true),
            ("P95 (µs)", true),
            ("min (µs)", true),
            ("max (µs)", true),
            ("slowdown vs one call", true),
            ("per call (µs)", true),
            ("CV", true),
            ("slower in every cycle", false),
            ("host issue · device-only (µs)", false),
        ],
        "decode" => &[
            ("TP", true),
            ("tokens", true),
            ("bytes/call", true),
            ("calls", true),
            ("median total (µs)", true),
            ("P95 (µs)", true),
            ("per call (µs)", true),
            ("CV", true),
            ("host issue · device-only (µs)", false),
        ],
        "nccl-tests" => &[
            ("ranks", true),
            ("size", true),
            ("cycles", true),
            ("median (µs)", true),
            ("P95 (µs)", true),
            ("algbw (GB/s)", true),
            ("busbw (GB/s)", true),
            ("CV", true),
            ("wrong", true),
        ],
        "numerics" => &[
            ("ranks", true),
            ("scenario", false),
            ("placements", true),
            ("FP16 mismatches", true),
            ("FP16 non-finite", true),
            ("FP32 mismatches", true),
            ("FP16 results", false),
        ],
        _ => &[],
    }
}

fn t(text: impl Into<String>) -> Cell {
    Cell::text(text)
}

fn ok_cell(ok: bool) -> Cell {
    Cell { text: yes_no(ok).to_string(), href: None, class: if ok { "" } else { "failed" } }
}

fn rows_of(run: &RunDigest, slug: &str) -> Vec<Vec<Cell>> {
    match slug {
        "async" => run.async_rows.iter().flatten().map(async_row).collect(),
        "decomposition" => run.decomposition.iter().flatten().map(decomposition_row).collect(),
        "fragmentation" => run.fragmentation.iter().flatten().map(fragmentation_row).collect(),
        "decode" => run.decode.iter().flatten().map(decode_row).collect(),
        "nccl-tests" => run.nccl_tests.iter().flatten().map(nccl_row).collect(),
        "numerics" => run.numerics.iter().flatten().map(numeric_row).collect(),
        _ => Vec::new(),
    }
}

fn async_row(r: &AsyncSummary) -> Vec<Cell> {
    vec![
        t(r.world_size.to_string()),
        t(bytes(r.size_bytes)),
        t(num3(r.median_host_enqueue_us)),
        t(num3(r.median_host_wait_us)),
        t(num3(r.median_gpu_dependency_us)),
        t(num3(r.p95_gpu_dependency_us)),
        t(pct2(r.gpu_cv_percent)),
        t(rate(r.work_completed_after_return_rate)),
        t(rate(r.event_ready_after_wait_rate)),
        ok_cell(r.correct),
    ]
}

fn decomposition_row(r: &DecompositionSummary) -> Vec<Cell> {
    vec![
        t(r.world_size.to_string()),
        t(bytes(r.size_bytes)),
        t(r.mode.clone()),
        t(r.cycles.to_string()),
        t(num3(r.median_duration_us)),
        t(num3(r.p95_duration_us)),
        t(pct2(r.cv_percent)),
        t(r.overhead_vs_allreduce_percent.map_or("n/a".into(), pct2)),
        clocks_cell(r.clocks.as_ref(), r.median_duration_us),
    ]
}

fn fragmentation_row(r: &FragmentationSummary) -> Vec<Cell> {
    vec![
        t(r.world_size.to_string()),
        t(r.fragment_count.to_string()),
        t(bytes(r.fragment_bytes)),
        t(num3(r.median_duration_us)),
        t(num3(r.p95_duration_us)),
        t(num3(r.min_duration_us)),
        t(num3(r.max_duration_us)),
        t(r.slowdown_vs_one_collective.map_or("n/a".into(), |s| format!("{}x", crate::export::pyfmt::fixed(s, 2)))),
        t(num3(r.median_per_collective_us)),
        t(pct2(r.cv_percent)),
        t(r.strictly_slower_than_one_in_all_cycles.map_or("n/a", yes_no)),
        clocks_cell(r.clocks.as_ref(), r.median_duration_us),
    ]
}

fn decode_row(r: &DecodeSummary) -> Vec<Cell> {
    vec![
        t(r.world_size.to_string()),
        t(r.tokens.to_string()),
        t(bytes(r.message_bytes)),
        t(r.collectives.to_string()),
        t(num3(r.median_total_us)),
        t(num3(r.p95_total_us)),
        t(num3(r.median_per_collective_us)),
        t(pct2(r.cv_percent)),
        clocks_cell(r.clocks.as_ref(), r.median_total_us),
    ]
}

/// The worker's host issue and device-only medians beside the span; a span within 10 % of
/// the host issue time is marked host-bound. `n/a` for runs recorded before those clocks.
fn clocks_cell(clocks: Option<&Clocks>, median_span_us: f64) -> Cell {
    let Some(c) = clocks else {
        return t("n/a");
    };
    let both = format!("{} · {}", num3(c.median_host_issue_us), c.median_device_us.map_or("n/a".into(), num3));
    if c.host_bound(median_span_us) {
        Cell {
            text: format!("{both} — host-bound: this measures Python/PyTorch launch rate, not NCCL"),
            href: None,
            class: "host-bound",
        }
    } else {
        t(both)
    }
}

fn nccl_row(r: &NcclTestsSummary) -> Vec<Cell> {
    let wrong = if r.unchecked { format!("{} (some N/A)", r.wrong_total) } else { r.wrong_total.to_string() };
    vec![
        t(r.world_size.to_string()),
        t(bytes(r.size_bytes as i64)),
        t(r.cycles.to_string()),
        t(num3(r.median_time_us)),
        t(num3(r.p95_time_us)),
        t(num3(r.median_algbw_gbs)),
        t(num3(r.median_busbw_gbs)),
        t(pct2(r.cv_percent)),
        Cell { text: wrong, href: None, class: if r.wrong_total > 0 { "failed" } else { "" } },
    ]
}

fn numeric_row(r: &NumericSummary) -> Vec<Cell> {
    vec![
        t(r.world_size.map_or("?".into(), |w| w.to_string())),
        t(r.scenario.clone()),
        t(r.cases.to_string()),
        t(r.fp16_mismatch_count.to_string()),
        t(r.fp16_nonfinite_count.to_string()),
        Cell {
            text: r.fp32_mismatch_count.to_string(),
            href: None,
            class: if r.fp32_mismatch_count > 0 { "failed" } else { "" },
        },
        t(r.unique_fp16_results.clone()),
    ]
}

/// Chart specs of one section, with one series per (label prefix, case) so that the same
/// function serves a run page (prefix empty) and a section page (prefix = run id).
pub fn charts(runs: &[(&RunDigest, String)], slug: &str, id_prefix: &str) -> Vec<ChartSpec> {
    let label = |run: &RunDigest, what: String| {
        if runs.len() > 1 {
            format!("{} · {what}", run.id)
        } else {
            what
        }
    };
    let spec =
        |id: &str, title: &str, x: &str, y: &str, xs: Scale, ys: Scale, series: Vec<Series>, desc: &str| ChartSpec {
            id: format!("{id_prefix}{id}"),
            title: title.to_string(),
            x_label: x.to_string(),
            y_label: y.to_string(),
            x_scale: xs,
            y_scale: ys,
            series,
            description: desc.to_string(),
        };
    let spread_note = "Lines join the medians over cycles; whiskers span the fastest cycle to P95; dots are individual cycles (each the slowest rank's value).";
    match slug {
        "async" => {
            let mut series = Vec::new();
            for (run, _) in runs {
                for ws in world_sizes(run.async_rows.iter().flatten().map(|r| r.world_size)) {
                    let rows: Vec<&AsyncSummary> =
                        run.async_rows.iter().flatten().filter(|r| r.world_size == ws).collect();
                    let mk = |name: &str, f: fn(&AsyncSummary) -> &Vec<f64>| Series {
                        name: label(run, format!("{name}, {ws} ranks")),
                        points: rows.iter().map(|r| point(r.size_bytes as f64, f(r), 1.0)).collect(),
                    };
                    series.push(mk("GPU dependency", |r| &r.gpu_cycles));
                    series.push(mk("host enqueue", |r| &r.enqueue_cycles));
                    series.push(mk("Work.wait host", |r| &r.wait_cycles));
                }
            }
            vec![spec(
                "async-times",
                "Async all_reduce: host enqueue, Work.wait and GPU dependency time",
                "message size (bytes)",
                "time (µs)",
                Scale::Log2,
                Scale::Log10,
                series,
                &format!("Time against message size for three measurements of an async all_reduce. {spread_note}"),
            )]
        }
        "decomposition" => {
            let mut times = Vec::new();
            let mut overhead = Vec::new();
            for (run, _) in runs {
                let rows: Vec<&DecompositionSummary> = run.decomposition.iter().flatten().collect();
                let mut keys: Vec<(i64, String)> = rows.iter().map(|r| (r.world_size, r.mode.clone())).collect();
                keys.sort();
                keys.dedup();
                for (ws, mode) in keys {
                    let of_mode: Vec<&&DecompositionSummary> =
                        rows.iter().filter(|r| r.world_size == ws && r.mode == mode).collect();
                    times.push(Series {
                        name: label(run, format!("{mode}, {ws} ranks")),
                        points: of_mode.iter().map(|r| point(r.size_bytes as f64, &r.cycle_values, 1.0)).collect(),
                    });
                    if mode != "direct" {
                        overhead.push(Series {
                            name: label(run, format!("{mode}, {ws} ranks")),
                            points: of_mode
                                .iter()
                                .filter_map(|r| r.overhead_vs_allreduce_percent.map(|o| plain(r.size_bytes as f64, o)))
                                .collect(),
                        });
                    }
                }
            }
            vec![
                spec(
                    "decomposition-times",
                    "AllReduce vs ReduceScatter + AllGather: time",
                    "message size (bytes)",
                    "time (µs)",
                    Scale::Log2,
                    Scale::Log10,
                    times,
                    &format!("Duration of one AllReduce (direct) and of ReduceScatter followed by AllGather, against message size. {spread_note}"),
                ),
                spec(
                    "decomposition-overhead",
                    "Overhead of ReduceScatter + AllGather over AllReduce",
                    "message size (bytes)",
                    "overhead (%)",
                    Scale::Log2,
                    Scale::Linear,
                    overhead,
                    "Median of the decomposed pair over the median AllReduce of the same size, minus one, in percent.",
                ),
            ]
        }
        "fragmentation" => {
            let mut totals = Vec::new();
            let mut slowdowns = Vec::new();
            for (run, _) in runs {
                for ws in world_sizes(run.fragmentation.iter().flatten().map(|r| r.world_size)) {
                    let rows: Vec<&FragmentationSummary> =
                        run.fragmentation.iter().flatten().filter(|r| r.world_size == ws).collect();
                    let name = label(run, format!("{ws} ranks"));
                    totals.push(Series {
                        name: name.clone(),
                        points: rows.iter().map(|r| point(r.fragment_count as f64, &r.cycle_values, 1.0)).collect(),
                    });
                    slowdowns.push(Series {
                        name,
                        points: rows
                            .iter()
                            .filter_map(|r| r.slowdown_vs_one_collective.map(|s| plain(r.fragment_count as f64, s)))
                            .collect(),
                    });
                }
            }
            vec![
                spec(
                    "fragmentation-total",
                    "80 MiB payload: total time against number of calls",
                    "collectives per payload (calls)",
                    "total time (µs)",
                    Scale::Log2,
                    Scale::Log10,
                    totals,
                    &format!("Total time to all-reduce the whole payload when split into more calls. {spread_note}"),
                ),
                spec(
                    "fragmentation-slowdown",
                    "Slowdown against one call",
                    "collectives per payload (calls)",
                    "slowdown (x)",
                    Scale::Log2,
                    Scale::Linear,
                    slowdowns,
                    "Median total time over the median of the single-call case.",
                ),
            ]
        }
        "decode" => {
            let mut series = Vec::new();
            for (run, _) in runs {
                for ws in world_sizes(run.decode.iter().flatten().map(|r| r.world_size)) {
                    let rows: Vec<&DecodeSummary> =
                        run.decode.iter().flatten().filter(|r| r.world_size == ws).collect();
                    series.push(Series {
                        name: label(run, format!("TP={ws}")),
                        points: rows
                            .iter()
                            .map(|r| point(r.tokens as f64, &r.cycle_values, 1.0 / r.collectives.max(1) as f64))
                            .collect(),
                    });
                }
            }
            vec![spec(
                "decode-per-call",
                "Decode replay: AllReduce latency per call",
                "tokens per step (tokens x 4096 FP16)",
                "time per call (µs)",
                Scale::Log2,
                Scale::Linear,
                series,
                &format!("Per-call latency (total replay time over the number of calls) against tokens, one line per tensor-parallel size. {spread_note}"),
            )]
        }
        "nccl-tests" => {
            let mut times = Vec::new();
            let mut busbw = Vec::new();
            for (run, _) in runs {
                let raw = run.nccl_tests_raw.iter().flatten();
                let mut keys: Vec<u64> = raw.clone().map(|r| r.world_size).collect();
                keys.sort();
                keys.dedup();
                for ws in keys {
                    let mut sizes: Vec<u64> =
                        raw.clone().filter(|r| r.world_size == ws).map(|r| r.size_bytes).collect();
                    sizes.sort();
                    sizes.dedup();
                    let name = label(run, format!("{ws} ranks"));
                    let values = |size: u64, f: fn(&NcclTestsRawRow) -> f64| -> Vec<f64> {
                        raw.clone().filter(|r| r.world_size == ws && r.size_bytes == size).map(f).collect()
                    };
                    times.push(Series {
                        name: name.clone(),
                        points: sizes.iter().map(|&s| point(s as f64, &values(s, |r| r.time_us), 1.0)).collect(),
                    });
                    busbw.push(Series {
                        name,
                        points: sizes.iter().map(|&s| point(s as f64, &values(s, |r| r.busbw_gbs), 1.0)).collect(),
                    });
                }
            }
            vec![
                spec(
                    "nccl-tests-time",
                    "all_reduce_perf: out-of-place time against size",
                    "message size (bytes)",
                    "time (µs)",
                    Scale::Log2,
                    Scale::Log10,
                    times,
                    &format!(
                        "nccl-tests time per size (each value is nccl-tests' mean over its iterations). {spread_note}"
                    ),
                ),
                spec(
                    "nccl-tests-busbw",
                    "all_reduce_perf: out-of-place bus bandwidth against size",
                    "message size (bytes)",
                    "bus bandwidth (GB/s)",
                    Scale::Log2,
                    Scale::Linear,
                    busbw,
                    "Bus bandwidth (algbw x 2(n-1)/n for AllReduce) per size; with one rank it is 0.",
                ),
            ]
        }
        _ => Vec::new(),
    }
}

fn world_sizes(values: impl Iterator<Item = i64>) -> Vec<i64> {
    let mut sizes: Vec<i64> = values.collect();
    sizes.sort();
    sizes.dedup();
    sizes
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn host_bound_cases_are_marked_with_both_numbers() {
        let clocks =
            Clocks { median_host_issue_us: 3960.0, median_device_us: Some(1.3), queued_cycles: 30, cycles: 30 };
        let bound = clocks_cell(Some(&clocks), 4010.0);
        assert_eq!(bound.class, "host-bound");
        assert!(bound.text.starts_with("3960.000 · 1.300 — host-bound"), "{}", bound.text);
        let free = clocks_cell(Some(&clocks), 4400.0);
        assert_eq!((free.text.as_str(), free.class), ("3960.000 · 1.300", ""));
        assert_eq!(clocks_cell(None, 1.0).text, "n/a");
        let unqueued = Clocks { median_device_us: None, ..clocks };
        assert!(clocks_cell(Some(&unqueued), 9000.0).text.ends_with("· n/a"));
    }
}
