//! Cross-run comparison: which runs are comparable (`key`), the samples judged (`samples`),
//! the verdicts (`engine`), the baseline of a run (`baseline`), the noise between repeated
//! runs (`noise`), the per-rank view for run pages (`ranks`) and the report formats (`output`). Reads runs through `find`, `load` and
//! `summarize`; writes nothing.

pub mod baseline;
pub mod engine;
pub mod key;
pub mod key_hosts;
pub mod noise;
pub mod output;
pub mod ranks;
pub mod samples;
#[cfg(test)]
mod simulation_tests;

use crate::find;
use crate::load;
use crate::summarize::{self, RunStatus, RunSummary};
use anyhow::{bail, Context as _};
use engine::{CaseResult, Drift, Outcome, Verdict};
use key::ConfigKey;
use rayon::prelude::*;
use serde::Serialize;
use std::collections::BTreeMap;
use std::path::Path;

/// Version of the JSON report; bumped on any incompatible change.
pub const SCHEMA_VERSION: u32 = 1;

/// One side of a comparison.
#[derive(Debug, Clone, Serialize)]
pub struct RunSide {
    pub id: String,
    pub status: &'static str,
    pub configuration: String,
    pub key: String,
    /// Key parts the run does not state (they are `unknown` in the key).
    pub unknown: Vec<&'static str>,
}

/// The whole comparison, as every output format shows it.
#[derive(Debug, Clone, Serialize)]
pub struct Report {
    pub schema_version: u32,
    pub base: RunSide,
    pub candidate: RunSide,
    /// How the base was chosen: `given`, `pinned` or `newest earlier ok run`.
    pub baseline_source: String,
    /// Key parts that differ; empty when the runs share a configuration.
    pub key_differences: Vec<key::KeyDifference>,
    pub drift: Option<Drift>,
    pub counts: BTreeMap<&'static str, usize>,
    pub cases: Vec<CaseResult>,
}

impl Report {
    pub fn has_slower(&self) -> bool {
        self.cases.iter().any(|c| c.verdict == Verdict::Slower)
    }
}

/// A run summarized for comparison, with its key.
pub struct LoadedRun {
    pub summary: RunSummary,
    pub key: ConfigKey,
}

impl LoadedRun {
    fn side(&self) -> RunSide {
        RunSide {
            id: self.summary.raw.id.clone(),
            status: self.summary.status.as_str(),
            configuration: self.key.label(),
            key: self.key.text(),
            unknown: self.key.unknown_parts(),
        }
    }
}

/// Reads and summarizes every run under `runs` (ids sorted), in parallel.
pub fn load_all(runs: &Path) -> anyhow::Result<Vec<LoadedRun>> {
    let found =
        find::find_run_folders(runs).with_context(|| format!("cannot read the runs folder {}", runs.display()))?;
    Ok(found
        .runs
        .into_par_iter()
        .map(|(id, path)| {
            let dir = find::list_run(id, path, &found.canonical_root);
            let logs = load::load_logs(&dir);
            let mut raw = load::load_tables(&dir);
            logs.attach(&mut raw);
            let summary = summarize::summarize(raw);
            let key = ConfigKey::of(&summary);
            LoadedRun { summary, key }
        })
        .collect())
}

/// Compares `base` with `candidate`; `all` (every run of the folder) gives the noise floor.
pub fn compare(base: &LoadedRun, candidate: &LoadedRun, all: &[LoadedRun], baseline_source: &str) -> Report {
    let key_differences = base.key.differences(&candidate.key);
    let context = engine::Context {
        key_differences: key_differences.iter().map(|d| d.part).collect(),
        noise: noise::between_runs(all, &candidate.key),
    };
    let (base_samples, candidate_samples) = (samples::of(&base.summary), samples::of(&candidate.summary));
    let mut outcome = engine::compare(&base_samples, &candidate_samples, &context);
    engine::add_intervals(&mut outcome, &base_samples, &candidate_samples);
    let Outcome { drift, cases } = outcome;
    let mut counts = BTreeMap::new();
    for verdict in [Verdict::Slower, Verdict::Faster, Verdict::NoChange, Verdict::NotComparable, Verdict::TooFewCycles]
    {
        counts.insert(verdict.as_str(), cases.iter().filter(|c| c.verdict == verdict).count());
    }
    Report {
        schema_version: SCHEMA_VERSION,
        base: base.side(),
        candidate: candidate.side(),
        baseline_source: baseline_source.to_string(),
        key_differences,
        drift,
        counts,
        cases,
    }
}

/// The run with this id, refused when failed or invalid unless `allow_failed`.
pub fn pick<'a>(all: &'a [LoadedRun], id: &str, allow_failed: bool) -> anyhow::Result<&'a LoadedRun> {
    let Some(run) = all.iter().find(|r| r.summary.raw.id == id) else {
        bail!("no run {id:?} in the runs folder");
    };
    if run.summary.status != RunStatus::Ok && !allow_failed {
        bail!(
            "run {id} is {}; comparing against it is refused (pass --allow-failed to compare anyway)",
            run.summary.status.as_str()
        );
    }
    Ok(run)
}
