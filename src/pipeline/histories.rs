//! The build stage after the comparisons: every configuration's history page and the
//! regressions page (`site::history_view`), from the runs' digests (their run-level values,
//! never the raw files). Uses `comparison`, `site`, `render` and `write` (through `Staging`).

use super::RunResult;
use crate::analysis::comparison::{history, samples};
use crate::analysis::overview::RunOverview;
use crate::analysis::summarize::RunStatus;
use crate::pipeline::write::Staging;
use crate::render;
use crate::site::card::BaselineVerdict;
use crate::site::history_view::{self, nccl_choices, CaseInfo, ConfigurationHistory, HistoryRun};
use rayon::prelude::*;
use std::collections::BTreeMap;

/// Writes the history pages and the regressions page; returns the paths written.
pub(super) fn write(
    results: &[RunResult],
    load: &(dyn Fn(&str) -> anyhow::Result<RunOverview> + Sync),
    staging: &Staging,
) -> anyhow::Result<Vec<String>> {
    let mut by_configuration: BTreeMap<&str, Vec<&RunResult>> = BTreeMap::new();
    for result in results.iter().filter(|r| r.card.status == RunStatus::Ok) {
        by_configuration.entry(result.card.configuration_key.as_str()).or_default().push(result);
    }
    let configurations: Vec<ConfigurationHistory> = by_configuration
        .into_par_iter()
        .map(|(key_text, mut runs)| {
            runs.sort_by_cached_key(|r| {
                let t = r.card.timestamp_utc.clone().unwrap_or_default();
                (crate::core::calendar::iso_seconds(&t), t, r.id.clone())
            });
            // Every run's digest read and reduced in parallel (a configuration can hold most
            // of the runs), the case list merged after in time order.
            let loaded = runs
                .par_iter()
                .map(|r| {
                    let digest = load(&r.id)?;
                    let case_samples = samples::of(&digest.sections);
                    let infos: Vec<(String, CaseInfo)> = case_samples
                        .iter()
                        .map(|c| {
                            let label = match &c.folder {
                                Some(folder) => format!("{folder}: {}", c.case),
                                None => c.case.clone(),
                            };
                            let info = CaseInfo {
                                section: c.section,
                                label,
                                metric: c.metric,
                                higher_is_better: c.higher_is_better,
                            };
                            (c.key(), info)
                        })
                        .collect();
                    let slower = match &r.card.baseline {
                        BaselineVerdict::Compared(v) => v.slower_cases.clone(),
                        _ => Vec::new(),
                    };
                    let run = HistoryRun {
                        id: r.id.clone(),
                        values: history::medians(&case_samples),
                        soft: digest.soft_facts,
                        nccl_choices: nccl_choices(digest.nccl_perf.as_ref().map_or(&[][..], |p| &p.choices)),
                        slower,
                    };
                    Ok((run, infos))
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
        })
        .collect::<anyhow::Result<_>>()?;
    let pages: Vec<_> = configurations.par_iter().map(history_view::history_page).collect();
    let links = history_view::history_links(&configurations);
    let mut regressions = Vec::new();
    let mut files = Vec::new();
    for (page, entries) in pages {
        let rendered = render::history_files(&page);
        rendered.par_iter().try_for_each(|f| staging.put(f))?;
        files.extend(rendered.into_iter().map(|f| f.path));
        regressions.extend(entries);
    }
    let listed: Vec<(String, String)> = links.into_iter().map(|l| (l.text, l.href)).collect();
    for file in render::history_files(&history_view::regressions_page(regressions, &listed)) {
        staging.put(&file)?;
        files.push(file.path);
    }
    Ok(files)
}
