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
//! Modules: `cache` (unchanged runs), `comparisons` (each run against its baseline),
//! `cross_run` (the pages of many runs), `write` (the only code that writes the site: a
//! staging folder swapped in whole) and `out_dir` (the output folder, its lock and the swap).

pub(crate) mod cache;
mod comparisons;
pub(crate) mod cross_run;
mod digest_pack;
mod groups;
mod histories;
pub(crate) mod out_dir;
pub(crate) mod write;

use crate::analysis::overview::RunOverview;
use crate::analysis::summarize::{RunStatus, RunSummary};
use crate::core::diag::{Code, Diagnostic};
use crate::ingest::evidence::EvidenceFile;
use crate::ingest::find::{FileRef, FileStamp, RunDir};
use crate::pipeline::cache::{ArchivedFile, Cache, DigestStore, EntryHead, Keyed, LiveRun, Published, Stamp};
use crate::pipeline::histories::HistoryRow;
use crate::pipeline::out_dir::{OutputLock, MARKER};
use crate::pipeline::write::{count_site, SiteCount, Staging, WriteCounts};
use crate::render::OutputFile;
use crate::site::card::RunCard;
use crate::site::notes::{Note, SiteNotes};
use crate::site::paths;
use crate::{
    analysis::comparison, analysis::summarize, export, ingest::archived, ingest::evidence, ingest::find, ingest::input,
    ingest::load, render, site,
};
use anyhow::Context;
use indicatif::{ProgressBar, ProgressStyle};
use rayon::prelude::*;
use std::collections::HashMap;
use std::io::IsTerminal;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, AtomicU64, AtomicUsize, Ordering};
use std::time::{Duration, Instant};

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

/// What a build did, for the one-line summary and the benchmark.
#[derive(Debug, Clone, Default)]
pub(crate) struct BuildReport {
    pub ok: usize,
    pub failed: usize,
    pub invalid: usize,
    pub pages: usize,
    pub files: usize,
    pub input_bytes: u64,
    pub cached_runs: usize,
    /// Cached runs taken by their kept layout, without a listing.
    pub rechecked_runs: usize,
    /// What the build wrote into the site (written, linked, removed, left alone).
    pub written: WriteCounts,
    /// Whether the live site was updated in place (an incremental build).
    pub in_place: bool,
    /// Folders under the runs folder that are not runs, with why.
    pub skipped: Vec<String>,
    /// One line per run that is not ok: id, status, worst diagnostic.
    pub problems: Vec<String>,
    /// Wall time of each step (two of them, the history and cross-run pages, run side by
    /// side: `Stages::time_both`), and thread time of the per-run stages.
    pub stages: Vec<(&'static str, Duration)>,
    pub total: Duration,
}

/// Thread time spent in each per-run stage, summed over runs.
#[derive(Default)]
struct StageClock {
    list: AtomicU64,
    parse: AtomicU64,
    logs: AtomicU64,
    summarize: AtomicU64,
    export: AtomicU64,
    render: AtomicU64,
    evidence: AtomicU64,
    write: AtomicU64,
    /// Runs taken from the cache by their kept layout, without a listing (`unchanged_run`).
    rechecked: AtomicU64,
}

impl StageClock {
    fn add(counter: &AtomicU64, since: Instant) -> Instant {
        counter.fetch_add(since.elapsed().as_nanos() as u64, Ordering::Relaxed);
        Instant::now()
    }

    /// Runs one stage, adding its thread time to `counter`.
    fn time<T>(counter: &AtomicU64, stage: impl FnOnce() -> T) -> T {
        let start = Instant::now();
        let out = stage();
        StageClock::add(counter, start);
        out
    }
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

/// Whether the live site can be updated in place: it is the site the last build committed
/// (its marker has the recorded stamp) and every run taken from the cache is in it as cached.
fn in_place_ok(published: &Published, results: &[RunResult], lock: &OutputLock) -> bool {
    let marker = std::fs::metadata(lock.out().join(MARKER)).ok().map(|m| FileStamp::of(&m));
    published.site.is_some()
        && published.site == marker
        && results.iter().filter(|r| r.restore.is_some()).all(|r| {
            published.runs.get(&r.id) == r.key.as_ref()
                && lock.out().join(paths::run_file(&r.id, "index.html")).is_file()
        })
}

/// Before a site is updated in place: removes the runs that are gone from it, and checks the
/// cached runs in it, which stay as they are (their files listed for the comparison stage,
/// which may update their pages in place) but for a file whose stamp is not the one recorded
/// at the last commit (edited by hand), put back from the cache; a run whose cached files
/// cannot be put back is built again, in place. The runs built anew wait in the staging
/// folder until they are compared (`move_in_place`).
fn check_in_place(
    results: Vec<RunResult>,
    published: &Published,
    folders: &find::RunFolders,
    context: &RunContext,
    live: &Staging,
) -> anyhow::Result<Vec<RunResult>> {
    let ids: std::collections::HashSet<&str> = results.iter().map(|r| r.id.as_str()).collect();
    if let Some(cache) = context.cache {
        for gone in published.runs.keys().filter(|id| !ids.contains(id.as_str())) {
            for file in cache.lookup(gone).map(|e| e.files).unwrap_or_default() {
                live.remove(&file.rel)?;
            }
            live.remove_dir(&paths::run_file(gone, ""))?;
        }
    }
    let in_live = RunContext { staging: live, ..*context };
    results
        .into_par_iter()
        .map(|mut result| {
            let (Some(cache), Some(print)) = (context.cache, result.restore.take()) else { return Ok(result) };
            let folder = folders.folder_of(&result.id);
            match cache.repair_live(&result.id, result.key.as_deref(), print, &folder, live, live.dir()) {
                Some(found) => {
                    // Checked runs have their stamps recorded again at the commit (from their
                    // entries: `update_cache`); an intact one keeps those recorded.
                    result.in_cache = true;
                    result.in_live = found == LiveRun::Intact;
                    result.live_site = true;
                    Ok(result)
                }
                None => {
                    let run = folders.list(&result.id).with_context(|| format!("no run {}", result.id))?;
                    // The files it has in the live site (listed there, whatever its entry now
                    // says) go if it no longer makes them.
                    let previous = live.files_under(&paths::run_file(&result.id, ""))?;
                    let plan = CachePlan::rebuild(cache, &run, previous);
                    let rebuilt = build_run(&run, plan, &in_live)?;
                    Ok(RunResult { live_site: true, ..rebuilt })
                }
            }
        })
        .collect()
}

/// Moves the runs built anew (and compared) from the staging folder into the live site, each
/// file renamed over its old version, and removes the files those runs had before and no
/// longer have, and the folders that leaves empty. What a run had is what its folder of the
/// live site holds, listed there: the cache's record of its files can be gone, or newer than
/// the live site, after a build killed while it stored the run.
fn move_in_place(results: &[RunResult], staging: &Staging, live: &Staging) -> anyhow::Result<()> {
    let mut stale = Vec::new();
    for result in results.iter().filter(|r| !r.cached && !r.live_site) {
        let folder = paths::run_file(&result.id, "");
        let made: std::collections::HashSet<String> = staging.files_under(&folder)?.into_iter().collect();
        stale.extend(live.files_under(&folder)?.into_iter().filter(|rel| !made.contains(rel)));
    }
    live.take_from(staging)?;
    live.remove_files(stale.iter().chain(results.iter().flat_map(|r| &r.replaced)))?;
    Ok(())
}

/// The wall time of each stage of a build, in order, and of the whole build.
struct Stages {
    start: Instant,
    report: BuildReport,
}

impl Stages {
    fn start() -> Stages {
        Stages { start: Instant::now(), report: BuildReport::default() }
    }

    /// Runs one stage, recording its wall time under `name`.
    fn time<T>(&mut self, name: &'static str, stage: impl FnOnce() -> T) -> T {
        let (out, took) = timed(stage);
        self.report.stages.push((name, took));
        out
    }

    /// Runs two stages at once (`rayon::join`), recording each one's wall time under its name
    /// (the two overlap: their sum is more than the time they took together).
    fn time_both<A: Send, B: Send>(
        &mut self,
        (a_name, a): (&'static str, impl FnOnce() -> A + Send),
        (b_name, b): (&'static str, impl FnOnce() -> B + Send),
    ) -> (A, B) {
        let ((a, a_time), (b, b_time)) = rayon::join(|| timed(a), || timed(b));
        self.report.stages.push((a_name, a_time));
        self.report.stages.push((b_name, b_time));
        (a, b)
    }

    /// The thread time of each per-run stage, summed over runs.
    fn add_thread_times(&mut self, clock: &StageClock) {
        self.report.rechecked_runs = clock.rechecked.load(Ordering::Relaxed) as usize;
        for (name, counter) in [
            ("list run files (thread time)", &clock.list),
            ("parse tables (thread time)", &clock.parse),
            ("scan NCCL logs (thread time)", &clock.logs),
            ("summarize (thread time)", &clock.summarize),
            ("export seed files (thread time)", &clock.export),
            ("render (thread time)", &clock.render),
            ("read evidence (thread time)", &clock.evidence),
            ("write (thread time)", &clock.write),
        ] {
            self.report.stages.push((name, Duration::from_nanos(counter.load(Ordering::Relaxed))));
        }
    }

    /// Counts what the build did into the report; `count` is what the site holds.
    fn finish(self, folders: &find::RunFolders, results: &[RunResult], count: SiteCount) -> BuildReport {
        let mut report = self.report;
        report.skipped = folders.skipped.clone();
        report.input_bytes = results.iter().map(|r| r.bytes).sum();
        for r in results {
            match r.card.status {
                RunStatus::Ok => report.ok += 1,
                RunStatus::Failed => report.failed += 1,
                RunStatus::Invalid => report.invalid += 1,
            }
            report.problems.extend(r.problem.clone());
            report.cached_runs += usize::from(r.cached);
        }
        report.files = count.files;
        report.pages = count.pages;
        report.total = self.start.elapsed();
        report
    }
}

/// What `stage` returns, and the wall time it took.
fn timed<T>(stage: impl FnOnce() -> T) -> (T, Duration) {
    let start = Instant::now();
    (stage(), start.elapsed())
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

/// Every run, in parallel: its files are listed, keyed and built in one go and only its
/// result kept, so memory does not hold every run's file list.
fn build_runs(folders: &find::RunFolders, context: &RunContext) -> anyhow::Result<Vec<RunResult>> {
    let progress = Progress::new(folders.ids.len());
    let results = folders
        .ids
        .par_iter()
        .map(|id| {
            let result = match StageClock::time(&context.clock.list, || unchanged_run(id, folders, context.cache)) {
                Some(result) => {
                    context.clock.rechecked.fetch_add(1, Ordering::Relaxed);
                    Ok(result)
                }
                None => {
                    let mut run = StageClock::time(&context.clock.list, || folders.listed(id));
                    let plan = plan(&mut run, context.cache, context.evidence.then_some(context.limits));
                    build_run(&run, plan, context).map(|result| keep_layout(&run, result, context.cache))
                }
            };
            progress.inc();
            result
        })
        .collect::<anyhow::Result<_>>()?;
    progress.finish();
    Ok(results)
}

/// A cached run taken from its entry without listing its folder: its folders are as the
/// layout kept with its entry recorded them and its files' stamps are the ones its entry was
/// keyed from (`Cache::inputs_of_layout`). `None` sends the run down the whole way: listed,
/// keyed, built when it changed.
fn unchanged_run(id: &str, folders: &find::RunFolders, cache: Option<&Cache>) -> Option<RunResult> {
    let cache = cache?;
    let layout = cache.layout(id)?;
    let stamps = folders.recheck(id, &layout)?;
    let inputs = cache.inputs_of_layout(id, &layout, &stamps);
    let head = cache.head(id).filter(|head| head.inputs == inputs)?;
    Some(RunResult::from_cache(id.to_string(), head, stamps.iter().map(|s| s.len).sum()))
}

/// Keeps the layout of a run listed whole with its entry (when the run has an entry), so
/// that the next build can take it by `unchanged_run` (`Cache::keep_layout`).
fn keep_layout(run: &RunDir, result: RunResult, cache: Option<&Cache>) -> RunResult {
    if let (Some(cache), Some(_)) = (cache, &result.key) {
        cache.keep_layout(&run.id, run.layout.as_ref());
    }
    result
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
        let digest = process_run(&run, self.limits, None, &StageClock::default())?.digest;
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

/// Whether the live site is exactly what this build would write, so that nothing needs
/// writing: every run is cached under the key the site was built from, the run set and the
/// cross-run key are the same, and the site is the one committed then (its marker file has
/// the recorded stamp) with every run folder present. A file edited by hand inside the site
/// is not looked for; `--no-cache` or deleting the site rebuilds it.
fn site_unchanged(published: &Published, results: &[RunResult], cross_key: Option<&String>, out: &Path) -> bool {
    let marker = std::fs::metadata(out.join(MARKER)).ok().map(|m| FileStamp::of(&m));
    published.site.is_some()
        && published.site == marker
        && published.cross.as_ref() == cross_key
        && published.runs.len() == results.len()
        && results.iter().all(|r| {
            r.restore.is_some()
                && published.runs.get(&r.id) == r.key.as_ref()
                && out.join(paths::run_file(&r.id, "index.html")).is_file()
        })
}

/// Puts the cached runs' files into the staging folder (linked from the live site `live` when
/// unchanged there since the last commit, else copied from the cache and checked against their
/// hashes); a run whose cached files are missing or altered is built again from its inputs.
fn restore_cached(
    results: Vec<RunResult>,
    folders: &find::RunFolders,
    context: &RunContext,
    live: &Path,
) -> anyhow::Result<Vec<RunResult>> {
    let (Some(cache), true) = (context.cache, results.iter().any(|r| r.restore.is_some())) else { return Ok(results) };
    results
        .into_par_iter()
        .map(|mut result| {
            let Some(print) = result.restore.take() else { return Ok(result) };
            if let Some(entry) = cache.entry_as_keyed(&result.id, result.key.as_deref(), print) {
                if cache.restore(&entry, &result.id, &folders.folder_of(&result.id), context.staging, live) {
                    result.in_cache = !entry.files.is_empty();
                    return Ok(result);
                }
            }
            let run = folders.list(&result.id).with_context(|| format!("no run {}", result.id))?;
            build_run(&run, CachePlan::rebuild(cache, &run, Vec::new()), context)
        })
        .collect()
}

/// What the cache says of a run before anything is written.
struct CachePlan {
    /// The key of the run's current inputs and their stamps, for a run built and stored
    /// (`None` without a cache, for a hit, whose head holds its key, for a run with an
    /// unreadable input, and where `later` stands for it).
    key: Option<(String, Vec<Stamp>)>,
    /// Instead of `key`, for a run with no cache entry whose NCCL logs the build reads whole
    /// to publish them: its stamps, but for the hashes of those logs (at these places), made
    /// from the bytes read (`Cache::complete_key`) rather than from a read of their own.
    later: Option<(Vec<Stamp>, Vec<usize>)>,
    /// `Cache::inputs` of the run's listing (with a cache).
    inputs: String,
    /// The head of the cache entry, when it was built from exactly these inputs.
    hit: Option<EntryHead>,
    /// The files the run has in the live site, when it is built again there
    /// (`check_in_place`); empty for a run built into a staging folder, whose old files
    /// `move_in_place` finds by listing.
    previous: Vec<String>,
}

impl CachePlan {
    /// The plan of a run built again from its inputs, keyed from them alone.
    fn rebuild(cache: &Cache, run: &RunDir, previous: Vec<String>) -> CachePlan {
        CachePlan { key: cache.key(run, None).ok(), later: None, inputs: cache.inputs(run), hit: None, previous }
    }
}

/// A run with a file that cannot be read gets no key: it is built from its inputs, not
/// cached, and marked invalid with an error naming the file (the other runs build as usual).
/// A run whose listing is the one its entry was keyed from (`Cache::inputs`) is a hit on the
/// entry's head alone; otherwise its key is made (content hashes reused for unchanged stamps)
/// and compared with the entry's, and a hit whose files were only touched is restamped. A
/// run with no entry is a miss whatever its key: with `publish` (the limits evidence is read
/// within), the hashes of the NCCL logs it will read whole are left for later (`later`).
fn plan(run: &mut RunDir, cache: Option<&Cache>, publish: Option<input::Limits>) -> CachePlan {
    let Some(cache) = cache else {
        return CachePlan { key: None, later: None, inputs: String::new(), hit: None, previous: Vec::new() };
    };
    let inputs = cache.inputs(run);
    if let Some(head) = cache.head(&run.id).filter(|head| head.inputs == inputs) {
        return CachePlan { key: None, later: None, inputs, hit: Some(head), previous: Vec::new() };
    }
    let previous = cache.lookup(&run.id);
    let keyed = match (&previous, publish) {
        (None, Some(limits)) => {
            let read_whole = |f: &FileRef, is_log: bool| is_log && evidence::is_read(&f.at, f.stamp.len, limits);
            cache.stamps(run, None, read_whole).map(|later| (None, Some(later)))
        }
        _ => cache.key(run, previous.as_ref()).map(|key| (Some(key), None)),
    };
    match keyed {
        Ok((Some((key, stamps)), _)) => match previous {
            Some(mut entry) if entry.key == key => {
                if entry.stamps != stamps || entry.inputs != inputs {
                    (entry.stamps, entry.inputs) = (stamps, inputs.clone());
                    let _ = cache.restamp(&run.id, &entry);
                }
                CachePlan { key: None, later: None, inputs, hit: Some(entry.head()), previous: Vec::new() }
            }
            _ => CachePlan { key: Some((key, stamps)), later: None, inputs, hit: None, previous: Vec::new() },
        },
        Ok((None, later)) => CachePlan { key: None, later, inputs, hit: None, previous: Vec::new() },
        Err((rel, error)) => {
            run.diagnostics.push(Diagnostic::error(Code::CannotRead, rel, None, format!("cannot read: {error}")));
            CachePlan { key: None, later: None, inputs, hit: None, previous: Vec::new() }
        }
    }
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

/// What every run's build shares.
#[derive(Clone, Copy)]
struct RunContext<'a> {
    cache: Option<&'a Cache>,
    store: &'a DigestStore<'a>,
    staging: &'a Staging<'a>,
    site_notes: &'a SiteNotes,
    limits: input::Limits,
    /// Publish the run's archived inputs (`ingest::evidence`).
    evidence: bool,
    clock: &'a StageClock,
    /// The live site, when it is updated in place (the runs in it are compared there).
    live: Option<&'a Staging<'a>>,
}

/// What one run contributed.
struct RunResult {
    id: String,
    key: Option<String>,
    card: RunCard,
    problem: Option<String>,
    cached: bool,
    /// Taken from the cache: its entry's files are still to be put into the new site. Only
    /// their `files_print` is held; the entry is read again when needed (its file list is
    /// ~3.7 KB a run: issue 27's memory).
    restore: Option<u64>,
    /// The cache holds the run's files, whose stamps in the live site are recorded after the
    /// commit (from its entry, read again then).
    in_cache: bool,
    /// The comparison stamp the run's page holds (`None`: not compared yet).
    comparison: Option<String>,
    /// The files a run built again in the live site had there and no longer has
    /// (`check_in_place`; removed after the comparison, by `move_in_place`).
    replaced: Vec<String>,
    /// A cached run left as it is in a site updated in place (its stamps need no recording).
    in_live: bool,
    /// Its files are in the live site being updated in place (not in the staging folder).
    live_site: bool,
    /// Input bytes of the run.
    bytes: u64,
}

impl RunResult {
    /// A run taken from the cache, of `bytes` input bytes: nothing of its entry is held until
    /// its files are put back but their print (it is read again then; the rare run whose
    /// files cannot be put back is keyed again).
    fn from_cache(id: String, head: EntryHead, bytes: u64) -> RunResult {
        RunResult {
            id,
            key: Some(head.key),
            card: head.card,
            problem: head.problem,
            cached: true,
            bytes,
            in_cache: false,
            comparison: head.comparison,
            restore: Some(head.print),
            replaced: Vec::new(),
            in_live: false,
            live_site: false,
        }
    }
}

/// One run: from the cache when its inputs are unchanged (its files copied into the new
/// site later, by `restore_cached`, and only if the site changes), else read, summarized and
/// rendered.
fn build_run(run: &RunDir, plan: CachePlan, context: &RunContext) -> anyhow::Result<RunResult> {
    let CachePlan { key, later, inputs, hit, previous } = plan;
    if let Some(head) = hit {
        return Ok(RunResult::from_cache(run.id.clone(), head, run.files.total_bytes));
    }
    let clock = context.clock;
    // Evidence is hashed for the cache's record of it, which only a run with a key gets.
    let keyed = context.cache.is_some() && (key.is_some() || later.is_some());
    let publisher = context.evidence.then(|| Publisher { run_id: &run.id, staging: context.staging, hash: keyed });
    let RunOutput { summary, seed_files, digest: run_digest, logs_read, log_hashes } =
        process_run(run, context.limits, publisher.as_ref(), clock)?;
    let key = match (key, later, context.cache) {
        (None, Some((stamps, pending)), Some(cache)) => cache.complete_key(run, stamps, &pending, &log_hashes),
        (key, _, _) => key,
    };
    let evidence = publisher
        .as_ref()
        .map(|publisher| {
            // Reading counts as "read evidence", writing as "write", as a log's do.
            let start = Instant::now();
            let mut writing = Duration::ZERO;
            let listed = evidence::collect(&run.files, context.limits, logs_read, |rel, bytes| {
                let t = Instant::now();
                let staged = publisher.stage(rel, bytes, None);
                writing += t.elapsed();
                staged
            });
            clock.write.fetch_add(writing.as_nanos() as u64, Ordering::Relaxed);
            clock.evidence.fetch_add(start.elapsed().saturating_sub(writing).as_nanos() as u64, Ordering::Relaxed);
            listed
        })
        .transpose()?;
    let files = StageClock::time(&clock.render, || {
        let page = site::run_page::build(&summary, &run_digest, context.site_notes, evidence.as_deref());
        let mut files = render::run_files(&page);
        files
            .extend(seed_files.into_iter().map(|(name, bytes)| OutputFile::new(paths::run_file(&run.id, name), bytes)));
        files
    });
    let staged: Vec<(&str, &Staged)> =
        evidence.iter().flatten().filter_map(|file| Some((file.rel.as_str(), file.published.as_ref().ok()?))).collect();
    let t = Instant::now();
    for file in &files {
        context.staging.put(file)?;
    }
    let problem = problem_line(&run_digest);
    let card = RunCard::of(&run_digest);
    let mut stored_key = None;
    let mut in_cache = false;
    match (context.cache, key) {
        (Some(cache), Some((new_key, stamps))) => {
            let entry = cache
                .store(
                    &run.id,
                    Keyed { key: new_key.clone(), inputs, stamps },
                    card.clone(),
                    problem.clone(),
                    &files,
                    &archived(&staged),
                )
                .with_context(|| format!("cannot update the build cache for {}", run.id))?;
            stored_key = Some(new_key);
            in_cache = !entry.files.is_empty();
        }
        // An input could not be read, so the run has no key: its last entry (of inputs that
        // may read again unchanged) must not be reused beside the digest kept below.
        (Some(cache), None) => {
            cache.forget(&run.id).with_context(|| format!("cannot drop the cache entry of {}", run.id))?
        }
        (None, _) => {}
    }
    context.store.put(&run_digest).with_context(|| format!("cannot keep the digest of {}", run.id))?;
    StageClock::add(&clock.write, t);
    Ok(RunResult {
        id: run.id.clone(),
        key: stored_key,
        card,
        problem,
        cached: false,
        restore: None,
        in_cache,
        comparison: None,
        bytes: run.files.total_bytes,
        replaced: previous
            .into_iter()
            .filter(|rel| !files.iter().any(|f| &f.path == rel) && !staged.iter().any(|(_, s)| &s.path == rel))
            .collect(),
        in_live: false,
        live_site: false,
    })
}

/// Where a run's evidence goes as each file is read and checked (`ingest::evidence`): its
/// copy is written into the site being built at once, so that a run's published inputs are
/// never held together (a run of thousands of large logs would otherwise hold them all until
/// its pages are written), and `hash` (with a cache, for a run that gets a key) hashes its
/// stored bytes for the cache's record of it.
struct Publisher<'a> {
    run_id: &'a str,
    staging: &'a Staging<'a>,
    hash: bool,
}

/// What is kept of a published evidence file once its copy is written: its site path, the
/// length of the bytes published and, where the publisher hashes, their hash.
struct Staged {
    path: String,
    len: u64,
    hash: Option<String>,
}

impl Publisher<'_> {
    /// Writes the copy of the archived input `rel`, its bytes as stored; `hash` is their hash
    /// when it is made already.
    fn stage(&self, rel: &str, bytes: Vec<u8>, hash: Option<String>) -> anyhow::Result<Staged> {
        let hash = self.hash.then(|| hash.unwrap_or_else(|| cache::hash_bytes(&bytes)));
        let file = OutputFile::new(paths::evidence_file(self.run_id, rel), bytes);
        self.staging.put(&file)?;
        Ok(Staged { path: file.path, len: file.bytes.len() as u64, hash })
    }
}

/// The cache's records of a run's evidence as published (`rel`, its path in the run folder,
/// with its copy): those hashed, which is all of them where the cache keeps the run.
fn archived(staged: &[(&str, &Staged)]) -> Vec<ArchivedFile> {
    staged
        .iter()
        .filter_map(|(rel, staged)| {
            Some(ArchivedFile {
                path: staged.path.clone(),
                source: rel.to_string(),
                len: staged.len,
                hash: staged.hash.clone()?,
            })
        })
        .collect()
}

/// What the per-run pipeline makes of one run folder.
struct RunOutput {
    summary: RunSummary,
    seed_files: Vec<(&'static str, Vec<u8>)>,
    digest: RunOverview,
    /// The NCCL logs read whole to be published as evidence: each published, or withheld
    /// after it was read (for `evidence::collect`).
    logs_read: Vec<EvidenceFile<Staged>>,
    /// The content hashes of those logs as stored, by path (with a cache and evidence, for a
    /// run that is keyed).
    log_hashes: HashMap<String, String>,
}

/// The per-run pipeline, one named stage a line: run folder -> summary, seed files and digest.
/// Reads only the run's files (each within `limits`); `clock` sums each stage's time. `build`
/// and `compare` (`compared_runs`) read every run through it. With `publish` (evidence), each
/// NCCL log is read once, whole, for its scan and its evidence, its copy written (the only
/// writing, and the only error) as soon as it is scanned, and hashed once too when the
/// publisher hashes (a run with a key, and a cache), for its run's cache key
/// (`Cache::complete_key`) and for the cache's record of its evidence.
fn process_run(
    run: &RunDir,
    limits: input::Limits,
    publish: Option<&Publisher>,
    clock: &StageClock,
) -> anyhow::Result<RunOutput> {
    // Each log a task of its own (a run's logs are most of its work): the build's last runs,
    // and a build of one new run, spread over every thread. Once a copy cannot be written the
    // build fails: the logs not yet begun are neither scanned nor written (`None`), so a
    // failure in a live site updated in place replaces no more of its files than it must.
    let failed = AtomicBool::new(false);
    let done: Vec<_> = run
        .files
        .nccl_logs
        .par_iter()
        .map(|file| {
            if failed.load(Ordering::Relaxed) {
                return None;
            }
            let (facts, read) = StageClock::time(&clock.logs, || {
                let (facts, read) = load::scan_log_to_publish(file, limits, publish.is_some());
                let hash_logs = publish.is_some_and(|p| p.hash);
                (facts, read.map(|read| (hash_logs.then(|| cache::hash_bytes(&read.stored)), read)))
            });
            let staged = read.zip(publish).map(|((hash, read), publisher)| {
                StageClock::time(&clock.write, || {
                    let rel = read.rel().to_string();
                    let file = read.into_evidence().publish(|rel, bytes| publisher.stage(rel, bytes, hash.clone()));
                    failed.fetch_or(file.is_err(), Ordering::Relaxed);
                    anyhow::Ok((file?, hash.map(|hash| (rel, hash))))
                })
            });
            Some((facts, staged))
        })
        .collect();
    let mut scans = Vec::with_capacity(done.len());
    let mut logs_read = Vec::new();
    let mut log_hashes = HashMap::new();
    // A log is left out (`None`) only once a copy has failed: the error returned is the first
    // failure, in path order, of the logs begun.
    for (facts, read) in done.into_iter().flatten() {
        scans.push(facts);
        if let Some(read) = read {
            let (file, hash) = read?;
            logs_read.push(file);
            log_hashes.extend(hash);
        }
    }
    let logs = StageClock::time(&clock.logs, || load::merge_logs(run, scans));
    let raw = StageClock::time(&clock.parse, || {
        let mut raw = load::load_tables(run, limits);
        logs.attach(&mut raw);
        raw
    });
    let summary = StageClock::time(&clock.summarize, || summarize::summarize(raw));
    let (summary, seed_files) = StageClock::time(&clock.export, || export_run(summary));
    let names: Vec<&str> = seed_files.iter().map(|(n, _)| *n).collect();
    let digest = RunOverview::of(&summary, &names);
    Ok(RunOutput { summary, seed_files, digest, logs_read, log_hashes })
}

/// Every run under `runs` (ids sorted) as `compare` reads them: each through the build's
/// per-run function (`process_run`: read within `limits`, parse, summarize, export with the
/// archived-output check), in parallel. Without the cache: it belongs to a site (`build
/// --out`), and `compare` names none.
pub(crate) fn compared_runs(runs: &Path, limits: input::Limits) -> anyhow::Result<Vec<comparison::LoadedRun>> {
    let found =
        find::find_run_folders(runs).with_context(|| format!("cannot read the runs folder {}", runs.display()))?;
    found
        .ids
        .par_iter()
        .map(|id| {
            let run = found.listed(id);
            Ok(comparison::LoadedRun::of(process_run(&run, limits, None, &StageClock::default())?.summary))
        })
        .collect()
}

/// Exports the seed's files of a summarized run and compares them with any archived copies.
pub(crate) fn export_run(mut summary: RunSummary) -> (RunSummary, Vec<(&'static str, Vec<u8>)>) {
    let seed_files = export::seed_files(&summary);
    let differences = archived::differences(&summary.raw.archived_outputs, &seed_files);
    if !differences.is_empty() {
        // summarize sorted the diagnostics (`Diagnostic`'s one order): each difference goes in its place.
        let diagnostics = &mut summary.raw.diagnostics;
        for difference in differences {
            let at = diagnostics.partition_point(|d| *d <= difference);
            diagnostics.insert(at, difference);
        }
        summary.status = RunStatus::from_diagnostics(&summary.raw.diagnostics);
    }
    (summary, seed_files)
}

/// The site-wide notes: `runs/NOTES.md`, then `runs/notes/*.md` by name (`site::notes`: each
/// may say which runs it is about). Each is read beneath the runs folder like every run input
/// (a symlink leading outside it is not read); `X.md.gz` is the compressed twin of `X.md`,
/// read when there is no plain file (both: the plain one, with a warning naming both). The
/// `notes` folder is read only when it is not a run. Anything that keeps a notes file off the
/// site (a FIFO, over the notes limit, unreadable) is a line of the build summary naming the
/// file and why.
fn read_site_notes(options: &BuildOptions) -> (SiteNotes, Vec<String>) {
    let mut problems = Vec::new();
    let Ok(root) = options.runs.canonicalize() else { return (SiteNotes::default(), problems) };
    let root = input::Root::new(root);
    let runs = root.path.as_path();
    let mut notes: Vec<Note> = read_notes_file(&root, "NOTES.md", options.limits.notes, &mut problems)
        .map(|t| Note::parse("runs/NOTES.md", &t))
        .into_iter()
        .collect();
    let folder = runs.join(find::NOTES_FOLDER);
    let is_run = folder.join("manifest.txt").exists() || folder.join("raw").exists();
    if !is_run && find::stays_inside(&folder, runs) {
        let mut names: Vec<String> = std::fs::read_dir(&folder)
            .into_iter()
            .flatten()
            .flatten()
            .filter_map(|e| e.file_name().into_string().ok())
            .filter_map(|n| n.strip_suffix(".gz").map_or(Some(n.clone()), |plain| Some(plain.to_string())))
            .filter(|n| n.ends_with(".md") && !n.starts_with('.'))
            .collect();
        names.sort();
        names.dedup();
        for name in names {
            let rel = format!("{}/{name}", find::NOTES_FOLDER);
            if let Some(text) = read_notes_file(&root, &rel, options.limits.notes, &mut problems) {
                notes.push(Note::parse(&format!("runs/{rel}"), &text));
            }
        }
    }
    (SiteNotes { notes }, problems)
}

/// One notes file `rel` (`NOTES.md`, `notes/x.md`) beneath the runs folder `root`, or its
/// `.gz` twin; `None` (and a line in `problems` when it is there but not read) without it.
fn read_notes_file(
    root: &std::sync::Arc<input::Root>,
    rel: &str,
    limit: u64,
    problems: &mut Vec<String>,
) -> Option<String> {
    let present = |name: &str| std::fs::symlink_metadata(root.path.join(name)).is_ok();
    let gz = format!("{rel}.gz");
    let name = match (present(rel), present(&gz)) {
        (false, false) => return None,
        (true, true) => {
            problems.push(format!("warning: runs/{rel}: both {rel} and {gz} present; only {rel} read"));
            rel.to_string()
        }
        (true, false) => rel.to_string(),
        (false, true) => gz,
    };
    match input::read_all(&input::Beneath::new(root.clone(), &name), limit) {
        Ok(bytes) => Some(String::from_utf8_lossy(&bytes).into_owned()),
        Err(error) => {
            problems.push(format!("warning: runs/{name}: cannot read: {error}; the site does not show these notes"));
            None
        }
    }
}

/// One line for a run that is not ok: id, status and its worst diagnostic.
fn problem_line(run: &RunOverview) -> Option<String> {
    if run.status == RunStatus::Ok {
        return None;
    }
    Some(match run.diagnostics.iter().max_by_key(|d| d.severity) {
        Some(d) => format!("{}: {} ({d})", run.id, run.status.as_str()),
        None => format!("{}: {}", run.id, run.status.as_str()),
    })
}

/// Progress of the per-run stage: a bar on a terminal, otherwise a plain line at every tenth
/// of the runs (only for builds of 100 runs or more; the summary line is printed either way).
enum Progress {
    Bar(ProgressBar),
    Lines { total: usize, done: AtomicUsize },
}

impl Progress {
    fn new(total: usize) -> Progress {
        if !std::io::stderr().is_terminal() {
            return Progress::Lines { total, done: AtomicUsize::new(0) };
        }
        let bar = ProgressBar::new(total as u64);
        bar.set_style(
            ProgressStyle::with_template("{spinner} building runs {pos}/{len} {wide_bar} {elapsed}")
                .expect("valid template"),
        );
        Progress::Bar(bar)
    }

    fn inc(&self) {
        match self {
            Progress::Bar(bar) => bar.inc(1),
            Progress::Lines { total, done } => {
                let done = done.fetch_add(1, Ordering::Relaxed) + 1;
                let step = (total / 10).max(1);
                if *total >= 100 && done % step == 0 {
                    eprintln!("built {done}/{total} runs");
                }
            }
        }
    }

    fn finish(&self) {
        if let Progress::Bar(bar) = self {
            bar.finish_and_clear();
        }
    }
}

impl BuildReport {
    /// Stage times (seconds), totals and the peak resident memory, for the benchmark.
    pub(crate) fn timings_json(&self) -> String {
        let stages: serde_json::Map<String, serde_json::Value> =
            self.stages.iter().map(|(name, d)| (name.to_string(), d.as_secs_f64().into())).collect();
        serde_json::json!({
            "runs": self.ok + self.failed + self.invalid,
            "cached_runs": self.cached_runs,
            "rechecked_runs": self.rechecked_runs,
            "files": self.files,
            "files_written": self.written.written,
            "bytes_written": self.written.bytes,
            "files_linked": self.written.linked,
            "files_removed": self.written.removed,
            "files_unchanged": self.written.unchanged,
            "in_place": self.in_place,
            "input_bytes": self.input_bytes,
            "total_seconds": self.total.as_secs_f64(),
            "stages": stages,
            "peak_rss_kib": peak_rss_kib(),
        })
        .to_string()
    }

    pub(crate) fn summary_line(&self, out: &std::path::Path) -> String {
        format!(
            "built {}: {} runs ({} ok, {} failed, {} invalid; {} from cache), {} pages, {} files, {} written{}, {} linked, {} removed, {:.1} MB of runs, in {:.2} s",
            out.display(),
            self.ok + self.failed + self.invalid,
            self.ok,
            self.failed,
            self.invalid,
            self.cached_runs,
            self.pages,
            self.files,
            self.written.written,
            if self.in_place { " in place" } else { "" },
            self.written.linked,
            self.written.removed,
            self.input_bytes as f64 / 1e6,
            self.total.as_secs_f64()
        )
    }
}

/// Peak resident set size of this process (Linux `VmHWM`), when the system says.
fn peak_rss_kib() -> Option<u64> {
    let status = std::fs::read_to_string("/proc/self/status").ok()?;
    let line = status.lines().find(|l| l.starts_with("VmHWM:"))?;
    line.split_whitespace().nth(1)?.parse().ok()
}
