//! The baseline of a run: `--baseline ID`, else the run pinned for its configuration in
//! `<runs>/baselines.json`, else the newest earlier ok run of the same configuration. The
//! same rule for `compare` and for the site (`choose_all` is pure: it sees ids, timestamps,
//! statuses and keys, and takes every run's baseline at once, in O(N log N)).
//!
//! `baselines.json` maps a configuration (its full key text, as `compare --format json`
//! prints under `key`, or its label) to a run id: `{"1x H200 · NCCL 2.28.9 · torch 2.11 ·
//! 10 cycles": "20261203T081106Z"}`. "Earlier" is by the manifest's timestamp read as an instant
//! (`calendar::iso_seconds`: a `+02:00` offset counts), then by id (the seed's ids are
//! `%Y%m%dT%H%M%SZ`); a run without a readable timestamp counts as older than every dated run.
//! It is read like every other input (inside the runs folder, a regular file, size-limited).

use crate::analysis::summarize::RunStatus;
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
    let at = crate::ingest::input::Beneath::new(crate::ingest::input::Root::new(root), PINNED_FILE);
    let bytes = crate::ingest::input::read_all(&at, crate::ingest::input::limits().notes)
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
    /// Where the run stands in time: the manifest's timestamp as an instant (offsets count;
    /// a text that is not an ISO 8601 time sorts before every one that is, by its text),
    /// then the id.
    fn when(&self) -> (Option<i64>, &str, &str) {
        (crate::core::calendar::iso_seconds(self.timestamp), self.timestamp, self.id)
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

/// The indexes of `runs` grouped by configuration (key text), each group in time order
/// (`RunRef::when`: the timestamp as an instant, then its text, then the id).
pub fn timelines<'a>(runs: &[RunRef<'a>]) -> BTreeMap<&'a str, Vec<usize>> {
    let mut groups: BTreeMap<&str, Vec<usize>> = BTreeMap::new();
    for (i, run) in runs.iter().enumerate() {
        groups.entry(run.key).or_default().push(i);
    }
    for group in groups.values_mut() {
        group.sort_by_cached_key(|&i| runs[i].when());
    }
    groups
}

/// The baseline of every run of `runs` (any order): pinned for its configuration, else the
/// newest earlier ok run of it. A run pinned as its own configuration's baseline has none.
pub fn choose_all(pinned: &Pinned, runs: &[RunRef]) -> Vec<Choice> {
    let mut choices = vec![Choice::None(String::new()); runs.len()];
    for group in timelines(runs).values() {
        let mut newest_ok: Option<usize> = None;
        for &i in group {
            let run = &runs[i];
            choices[i] = match pinned.get(run.key).or_else(|| pinned.get(run.label)) {
                Some(id) if id == run.id => {
                    Choice::None(format!("this run is the baseline pinned for its configuration in {PINNED_FILE}"))
                }
                Some(id) => Choice::Pinned(id.clone()),
                None => match newest_ok {
                    Some(j) => Choice::NewestEarlier(runs[j].id.to_string()),
                    None => Choice::None(format!(
                        "no earlier ok run of its configuration ({}) and none pinned in {PINNED_FILE}",
                        run.label
                    )),
                },
            };
            if run.status == RunStatus::Ok {
                newest_ok = Some(i);
            }
        }
    }
    choices
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
        let chosen = choose_all(&none, &all);
        assert_eq!(chosen[4], Choice::NewestEarlier("4".into()));
        assert_eq!(chosen[3], Choice::NewestEarlier("1".into()), "3 failed, 2 is another key");
        assert!(matches!(chosen[0], Choice::None(_)));
        let pinned: Pinned = [("a".to_string(), "1".to_string())].into();
        let chosen = choose_all(&pinned, &all);
        assert_eq!(chosen[4], Choice::Pinned("1".into()));
        assert!(matches!(&chosen[0], Choice::None(why) if why.contains("pinned")));
        let by_label: Pinned = [("label".to_string(), "4".to_string())].into();
        assert_eq!(choose_all(&by_label, &all)[1], Choice::Pinned("4".into()));
        let dated = RunRef { timestamp: "2026-01-01T00:00:00Z", ..r("0", RunStatus::Ok, "a") };
        let later = RunRef { timestamp: "2026-02-01T00:00:00Z", ..r("00", RunStatus::Ok, "a") };
        let chosen = choose_all(&none, &[all[0], dated, later]);
        assert_eq!(chosen[2], Choice::NewestEarlier("0".into()), "by timestamp, not by id");
        assert_eq!(chosen[1], Choice::NewestEarlier("1".into()), "undated runs are older");
    }

    #[test]
    fn pinned_file_absent_read_or_refused_with_its_path() {
        let runs = tempfile::tempdir().unwrap();
        assert_eq!(read_pinned(runs.path()), Ok(Pinned::new()), "no baselines.json: nothing pinned");
        std::fs::write(runs.path().join(PINNED_FILE), r#"{"1x H200": "20261203T081106Z"}"#).unwrap();
        let pinned = read_pinned(runs.path()).unwrap();
        assert_eq!(pinned.get("1x H200").map(String::as_str), Some("20261203T081106Z"));
        std::fs::write(runs.path().join(PINNED_FILE), "[1, 2]").unwrap();
        let error = read_pinned(runs.path()).unwrap_err();
        assert!(error.contains(PINNED_FILE) && error.contains("not a JSON object"), "{error}");
    }

    #[test]
    fn a_choice_names_its_base_and_says_how_it_was_found() {
        let pinned = Choice::Pinned("20261203T081106Z".into());
        let newest = Choice::NewestEarlier("20261204T101010Z".into());
        let none = Choice::None("no earlier ok run of this configuration".into());
        assert_eq!((pinned.id(), newest.id(), none.id()), (Some("20261203T081106Z"), Some("20261204T101010Z"), None));
        assert_eq!(pinned.source(), "pinned in baselines.json");
        assert_eq!(newest.source(), "newest earlier ok run of the configuration");
        assert_eq!(none.source(), "no earlier ok run of this configuration");
    }
}
