//! The baseline of a run: `--baseline ID`, else the run pinned for its configuration in
//! `<runs>/baselines.json`, else the newest earlier ok run of the same configuration. The
//! same rule for `compare` and for the site (`choose` is pure: it sees ids, statuses and keys).
//!
//! `baselines.json` maps a configuration (its full key text, as `compare --format json`
//! prints under `key`, or its label) to a run id: `{"1x H200 · NCCL 2.28.9 · torch 2.11 ·
//! 10 cycles": "20261203T081106Z"}`. "Earlier" is by the manifest's UTC timestamp, then by
//! id (the seed's ids are `%Y%m%dT%H%M%SZ`); a run without a timestamp counts as older than
//! every dated run.
//! It is read like every other input (inside the runs folder, a regular file, size-limited).

use crate::summarize::RunStatus;
use std::collections::BTreeMap;
use std::path::Path;

pub const PINNED_FILE: &str = "baselines.json";

/// Pinned baselines: configuration (key text or label) -> run id.
pub type Pinned = BTreeMap<String, String>;

/// `<runs>/baselines.json` when there is one; an error names the file and says why.
pub fn read_pinned(runs: &Path) -> Result<Pinned, String> {
    let path = runs.join(PINNED_FILE);
    if std::fs::symlink_metadata(&path).is_err() {
        return Ok(Pinned::new());
    }
    let root = runs.canonicalize().map_err(|e| format!("{}: {e}", runs.display()))?;
    if !crate::find::stays_inside(&path, &root) {
        return Err(format!("{}: leads outside the runs folder; not read", path.display()));
    }
    let bytes = crate::input::read_all(&path, crate::input::limits().notes)
        .map_err(|e| format!("{}: cannot read: {e}", path.display()))?;
    serde_json::from_slice(&bytes)
        .map_err(|e| format!("{}: not a JSON object of configuration -> run id: {e}", path.display()))
}

/// What a comparison needs to know of a run to choose a baseline.
#[derive(Debug, Clone, Copy)]
pub struct RunRef<'a> {
    pub id: &'a str,
    /// The manifest's UTC timestamp (`""` when the run has none).
    pub timestamp: &'a str,
    pub status: RunStatus,
    /// The configuration's full key text and its label.
    pub key: &'a str,
    pub label: &'a str,
}

/// How a baseline was found.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Choice {
    Pinned(String),
    NewestEarlier(String),
    /// No baseline, and why.
    None(String),
}

impl RunRef<'_> {
    /// Whether this run is at or before `other` in time (see the module header).
    pub fn not_after(&self, other: &RunRef) -> bool {
        (self.timestamp, self.id) <= (other.timestamp, other.id)
    }
}

impl Choice {
    pub fn id(&self) -> Option<&str> {
        match self {
            Choice::Pinned(id) | Choice::NewestEarlier(id) => Some(id),
            Choice::None(_) => None,
        }
    }

    /// How the base was chosen, as reports say it.
    pub fn source(&self) -> String {
        match self {
            Choice::Pinned(_) => format!("pinned in {PINNED_FILE}"),
            Choice::NewestEarlier(_) => "newest earlier ok run of the configuration".to_string(),
            Choice::None(why) => why.clone(),
        }
    }
}

/// The baseline of `candidate` among `all` (any order): pinned, else the newest earlier ok
/// run of the same configuration. A run pinned as its own configuration's baseline has none.
pub fn choose(pinned: &Pinned, all: &[RunRef], candidate: &RunRef) -> Choice {
    if let Some(id) = pinned.get(candidate.key).or_else(|| pinned.get(candidate.label)) {
        if id == candidate.id {
            return Choice::None(format!("this run is the baseline pinned for its configuration in {PINNED_FILE}"));
        }
        return Choice::Pinned(id.clone());
    }
    let newest = all
        .iter()
        .filter(|r| {
            r.not_after(candidate) && r.id != candidate.id && r.status == RunStatus::Ok && r.key == candidate.key
        })
        .max_by(|a, b| (a.timestamp, a.id).cmp(&(b.timestamp, b.id)));
    match newest {
        Some(run) => Choice::NewestEarlier(run.id.to_string()),
        None => Choice::None(format!(
            "no earlier ok run of its configuration ({}) and none pinned in {PINNED_FILE}",
            candidate.label
        )),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn r<'a>(id: &'a str, status: RunStatus, key: &'a str) -> RunRef<'a> {
        RunRef { id, timestamp: "", status, key, label: "label" }
    }

    #[test]
    fn newest_earlier_ok_run_of_the_configuration_unless_pinned() {
        let all = [
            r("1", RunStatus::Ok, "a"),
            r("2", RunStatus::Ok, "b"),
            r("3", RunStatus::Failed, "a"),
            r("4", RunStatus::Ok, "a"),
            r("5", RunStatus::Ok, "a"),
        ];
        let none = Pinned::new();
        assert_eq!(choose(&none, &all, &all[4]), Choice::NewestEarlier("4".into()));
        assert_eq!(choose(&none, &all, &all[3]), Choice::NewestEarlier("1".into()), "3 failed, 2 is another key");
        assert!(matches!(choose(&none, &all, &all[0]), Choice::None(_)));
        let pinned: Pinned = [("a".to_string(), "1".to_string())].into();
        assert_eq!(choose(&pinned, &all, &all[4]), Choice::Pinned("1".into()));
        assert!(matches!(choose(&pinned, &all, &all[0]), Choice::None(why) if why.contains("pinned")));
        let by_label: Pinned = [("label".to_string(), "4".to_string())].into();
        assert_eq!(choose(&by_label, &all, &all[1]), Choice::Pinned("4".into()));
        let dated = RunRef { timestamp: "2026-01-01T00:00:00Z", ..r("0", RunStatus::Ok, "a") };
        let later = RunRef { timestamp: "2026-02-01T00:00:00Z", ..r("00", RunStatus::Ok, "a") };
        let runs = [all[0], dated, later];
        assert_eq!(choose(&none, &runs, &later), Choice::NewestEarlier("0".into()), "by timestamp, not by id");
        assert_eq!(choose(&none, &runs, &dated), Choice::NewestEarlier("1".into()), "undated runs are older");
    }
}
