//! The build's comparison stage: every run's baseline (`comparison::baseline`, the rule
//! `compare` uses), a stamp of everything its comparison depends on, and, for each run whose
//! comparison is new or stale, the comparison itself (`comparison::compare_counted` on the
//! digests' per-cycle samples, a chunk's bootstrap intervals counted before any is drawn),
//! spliced into its run page (every case: no compare page besides) and
//! its index verdict. A run whose stamp is unchanged keeps
//! its cached page, so a build that adds the newest run compares only that run (and re-links
//! its baseline's page, which lists the runs compared with it).
//!
//! A stamp covers: the run's and its baseline's input keys and statuses, how the baseline
//! was chosen, the replicates that give the noise floor (`comparison::noise`) and the runs
//! that have this run as their baseline. Without a cache every run is compared.

use super::{RunContext, RunResult};
use crate::analysis::comparison::baseline::{self, Choice, Pinned, RunRef};
use crate::analysis::comparison::key::ConfigKey;
use crate::analysis::comparison::samples::{self, CaseSamples};
use crate::analysis::comparison::{self, history, Report, Side};
use crate::analysis::overview::RunOverview;
use crate::analysis::summarize::RunStatus;
use crate::render;
use crate::render::OutputFile;
use crate::site::baseline_view::{self, RunComparison};
use crate::site::paths;
use anyhow::Context as _;
use rayon::prelude::*;
use std::collections::{BTreeMap, BTreeSet};
use xxhash_rust::xxh3::Xxh3;

/// Every run's baseline and stamp, in the order of the build's results.
pub(super) struct ComparisonPlan {
    choices: Vec<Choice>,
    /// Per run: the runs compared with it as their baseline (indexes into the results, in
    /// id order).
    compared_by: Vec<Vec<u32>>,
    /// Per run: its history (indexes), the earlier ok runs of its configuration it is judged
    /// against (`comparison::history::windows`).
    replicates: history::Windows,
    pub(super) stamps: Vec<String>,
    pinned_error: Option<String>,
}

/// Chooses every run's baseline and stamps what its comparison depends on (cheap: no run is
/// read). `pinned` is `<runs>/baselines.json` as read, or why it cannot be used.
pub(super) fn plan(results: &[RunResult], pinned: Result<Pinned, String>) -> ComparisonPlan {
    let (pinned, pinned_error) = match pinned {
        Ok(pinned) => (pinned, None),
        Err(error) => (Pinned::new(), Some(error)),
    };
    let refs: Vec<RunRef> = results
        .iter()
        .map(|r| RunRef {
            id: &r.id,
            timestamp: r.card.timestamp_utc.as_deref().unwrap_or(""),
            status: r.card.status,
            key: &r.card.configuration_key,
            label: &r.card.configuration,
        })
        .collect();
    let by_id: BTreeMap<&str, usize> = results.iter().enumerate().map(|(i, r)| (r.id.as_str(), i)).collect();
    let choices: Vec<Choice> = baseline::choose_all(&pinned, &refs)
        .into_iter()
        .zip(&refs)
        .map(|(choice, run)| match run.status {
            RunStatus::Ok => choice,
            status => Choice::None(format!(
                "this run is {}; failed and invalid runs are left out of every comparison",
                status.as_str()
            )),
        })
        .collect();
    let mut compared_by = vec![Vec::new(); results.len()];
    for (i, choice) in choices.iter().enumerate() {
        if let Some(&base) = choice.id().and_then(|id| by_id.get(id)) {
            if results[base].card.status == RunStatus::Ok {
                compared_by[base].push(i as u32);
            }
        }
    }
    compared_by.iter_mut().for_each(|runs| runs.sort_by(|&a, &b| results[a as usize].id.cmp(&results[b as usize].id)));
    let replicates = history::windows(&refs);
    // What each run adds to the stamps that name it (each run's names its history's
    // `WINDOW` runs: made once a run, not once a mention).
    let run_parts: Vec<String> = results
        .par_iter()
        .map(|r| format!("{} {} {}", r.id, r.key.as_deref().unwrap_or("-"), r.card.status.as_str()))
        .collect();
    let stamps = (0..results.len())
        .into_par_iter()
        .map(|i| {
            let mut hasher = Xxh3::new();
            let mut add = |text: &str| {
                hasher.update(text.as_bytes());
                hasher.update(&[0]);
            };
            add(&run_parts[i]);
            add(&format!("{:?}", choices[i]));
            add(choices[i].id().and_then(|id| by_id.get(id)).map_or("absent", |&b| run_parts[b].as_str()));
            replicates.of(i).iter().for_each(|&j| add(&run_parts[j]));
            add("compared by");
            compared_by[i].iter().for_each(|&j| add(&results[j as usize].id));
            add(pinned_error.as_deref().unwrap_or(""));
            format!("{:032x}", hasher.digest128())
        })
        .collect();
    ComparisonPlan { choices, compared_by, replicates, stamps, pinned_error }
}

/// A run's samples and per-case medians, from its digest.
struct Loaded {
    key: ConfigKey,
    samples: Vec<CaseSamples>,
    medians: BTreeMap<String, f64>,
}

/// Compares every run whose stamp changed (or that was built from its inputs) with its
/// baseline, and puts the result in its page, its card and the cache.
pub(super) fn compare_runs(
    results: &mut [RunResult],
    plan: &ComparisonPlan,
    context: &RunContext,
    load: &(dyn Fn(&str) -> anyhow::Result<RunOverview> + Sync),
) -> anyhow::Result<()> {
    // A run is compared again when it was built anew, its stamp changed, or its kept case
    // verdicts are missing or damaged (they are the Parquet rows' verdicts).
    let affected: Vec<usize> = (0..results.len())
        .into_par_iter()
        .filter(|&i| {
            !results[i].cached
                || results[i].comparison.as_ref() != Some(&plan.stamps[i])
                || !context.store.has_verdicts(&results[i].id)
        })
        .collect();
    if affected.is_empty() {
        return Ok(());
    }
    let ids: Vec<String> = results.iter().map(|r| r.id.clone()).collect();
    let by_id: BTreeMap<&str, usize> = ids.iter().enumerate().map(|(i, id)| (id.as_str(), i)).collect();
    // A chunk of runs at a time, each with the digests it needs (its runs, their baselines
    // and histories), so memory does not grow with the number of runs compared.
    for chunk in affected.chunks(COMPARED_AT_ONCE) {
        let mut needed = BTreeSet::new();
        for &i in chunk {
            if let Some(&base) = plan.choices[i].id().and_then(|id| by_id.get(id)) {
                needed.extend([i, base]);
                needed.extend(plan.replicates.of(i));
            }
        }
        let loaded: BTreeMap<usize, Loaded> = needed
            .into_par_iter()
            .map(|i| {
                let digest = load(&results[i].id)?;
                let samples = samples::of(&digest.sections);
                let medians = history::medians(&samples);
                let key = ConfigKey::from_parts(&digest.configuration_key, &digest.soft_facts);
                Ok((i, Loaded { key, samples, medians }))
            })
            .collect::<anyhow::Result<_>>()?;
        // Every interval of the chunk counted before any is drawn (`expect_intervals`): the
        // runs `report_of` compares, those whose baseline is ok.
        comparison::engine::expect_intervals(chunk.iter().filter_map(|&i| {
            let base = plan.choices[i].id().and_then(|id| by_id.get(id))?;
            let ok = results[*base].card.status == RunStatus::Ok;
            ok.then_some((loaded.get(base)?.samples.as_slice(), loaded.get(&i)?.samples.as_slice()))
        }));
        let updates: Vec<(usize, Update)> = chunk
            .par_iter()
            .map(|&i| Ok((i, compare_one(results, i, plan, &by_id, &loaded, context)?)))
            .collect::<anyhow::Result<_>>()?;
        for (i, update) in updates {
            let result = &mut results[i];
            result.card.baseline = update.verdict;
            result.comparison = Some(plan.stamps[i].clone());
            if let Some(in_cache) = update.in_cache {
                result.in_cache = in_cache;
                result.in_live = false;
            }
        }
    }
    Ok(())
}

/// How many runs the comparison stage compares with one set of loaded digests: a build of
/// 1000 new runs loads each digest once; a larger one loads the histories at a chunk's edge
/// again (at most 30 runs a configuration per chunk) to keep memory bounded.
const COMPARED_AT_ONCE: usize = 1024;

/// What comparing one run changed.
struct Update {
    verdict: crate::site::card::BaselineVerdict,
    /// With a cache: whether it holds the run's files (its page just stored in it).
    in_cache: Option<bool>,
}

fn compare_one(
    results: &[RunResult],
    i: usize,
    plan: &ComparisonPlan,
    by_id: &BTreeMap<&str, usize>,
    loaded: &BTreeMap<usize, Loaded>,
    context: &RunContext,
) -> anyhow::Result<Update> {
    let run = &results[i];
    let report = report_of(results, i, plan, by_id, loaded);
    let outcome = report.as_ref().map_err(Clone::clone);
    let compared_by: Vec<String> = plan.compared_by[i].iter().map(|&j| results[j as usize].id.clone()).collect();
    let block = baseline_view::block(&RunComparison {
        outcome: outcome.clone(),
        compared_by: &compared_by,
        pinned_error: plan.pinned_error.as_deref(),
    });
    let page_path = paths::run_file(&run.id, "index.html");
    // A run of a site updated in place is compared where its files are.
    let writer = match (context.live, run.live_site) {
        (Some(live), true) => live,
        _ => context.staging,
    };
    let page = writer.read(&page_path)?;
    let page = render::pages::splice_baseline(&page, &block)
        .with_context(|| format!("the run page of {} has no comparison region", run.id))?;
    let page = OutputFile::new(page_path, page);
    writer.put(&page)?;
    let verdict = baseline_view::verdict(&outcome);
    let mut card = run.card.clone();
    card.baseline = verdict.clone();
    let case_verdicts: BTreeMap<String, String> = outcome
        .as_ref()
        .map(|r| r.cases.iter().map(|c| (c.key(), c.verdict.as_str().to_string())).collect())
        .unwrap_or_default();
    // The verdicts first: the entry's new stamp says the comparison is complete.
    context
        .store
        .put_verdicts(&run.id, &case_verdicts)
        .with_context(|| format!("cannot keep the case verdicts of {}", run.id))?;
    let in_cache = match (context.cache, run.key.is_some()) {
        (Some(cache), true) => {
            let entry = cache
                .update_compared(&run.id, std::slice::from_ref(&page), card, plan.stamps[i].clone())
                .with_context(|| format!("cannot update the build cache for {}", run.id))?;
            Some(!entry.files.is_empty())
        }
        _ => None,
    };
    Ok(Update { verdict, in_cache })
}

/// The comparison of run `i` with its baseline, or why there is none.
fn report_of(
    results: &[RunResult],
    i: usize,
    plan: &ComparisonPlan,
    by_id: &BTreeMap<&str, usize>,
    loaded: &BTreeMap<usize, Loaded>,
) -> Result<Report, String> {
    let choice = &plan.choices[i];
    let Some(base_id) = choice.id() else { return Err(choice.source()) };
    let Some(&b) = by_id.get(base_id) else {
        return Err(format!("its baseline {base_id} ({}) is not in the runs folder", choice.source()));
    };
    if results[b].card.status != RunStatus::Ok {
        return Err(format!(
            "its baseline {base_id} ({}) is {}; failed and invalid runs are left out of every comparison",
            choice.source(),
            results[b].card.status.as_str()
        ));
    }
    let side = |index: usize| {
        let run = &loaded[&index];
        Side {
            id: results[index].id.as_str(),
            status: results[index].card.status,
            key: &run.key,
            samples: &run.samples,
        }
    };
    let history = plan.replicates.of(i).iter().map(|j| loaded[j].medians.clone()).collect();
    let caveats = loaded[&b].key.caveats(&loaded[&i].key);
    Ok(comparison::compare_counted(&side(b), &side(i), history, caveats, &choice.source()))
}
