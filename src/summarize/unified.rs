//! The seed's unified `summary.csv` rows, in the seed's section order.

use crate::model::summary::{Number, UnifiedRow};
use crate::summarize::RunSummary;

pub fn rows(run: &RunSummary) -> Vec<UnifiedRow> {
    let mut out = Vec::new();
    let timed = |section, world_size, case, metric, median, p95, cv, samples, correct| UnifiedRow {
        section,
        world_size: Some(world_size),
        case,
        metric,
        median: Number::Float(median),
        p95: Some(p95),
        cv_percent: Some(cv),
        samples,
        correct,
    };
    for r in run.sections.async_rows.iter().flatten() {
        out.push(timed(
            "async",
            r.world_size,
            format!("bytes={}", r.size_bytes),
            "gpu_dependency_us",
            r.median_gpu_dependency_us,
            r.p95_gpu_dependency_us,
            r.gpu_cv_percent,
            r.cycles,
            r.correct,
        ));
    }
    for r in run.sections.decomposition.iter().flatten() {
        out.push(timed(
            "decomposition",
            r.world_size,
            format!("bytes={};mode={}", r.size_bytes, r.mode),
            "duration_us",
            r.median_duration_us,
            r.p95_duration_us,
            r.cv_percent,
            r.cycles,
            true,
        ));
    }
    for r in run.sections.fragmentation.iter().flatten() {
        out.push(timed(
            "fragmentation",
            r.world_size,
            format!("count={};fragment_bytes={}", r.fragment_count, r.fragment_bytes),
            "duration_us_for_80MiB",
            r.median_duration_us,
            r.p95_duration_us,
            r.cv_percent,
            r.cycles,
            true,
        ));
    }
    for r in run.sections.decode.iter().flatten() {
        out.push(timed(
            "decode",
            r.world_size,
            format!("tokens={};bytes={};calls={}", r.tokens, r.message_bytes, r.collectives),
            "replay_total_us",
            r.median_total_us,
            r.p95_total_us,
            r.cv_percent,
            r.cycles,
            true,
        ));
    }
    for r in run.sections.nccl_tests.iter().flatten() {
        out.push(timed(
            "nccl_tests_decode_sizes",
            r.world_size as i64,
            format!("bytes={}", r.size_bytes),
            "time_us",
            r.median_time_us,
            r.p95_time_us,
            r.cv_percent,
            r.cycles,
            r.wrong_total == 0,
        ));
    }
    for r in run.sections.numerics.iter().flatten() {
        out.push(UnifiedRow {
            section: "numerics",
            world_size: r.world_size,
            case: r.scenario.clone(),
            metric: "fp16_mismatch_count",
            median: Number::Int(r.fp16_mismatch_count as i64),
            p95: None,
            cv_percent: None,
            samples: r.cases,
            correct: r.fp32_mismatch_count == 0,
        });
    }
    out
}
