//! FP16 reduction-order counterexamples (`numeric_summary.csv`): rank 0's rows per scenario,
//! counts of mismatches and non-finite FP16 results, the `/`-joined unique FP16 outputs.

use crate::core::model::sections::{parse_py_float, NumericsRow};
use crate::core::model::summary::NumericSummary;
use std::collections::{BTreeMap, BTreeSet};

pub fn summarize(rows: &[&NumericsRow]) -> Vec<NumericSummary> {
    let mut groups: BTreeMap<&str, Vec<&NumericsRow>> = BTreeMap::new();
    for row in rows.iter().filter(|r| r.rank == 0) {
        groups.entry(row.scenario.as_str()).or_default().push(row);
    }
    groups
        .into_iter()
        .map(|(scenario, rows)| {
            let fp32_mismatch_count = rows.iter().filter(|r| !r.fp32_matches_real_sum).count();
            let unique: BTreeSet<&str> = rows.iter().map(|r| r.fp16_result.as_str()).collect();
            NumericSummary {
                scenario: scenario.to_string(),
                cases: rows.len(),
                fp16_mismatch_count: rows.iter().filter(|r| !r.fp16_matches_real_sum).count(),
                fp16_nonfinite_count: rows
                    .iter()
                    .filter(|r| !parse_py_float(&r.fp16_result).is_some_and(f64::is_finite))
                    .count(),
                fp32_mismatch_count,
                unique_fp16_results: unique.into_iter().collect::<Vec<_>>().join("/"),
                correct_replication_and_fp32_reference: fp32_mismatch_count == 0,
                world_size: rows.iter().find_map(|r| r.world_size),
            }
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn row(rank: i64, scenario: &str, fp16_ok: bool, fp32_ok: bool, fp16_result: &str) -> NumericsRow {
        NumericsRow {
            rank,
            world_size: None,
            scenario: scenario.to_string(),
            fp16_matches_real_sum: fp16_ok,
            fp32_matches_real_sum: fp32_ok,
            fp16_result: fp16_result.to_string(),
        }
    }

    #[test]
    fn rank_zero_counts_per_scenario_as_the_seed() {
        let rows = [
            row(0, "sum_order", false, true, "inf"),
            row(0, "sum_order", true, true, "1.0"),
            row(0, "sum_order", false, true, "1.0"),
            row(1, "sum_order", false, false, "nan"),
            row(0, "cancel", true, false, "0.0"),
            row(0, "cancel", false, true, "nan"),
        ];
        let refs: Vec<&NumericsRow> = rows.iter().collect();
        let out = summarize(&refs);
        // Expected values: tests/fixtures/summarizer_oracle.py (the seed's numerics loop); rank
        // 1's row is not counted.
        let got: Vec<_> = out
            .iter()
            .map(|s| {
                (
                    s.scenario.as_str(),
                    s.cases,
                    s.fp16_mismatch_count,
                    s.fp16_nonfinite_count,
                    s.fp32_mismatch_count,
                    s.unique_fp16_results.as_str(),
                    s.correct_replication_and_fp32_reference,
                )
            })
            .collect();
        assert_eq!(got, [("cancel", 2, 1, 1, 1, "0.0/nan", false), ("sum_order", 3, 2, 1, 0, "1.0/inf", true)]);
        for (scenario, cases, mismatch, nonfinite, fp32, unique, correct) in got {
            let python = if correct { "True" } else { "False" };
            let line = format!("numerics {scenario} {cases} {mismatch} {nonfinite} {fp32} {unique} {python}");
            assert!(super::super::ORACLE.lines().any(|l| l == line), "{line:?} is not in summarizer_oracle.out");
        }
    }
}
