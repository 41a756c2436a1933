//! Cross-run comparison: which runs are comparable (`key`, and the soft differences shown as
//! caveats), the samples judged (`samples`), the verdict rule (`rule`) and the verdicts
//! (`engine`), the history a run is judged against (`history`), the baseline of a run
//! (`baseline`), change points over histories (`change_points`), the per-rank view for run
//! pages (`ranks`) and the report formats (`output`). Works on summaries (`LoadedRun::of`;
//! `pipeline::compared_runs` reads the runs); writes nothing.

pub mod baseline;
pub mod change_points;
pub mod engine;
pub mod history;
pub mod key;
pub mod key_hosts;
pub mod output;
pub mod ranks;
pub mod rule;
pub mod samples;
#[cfg(test)]
mod simulation_tests;
#[cfg(test)]
mod test_rng;

use crate::analysis::summarize::{RunStatus, RunSummary};
use crate::core::diag::Diagnostic;
use anyhow::bail;
use engine::{CaseResult, Outcome, Shift, Verdict};
use key::ConfigKey;
use samples::CaseSamples;
use serde::Serialize;
use std::collections::BTreeMap;
use std::path::Path;

/// Version of the JSON report; bumped on any incompatible change.
pub const SCHEMA_VERSION: u32 = 2;

/// One side of a comparison.
#[derive(Debug, Clone, Serialize)]
pub struct RunSide {
    pub id: String,
    pub status: &'static str,
    pub configuration: String,
    pub key: String,
    /// Key parts the run does not state (they are `unknown` in the key).
    pub unknown: Vec<String>,
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
    /// Facts that differ between the runs without making them incomparable (cycles, host,
    /// CPU, kernel, driver, GPU clocks...): shown, never hidden.
    pub caveats: Vec<key::KeyDifference>,
    /// Earlier ok runs of the candidate's configuration it was judged against.
    pub history_runs: usize,
    /// Run-wide shifts per family (host-side, device-side) against the history.
    pub shifts: Vec<Shift>,
    pub counts: BTreeMap<&'static str, usize>,
    pub cases: Vec<CaseResult>,
}

impl Report {
    /// A case is slower, or (unless the drift is accepted) a whole family is.
    pub fn has_regression(&self, accept_drift: bool) -> bool {
        self.cases.iter().any(|c| c.verdict == Verdict::Slower)
            || (!accept_drift && self.shifts.iter().any(|s| s.verdict == Verdict::Slower))
    }
}

/// A run as a comparison sees it: from a summary (`compare`) or a digest (the site).
#[derive(Debug, Clone)]
pub struct Side<'a> {
    pub id: &'a str,
    pub status: RunStatus,
    pub key: &'a ConfigKey,
    pub samples: &'a [CaseSamples],
}

impl Side<'_> {
    fn report_side(&self) -> RunSide {
        RunSide {
            id: self.id.to_string(),
            status: self.status.as_str(),
            configuration: self.key.label(),
            key: self.key.text(),
            unknown: self.key.unknown_parts(),
        }
    }
}

/// A run summarized for comparison, with its key and samples.
pub struct LoadedRun {
    pub summary: RunSummary,
    pub key: ConfigKey,
    pub samples: Vec<CaseSamples>,
}

impl LoadedRun {
    /// A summarized run with its comparison key and samples.
    pub fn of(summary: RunSummary) -> LoadedRun {
        let key = ConfigKey::of(&summary);
        let samples = samples::of(&summary.sections);
        LoadedRun { summary, key, samples }
    }

    pub fn side(&self) -> Side<'_> {
        Side { id: &self.summary.raw.id, status: self.summary.status, key: &self.key, samples: &self.samples }
    }

    /// What the baseline rule needs of it (`key_text` and `label` of its key).
    fn run_ref<'k>(&'k self, key_text: &'k str, label: &'k str) -> baseline::RunRef<'k> {
        baseline::RunRef {
            id: &self.summary.raw.id,
            timestamp: self.summary.facts.timestamp_utc.as_deref().unwrap_or(""),
            status: self.summary.status,
            key: key_text,
            label,
        }
    }
}

/// What the baseline and noise rules need of every run of the folder (key texts and labels
/// are kept by the caller: `texts`).
fn run_refs<'a>(all: &'a [LoadedRun], texts: &'a [(String, String)]) -> Vec<baseline::RunRef<'a>> {
    all.iter().zip(texts).map(|(r, (k, l))| r.run_ref(k, l)).collect()
}

fn key_texts(all: &[LoadedRun]) -> Vec<(String, String)> {
    all.iter().map(|r| (r.key.text(), r.key.label())).collect()
}

fn index_of(all: &[LoadedRun], run: &LoadedRun) -> usize {
    all.iter().position(|r| std::ptr::eq(r, run)).expect("the run is one of the folder's")
}

/// The baseline of `candidate` (one of `all`, by `baseline::choose_all`): (id, how it was
/// chosen); an unreadable `baselines.json` or no baseline at all is an error.
pub fn choose_baseline(runs: &Path, all: &[LoadedRun], candidate: &LoadedRun) -> anyhow::Result<(String, String)> {
    let pinned = baseline::read_pinned(runs).map_err(anyhow::Error::msg)?;
    let texts = key_texts(all);
    let choices = baseline::choose_all(&pinned, &run_refs(all, &texts));
    match &choices[index_of(all, candidate)] {
        baseline::Choice::None(why) => bail!("run {} has no baseline: {why}", candidate.summary.raw.id),
        choice => Ok((choice.id().unwrap_or_default().to_string(), choice.source())),
    }
}

/// The history of `candidate` (one of `all`): the run-level values of the earlier ok runs of
/// its configuration, oldest first (`history::windows`).
pub fn history_for(all: &[LoadedRun], candidate: &LoadedRun) -> Vec<BTreeMap<String, f64>> {
    let texts = key_texts(all);
    let windows = history::windows(&run_refs(all, &texts));
    windows.of(index_of(all, candidate)).iter().map(|&i| history::medians(&all[i].samples)).collect()
}

/// Compares `candidate` with `base` and judges it against `history` (`history_for`);
/// `baseline_source` says how the base was chosen, `caveats` the soft facts that differ.
pub fn compare(
    base: &Side,
    candidate: &Side,
    history: Vec<BTreeMap<String, f64>>,
    caveats: Vec<key::KeyDifference>,
    baseline_source: &str,
) -> Report {
    engine::expect_intervals([(base.samples, candidate.samples)]);
    compare_counted(base, candidate, history, caveats, baseline_source)
}

/// `compare`, for a caller that counted the intervals of all its comparisons first
/// (`engine::expect_intervals`), so that the bootstrap streams they share are made before
/// any is drawn.
pub fn compare_counted(
    base: &Side,
    candidate: &Side,
    history: Vec<BTreeMap<String, f64>>,
    caveats: Vec<key::KeyDifference>,
    baseline_source: &str,
) -> Report {
    let key_differences = base.key.differences(candidate.key);
    let history_runs = history.len();
    let context =
        engine::Context { key_differences: key_differences.iter().map(|d| d.part.clone()).collect(), history };
    let mut outcome = engine::compare(base.samples, candidate.samples, &context);
    engine::add_intervals(&mut outcome, base.samples, candidate.samples);
    let Outcome { shifts, cases } = outcome;
    let counts = Verdict::ALL.iter().map(|v| (v.as_str(), cases.iter().filter(|c| c.verdict == *v).count())).collect();
    Report {
        schema_version: SCHEMA_VERSION,
        base: base.report_side(),
        candidate: candidate.report_side(),
        baseline_source: baseline_source.to_string(),
        key_differences,
        caveats,
        history_runs,
        shifts,
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
        // Its worst finding names the file and line, as the build's summary line does.
        let worst = Diagnostic::worst(&run.summary.raw.diagnostics);
        bail!(
            "run {id} is {}{}; comparing against it is refused (pass --allow-failed to compare anyway)",
            run.summary.status.as_str(),
            worst.map(|d| format!(" ({d})")).unwrap_or_default()
        );
    }
    Ok(run)
}
