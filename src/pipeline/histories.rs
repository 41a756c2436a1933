//! The build stage after the comparisons: every configuration's history page and the
//! regressions page (`site::history_view`), from the runs' history rows (`HistoryRow`: their
//! run-level values and what explains a change point, kept beside each digest; never the raw
//! files). Uses `comparison`, `site`, `render` and `write` (through `Staging`).

use super::RunResult;
use crate::analysis::comparison::{history, samples};
use crate::analysis::overview::RunOverview;
use crate::analysis::summarize::RunStatus;
use crate::pipeline::write::Staging;
use crate::render;
use crate::site::card::BaselineVerdict;
use crate::site::history_view::{self, nccl_choices, CaseInfo, ConfigurationHistory, HistoryRun};
use rayon::prelude::*;
use serde::{Deserialize, Serialize};
use std::collections::{BTreeMap, HashMap};
use std::sync::Arc;

/// What one run gives its configuration's history page, from its digest: kept beside the
/// digest (`cache::DigestStore`) so that the history stage reads a few KB a run, not the
/// digest.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub(crate) struct HistoryRow {
    /// Run-level value (the median over its cycles) per case key.
    values: BTreeMap<String, f64>,
    /// What each case is, by key, in the digest's order.
    cases: Vec<(String, CaseInfo)>,
    soft: Vec<(String, String)>,
    nccl_choices: BTreeMap<String, String>,
}

impl HistoryRow {
    pub(crate) fn of(digest: &RunOverview) -> HistoryRow {
        let case_samples = samples::of(&digest.sections);
        let cases = case_samples
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
        HistoryRow {
            values: history::medians(&case_samples),
            cases,
            soft: digest.soft_facts.clone(),
            nccl_choices: nccl_choices(digest.nccl_perf.as_ref().map_or(&[][..], |p| &p.choices)),
        }
    }
}

/// Writes the history pages and the regressions page; returns the paths written.
pub(super) fn write(
    results: &[RunResult],
    load: &(dyn Fn(&str) -> anyhow::Result<HistoryRow> + Sync),
    staging: &Staging,
) -> anyhow::Result<Vec<String>> {
    let mut by_configuration: BTreeMap<&str, Vec<&RunResult>> = BTreeMap::new();
    for result in results.iter().filter(|r| r.card.status == RunStatus::Ok) {
        by_configuration.entry(&*result.card.configuration_key).or_default().push(result);
    }
    let mut links = Vec::new();
    let mut regressions = Vec::new();
    let mut files = Vec::new();
    // Configurations in groups of at most `HISTORY_GROUP_RUNS` searched runs (each
    // configuration's newest `SEARCHED_RUNS`), each group's histories loaded and searched in
    // parallel and written before the next is read: memory holds a group's history rows, not
    // every run's.
    let by_configuration: Vec<(&str, Vec<&RunResult>)> = by_configuration.into_iter().collect();
    let searched = by_configuration.iter().map(|(_, runs)| runs.len().min(history_view::SEARCHED_RUNS));
    for group in super::groups::within(HISTORY_GROUP_RUNS, searched) {
        let configurations: Vec<ConfigurationHistory> = group
            .into_par_iter()
            .map(|i| history_of(by_configuration[i].0, &by_configuration[i].1, load))
            .collect::<anyhow::Result<_>>()?;
        links.extend(history_view::history_links(&configurations));
        let pages: Vec<_> = configurations.par_iter().map(history_view::history_page).collect();
        drop(configurations);
        for (page, entries) in pages {
            let rendered = render::history_files(&page);
            rendered.par_iter().try_for_each(|f| staging.put(f))?;
            files.extend(rendered.into_iter().map(|f| f.path));
            regressions.extend(entries);
        }
    }
    let listed: Vec<(String, String)> = links.into_iter().map(|l| (l.text, l.href)).collect();
    for file in render::history_files(&history_view::regressions_page(regressions, &listed)) {
        staging.put(&file)?;
        files.push(file.path);
    }
    Ok(files)
}

/// How many runs' history rows the history stage holds at once, at most (configurations are
/// grouped in key order).
const HISTORY_GROUP_RUNS: usize = 10_000;

/// One configuration's history: its newest `SEARCHED_RUNS` runs in time order with their
/// history rows (read in parallel, `ROWS_AT_ONCE` at a time), each row's values kept by case
/// column (`HistoryRun::values`), and its cases merged in that order. The older runs are only
/// counted: what the stage holds and reads is bounded however long the history grows.
fn history_of(
    key_text: &str,
    runs: &[&RunResult],
    load: &(dyn Fn(&str) -> anyhow::Result<HistoryRow> + Sync),
) -> anyhow::Result<ConfigurationHistory> {
    let mut runs = runs.to_vec();
    runs.sort_by_cached_key(|r| {
        let t = r.card.timestamp_utc.clone().unwrap_or_default();
        (crate::core::calendar::iso_seconds(&t), t, r.id.clone())
    });
    let older = runs.len().saturating_sub(history_view::SEARCHED_RUNS);
    let runs = &runs[older..];
    // Columns in the order cases are first seen, renumbered in key order at the end.
    let mut seen: HashMap<String, u32> = HashMap::new();
    let mut infos: Vec<(String, CaseInfo)> = Vec::new();
    let mut history_runs = Vec::with_capacity(runs.len());
    for block in runs.chunks(ROWS_AT_ONCE) {
        let rows = block.par_iter().map(|r| load(&r.id)).collect::<anyhow::Result<Vec<_>>>()?;
        for (r, row) in block.iter().zip(rows) {
            for (key, info) in row.cases {
                if !seen.contains_key(&key) {
                    seen.insert(key.clone(), infos.len() as u32);
                    infos.push((key, info));
                }
            }
            let values = row.values.into_iter().filter_map(|(key, v)| Some((*seen.get(&key)?, v))).collect();
            let slower = match &r.card.baseline {
                BaselineVerdict::Compared(v) => v.slower_cases.clone(),
                _ => Vec::new(),
            };
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
    fn a_long_history_reads_only_its_newest_runs() {
        let total = history_view::SEARCHED_RUNS + 7;
        let results: Vec<RunResult> = (0..total).rev().map(result).collect();
        let refs: Vec<&RunResult> = results.iter().collect();
        let read = AtomicUsize::new(0);
        let oldest_read = std::sync::Mutex::new(String::from("~"));
        let load = |id: &str| {
            read.fetch_add(1, Ordering::Relaxed);
            let mut oldest = oldest_read.lock().unwrap();
            if id < oldest.as_str() {
                *oldest = id.to_string();
            }
            Ok(HistoryRow {
                values: [("c".to_string(), 1.0)].into(),
                cases: Vec::new(),
                soft: Vec::new(),
                nccl_choices: BTreeMap::new(),
            })
        };
        let history = history_of("gpu=H200", &refs, &load).unwrap();
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
