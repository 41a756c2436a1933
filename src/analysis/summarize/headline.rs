//! The index's headline figures of a run, computed here so that the site only formats them:
//! the decode latency of the smallest-token step per TP size, and the nccl-tests busbw at the
//! largest size with the size named (or, for a one-rank run, the decode latency: its busbw is
//! 0 by definition). Uses `model`, `nccl_perf`, `stats` and `format`.

use crate::analysis::nccl_perf::run::{run_headline, RunNcclPerf};
use crate::analysis::stats::known_cv;
use crate::core::format::measured;
use crate::core::model::summary::DecodeSummary;

/// Median per-call latency (µs) of the smallest-token decode step, per TP size: `TP2 12.3`,
/// with as many figures as its spread supports (`format::measured`).
pub fn decode_headline(decode: Option<&[DecodeSummary]>) -> String {
    let rows = decode.unwrap_or_default();
    let Some(min_tokens) = rows.iter().map(|r| r.tokens).min() else { return String::new() };
    rows.iter()
        .filter(|r| r.tokens == min_tokens)
        .map(|r| format!("TP{} {}", r.world_size, per_call(r)))
        .collect::<Vec<_>>()
        .join(" · ")
}

/// The nccl-tests headline (see `nccl_perf::run::run_headline`), with the one-rank decode
/// latency taken from `decode`.
pub fn busbw_headline(perf: Option<&RunNcclPerf>, decode: Option<&[DecodeSummary]>) -> String {
    let one_rank = decode.unwrap_or_default().iter().filter(|r| r.world_size == 1).min_by_key(|r| r.tokens);
    run_headline(perf, one_rank.map(per_call))
}

fn per_call(row: &DecodeSummary) -> String {
    measured(row.median_per_collective_us, known_cv(row.cycles, row.cv_percent))
}
