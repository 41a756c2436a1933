//! `nccl-report build`: the pipeline (`build`). Runs are found (sorted), then each run is read,
//! parsed, summarized, exported and rendered on its own (in parallel, rayon), its files
//! written straight into the staging folder, its digest put in the digest store and only a
//! small card kept; then the cross-run pages are rendered a page of runs at a time
//! (`cross_run`) and the staging folder is swapped in.
//! Unchanged runs come from the cache. The output depends only on the runs, never on the
//! thread count, the clock or the machine.
//!
//! Incremental builds are O(new runs): when the live site is the one the last build
//! committed (its marker has the stamp the cache recorded) and every cached run is in it as
//! cached, the runs built anew are moved from the staging folder into the live site, the
//! files of changed and removed runs that are gone are removed, and only the cross-run units
//! whose key changed are rendered (`cross_run`); the unchanged runs are not touched. Any other
//! site (no cache, edited or half-updated, another page size) is built whole in a staging
//! folder and swapped in.
//! Modules: `per_run` (each run: listed, read, summarized, rendered), `cache` (unchanged runs),
//! `carry` (cached runs into the new site, or checked in the live one), `comparisons` (each run
//! against its baseline), `histories` (each configuration's history), `cross_run` (the pages of
//! many runs), `site_notes` (the notes of the runs folder), `report` (what a build did and how
//! long it took), `write` (the only code that writes the site: a staging folder swapped in
//! whole) and `out_dir` (the output folder, its lock and the swap).

pub(crate) mod cache;
mod carry;
mod comparisons;
pub(crate) mod cross_run;
mod digest_pack;
mod groups;
mod histories;
pub(crate) mod out_dir;
mod per_run;
mod report;
mod site_notes;
pub(crate) mod write;

pub(crate) use per_run::compared_runs;
pub(crate) use report::BuildReport;

use crate::analysis::overview::RunOverview;
use crate::ingest::find::FileStamp;
use crate::pipeline::cache::{Cache, DigestStore, Published};
use crate::pipeline::histories::HistoryRow;
use crate::pipeline::out_dir::{OutputLock, MARKER};
use crate::pipeline::write::{count_site, SiteCount, Staging, WriteCounts};
use crate::site::notes::SiteNotes;
use crate::{analysis::comparison, ingest::find, ingest::input, render, site};
use anyhow::Context;
use carry::{check_in_place, in_place_ok, move_in_place, restore_cached, site_unchanged};
use per_run::{build_runs, RunContext, RunResult, StageClock};
use rayon::prelude::*;
use report::Stages;
use site_notes::read_site_notes;
use std::path::PathBuf;

#[derive(Debug, Clone)]
pub(crate) struct BuildOptions {
    /// Size limits per kind of input (in force for the whole build, and part of every cache key).
    pub limits: input::Limits,
    pub runs: PathBuf,
    pub out: PathBuf,
    pub jobs: Option<usize>,
    /// Use and update the build cache beside the output.
    pub cache: bool,
    /// Runs per page of the cross-run pages.
    pub page_size: usize,
    /// The URL path the site is served under (normalized `/.../`): 404.html's links start
    /// with it.
    pub site_url: String,
    /// Publish every run's archived inputs beside its page (`runs/<id>/evidence/`).
    pub evidence: bool,
}

pub(crate) fn build(options: &BuildOptions) -> anyhow::Result<BuildReport> {
    let pool = rayon::ThreadPoolBuilder::new()
        .num_threads(options.jobs.unwrap_or(0))
        .build()
        .context("cannot start worker threads")?;
    pool.install(|| run_pipeline(options))
}

/// The build, one named stage a line (as zola's `Site::build`): each stage is a function of
/// its own, and `Stages::time` wraps it to record its wall time.
fn run_pipeline(options: &BuildOptions) -> anyhow::Result<BuildReport> {
    let mut stages = Stages::start();
    stages.time("validate", || validate(options))?;
    let folders = stages.time("find", || find_runs(options))?;
    if folders.ids.is_empty() {
        anyhow::bail!(
            "no runs in {} (a run is a folder holding manifest.txt or raw/; {} other entries skipped); nothing to build",
            options.runs.display(),
            folders.skipped.len()
        );
    }
    let (site_notes, notes_problems) = stages.time("read site notes", || read_site_notes(options));
    stages.report.problems.extend(notes_problems);
    let lock = stages.time("lock", || OutputLock::acquire(&options.out))?;
    let cache = stages.time("open cache", || open_cache(options, &lock, &site_notes))?;
    let staging = stages.time("begin staging", || begin_staging(options, &lock))?;
    let store = stages.time("open digest store", || digest_store(cache.as_ref()))?;
    let clock = StageClock::default();
    let context = RunContext {
        cache: cache.as_ref(),
        store: &store,
        staging: &staging,
        site_notes: &site_notes,
        limits: options.limits,
        evidence: options.evidence,
        clock: &clock,
        live: None,
    };
    let results = stages.time("runs (wall)", || build_runs(&folders, &context))?;
    stages.add_thread_times(&clock);
    let pinned = stages.time("read baselines", || comparison::baseline::read_pinned(&options.runs));
    if let Err(error) = &pinned {
        stages.report.problems.push(format!("{error}; baselines are the newest earlier ok runs"));
    }
    let plan = stages.time("choose baselines", || comparisons::plan(&results, pinned));
    let cross_key = cross_key(&results, &plan.stamps, options);
    // What the live site was built from (nothing without a cache), and whether it is already
    // what this build would write.
    let (published, unchanged) = stages.time("check unchanged", || {
        let published = cache.as_ref().map(Cache::published).unwrap_or_default();
        let unchanged = cache.is_some() && site_unchanged(&published, &results, cross_key.as_ref(), lock.out());
        (published, unchanged)
    });
    if unchanged {
        stages.report.written = staging.counts();
        drop(staging);
        let count = stages.time("count", || published.count.map_or_else(|| count_site(lock.out()), Ok))?;
        return Ok(stages.finish(&folders, &results, count));
    }
    let live_units = cache.as_ref().and_then(|c| c.units()).filter(|_| in_place_ok(&published, &results, &lock));
    let live = live_units.is_some().then(|| Staging::in_place(&lock, published.count));
    let mut results = match &live {
        Some(live) => {
            stages.time("check live runs", || check_in_place(results, &published, &folders, &context, live))?
        }
        None => stages.time("carry cached runs", || restore_cached(results, &folders, &context, lock.out()))?,
    };
    // What the live site was built from is not needed any more (~150 bytes a run).
    drop(published);
    site::card::intern(results.iter_mut().map(|r| &mut r.card));
    let digests = Digests { folders: &folders, store: &store, limits: options.limits };
    let compare_context = RunContext { live: live.as_ref(), ..context };
    stages.time("compare with baselines", || {
        comparisons::compare_runs(&mut results, &plan, &compare_context, &|id| digests.get(id))
    })?;
    if let Some(live) = &live {
        stages.time("move new runs in place", || move_in_place(&results, &staging, live))?;
    }
    let writer = live.as_ref().unwrap_or(&staging);
    let site_context = RunContext { staging: writer, ..context };
    // The live site's units: the history units (each configuration's page, the regressions
    // page) apart from the cross-run ones.
    let (live_history, cross_units) = match live_units {
        Some(units) => {
            let (history, cross): (cross_run::Units, cross_run::Units) =
                units.into_iter().partition(|(name, _)| histories::is_history_unit(name));
            (Some(history), Some(cross))
        }
        None => (None, None),
    };
    // The history pages beside the cross-run pages (neither reads what the other writes):
    // adding a run redoes its configuration's history page and the pages that list it.
    let (history, written) = stages.time_both(
        ("history pages", || {
            histories::write(&results, &|id, lists| digests.row(id, lists), writer, live_history.as_ref())
        }),
        ("cross-run pages", || {
            write_cross_run(&results, &digests, &site_context, options, cross_key.as_deref(), cross_units.as_ref())
        }),
    );
    let ((history, problems), mut written) = (history?, written?);
    stages.report.problems.extend(problems);
    written.units.extend(history);
    let count = stages.time("count", || writer.count())?;
    stages.report.in_place = live.is_some();
    stages.report.written = match &live {
        Some(live) => WriteCounts { bytes: live.counts().bytes + staging.counts().bytes, ..live.counts() },
        None => staging.counts(),
    };
    stages.time("commit", || commit(live.unwrap_or(staging), options))?;
    stages.time("update cache", || update_cache(cache.as_ref(), &results, cross_key, written.units, count, &lock))?;
    Ok(stages.finish(&folders, &results, count))
}

/// The output folder must not be inside the runs folder (nor the other way round), and the
/// runs folder must exist.
fn validate(options: &BuildOptions) -> anyhow::Result<()> {
    out_dir::check_apart(&options.out, &options.runs)?;
    if !options.runs.is_dir() {
        anyhow::bail!("runs folder {} does not exist or is not a folder", options.runs.display());
    }
    Ok(())
}

/// The run folders, sorted, and the folders that are not runs.
fn find_runs(options: &BuildOptions) -> anyhow::Result<find::RunFolders> {
    find::find_run_folders(&options.runs).with_context(|| format!("cannot list {}", options.runs.display()))
}

/// The build cache beside the output, when the build uses one.
fn open_cache(options: &BuildOptions, lock: &OutputLock, site_notes: &SiteNotes) -> anyhow::Result<Option<Cache>> {
    if !options.cache {
        return Ok(None);
    }
    let limits = options.limits;
    let context = format!(
        "{}\0limits {} {} {}\0evidence {}",
        site_notes.key_text(),
        limits.file,
        limits.notes,
        limits.log,
        options.evidence
    );
    Cache::open(lock.out(), context.as_bytes()).context("cannot open the build cache").map(Some)
}

/// The folder the new site is written into before it is swapped in.
fn begin_staging<'a>(options: &BuildOptions, lock: &'a OutputLock) -> anyhow::Result<Staging<'a>> {
    Staging::begin(lock).with_context(|| format!("cannot write the site to {}", options.out.display()))
}

/// Where every run's digest waits for the cross-run pages: the cache, or a temporary file.
fn digest_store(cache: Option<&Cache>) -> anyhow::Result<DigestStore<'_>> {
    match cache {
        Some(cache) => Ok(DigestStore::Cache(cache)),
        None => DigestStore::temporary().context("cannot create a temporary file for run digests"),
    }
}

/// The static files and the cross-run pages (index, section pages, runs.json); `cross_key`
/// keys the first page (with a cache), `live` the units of the live site updated in place.
fn write_cross_run(
    results: &[RunResult],
    digests: &Digests,
    context: &RunContext,
    options: &BuildOptions,
    cross_key: Option<&str>,
    live: Option<&cross_run::Units>,
) -> anyhow::Result<cross_run::Written> {
    let static_files = render::static_files(&options.site_url);
    static_files.par_iter().try_for_each(|f| context.staging.put(f))?;
    // A shard's key covers its runs' input keys and comparison stamps (the case verdicts).
    let keys: std::collections::HashMap<&str, String> = results
        .iter()
        .filter_map(|r| {
            Some((r.id.as_str(), format!("{} {}", r.key.as_deref()?, r.comparison.as_deref().unwrap_or("-"))))
        })
        .collect();
    let sources = cross_run::Sources {
        load: &|id| digests.with_verdicts(id),
        site_notes: context.site_notes,
        keys: cross_key.map(|first| (&keys, first)),
        live,
    };
    let cards = results.iter().map(|r| r.card.clone()).collect();
    cross_run::write(cards, options.page_size, &sources, context.staging)
}

/// Every run's digest, for the stages after the per-run one: read back from the digest
/// store, or recomputed from the run's inputs when it cannot be (and stored again: a failure
/// to store only costs recomputing it next time).
struct Digests<'a> {
    folders: &'a find::RunFolders,
    store: &'a DigestStore<'a>,
    limits: input::Limits,
}

impl Digests<'_> {
    fn get(&self, id: &str) -> anyhow::Result<RunOverview> {
        if let Some(digest) = self.store.get(id) {
            return Ok(digest);
        }
        let run = self.folders.list(id).with_context(|| format!("no run {id}"))?;
        let digest = per_run::digest_of(&run, self.limits)?;
        let _ = self.store.put(&digest);
        Ok(digest)
    }

    /// A run's digest with the case verdicts of its last comparison (for the Parquet rows).
    fn with_verdicts(&self, id: &str) -> anyhow::Result<RunOverview> {
        let mut digest = self.get(id)?;
        digest.case_verdicts = self.store.verdicts(id).unwrap_or_default();
        Ok(digest)
    }

    /// A run's history row: kept beside its digest (its case list parsed once in `lists`),
    /// else made from the digest (and kept).
    fn row(&self, id: &str, lists: &histories::CaseLists) -> anyhow::Result<HistoryRow> {
        if let Some(row) = self.store.row(id, lists) {
            return Ok(row);
        }
        let row = HistoryRow::of(&self.get(id)?);
        let _ = self.store.put_row(id, &row);
        Ok(row)
    }
}

/// Swaps the staging folder in as the live site.
fn commit(staging: Staging, options: &BuildOptions) -> anyhow::Result<()> {
    staging.commit().with_context(|| format!("cannot write the site to {}", options.out.display()))
}

/// Records in the cache which runs the committed site was built from, and drops the others.
fn update_cache(
    cache: Option<&Cache>,
    results: &[RunResult],
    cross_key: Option<String>,
    mut units: cross_run::Units,
    count: SiteCount,
    lock: &OutputLock,
) -> anyhow::Result<()> {
    let Some(cache) = cache else { return Ok(()) };
    let ids: Vec<String> = results.iter().map(|r| r.id.clone()).collect();
    cache.retain(&ids);
    cross_run::stamp(&mut units, lock.out());
    cache.set_units(&units).context("cannot update the build cache")?;
    results.par_iter().filter(|r| r.in_cache && !r.in_live).for_each(|r| {
        // A stamp not recorded only makes the next build copy that run from the cache.
        let _ = cache.record_site(&r.id, lock.out());
    });
    let runs = results.iter().filter_map(|r| Some((r.id.clone(), r.key.clone()?))).collect();
    let site = std::fs::metadata(lock.out().join(MARKER)).ok().map(|m| FileStamp::of(&m));
    let published = Published { runs, cross: cross_key, site, count: Some(count) };
    cache.set_published(&published).context("cannot update the build cache")
}

/// The key of the cross-run pages and the static files: every run's id, key (each key
/// already covers the tool and the site-wide notes) and comparison stamp, the page size and
/// the site URL (404.html's links). `None` without a cache.
fn cross_key(results: &[RunResult], comparisons: &[String], options: &BuildOptions) -> Option<String> {
    let mut hasher = xxhash_rust::xxh3::Xxh3::new();
    hasher.update(&options.page_size.to_le_bytes());
    hasher.update(options.site_url.as_bytes());
    hasher.update(&[0]);
    for (result, comparison) in results.iter().zip(comparisons) {
        hasher.update(result.id.as_bytes());
        hasher.update(&[0]);
        hasher.update(result.key.as_ref()?.as_bytes());
        hasher.update(&[0]);
        hasher.update(comparison.as_bytes());
        hasher.update(&[0]);
    }
    Some(format!("{:032x}", hasher.digest128()))
}
