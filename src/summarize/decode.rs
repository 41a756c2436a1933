//! Decode-time tensor-parallel AllReduce replay (`decode_summary.csv`): critical-path total
//! time of `collectives` AllReduces per (world size, tokens), per case folder as the seed.

use crate::model::sections::DecodeRow;
use crate::model::summary::DecodeSummary;
use crate::stats::{critical_cycles, Spread};

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
            let spread = Spread::of(&values);
            DecodeSummary {
                world_size,
                tokens,
                hidden_size: HIDDEN_SIZE,
                message_bytes,
                collectives,
                cycles: spread.n,
                median_total_us: spread.median,
                p95_total_us: spread.p95,
                min_total_us: spread.min,
                max_total_us: spread.max,
                cv_percent: spread.cv_percent,
                median_per_collective_us: spread.median / collectives as f64,
                correct: true,
                cycle_values: values,
            }
        })
        .collect()
}
