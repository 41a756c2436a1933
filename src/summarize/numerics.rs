//! FP16 reduction-order counterexamples (`numeric_summary.csv`): rank 0's rows per scenario,
//! counts of mismatches and non-finite FP16 results, the `/`-joined unique FP16 outputs.

use crate::model::sections::{parse_py_float, NumericsRow};
use crate::model::summary::NumericSummary;
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
