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
use std::collections::BTreeMap;

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
        by_configuration.entry(result.card.configuration_key.as_str()).or_default().push(result);
    }
    let mut links = Vec::new();
    let mut regressions = Vec::new();
    let mut files = Vec::new();
    // Configurations in groups of at most `HISTORY_GROUP_RUNS` runs (one larger is a group
    // alone), each group's histories loaded and searched in parallel and written before the
    // next is read: memory holds a group's history rows, not every run's.
    let mut groups: Vec<Vec<(&str, Vec<&RunResult>)>> = Vec::new();
    let mut runs_in_last = 0;
    for (key_text, runs) in by_configuration {
        if groups.is_empty() || runs_in_last + runs.len() > HISTORY_GROUP_RUNS {
            groups.push(Vec::new());
            runs_in_last = 0;
        }
        runs_in_last += runs.len();
        groups.last_mut().expect("a group was pushed").push((key_text, runs));
    }
    for group in groups {
        let configurations: Vec<ConfigurationHistory> = group
            .into_par_iter()
            .map(|(key_text, runs)| history_of(key_text, runs, load))
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
/// grouped in key order; one with more runs is a group of its own).
const HISTORY_GROUP_RUNS: usize = 10_000;

/// One configuration's history: its runs in time order with their history rows (read in
/// parallel: a configuration can hold most of the runs), and its cases merged after in that
/// order.
fn history_of(
    key_text: &str,
    mut runs: Vec<&RunResult>,
    load: &(dyn Fn(&str) -> anyhow::Result<HistoryRow> + Sync),
) -> anyhow::Result<ConfigurationHistory> {
    runs.sort_by_cached_key(|r| {
        let t = r.card.timestamp_utc.clone().unwrap_or_default();
        (crate::core::calendar::iso_seconds(&t), t, r.id.clone())
    });
    let loaded = runs
        .par_iter()
        .map(|r| {
            let row = load(&r.id)?;
            let slower = match &r.card.baseline {
                BaselineVerdict::Compared(v) => v.slower_cases.clone(),
                _ => Vec::new(),
            };
            let run = HistoryRun {
                id: r.id.clone(),
                values: row.values,
                soft: row.soft,
                nccl_choices: row.nccl_choices,
                slower,
            };
            Ok((run, row.cases))
        })
        .collect::<anyhow::Result<Vec<_>>>()?;
    let mut cases = BTreeMap::new();
    let mut history_runs = Vec::with_capacity(loaded.len());
    for (run, infos) in loaded {
        for (key, info) in infos {
            cases.entry(key).or_insert(info);
        }
        history_runs.push(run);
    }
    Ok(ConfigurationHistory {
        label: runs[0].card.configuration.clone(),
        key_text: key_text.to_string(),
        runs: history_runs,
        cases,
    })
}
