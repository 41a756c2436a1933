//! Decode-time tensor-parallel AllReduce replay (`decode_summary.csv`): critical-path total
//! time of `collectives` AllReduces per (world size, tokens), per case folder as the seed.

use crate::model::sections::DecodeRow;
use crate::model::summary::DecodeSummary;
use crate::stats::{critical_cycles, cv_percent, median, percentile, py_max, py_min};
use crate::summarize::clocks;

/// The seed's fixed hidden size of the replayed tensors (tokens x 4096 FP16).
pub const HIDDEN_SIZE: i64 = 4096;

/// Summarizes the decode rows of one case folder.
pub fn summarize(rows: &[&DecodeRow]) -> Vec<DecodeSummary> {
    let mut groups = critical_cycles(
        rows,
        |r| (r.world_size, r.tokens, r.message_bytes, r.collectives),
        |r| r.cycle,
        |r| r.duration_us,
    );
    groups.sort_by_key(|(k, _)| (k.0, k.1));
    groups
        .into_iter()
        .map(|((world_size, tokens, message_bytes, collectives), values)| {
            let median_us = median(&values);
            let key = (world_size, tokens, message_bytes, collectives);
            let clocks = clocks::summarize(
                rows.iter()
                    .filter(|r| (r.world_size, r.tokens, r.message_bytes, r.collectives) == key)
                    .map(|r| (r.cycle, r.host_issue_us, r.device_us, r.device_queued)),
            );
            DecodeSummary {
                world_size,
                tokens,
                hidden_size: HIDDEN_SIZE,
                message_bytes,
                collectives,
                cycles: values.len(),
                median_total_us: median_us,
                p95_total_us: percentile(&values, 0.95),
                min_total_us: py_min(&values),
                max_total_us: py_max(&values),
                cv_percent: cv_percent(&values),
                median_per_collective_us: median_us / collectives as f64,
                correct: true,
                cycle_values: values,
                clocks,
            }
        })
        .collect()
}
