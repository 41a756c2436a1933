//! The history a candidate run is judged against: the run-level values (median over cycles,
//! per case) of the last `WINDOW` ok runs of its configuration *before* it in time
//! (`baseline::timelines` order), oldest first. Never later runs: a verdict never
//! changes because a newer run was added, an older run imported changes the verdicts of at
//! most the `WINDOW` runs after it, and the site and `compare` judge a run alike. Uses
//! `baseline`, `samples` and `stats` only.

use super::baseline::{timelines, RunRef};
use super::samples::{is_measurement, CaseSamples};
use crate::analysis::stats::median;
use crate::analysis::summarize::RunStatus;
use std::collections::BTreeMap;

/// Most earlier runs a verdict looks at (the latest ones before the candidate).
pub const WINDOW: usize = 30;

/// Every run's history: per run of `runs` (any order), the last `WINDOW` ok runs of its
/// configuration before it, oldest first (indexes into `runs`). Each history is a slice of
/// its configuration's ok runs, so this holds a few bytes a run, not `WINDOW` indexes.
pub struct Windows {
    /// Per configuration (the first list is empty, for runs in none): its ok runs in time
    /// order.
    ok: Vec<Vec<usize>>,
    /// Per run: its configuration's list in `ok`, and how many of that list's runs are
    /// earlier than it.
    at: Vec<(u32, u32)>,
}

impl Windows {
    /// The history of run `i`: indexes into `runs`, oldest first.
    pub fn of(&self, i: usize) -> &[usize] {
        let (list, before) = self.at[i];
        let before = before as usize;
        &self.ok[list as usize][before.saturating_sub(WINDOW)..before]
    }
}

/// Every run's history (`Windows`).
pub fn windows(runs: &[RunRef]) -> Windows {
    let mut windows = Windows { ok: vec![Vec::new()], at: vec![(0, 0); runs.len()] };
    for group in timelines(runs).values() {
        let list = windows.ok.len();
        let mut ok: Vec<usize> = Vec::new();
        for &i in group {
            windows.at[i] = (list as u32, ok.len() as u32);
            if runs[i].status == RunStatus::Ok {
                ok.push(i);
            }
        }
        windows.ok.push(ok);
    }
    windows
}

/// Per case key: the run-level value, the median of the case's per-cycle values (cases
/// without values left out, and cases holding a value that is not a measurement,
/// `samples::is_measurement`: such a run gives that case no level, as the case itself would
/// be `not_comparable` in it).
pub fn medians(samples: &[CaseSamples]) -> BTreeMap<String, f64> {
    samples
        .iter()
        .filter(|c| !c.values.is_empty() && c.values.iter().all(|v| is_measurement(*v)))
        .map(|c| (c.key(), median(&c.values)))
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_case_holding_a_value_that_is_no_measurement_gives_its_run_no_level() {
        let case = |name: &str, values: Vec<f64>| CaseSamples {
            section: "async",
            world_size: 1,
            case: name.into(),
            metric: "gpu_dependency_us",
            folder: None,
            higher_is_better: false,
            family: super::super::samples::Family::Device,
            values,
        };
        let samples = [
            case("good", vec![3.0, 1.0, 2.0]),
            case("huge", vec![3.0, 1e300, 2.0]),
            case("subnormal", vec![5e-324, 3.0, 2.0]),
            case("zero", vec![0.0, 3.0, 2.0]),
            case("empty", vec![]),
        ];
        let levels = medians(&samples);
        assert_eq!(levels.keys().collect::<Vec<_>>(), [&samples[0].key()]);
        assert_eq!(levels[&samples[0].key()], 2.0);
    }

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
        assert_eq!(w.of(1), &[] as &[usize], "the first run has no history");
        assert_eq!(w.of(2), &[1], "a failed run is judged against the ok runs before it");
        assert_eq!(w.of(0), &[1], "the failed run is in no history");
        assert_eq!(w.of(3), &[1, 0], "oldest first, itself excluded");
    }

    #[test]
    fn the_window_keeps_the_latest_runs() {
        let stamps: Vec<String> = (0..WINDOW + 5).map(|i| format!("2026-01-01T00:00:{i:02}Z")).collect();
        let ids: Vec<String> = (0..WINDOW + 5).map(|i| format!("r{i:02}")).collect();
        let runs: Vec<RunRef> = ids.iter().zip(&stamps).map(|(id, t)| run(id, t, RunStatus::Ok)).collect();
        let w = windows(&runs);
        let last = w.of(runs.len() - 1);
        assert_eq!(last.len(), WINDOW);
        assert_eq!(last.first(), Some(&4));
        assert_eq!(last.last(), Some(&(WINDOW + 3)));
    }
}
