//! The noise between repeated runs of one configuration: per case, the coefficient of
//! variation of the runs' medians (the run is the replicate). Known only with at least
//! `MIN_RUNS` ok runs of the configuration; a case then needs an effect at least this large
//! to be called a change.
//!
//! The replicates of a comparison are the last `WINDOW` ok runs of the candidate's
//! configuration up to the candidate (in time: `baseline::RunRef::not_after`), the candidate
//! included: the noise known when the candidate ran, and recent. So a verdict never changes
//! because a newer run was added, an older run imported changes the verdicts of at most the
//! `WINDOW` runs after it, and the site and `compare` judge a pair the same way. Uses
//! `stats` only.

use super::baseline::{timelines, RunRef};
use super::samples::CaseSamples;
use crate::analysis::stats::{cv_percent, median};
use crate::analysis::summarize::RunStatus;
use std::collections::BTreeMap;

/// Fewest ok runs of a configuration from which its noise is estimated.
pub const MIN_RUNS: usize = 3;

/// Most runs the noise is estimated from (the latest ones up to the candidate).
pub const WINDOW: usize = 10;

/// Per run of `runs` (any order): the indexes of its replicates, the last `WINDOW` ok runs of
/// its configuration up to it (itself included when ok); empty with fewer than `MIN_RUNS`.
pub fn windows(runs: &[RunRef]) -> Vec<Vec<usize>> {
    let mut windows = vec![Vec::new(); runs.len()];
    for group in timelines(runs).values() {
        let mut ok: Vec<usize> = Vec::new();
        for &i in group {
            if runs[i].status == RunStatus::Ok {
                ok.push(i);
            }
            let window = &ok[ok.len().saturating_sub(WINDOW)..];
            if window.len() >= MIN_RUNS {
                windows[i] = window.to_vec();
            }
        }
    }
    windows
}

/// Per case key: the median of the case's per-cycle values (cases without values left out).
pub fn medians(samples: &[CaseSamples]) -> BTreeMap<String, f64> {
    samples.iter().filter(|c| !c.values.is_empty()).map(|c| (c.key(), median(&c.values))).collect()
}

/// Per case key: the relative spread (fraction) of the replicates' medians, for the cases
/// that at least `MIN_RUNS` replicates have.
pub fn of_replicates<'a>(replicates: impl IntoIterator<Item = &'a BTreeMap<String, f64>>) -> BTreeMap<String, f64> {
    let mut by_case: BTreeMap<&str, Vec<f64>> = BTreeMap::new();
    for run in replicates {
        for (case, value) in run {
            by_case.entry(case).or_default().push(*value);
        }
    }
    by_case
        .into_iter()
        .filter(|(_, m)| m.len() >= MIN_RUNS)
        .map(|(k, m)| (k.to_string(), cv_percent(&m) / 100.0))
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn run(values: &[(&str, f64)]) -> BTreeMap<String, f64> {
        values.iter().map(|(k, v)| (k.to_string(), *v)).collect()
    }

    #[test]
    fn noise_needs_three_replicates_of_a_case() {
        let runs = [run(&[("a", 10.0), ("b", 5.0)]), run(&[("a", 11.0), ("b", 5.0)]), run(&[("a", 12.0)])];
        let noise = of_replicates(&runs);
        assert_eq!(noise.keys().collect::<Vec<_>>(), ["a"], "b has two replicates only");
        let expected = cv_percent(&[10.0, 11.0, 12.0]) / 100.0;
        assert_eq!(noise["a"], expected);
        assert!(of_replicates(&runs[..2]).is_empty());
    }
}
