//! One payload split into many collectives (`fragmentation_summary.csv`): critical-path
//! total time per fragment count, slowdown against one call, strictly-slower flag.
//!
//! The seed compares every case with the first `fragment_count == 1` case it meets; with
//! several world sizes or payloads in one run that mixes baselines, so nccl-report takes the
//! baseline of the same (world size, total bytes). For the seed's layout (one world size, one
//! payload) the two are the same.

use crate::analysis::stats::{critical_cycles, median, py_max, Spread};
use crate::analysis::summarize::clocks;
use crate::core::diag::{Code, Diagnostic};
use crate::core::model::sections::FragmentationRow;
use crate::core::model::summary::FragmentationSummary;

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
        .filter_map(|i| {
            let ((world_size, total_bytes, fragment_count, fragment_bytes), values) = std::mem::take(&mut groups[i]);
            let spread = Spread::of(&values)?;
            let base = bases[i].as_deref();
            if base.is_none() && !reported {
                reported = true;
                diagnostics.push(Diagnostic::warning(
                    Code::NoFragmentBase,
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
            Some(FragmentationSummary {
                world_size,
                total_bytes,
                fragment_count,
                fragment_bytes,
                cycles: spread.n,
                median_duration_us: spread.median,
                p95_duration_us: spread.p95,
                min_duration_us: spread.min,
                max_duration_us: spread.max,
                cv_percent: spread.cv_percent,
                slowdown_vs_one_collective: base.map(|b| spread.median / median(b)),
                median_per_collective_us: spread.median / fragment_count as f64,
                strictly_slower_than_one_in_all_cycles: if fragment_count == 1 {
                    Some(true)
                } else {
                    base.and_then(py_max).map(|base_max| spread.min > base_max)
                },
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

    #[test]
    fn slowdown_and_strictly_slower_against_the_one_call_case_as_the_seed() {
        let total = 83_886_080;
        let rows: Vec<FragmentationRow> = [
            (4, 0, 120.0),
            (4, 0, 103.0),
            (4, 1, 101.0),
            (4, 1, 100.5),
            (4, 2, 130.0),
            (4, 2, 110.0),
            (1, 0, 100.0),
            (1, 0, 101.0),
            (1, 1, 99.0),
            (1, 1, 98.0),
            (1, 2, 102.5),
            (1, 2, 100.0),
        ]
        .into_iter()
        .map(|(count, cycle, duration_us)| FragmentationRow {
            world_size: 4,
            total_bytes: total,
            fragment_count: count,
            fragment_bytes: total / count,
            cycle,
            duration_us,
            host_issue_us: None,
            device_us: None,
            device_queued: None,
        })
        .collect();
        let refs: Vec<&FragmentationRow> = rows.iter().collect();
        let mut diagnostics = Vec::new();
        let out = summarize(&refs, &mut diagnostics);
        assert!(diagnostics.is_empty(), "{diagnostics:?}");
        // Expected values (tests/fixtures/summarizer_oracle.py): the seed's fragmentation loop (seed_runner.py) on the same rows.
        let expect = [
            (1, 101.0, 102.5, 99.0, 102.5, 1.4218719449657236, 1.0, 101.0, true),
            (4, 120.0, 130.0, 101.0, 130.0, 10.280124531435167, 1.188118811881188, 30.0, false),
        ];
        assert_eq!(out.len(), 2);
        for (count, median, p95, min, max, cv, slowdown, per_call, _) in &expect {
            let key = format!("frag ('4', '{total}', '{count}', '{}')", total / count);
            super::super::assert_in_oracle(&key, &[*median, *p95, *min, *max, *cv, *slowdown, *per_call]);
        }
        for (s, (count, median, p95, min, max, cv, slowdown, per_call, slower)) in out.iter().zip(expect) {
            assert_eq!((s.fragment_count, s.fragment_bytes, s.cycles), (count, total / count, 3));
            assert_eq!(
                (s.median_duration_us, s.p95_duration_us, s.min_duration_us, s.max_duration_us),
                (median, p95, min, max)
            );
            assert_eq!(s.slowdown_vs_one_collective, Some(slowdown));
            assert_eq!(s.median_per_collective_us, per_call);
            assert_eq!(s.strictly_slower_than_one_in_all_cycles, Some(slower));
            // CV only within 1e-12: the seed's pstdev sums exact rationals, ours f64.
            assert!((s.cv_percent - cv).abs() <= 1e-12 * cv, "{} vs {cv}", s.cv_percent);
        }
    }
}
