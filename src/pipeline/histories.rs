//! The build stage after the comparisons: every configuration's history page and the
//! regressions page (`site::history_view`), from the runs' history rows (`HistoryRow`: their
//! run-level values and what explains a change point, kept beside each digest; never the raw
//! files). Each configuration's page is a unit keyed by what it is made from (`page_key`):
//! updating a site in place, a page whose key is the live one is carried as it is, so adding a
//! run makes its own configuration's page again, not every configuration's. The regressions
//! page is made on every build that writes, from what each page gave it
//! (`history_view::Gives`, kept in its unit's record). Uses `comparison`, `site`, `render`,
//! `write` (through `Staging`) and the unit records of `cross_run`.

use super::RunResult;
use crate::analysis::comparison::{history, samples};
use crate::analysis::overview::RunOverview;
use crate::analysis::summarize::RunStatus;
use crate::pipeline::cross_run::{self, UnitRecord, Units};
use crate::pipeline::write::{Staging, WriteError};
use crate::render;
use crate::site::card::BaselineVerdict;
use crate::site::history_view::{self, nccl_choices, CaseInfo, ConfigurationHistory, Gives, HistoryRun};
use rayon::prelude::*;
use rustc_hash::FxHashMap;
use serde::{Deserialize, Serialize};
use std::collections::{BTreeMap, HashMap};
use std::sync::{Arc, Mutex};

/// What each case of a run is, by key, in the digest's order. Runs of one configuration
/// mostly share it, so its history parses each distinct list once (`CaseLists`).
pub(crate) type CaseList = Vec<(String, CaseInfo)>;

/// What one run gives its configuration's history page, from its digest: kept beside the
/// digest (`cache::DigestStore`) so that the history stage reads a few KB a run, not the
/// digest. Kept as two JSON documents on two lines (`to_bytes`): the run's own values, then
/// its case list, which is parsed only the first time a configuration's history meets it
/// (three quarters of a row's bytes; 1,000 rows of one configuration cost the +1 build's
/// history stage 29 of its 50 ms on 2 cores when every row was parsed whole).
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct HistoryRow {
    /// Run-level value (the median over its cycles) per case, by the position in `cases` of
    /// the first case of its key.
    values: Vec<(u32, f64)>,
    cases: Arc<CaseList>,
    soft: Vec<(String, String)>,
    nccl_choices: BTreeMap<String, String>,
}

/// A row's first line: all of it but its case list.
#[derive(Serialize, Deserialize)]
struct RowHead {
    values: Vec<(u32, f64)>,
    soft: Vec<(String, String)>,
    nccl_choices: BTreeMap<String, String>,
}

impl HistoryRow {
    pub(crate) fn of(digest: &RunOverview) -> HistoryRow {
        let case_samples = samples::of(&digest.sections);
        let cases: CaseList = case_samples
            .iter()
            .map(|c| {
                let label = match &c.folder {
                    Some(folder) => format!("{folder}: {}", c.case),
                    None => c.case.clone(),
                };
                let info = CaseInfo {
                    section: c.section.to_string(),
                    label,
                    metric: c.metric.to_string(),
                    higher_is_better: c.higher_is_better,
                };
                (c.key(), info)
            })
            .collect();
        let mut first: HashMap<&str, u32> = HashMap::new();
        for (at, (key, _)) in cases.iter().enumerate().rev() {
            first.insert(key, at as u32);
        }
        let values = history::medians(&case_samples)
            .into_iter()
            .filter_map(|(key, v)| first.get(key.as_str()).map(|&at| (at, v)));
        HistoryRow {
            values: values.collect(),
            cases: Arc::new(cases),
            soft: digest.soft_facts.clone(),
            nccl_choices: nccl_choices(digest.nccl_perf.as_ref().map_or(&[][..], |p| &p.choices)),
        }
    }

    /// The row as kept: its head's JSON, a newline, its case list's JSON (JSON as serde_json
    /// writes it holds no raw newline).
    pub(crate) fn to_bytes(&self) -> serde_json::Result<Vec<u8>> {
        let head =
            RowHead { values: self.values.clone(), soft: self.soft.clone(), nccl_choices: self.nccl_choices.clone() };
        let mut bytes = serde_json::to_vec(&head)?;
        bytes.push(b'\n');
        serde_json::to_writer(&mut bytes, &*self.cases)?;
        Ok(bytes)
    }

    /// A row kept by `to_bytes`; `None` when the bytes are not one (the caller makes the row
    /// again from the digest).
    pub(crate) fn from_bytes(bytes: &[u8], lists: &CaseLists) -> Option<HistoryRow> {
        let newline = memchr::memchr(b'\n', bytes)?;
        let head: RowHead = serde_json::from_slice(&bytes[..newline]).ok()?;
        let cases = lists.parse(&bytes[newline + 1..])?;
        head.values.iter().all(|(at, _)| (*at as usize) < cases.len()).then_some(HistoryRow {
            values: head.values,
            cases,
            soft: head.soft,
            nccl_choices: head.nccl_choices,
        })
    }
}

/// The case lists parsed for one configuration's history, by their bytes (a list is parsed
/// once however many of its rows hold it).
#[derive(Default)]
pub(crate) struct CaseLists {
    parsed: Mutex<FxHashMap<Vec<u8>, Arc<CaseList>>>,
}

impl CaseLists {
    fn parse(&self, bytes: &[u8]) -> Option<Arc<CaseList>> {
        if let Some(list) = self.lock().get(bytes) {
            return Some(Arc::clone(list));
        }
        let list = Arc::new(serde_json::from_slice::<CaseList>(bytes).ok()?);
        Some(Arc::clone(self.lock().entry(bytes.to_vec()).or_insert(list)))
    }

    fn lock(&self) -> std::sync::MutexGuard<'_, FxHashMap<Vec<u8>, Arc<CaseList>>> {
        self.parsed.lock().unwrap_or_else(|poisoned| poisoned.into_inner())
    }
}

/// The unit of the regressions page (rendered on every build that writes, from what every
/// configuration's unit gave it).
pub(super) const REGRESSIONS_UNIT: &str = "history";

/// The name of a configuration's history unit, beside the cross-run units (`history ` and its
/// key text: in key text order, as the regressions page lists them).
fn unit_name(key_text: &str) -> String {
    format!("{REGRESSIONS_UNIT} {key_text}")
}

/// Whether a unit is the regressions page or a configuration's history page.
pub(super) fn is_history_unit(name: &str) -> bool {
    name == REGRESSIONS_UNIT || name.starts_with(&unit_name(""))
}

/// A configuration's runs as its history page searches them: its newest `SEARCHED_RUNS` ok
/// runs in time order, how many older ones it only counts, and the key of what its page is
/// made from (`None`: every page is made).
struct Searched<'a> {
    key_text: &'a str,
    runs: Vec<&'a RunResult>,
    older: usize,
    key: Option<String>,
}

impl<'a> Searched<'a> {
    fn new(key_text: &'a str, mut runs: Vec<&'a RunResult>) -> Searched<'a> {
        runs.sort_by_cached_key(|r| {
            let t = r.card.timestamp_utc.clone().unwrap_or_default();
            (crate::core::calendar::iso_seconds(&t), t, r.id.clone())
        });
        let older = runs.len().saturating_sub(history_view::SEARCHED_RUNS);
        let runs = runs.split_off(older);
        let key = page_key(key_text, older, &runs);
        Searched { key_text, runs, older, key }
    }
}

/// The key of a configuration's history page: everything the page is made from. Its key text
/// and label, how many older runs it counts, and each searched run's id, input key (its history
/// row is made from its digest, which its inputs and the tool determine), comparison stamp and
/// slower cases (from its verdict). `None` when a run has no input key (a build without a
/// cache, or a run with an input that could not be read).
fn page_key(key_text: &str, older: usize, runs: &[&RunResult]) -> Option<String> {
    let mut hasher = xxhash_rust::xxh3::Xxh3::new();
    let mut add = |text: &str| {
        hasher.update(text.as_bytes());
        hasher.update(&[0]);
    };
    add(key_text);
    add(runs.first().map_or("", |r| &*r.card.configuration));
    add(&older.to_string());
    for r in runs {
        add(&r.id);
        add(r.key.as_deref()?);
        add(r.comparison.as_deref().unwrap_or("-"));
        add(&format!("{:?}", slower_cases(r)));
    }
    Some(format!("{:032x}", hasher.digest128()))
}

/// A run's `slower` cases against its baseline, with their ratio to the history.
fn slower_cases(r: &RunResult) -> Vec<(String, f64)> {
    match &r.card.baseline {
        BaselineVerdict::Compared(v) => v.slower_cases.clone(),
        _ => Vec::new(),
    }
}

/// Writes the history pages whose key changed (each one without `live`: the units of the live
/// site being updated in place) and the regressions page, and removes the live units' files
/// the new ones do not have (a configuration without ok runs any more, a chart a page no
/// longer draws); returns every history unit of the new site, and what the build must say of
/// a configuration left without a page (its slug another's). A page carried as it is keeps
/// its live record; one with a file that no longer lies in the live site as committed (deleted
/// or edited by hand: `UnitRecord::intact`) is made again, as a cross-run unit is.
pub(super) fn write(
    results: &[RunResult],
    load: &(dyn Fn(&str, &CaseLists) -> anyhow::Result<HistoryRow> + Sync),
    staging: &Staging,
    live: Option<&Units>,
) -> anyhow::Result<(Units, Vec<String>)> {
    let mut by_configuration: BTreeMap<&str, Vec<&RunResult>> = BTreeMap::new();
    for result in results.iter().filter(|r| r.card.status == RunStatus::Ok) {
        by_configuration.entry(&*result.card.configuration_key).or_default().push(result);
    }
    let mut configurations: Vec<Searched> =
        by_configuration.into_iter().map(|(key_text, runs)| Searched::new(key_text, runs)).collect();
    let problems = one_page_a_slug(&mut configurations, crate::site::paths::history_slug);
    let mut units = Units::new();
    let mut todo = Vec::new();
    for configuration in &configurations {
        let name = unit_name(configuration.key_text);
        let kept = live.and_then(|live| live.get(&name)).filter(|unit| {
            unit.history.is_some() && configuration.key.as_deref() == Some(unit.key.as_str()) && unit.intact(staging)
        });
        match kept {
            Some(unit) => drop(units.insert(name, unit.clone())),
            None => todo.push(configuration),
        }
    }
    // Configurations in groups of at most `HISTORY_GROUP_RUNS` searched runs, each group's
    // histories loaded and searched in parallel and written before the next is read: memory
    // holds a group's history rows, not every run's.
    for group in super::groups::within(HISTORY_GROUP_RUNS, todo.iter().map(|c| c.runs.len())) {
        let configurations: Vec<ConfigurationHistory> =
            group.par_iter().map(|&i| history_of(todo[i], load)).collect::<anyhow::Result<_>>()?;
        let links = history_view::history_links(&configurations);
        // Each page made, rendered and written in parallel with the group's others; the
        // first page to fail in the group's order is the error reported, whatever the timing.
        let pages: Vec<Result<_, WriteError>> = configurations
            .par_iter()
            .map(|configuration| {
                let (page, regressions) = history_view::history_page(configuration);
                let rendered = render::history_files(&page);
                rendered.par_iter().try_for_each(|f| staging.put(f))?;
                Ok((rendered.into_iter().map(|f| f.path).collect(), regressions))
            })
            .collect();
        let pages: Vec<_> = pages.into_iter().collect::<Result<_, _>>()?;
        drop(configurations);
        for ((&i, (paths, regressions)), link) in group.iter().zip(pages).zip(links) {
            let gives = Gives { label: link.text, href: link.href, regressions };
            units.insert(
                unit_name(todo[i].key_text),
                UnitRecord::new(todo[i].key.clone().unwrap_or_default(), paths, Some(gives)),
            );
        }
    }
    let gives: Vec<&Gives> = units.values().filter_map(|unit| unit.history.as_ref()).collect();
    let listed: Vec<(String, String)> = gives.iter().map(|g| (g.label.clone(), g.href.clone())).collect();
    let regressions = gives.iter().flat_map(|g| g.regressions.iter().cloned()).collect();
    let mut files = Vec::new();
    for file in render::history_files(&history_view::regressions_page(regressions, &listed)) {
        staging.put(&file)?;
        files.push(file.path);
    }
    units.insert(REGRESSIONS_UNIT.to_string(), UnitRecord::new(String::new(), files, None));
    if let Some(live) = live {
        cross_run::remove_stale(&units, live, staging)?;
    }
    Ok((units, problems))
}

/// Keeps the first configuration (in key order) of each history page slug: two with one slug
/// (only a key made to collide gives that) would write one page, in either order. Returns
/// what the build says of each one left out.
fn one_page_a_slug(configurations: &mut Vec<Searched>, slug_of: impl Fn(&str) -> String) -> Vec<String> {
    let mut slugs = std::collections::HashSet::new();
    let mut problems = Vec::new();
    configurations.retain(|c| {
        let slug = slug_of(c.key_text);
        let first = slugs.insert(slug.clone());
        if !first {
            let label = c.runs.first().map_or("", |r| &*r.card.configuration);
            problems.push(format!(
                "configuration {label} has the history page slug {slug} of another; its history page is not written"
            ));
        }
        first
    });
    problems
}

/// How many runs' history rows the history stage holds at once, at most (configurations are
/// grouped in key order).
const HISTORY_GROUP_RUNS: usize = 10_000;

/// One configuration's history: its searched runs (`Searched`) with their history rows (read
/// in parallel, `ROWS_AT_ONCE` at a time), each row's values kept by case column
/// (`HistoryRun::values`), and its cases merged in that order. The older runs are only
/// counted: what the stage holds and reads is bounded however long the history grows.
fn history_of(
    searched: &Searched,
    load: &(dyn Fn(&str, &CaseLists) -> anyhow::Result<HistoryRow> + Sync),
) -> anyhow::Result<ConfigurationHistory> {
    let (runs, older, key_text) = (&searched.runs, searched.older, searched.key_text);
    // Columns in the order cases are first seen, renumbered in key order at the end.
    let mut seen: HashMap<String, u32> = HashMap::new();
    let mut infos: Vec<(String, CaseInfo)> = Vec::new();
    let mut history_runs = Vec::with_capacity(runs.len());
    // Each case list met (one per distinct list, shared by its rows: `CaseLists`) with the
    // column of each of its cases.
    let mut columns_of: Vec<(Arc<CaseList>, Vec<u32>)> = Vec::new();
    // The case lists parsed for this configuration's rows (dropped with it: memory holds the
    // lists of the configurations being read, not of every one met).
    let lists = CaseLists::default();
    for block in runs.chunks(ROWS_AT_ONCE) {
        let rows = block.par_iter().map(|r| load(&r.id, &lists)).collect::<anyhow::Result<Vec<_>>>()?;
        for (r, row) in block.iter().zip(rows) {
            let same = |(list, _): &(Arc<CaseList>, Vec<u32>)| Arc::ptr_eq(list, &row.cases) || **list == *row.cases;
            let columns = match columns_of.iter().position(same) {
                Some(at) => &columns_of[at].1,
                None => {
                    let columns = row
                        .cases
                        .iter()
                        .map(|(key, info)| {
                            *seen.entry(key.clone()).or_insert_with(|| {
                                infos.push((key.clone(), info.clone()));
                                infos.len() as u32 - 1
                            })
                        })
                        .collect();
                    columns_of.push((Arc::clone(&row.cases), columns));
                    &columns_of[columns_of.len() - 1].1
                }
            };
            let values = row.values.into_iter().map(|(at, v)| (columns[at as usize], v)).collect();
            let slower = slower_cases(r);
            let previous = history_runs.last();
            let soft = match previous {
                Some(HistoryRun { soft, .. }) if **soft == row.soft => Arc::clone(soft),
                _ => Arc::new(row.soft),
            };
            let nccl_choices = match previous {
                Some(HistoryRun { nccl_choices, .. }) if **nccl_choices == row.nccl_choices => Arc::clone(nccl_choices),
                _ => Arc::new(row.nccl_choices),
            };
            history_runs.push(HistoryRun { id: r.id.clone(), values, soft, nccl_choices, slower });
        }
    }
    let cases: BTreeMap<String, CaseInfo> = infos.into_iter().collect();
    let mut renumber = vec![0; seen.len()];
    for (column, key) in cases.keys().enumerate() {
        renumber[seen[key] as usize] = column as u32;
    }
    for run in &mut history_runs {
        run.values.iter_mut().for_each(|(c, _)| *c = renumber[*c as usize]);
        run.values.sort_by_key(|(c, _)| *c);
    }
    Ok(ConfigurationHistory {
        label: runs[0].card.configuration.to_string(),
        key_text: key_text.to_string(),
        older,
        runs: history_runs,
        cases,
    })
}

/// How many history rows the history stage reads at once (each a few KB; what is kept of
/// them is their values by case column and what explains a change point).
const ROWS_AT_ONCE: usize = 1024;

#[cfg(test)]
mod tests {
    use super::*;
    use crate::site::card::RunCard;
    use std::sync::atomic::{AtomicUsize, Ordering};

    fn result(i: usize) -> RunResult {
        let id = format!("r{i:05}");
        let timestamp = format!("2026-01-01T{:02}:{:02}:{:02}Z", i / 3600, i / 60 % 60, i % 60);
        RunResult {
            id: id.clone(),
            key: None,
            card: RunCard {
                id,
                timestamp_utc: Some(timestamp),
                status: RunStatus::Ok,
                sections: 0,
                configuration_key: "gpu=H200".into(),
                configuration: "1x H200".into(),
                baseline: BaselineVerdict::Pending,
                warnings: 0,
                reason: None,
            },
            problem: None,
            cached: false,
            restore: None,
            in_cache: false,
            comparison: None,
            replaced: Vec::new(),
            in_live: false,
            live_site: false,
            bytes: 0,
        }
    }

    #[test]
    fn configurations_sharing_a_slug_keep_the_first_in_key_order_and_say_so() {
        let runs: Vec<RunResult> = (0..3).map(result).collect();
        let mut configurations: Vec<Searched> = ["gpu=A100", "gpu=B200", "gpu=H200"]
            .iter()
            .zip(&runs)
            .map(|(key, r)| Searched::new(key, vec![r]))
            .collect();
        // B200 and H200 share a slug; A100 has its own.
        let slug = |key: &str| if key == "gpu=A100" { "a".to_string() } else { "b".to_string() };
        let problems = one_page_a_slug(&mut configurations, slug);
        let kept: Vec<&str> = configurations.iter().map(|c| c.key_text).collect();
        assert_eq!(kept, ["gpu=A100", "gpu=B200"]);
        assert_eq!(problems.len(), 1);
        assert!(problems[0].contains("history page slug b"), "{problems:?}");
        let mut distinct: Vec<Searched> =
            ["gpu=A100", "gpu=B200"].iter().zip(&runs).map(|(k, r)| Searched::new(k, vec![r])).collect();
        assert!(one_page_a_slug(&mut distinct, crate::site::paths::history_slug).is_empty());
        assert_eq!(distinct.len(), 2);
    }

    fn info(key: &str) -> (String, CaseInfo) {
        let info =
            CaseInfo { section: "async".into(), label: key.into(), metric: "us".into(), higher_is_better: false };
        (key.to_string(), info)
    }

    /// A row with one case per value, in this order.
    fn row(values: &[(&str, f64)]) -> HistoryRow {
        HistoryRow {
            values: values.iter().enumerate().map(|(at, (_, v))| (at as u32, *v)).collect(),
            cases: Arc::new(values.iter().map(|(key, _)| info(key)).collect()),
            soft: vec![("nccl".into(), "2.28.9".into())],
            nccl_choices: BTreeMap::new(),
        }
    }

    /// A run of `configuration` with an input key (built with a cache).
    fn keyed(i: usize, configuration: &str) -> RunResult {
        let plain = result(i);
        let card =
            RunCard { configuration_key: configuration.into(), configuration: configuration.into(), ..plain.card };
        RunResult { key: Some(format!("key{i}")), card, ..plain }
    }

    /// Adding a run makes its configuration's page again and carries every other one as it
    /// is (its rows are not read); the regressions page still lists every configuration. A
    /// page deleted or edited by hand is made again; a configuration's page goes with its last
    /// run. Without input keys (no cache) every page is made.
    #[test]
    fn only_the_configuration_that_gained_a_run_is_made_again() {
        let dir = tempfile::tempdir().unwrap();
        let lock = crate::pipeline::out_dir::OutputLock::acquire(&dir.path().join("site")).unwrap();
        let staging = Staging::begin(&lock).unwrap();
        let read = Mutex::new(Vec::new());
        let load = |id: &str, _: &CaseLists| {
            read.lock().unwrap().push(id.to_string());
            Ok(row(&[("c", 1.0)]))
        };
        let mut results: Vec<RunResult> =
            (0..4).map(|i| keyed(i, if i % 2 == 0 { "gpu=A" } else { "gpu=B" })).collect();
        let mut first = write(&results, &load, &staging, None).unwrap().0;
        assert_eq!(first.keys().collect::<Vec<_>>(), ["history", "history gpu=A", "history gpu=B"]);
        cross_run::stamp(&mut first, staging.dir());
        assert_eq!(read.lock().unwrap().len(), 4);

        read.lock().unwrap().clear();
        results.push(keyed(4, "gpu=A"));
        let mut second = write(&results, &load, &staging, Some(&first)).unwrap().0;
        cross_run::stamp(&mut second, staging.dir());
        let mut again = std::mem::take(&mut *read.lock().unwrap());
        again.sort();
        assert_eq!(again, ["r00000", "r00002", "r00004"], "only gpu=A's rows are read");
        assert_eq!(second["history gpu=B"], first["history gpu=B"], "gpu=B carried as it is");
        assert_ne!(second["history gpu=A"].key, first["history gpu=A"].key);
        let regressions = String::from_utf8(staging.read(&second["history"].files[0]).unwrap()).unwrap();
        assert!(regressions.contains("gpu=A") && regressions.contains("gpu=B"), "{regressions}");

        // A page deleted or edited by hand is made again, though its key is unchanged.
        let page = second["history gpu=B"].files[0].clone();
        let bytes = staging.read(&page).unwrap();
        for hand in ["deleted", "edited"] {
            match hand {
                "deleted" => staging.remove(&page).unwrap(),
                _ => std::fs::write(staging.dir().join(&page), "<p>edited by hand</p>").unwrap(),
            }
            let mut third = write(&results, &load, &staging, Some(&second)).unwrap().0;
            let mut again = std::mem::take(&mut *read.lock().unwrap());
            again.sort();
            assert_eq!(again, ["r00001", "r00003"], "only gpu=B's page, {hand}");
            assert_eq!(staging.read(&page).unwrap(), bytes);
            cross_run::stamp(&mut third, staging.dir());
            assert_eq!(third["history gpu=B"].key, second["history gpu=B"].key);
            second = third;
        }

        // A configuration without runs any more: its page goes.
        let only_a: Vec<RunResult> = (0..5).step_by(2).map(|i| keyed(i, "gpu=A")).collect();
        let third = write(&only_a, &load, &staging, Some(&second)).unwrap().0;
        assert!(!third.contains_key("history gpu=B"));
        assert!(second["history gpu=B"].files.iter().all(|rel| staging.stamp(rel).is_none()), "gpu=B's files removed");
        assert!(third["history gpu=A"].files.iter().all(|rel| staging.stamp(rel).is_some()));
        read.lock().unwrap().clear();

        let unkeyed: Vec<RunResult> =
            (0..5).map(|i| RunResult { key: None, ..keyed(i, ["gpu=A", "gpu=B"][i % 2]) }).collect();
        write(&unkeyed, &load, &staging, Some(&second)).unwrap();
        assert_eq!(read.lock().unwrap().len(), 5, "no keys: every page is made");
    }

    #[test]
    fn rows_read_back_sharing_one_parsed_case_list() {
        let lists = CaseLists::default();
        let (a, b) = (row(&[("x", 1.0), ("y", 2.0)]), row(&[("x", 3.0), ("y", 4.0)]));
        let read_a = HistoryRow::from_bytes(&a.to_bytes().unwrap(), &lists).unwrap();
        let read_b = HistoryRow::from_bytes(&b.to_bytes().unwrap(), &lists).unwrap();
        assert_eq!((&read_a, &read_b), (&a, &b));
        assert!(Arc::ptr_eq(&read_a.cases, &read_b.cases), "one list parsed for both rows");
        let other = HistoryRow::from_bytes(&row(&[("z", 5.0)]).to_bytes().unwrap(), &lists).unwrap();
        assert!(!Arc::ptr_eq(&read_a.cases, &other.cases));
        assert_eq!(other.cases[0].0, "z");
    }

    #[test]
    fn a_row_that_is_not_one_reads_as_none() {
        let lists = CaseLists::default();
        let bytes = row(&[("x", 1.0)]).to_bytes().unwrap();
        let newline = bytes.iter().position(|&b| b == b'\n').unwrap();
        assert!(HistoryRow::from_bytes(&bytes[..newline], &lists).is_none(), "no case list");
        assert!(HistoryRow::from_bytes(&bytes[1..], &lists).is_none(), "damaged head");
        let beyond =
            [br#"{"values":[[1,2.0]],"soft":[],"nccl_choices":{}}"#.as_slice(), b"\n", &bytes[newline + 1..]].concat();
        assert!(HistoryRow::from_bytes(&beyond, &lists).is_none(), "a value of a case the list does not have");
    }

    #[test]
    fn rows_of_different_case_lists_share_columns_by_key() {
        let results: Vec<RunResult> = (0..3).map(result).collect();
        let refs: Vec<&RunResult> = results.iter().collect();
        let load = |id: &str, _: &CaseLists| {
            Ok(match id {
                "r00000" => row(&[("b", 1.0), ("a", 2.0)]),
                "r00001" => row(&[("a", 3.0), ("c", 4.0)]),
                _ => row(&[("c", 5.0), ("b", 6.0), ("a", 7.0)]),
            })
        };
        let history = history_of(&Searched::new("gpu=H200", refs), &load).unwrap();
        assert_eq!(history.cases.keys().collect::<Vec<_>>(), ["a", "b", "c"]);
        let values: Vec<&Vec<(u32, f64)>> = history.runs.iter().map(|r| &r.values).collect();
        assert_eq!(values, [&vec![(0, 2.0), (1, 1.0)], &vec![(0, 3.0), (2, 4.0)], &vec![(0, 7.0), (1, 6.0), (2, 5.0)]]);
    }

    #[test]
    fn a_long_history_reads_only_its_newest_runs() {
        let total = history_view::SEARCHED_RUNS + 7;
        let results: Vec<RunResult> = (0..total).rev().map(result).collect();
        let refs: Vec<&RunResult> = results.iter().collect();
        let read = AtomicUsize::new(0);
        let oldest_read = std::sync::Mutex::new(String::from("~"));
        let load = |id: &str, _: &CaseLists| {
            read.fetch_add(1, Ordering::Relaxed);
            let mut oldest = oldest_read.lock().unwrap();
            if id < oldest.as_str() {
                *oldest = id.to_string();
            }
            Ok(row(&[("c", 1.0)]))
        };
        let history = history_of(&Searched::new("gpu=H200", refs), &load).unwrap();
        assert_eq!(read.load(Ordering::Relaxed), history_view::SEARCHED_RUNS, "only the newest rows are read");
        assert_eq!(*oldest_read.lock().unwrap(), "r00007", "the 7 oldest runs are not read");
        assert_eq!((history.runs.len(), history.older), (history_view::SEARCHED_RUNS, 7));
        assert_eq!(history.runs.first().map(|r| r.id.as_str()), Some("r00007"));
        let (page, _) = history_view::history_page(&history);
        assert!(
            page.intro[0].starts_with("The newest 2000 of 2007 ok runs (7 older ones not searched"),
            "{}",
            page.intro[0]
        );
        assert!(page.intro[0].contains("every run's values are in data/cases/"), "{}", page.intro[0]);
    }
}
