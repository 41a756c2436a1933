//! Cached runs into the new site, after every run's result is known: whether the live site
//! is already what this build would write (`site_unchanged`), whether it can be updated in place
//! (`in_place_ok`; then `check_in_place` checks the cached runs where they are and
//! `move_in_place` moves the runs built anew into it), or else the cached runs' files are put
//! into the staging folder (`restore_cached`). A cached run whose files cannot be put back is
//! built again (`per_run::build_run`). Writes only through `write::Staging`.

use super::per_run::{build_run, CachePlan, RunContext, RunResult};
use crate::ingest::find;
use crate::ingest::find::FileStamp;
use crate::pipeline::cache::{LiveRun, Published};
use crate::pipeline::out_dir::{OutputLock, MARKER};
use crate::pipeline::write::Staging;
use crate::site::paths;
use anyhow::Context;
use rayon::prelude::*;
use std::path::Path;

/// Whether the live site can be updated in place: it is the site the last build committed
/// (its marker has the recorded stamp) and every run taken from the cache is in it as cached.
pub(super) fn in_place_ok(published: &Published, results: &[RunResult], lock: &OutputLock) -> bool {
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
pub(super) fn check_in_place(
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
pub(super) fn move_in_place(results: &[RunResult], staging: &Staging, live: &Staging) -> anyhow::Result<()> {
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

/// Whether the live site is exactly what this build would write, so that nothing needs
/// writing: every run is cached under the key the site was built from, the run set and the
/// cross-run key are the same, and the site is the one committed then (its marker file has
/// the recorded stamp) with every run folder present. A file edited by hand inside the site
/// is not looked for; `--no-cache` or deleting the site rebuilds it.
pub(super) fn site_unchanged(
    published: &Published,
    results: &[RunResult],
    cross_key: Option<&String>,
    out: &Path,
) -> bool {
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
pub(super) fn restore_cached(
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
