//! The history a candidate run is judged against: the run-level values (median over cycles,
//! per case) of the last `WINDOW` ok runs of its configuration *before* it in time
//! (`baseline::timelines` order), oldest first. Never later runs: a verdict never
//! changes because a newer run was added, an older run imported changes the verdicts of at
//! most the `WINDOW` runs after it, and the site and `compare` judge a run alike. Uses
//! `stats` only.

use super::baseline::{timelines, RunRef};
use super::samples::CaseSamples;
use crate::analysis::stats::median;
use crate::analysis::summarize::RunStatus;
use std::collections::BTreeMap;

/// Most earlier runs a verdict looks at (the latest ones before the candidate).
pub const WINDOW: usize = 30;

/// Per run of `runs` (any order): the indexes of its history, the last `WINDOW` ok runs of
/// its configuration before it, oldest first.
pub fn windows(runs: &[RunRef]) -> Vec<Vec<usize>> {
    let mut windows = vec![Vec::new(); runs.len()];
    for group in timelines(runs).values() {
        let mut ok: Vec<usize> = Vec::new();
        for &i in group {
            windows[i] = ok[ok.len().saturating_sub(WINDOW)..].to_vec();
            if runs[i].status == RunStatus::Ok {
                ok.push(i);
            }
        }
    }
    windows
}

/// Per case key: the run-level value, the median of the case's per-cycle values (cases
/// without values left out).
pub fn medians(samples: &[CaseSamples]) -> BTreeMap<String, f64> {
    samples.iter().filter(|c| !c.values.is_empty()).map(|c| (c.key(), median(&c.values))).collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn run<'a>(id: &'a str, timestamp: &'a str, status: RunStatus) -> RunRef<'a> {
        RunRef { id, timestamp, status, key: "k", label: "k" }
    }

    #[test]
    fn a_history_is_the_earlier_ok_runs_oldest_first_never_later_ones() {
        let runs = [
            run("c", "2026-01-03T00:00:00Z", RunStatus::Ok),
            run("a", "2026-01-01T00:00:00Z", RunStatus::Ok),
            run("b", "2026-01-02T00:00:00Z", RunStatus::Failed),
            run("d", "2026-01-04T00:00:00Z", RunStatus::Ok),
        ];
        let w = windows(&runs);
        assert_eq!(w[1], Vec::<usize>::new(), "the first run has no history");
        assert_eq!(w[2], vec![1], "a failed run is judged against the ok runs before it");
        assert_eq!(w[0], vec![1], "the failed run is in no history");
        assert_eq!(w[3], vec![1, 0], "oldest first, itself excluded");
    }

    #[test]
    fn the_window_keeps_the_latest_runs() {
        let stamps: Vec<String> = (0..WINDOW + 5).map(|i| format!("2026-01-01T00:00:{i:02}Z")).collect();
        let ids: Vec<String> = (0..WINDOW + 5).map(|i| format!("r{i:02}")).collect();
        let runs: Vec<RunRef> = ids.iter().zip(&stamps).map(|(id, t)| run(id, t, RunStatus::Ok)).collect();
        let w = windows(&runs);
        let last = w.last().unwrap();
        assert_eq!(last.len(), WINDOW);
        assert_eq!(last.first(), Some(&4));
        assert_eq!(last.last(), Some(&(WINDOW + 3)));
    }
}
