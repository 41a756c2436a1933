//! The per-run stage: each run folder listed (or taken by its kept layout), planned against
//! the cache (`plan`), then read, parsed, summarized, exported and rendered (`process_run`,
//! `build_run`), its files and evidence written into the staging folder as they are made and
//! only a small `RunResult` kept. `compare` reads runs through the same function
//! (`compared_runs`). Each stage's thread time is summed (`StageClock`); a progress bar or
//! lines on standard error follow the runs (`Progress`). Writes only through `write::Staging`
//! and the cache.

use crate::analysis::overview::RunOverview;
use crate::analysis::summarize::{RunStatus, RunSummary};
use crate::core::diag::{Code, Diagnostic};
use crate::ingest::evidence::EvidenceFile;
use crate::ingest::find::{FileRef, RunDir};
use crate::pipeline::cache::{ArchivedFile, Cache, DigestStore, EntryHead, Keyed, Stamp};
use crate::pipeline::write::Staging;
use crate::render::OutputFile;
use crate::site::card::RunCard;
use crate::site::notes::SiteNotes;
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
use std::path::Path;
use std::sync::atomic::{AtomicBool, AtomicU64, AtomicUsize, Ordering};
use std::time::{Duration, Instant};

/// Every run, in parallel: its files are listed, keyed and built in one go and only its
/// result kept, so memory does not hold every run's file list.
pub(super) fn build_runs(folders: &find::RunFolders, context: &RunContext) -> anyhow::Result<Vec<RunResult>> {
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

/// What the cache says of a run before anything is written.
pub(super) struct CachePlan {
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
    pub(super) fn rebuild(cache: &Cache, run: &RunDir, previous: Vec<String>) -> CachePlan {
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

/// What every run's build shares.
#[derive(Clone, Copy)]
pub(super) struct RunContext<'a> {
    pub(super) cache: Option<&'a Cache>,
    pub(super) store: &'a DigestStore<'a>,
    pub(super) staging: &'a Staging<'a>,
    pub(super) site_notes: &'a SiteNotes,
    pub(super) limits: input::Limits,
    /// Publish the run's archived inputs (`ingest::evidence`).
    pub(super) evidence: bool,
    pub(super) clock: &'a StageClock,
    /// The live site, when it is updated in place (the runs in it are compared there).
    pub(super) live: Option<&'a Staging<'a>>,
}

/// What one run contributed.
pub(super) struct RunResult {
    pub(super) id: String,
    pub(super) key: Option<String>,
    pub(super) card: RunCard,
    pub(super) problem: Option<String>,
    pub(super) cached: bool,
    /// Taken from the cache: its entry's files are still to be put into the new site. Only
    /// their `files_print` is held; the entry is read again when needed (its file list is
    /// ~3.7 KB a run: issue 27's memory).
    pub(super) restore: Option<u64>,
    /// The cache holds the run's files, whose stamps in the live site are recorded after the
    /// commit (from its entry, read again then).
    pub(super) in_cache: bool,
    /// The comparison stamp the run's page holds (`None`: not compared yet).
    pub(super) comparison: Option<String>,
    /// The files a run built again in the live site had there and no longer has
    /// (`check_in_place`; removed after the comparison, by `move_in_place`).
    pub(super) replaced: Vec<String>,
    /// A cached run left as it is in a site updated in place (its stamps need no recording).
    pub(super) in_live: bool,
    /// Its files are in the live site being updated in place (not in the staging folder).
    pub(super) live_site: bool,
    /// Input bytes of the run.
    pub(super) bytes: u64,
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
pub(super) fn build_run(run: &RunDir, plan: CachePlan, context: &RunContext) -> anyhow::Result<RunResult> {
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
        let hash = self.hash.then(|| hash.unwrap_or_else(|| super::cache::hash_bytes(&bytes)));
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
                (facts, read.map(|read| (hash_logs.then(|| super::cache::hash_bytes(&read.stored)), read)))
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

/// A run's digest, made again from its inputs (for a digest the store cannot give back).
pub(super) fn digest_of(run: &RunDir, limits: input::Limits) -> anyhow::Result<RunOverview> {
    Ok(process_run(run, limits, None, &StageClock::default())?.digest)
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

/// One line for a run that is not ok: id, status and its worst diagnostic.
fn problem_line(run: &RunOverview) -> Option<String> {
    if run.status == RunStatus::Ok {
        return None;
    }
    Some(match Diagnostic::worst(&run.diagnostics) {
        Some(d) => format!("{}: {} ({d})", run.id, run.status.as_str()),
        None => format!("{}: {}", run.id, run.status.as_str()),
    })
}

/// Thread time spent in each per-run stage, summed over runs.
#[derive(Default)]
pub(super) struct StageClock {
    pub(super) list: AtomicU64,
    pub(super) parse: AtomicU64,
    pub(super) logs: AtomicU64,
    pub(super) summarize: AtomicU64,
    pub(super) export: AtomicU64,
    pub(super) render: AtomicU64,
    pub(super) evidence: AtomicU64,
    pub(super) write: AtomicU64,
    /// Runs taken from the cache by their kept layout, without a listing (`unchanged_run`).
    pub(super) rechecked: AtomicU64,
}

impl StageClock {
    pub(super) fn add(counter: &AtomicU64, since: Instant) -> Instant {
        counter.fetch_add(since.elapsed().as_nanos() as u64, Ordering::Relaxed);
        Instant::now()
    }

    /// Runs one stage, adding its thread time to `counter`.
    pub(super) fn time<T>(counter: &AtomicU64, stage: impl FnOnce() -> T) -> T {
        let start = Instant::now();
        let out = stage();
        StageClock::add(counter, start);
        out
    }
}

/// Progress of the per-run stage: a bar on a terminal, otherwise a plain line at every tenth
/// of the runs (only for builds of 100 runs or more; the summary line is printed either way).
pub(super) enum Progress {
    Bar(ProgressBar),
    Lines { total: usize, done: AtomicUsize },
}

impl Progress {
    pub(super) fn new(total: usize) -> Progress {
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

    pub(super) fn inc(&self) {
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

    pub(super) fn finish(&self) {
        if let Progress::Bar(bar) = self {
            bar.finish_and_clear();
        }
    }
}
