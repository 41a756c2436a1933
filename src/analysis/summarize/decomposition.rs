//! AllReduce vs ReduceScatter+AllGather (`decomposition_summary.csv`): critical-path
//! duration per (world size, size, mode) and overhead against the `direct` mode.

use crate::analysis::stats::{critical_cycles, median, Spread};
use crate::analysis::summarize::clocks;
use crate::core::diag::{Code, Diagnostic};
use crate::core::model::sections::DecompositionRow;
use crate::core::model::summary::DecompositionSummary;

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
        .filter_map(|i| {
            let ((world_size, size_bytes, mode), values) = std::mem::take(&mut groups[i]);
            let spread = Spread::of(&values)?;
            let overhead = baselines[i].map(|direct| (spread.median / direct - 1.0) * 100.0);
            if overhead.is_none() {
                missing.push(format!("world_size={world_size} size_bytes={size_bytes}"));
            }
            let clocks = clocks::summarize(
                rows.iter()
                    .filter(|r| (r.world_size, r.size_bytes, r.mode.as_str()) == (world_size, size_bytes, mode))
                    .map(|r| (r.cycle, r.host_issue_us, r.device_us, r.device_queued)),
            );
            Some(DecompositionSummary {
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
            })
        })
        .collect();
    missing.dedup();
    for case in missing {
        diagnostics.push(Diagnostic::warning(
            Code::NoDirectMode,
            "raw/results",
            None,
            format!("decomposition: no `direct` mode for {case}; overhead left empty"),
        ));
    }
    summaries
}

#[cfg(test)]
mod tests {
    use super::*;

    fn row(size: i64, mode: &str, cycle: i64, duration_us: f64) -> DecompositionRow {
        DecompositionRow {
            world_size: 4,
            size_bytes: size,
            mode: mode.to_string(),
            cycle,
            duration_us,
            host_issue_us: None,
            device_us: None,
            device_queued: None,
        }
    }

    #[test]
    fn critical_path_and_overhead_against_direct_as_the_seed() {
        // Two ranks; sorted by (size, mode) whatever the order of the rows.
        let rows: Vec<DecompositionRow> = [
            (4096, "direct", 0, 100.0),
            (4096, "direct", 0, 104.0),
            (4096, "direct", 1, 98.0),
            (4096, "direct", 1, 97.5),
            (4096, "direct", 2, 101.0),
            (4096, "direct", 2, 99.0),
            (4096, "rs_ag", 0, 130.0),
            (4096, "rs_ag", 0, 128.0),
            (4096, "rs_ag", 1, 125.5),
            (4096, "rs_ag", 1, 127.0),
            (4096, "rs_ag", 2, 140.0),
            (4096, "rs_ag", 2, 120.0),
            (1024, "rs_ag", 0, 30.0),
            (1024, "rs_ag", 0, 31.0),
            (1024, "rs_ag", 1, 29.0),
            (1024, "rs_ag", 1, 33.0),
            (1024, "direct", 0, 20.0),
            (1024, "direct", 0, 21.0),
            (1024, "direct", 1, 22.5),
            (1024, "direct", 1, 19.0),
        ]
        .into_iter()
        .map(|(s, m, c, d)| row(s, m, c, d))
        .collect();
        let refs: Vec<&DecompositionRow> = rows.iter().collect();
        let mut diagnostics = Vec::new();
        let out = summarize(&refs, &mut diagnostics);
        // Expected values: tests/fixtures/summarizer_oracle.py (the seed's decomposition loop).
        let expect = [
            (1024, "direct", vec![21.0, 22.5], 21.75, 22.5, 3.4482758620689653, 0.0),
            (1024, "rs_ag", vec![31.0, 33.0], 32.0, 33.0, 3.125, 47.12643678160919),
            (4096, "direct", vec![104.0, 98.0, 101.0], 101.0, 104.0, 2.425237369092255, 0.0),
            (4096, "rs_ag", vec![130.0, 127.0, 140.0], 130.0, 140.0, 4.199831738169538, 28.712871287128717),
        ];
        assert_eq!(out.len(), 4);
        assert!(diagnostics.is_empty(), "{diagnostics:?}");
        for (size, mode, values, median, p95, cv, overhead) in &expect {
            let numbers = [values.as_slice(), &[*median, *p95, *cv, *overhead]].concat();
            super::super::assert_in_oracle(&format!("decomposition ('4', '{size}', '{mode}')"), &numbers);
        }
        for (s, (size, mode, values, median, p95, cv, overhead)) in out.iter().zip(expect) {
            assert_eq!((s.world_size, s.size_bytes, s.mode.as_str(), s.cycles), (4, size, mode, values.len()));
            assert_eq!(s.cycle_values, values);
            assert_eq!((s.median_duration_us, s.p95_duration_us), (median, p95));
            assert_eq!(s.overhead_vs_allreduce_percent, Some(overhead));
            assert!(s.correct);
            // CV only within 1e-12: the seed's pstdev sums exact rationals, ours f64.
            assert!((s.cv_percent - cv).abs() <= 1e-12 * cv, "{} vs {cv}", s.cv_percent);
        }
    }

    #[test]
    fn a_size_without_direct_mode_is_a_warning_and_no_overhead() {
        // The seed stops with a KeyError here; nccl-report keeps the row and says why.
        let rows = [row(2048, "rs_ag", 0, 10.0), row(2048, "rs_ag", 1, 12.0)];
        let refs: Vec<&DecompositionRow> = rows.iter().collect();
        let mut diagnostics = Vec::new();
        let out = summarize(&refs, &mut diagnostics);
        assert_eq!(out.len(), 1);
        assert_eq!(out[0].overhead_vs_allreduce_percent, None);
        assert_eq!(diagnostics.len(), 1);
        assert_eq!(diagnostics[0].severity, crate::core::diag::Severity::Warning);
        assert!(diagnostics[0].message.contains("world_size=4 size_bytes=2048"), "{}", diagnostics[0].message);
    }
}
