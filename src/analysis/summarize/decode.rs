//! Decode-time tensor-parallel AllReduce replay (`decode_summary.csv`): critical-path total
//! time of `collectives` AllReduces per (world size, tokens), per case folder as the seed.

use crate::analysis::stats::{critical_cycles, Spread};
use crate::analysis::summarize::clocks;
use crate::core::model::sections::DecodeRow;
use crate::core::model::summary::DecodeSummary;

/// The seed's fixed hidden size of the replayed tensors (tokens x 4096 FP16).
pub const HIDDEN_SIZE: i64 = 4096;

/// Summarizes the decode rows of the case folder `case_folder`.
pub fn summarize(case_folder: &str, rows: &[&DecodeRow]) -> Vec<DecodeSummary> {
    let mut groups = critical_cycles(
        rows,
        |r| (r.world_size, r.tokens, r.message_bytes, r.collectives),
        |r| r.cycle,
        |r| r.duration_us,
    );
    groups.sort_by_key(|(k, _)| (k.0, k.1));
    groups
        .into_iter()
        .filter_map(|((world_size, tokens, message_bytes, collectives), values)| {
            let spread = Spread::of(&values)?;
            let key = (world_size, tokens, message_bytes, collectives);
            let clocks = clocks::summarize(
                rows.iter()
                    .filter(|r| (r.world_size, r.tokens, r.message_bytes, r.collectives) == key)
                    .map(|r| (r.cycle, r.host_issue_us, r.device_us, r.device_queued)),
            );
            Some(DecodeSummary {
                case_folder: case_folder.to_string(),
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
                clocks,
            })
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn row(tokens: i64, cycle: i64, duration_us: f64) -> DecodeRow {
        DecodeRow {
            world_size: 2,
            tokens,
            message_bytes: tokens * 8192,
            collectives: 160,
            cycle,
            duration_us,
            host_issue_us: None,
            device_us: None,
            device_queued: None,
        }
    }

    #[test]
    fn critical_path_spread_per_tokens_as_the_seed() {
        // Two ranks, three cycles, tokens 8 listed before 1 (the seed sorts by tokens).
        let rows: Vec<DecodeRow> = [
            (8, 0, 40.0),
            (8, 0, 41.0),
            (8, 1, 39.5),
            (8, 1, 45.25),
            (8, 2, 44.0),
            (8, 2, 43.0),
            (1, 0, 10.0),
            (1, 0, 11.5),
            (1, 1, 12.25),
            (1, 1, 9.0),
            (1, 2, 30.0),
            (1, 2, 29.5),
        ]
        .into_iter()
        .map(|(t, c, d)| row(t, c, d))
        .collect();
        let refs: Vec<&DecodeRow> = rows.iter().collect();
        let out = summarize("world2_decode", &refs);
        // Expected values (tests/fixtures/summarizer_oracle.py): the seed's decode loop (seed_runner.py, `critical_cycles`,
        // `statistics.median`, `percentile`, `min`, `max`, `cv_percent`) on the same rows.
        let expect = [
            (1, [11.5, 12.25, 30.0], 12.25, 30.0, 11.5, 30.0, 47.719207548579, 0.0765625),
            (8, [41.0, 45.25, 44.0], 44.0, 45.25, 41.0, 45.25, 4.107664982539865, 0.275),
        ];
        assert_eq!(out.len(), 2);
        for (tokens, cycles, median, p95, min, max, cv, per_call) in &expect {
            let key = format!("decode ('2', '{tokens}', '{}', '160')", tokens * 8192);
            super::super::assert_in_oracle(
                &key,
                &[cycles.as_slice(), &[*median, *p95, *min, *max, *cv, *per_call]].concat(),
            );
        }
        for (s, (tokens, cycles, median, p95, min, max, cv, per_call)) in out.iter().zip(expect) {
            assert_eq!((s.world_size, s.tokens, s.hidden_size, s.collectives, s.cycles), (2, tokens, 4096, 160, 3));
            assert_eq!(s.cycle_values, cycles);
            assert_eq!((s.median_total_us, s.p95_total_us, s.min_total_us, s.max_total_us), (median, p95, min, max));
            assert_eq!(s.median_per_collective_us, per_call);
            // CV only within 1e-12: the seed's pstdev sums exact rationals, ours f64.
            assert!((s.cv_percent - cv).abs() <= 1e-12 * cv, "{} vs {cv}", s.cv_percent);
        }
    }
}
