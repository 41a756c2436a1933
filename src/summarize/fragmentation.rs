//! One payload split into many collectives (`fragmentation_summary.csv`): critical-path
//! total time per fragment count, slowdown against one call, strictly-slower flag.
//!
//! The seed compares every case with the first `fragment_count == 1` case it meets; with
//! several world sizes or payloads in one run that mixes baselines, so nccl-report takes the
//! baseline of the same (world size, total bytes). For the seed's layout (one world size, one
//! payload) the two are the same.

use crate::diag::Diagnostic;
use crate::model::sections::FragmentationRow;
use crate::model::summary::FragmentationSummary;
use crate::stats::{critical_cycles, cv_percent, median, percentile, py_max, py_min};
use crate::summarize::clocks;

type Key = (i64, i64, i64, i64);

pub fn summarize(rows: &[&FragmentationRow], diagnostics: &mut Vec<Diagnostic>) -> Vec<FragmentationSummary> {
    let mut groups = critical_cycles(
        rows,
        |r| (r.world_size, r.total_bytes, r.fragment_count, r.fragment_bytes),
        |r| r.cycle,
        |r| r.duration_us,
    );
    let base_of = |key: &Key, groups: &[(Key, Vec<f64>)]| {
        groups.iter().find(|(k, _)| k.0 == key.0 && k.1 == key.1 && k.2 == 1).map(|(_, v)| v.clone())
    };
    let bases: Vec<Option<Vec<f64>>> = groups.iter().map(|(k, _)| base_of(k, &groups)).collect();
    let mut indexed: Vec<usize> = (0..groups.len()).collect();
    indexed.sort_by_key(|&i| groups[i].0 .2);
    let mut reported = false;
    indexed
        .into_iter()
        .map(|i| {
            let ((world_size, total_bytes, fragment_count, fragment_bytes), values) = std::mem::take(&mut groups[i]);
            let median_us = median(&values);
            let base = bases[i].as_deref();
            if base.is_none() && !reported {
                reported = true;
                diagnostics.push(Diagnostic::warning(
                    "raw/results",
                    None,
                    "fragmentation: no fragment_count=1 case to compare with; slowdown left empty",
                ));
            }
            let key = (world_size, total_bytes, fragment_count, fragment_bytes);
            let clocks = clocks::summarize(
                rows.iter()
                    .filter(|r| (r.world_size, r.total_bytes, r.fragment_count, r.fragment_bytes) == key)
                    .map(|r| (r.cycle, r.host_issue_us, r.device_us, r.device_queued)),
            );
            FragmentationSummary {
                world_size,
                total_bytes,
                fragment_count,
                fragment_bytes,
                cycles: values.len(),
                median_duration_us: median_us,
                p95_duration_us: percentile(&values, 0.95),
                min_duration_us: py_min(&values),
                max_duration_us: py_max(&values),
                cv_percent: cv_percent(&values),
                slowdown_vs_one_collective: base.map(|b| median_us / median(b)),
                median_per_collective_us: median_us / fragment_count as f64,
                strictly_slower_than_one_in_all_cycles: if fragment_count == 1 {
                    Some(true)
                } else {
                    base.map(|b| py_min(&values) > py_max(b))
                },
                correct: true,
                cycle_values: values,
                clocks,
            }
        })
        .collect()
}
