//! AllReduce vs ReduceScatter+AllGather (`decomposition_summary.csv`): critical-path
//! duration per (world size, size, mode) and overhead against the `direct` mode.

use crate::diag::Diagnostic;
use crate::model::sections::DecompositionRow;
use crate::model::summary::DecompositionSummary;
use crate::stats::{critical_cycles, median, Spread};
use crate::summarize::clocks;

/// Critical-path values per (world size, size, mode), in first-seen order.
type Groups<'a> = [((i64, i64, &'a str), Vec<f64>)];

pub fn summarize(rows: &[&DecompositionRow], diagnostics: &mut Vec<Diagnostic>) -> Vec<DecompositionSummary> {
    let mut groups =
        critical_cycles(rows, |r| (r.world_size, r.size_bytes, r.mode.as_str()), |r| r.cycle, |r| r.duration_us);
    let direct_median = |world_size: i64, size_bytes: i64, groups: &Groups| {
        groups
            .iter()
            .find(|((w, s, m), _)| *w == world_size && *s == size_bytes && *m == "direct")
            .map(|(_, values)| median(values))
    };
    let baselines: Vec<Option<f64>> = groups.iter().map(|((w, s, _), _)| direct_median(*w, *s, &groups)).collect();
    let mut indexed: Vec<usize> = (0..groups.len()).collect();
    indexed.sort_by(|&a, &b| (groups[a].0 .1, groups[a].0 .2).cmp(&(groups[b].0 .1, groups[b].0 .2)));
    let mut missing = Vec::new();
    let summaries = indexed
        .into_iter()
        .map(|i| {
            let ((world_size, size_bytes, mode), values) = std::mem::take(&mut groups[i]);
            let spread = Spread::of(&values);
            let overhead = baselines[i].map(|direct| (spread.median / direct - 1.0) * 100.0);
            if overhead.is_none() {
                missing.push(format!("world_size={world_size} size_bytes={size_bytes}"));
            }
            let clocks = clocks::summarize(
                rows.iter()
                    .filter(|r| (r.world_size, r.size_bytes, r.mode.as_str()) == (world_size, size_bytes, mode))
                    .map(|r| (r.cycle, r.host_issue_us, r.device_us, r.device_queued)),
            );
            DecompositionSummary {
                world_size,
                size_bytes,
                mode: mode.to_string(),
                cycles: spread.n,
                median_duration_us: spread.median,
                p95_duration_us: spread.p95,
                cv_percent: spread.cv_percent,
                overhead_vs_allreduce_percent: overhead,
                correct: true,
                cycle_values: values,
                clocks,
            }
        })
        .collect();
    missing.dedup();
    for case in missing {
        diagnostics.push(Diagnostic::warning(
            "raw/results",
            None,
            format!("decomposition: no `direct` mode for {case}; overhead left empty"),
        ));
    }
    summaries
}
