//! The noise between repeated runs of one configuration: per case, the coefficient of
//! variation of the runs' medians (the run is the replicate). Known only with at least
//! `MIN_RUNS` ok runs of the configuration; a case then needs an effect at least this large
//! to be called a change. Uses `stats` only.

use super::key::ConfigKey;
use super::samples;
use super::LoadedRun;
use crate::stats::{cv_percent, median};
use crate::summarize::RunStatus;
use std::collections::BTreeMap;

/// Fewest ok runs of a configuration from which its noise is estimated.
pub const MIN_RUNS: usize = 3;

/// Per case key: the relative spread (fraction) of the medians of the configuration's ok runs.
pub fn between_runs(all: &[LoadedRun], configuration: &ConfigKey) -> BTreeMap<String, f64> {
    let replicates: Vec<&LoadedRun> =
        all.iter().filter(|r| r.summary.status == RunStatus::Ok && &r.key == configuration).collect();
    let mut medians: BTreeMap<String, Vec<f64>> = BTreeMap::new();
    if replicates.len() < MIN_RUNS {
        return BTreeMap::new();
    }
    for run in replicates {
        for case in samples::of(&run.summary).into_iter().filter(|c| !c.values.is_empty()) {
            medians.entry(case.key()).or_default().push(median(&case.values));
        }
    }
    medians.into_iter().filter(|(_, m)| m.len() >= MIN_RUNS).map(|(k, m)| (k, cv_percent(&m) / 100.0)).collect()
}
