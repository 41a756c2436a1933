//! The baseline of a run: `--baseline ID`, else the run pinned for its configuration in
//! `<runs>/baselines.json`, else the newest earlier ok run of the same configuration.
//!
//! `baselines.json` maps a configuration (its full key text, as `compare --format json`
//! prints under `key`, or its label) to a run id: `{"1x H200 · NCCL 2.28.9 · torch 2.11 ·
//! 10 cycles": "20261202T102803Z"}`. Run ids sort by time (the seed's `%Y%m%dT%H%M%SZ`).

use super::LoadedRun;
use crate::summarize::RunStatus;
use anyhow::{bail, Context};
use std::collections::BTreeMap;
use std::path::Path;

pub const PINNED_FILE: &str = "baselines.json";

/// (baseline id, how it was chosen) for `candidate`.
pub fn choose(runs: &Path, all: &[LoadedRun], candidate: &LoadedRun) -> anyhow::Result<(String, String)> {
    let pinned_path = runs.join(PINNED_FILE);
    if pinned_path.is_file() {
        let text =
            std::fs::read_to_string(&pinned_path).with_context(|| format!("cannot read {}", pinned_path.display()))?;
        let pinned: BTreeMap<String, String> = serde_json::from_str(&text)
            .with_context(|| format!("{}: not a JSON object of configuration -> run id", pinned_path.display()))?;
        let found = pinned.get(&candidate.key.text()).or_else(|| pinned.get(&candidate.key.label()));
        if let Some(id) = found {
            return Ok((id.clone(), format!("pinned in {PINNED_FILE}")));
        }
    }
    let id = &candidate.summary.raw.id;
    let newest = all
        .iter()
        .filter(|r| r.summary.raw.id < *id && r.summary.status == RunStatus::Ok && r.key == candidate.key)
        .max_by(|a, b| a.summary.raw.id.cmp(&b.summary.raw.id));
    match newest {
        Some(run) => Ok((run.summary.raw.id.clone(), "newest earlier ok run of the configuration".to_string())),
        None => bail!(
            "run {id} has no baseline: no earlier ok run of its configuration ({}) and none pinned in {PINNED_FILE}",
            candidate.key.label()
        ),
    }
}
