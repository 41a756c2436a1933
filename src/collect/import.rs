//! `nccl-report import`: copy run folders into the runs folder.
//!
//! Rules (the decisions behind `nccl-report import`):
//! - A *run folder* holds `manifest.txt` or `raw/`. A source that is neither is a folder of
//!   runs: its sub-folders that are run folders are imported; dot-folders are ignored, other
//!   sub-folders and symlinked sub-folders are skipped with a line saying why.
//! - The run id is the folder name (the seed names each run folder by its id), or `--rename`.
//!   A `run_id=` in the manifest that differs is kept as recorded, with a note.
//! - `manifest.txt` must parse. When it is absent (only `raw/`), a minimal one is derived
//!   into the copy: `experiment`, `run_id`, `manifest=derived ...` and, when the artifacts
//!   allow, `gpu` and `topology`. It is deterministic, so re-importing is still a no-op.
//! - Identity is the content hash of the whole tree (see `tree`): an identical run already in
//!   `runs/` is left alone ("already present"); a different one with the same id is refused
//!   and nothing is overwritten.
//! - Symlinks are copied as links only when relative and resolving inside the run; any other
//!   link, or a FIFO, socket or device file, refuses the run. The source is only read.
//! - Copies go to `runs/.import-<id>-<pid>[-n]/` and are renamed into place. While it
//!   exists, its import holds an `flock` on `runs/.import-<id>-<pid>[-n].lock` (taken before
//!   the folder is made, released after it is gone). A temporary folder whose lock anyone can
//!   take is a leftover of an interrupted import and is removed on the next import; one whose
//!   lock is held is another import at work, whatever its PID namespace or host.
//! - Every file is read through the build's opener (`input::open_regular`: beneath the
//!   source folder's descriptor, no symlink followed out of it, a regular file only, checked
//!   on the open file), so a FIFO or a link to `/dev/zero` swapped in is refused, never read.
//!   When another import of the same id lands first, the outcome is that of a re-import
//!   ("already present", exit 0, when the contents match).
//! - A source that contains the runs folder, or lies inside one of its runs, is refused before
//!   anything is created (no runs folder is made inside the source).

use crate::collect::record::{gpu_summary, manifest_text, topology_summary};
use crate::collect::tree::{self, ExtraFile, TreeStats};
use crate::collect::ImportOptions;
use crate::core::run_id;
use crate::core::stdout::{self, outln};
use crate::ingest::input::{self, Beneath};
use crate::ingest::parse::manifest::parse_manifest;
use anyhow::{anyhow, bail, Context, Result};
use std::fs;
use std::os::fd::AsRawFd;
use std::os::unix::fs::MetadataExt;
use std::path::{Path, PathBuf};

/// What happened to one source folder.
enum Outcome {
    Imported(TreeStats),
    AlreadyPresent(TreeStats),
    Refused(String),
}

/// A run folder found among the sources, with the id it will be imported under.
struct Candidate {
    path: PathBuf,
    id: Result<String, String>,
}

/// Imports every run found in `options.sources`; prints one line per run on stdout and fails
/// when any run or source was refused.
pub fn import_runs(options: &ImportOptions) -> Result<()> {
    clean_leftovers(&options.runs)?;
    let mut source_refusals = 0usize;
    let mut candidates = Vec::new();
    for source in &options.sources {
        match find_runs(source) {
            Ok(found) => candidates.extend(found),
            Err(why) => {
                outln!("refused          {}: {why}", source.display());
                source_refusals += 1;
            }
        }
    }
    if let Some(new_id) = &options.rename {
        rename_single(&mut candidates, new_id)?;
    }
    let mut refused = source_refusals;
    for candidate in &candidates {
        let outcome = match &candidate.id {
            Ok(id) => import_one(&candidate.path, id, &options.runs),
            Err(why) => Outcome::Refused(why.clone()),
        };
        refused += usize::from(matches!(outcome, Outcome::Refused(_)));
        print_outcome(candidate, &options.runs, &outcome)?;
    }
    if refused > 0 {
        let total = candidates.len() + source_refusals;
        bail!("{refused} of {total} runs or sources refused; nothing was overwritten");
    }
    Ok(())
}

fn rename_single(candidates: &mut [Candidate], new_id: &str) -> Result<()> {
    if candidates.len() != 1 {
        bail!(
            "--rename needs exactly one run, but the sources hold {}: {}",
            candidates.len(),
            candidates.iter().map(|c| c.path.display().to_string()).collect::<Vec<_>>().join(", ")
        );
    }
    run_id::validate(new_id).map_err(|e| anyhow!("--rename {new_id:?}: {e}"))?;
    candidates[0].id = Ok(new_id.to_string());
    Ok(())
}

fn print_outcome(candidate: &Candidate, runs: &Path, outcome: &Outcome) -> std::io::Result<()> {
    let id = candidate.id.as_deref().unwrap_or("-");
    let src = candidate.path.display();
    match outcome {
        Outcome::Imported(stats) => outln!(
            "imported         {id} <- {src} ({} files, {} bytes, xxh3 {})",
            stats.files,
            stats.bytes,
            stats.short_hash()
        ),
        Outcome::AlreadyPresent(stats) => outln!(
            "already present  {id} <- {src}: {} is identical (xxh3 {}); nothing to do",
            runs.join(id).display(),
            stats.short_hash()
        ),
        Outcome::Refused(why) => outln!("refused          {id} <- {src}: {why}"),
    }
    Ok(())
}

/// The run folders a source names: itself, or its run sub-folders.
fn find_runs(source: &Path) -> Result<Vec<Candidate>, String> {
    if !source.is_dir() {
        return Err(if source.exists() { "not a folder" } else { "does not exist" }.to_string());
    }
    if is_run_folder(source) {
        return Ok(vec![candidate(source)]);
    }
    let mut children: Vec<PathBuf> = fs::read_dir(source)
        .map_err(|e| format!("cannot list: {e}"))?
        .filter_map(|entry| entry.ok().map(|e| e.path()))
        .collect();
    children.sort();
    let mut found = Vec::new();
    for child in children {
        if let Some(run) = child_run(&child) {
            found.push(run);
        }
    }
    if found.is_empty() {
        return Err("neither a run folder (manifest.txt or raw/) nor a folder holding any".into());
    }
    Ok(found)
}

fn child_run(child: &Path) -> Option<Candidate> {
    let name = child.file_name()?.to_string_lossy();
    if name.starts_with('.') || !child.is_dir() {
        return None;
    }
    let is_link = child.symlink_metadata().is_ok_and(|m| m.file_type().is_symlink());
    if is_link {
        // A closed stdout skips the message; the next line `import_runs` prints ends the command.
        stdout::write(format_args!("skipped          {}: a symlink (import its target instead)\n", child.display()))
            .ok()?;
        return None;
    }
    if !is_run_folder(child) {
        stdout::write(format_args!(
            "skipped          {}: not a run folder (no manifest.txt or raw/)\n",
            child.display()
        ))
        .ok()?;
        return None;
    }
    Some(candidate(child))
}

fn is_run_folder(path: &Path) -> bool {
    path.join("manifest.txt").is_file() || path.join("raw").is_dir()
}

fn candidate(path: &Path) -> Candidate {
    let id = folder_name(path).and_then(|name| {
        run_id::validate(&name)
            .map(|()| name.clone())
            .map_err(|e| format!("{name:?} is not a valid run id: {e}; use --rename ID"))
    });
    Candidate { path: path.to_path_buf(), id }
}

fn folder_name(path: &Path) -> Result<String, String> {
    let canonical = fs::canonicalize(path).map_err(|e| format!("cannot resolve: {e}"))?;
    let name = canonical.file_name().ok_or("has no folder name; use --rename ID")?;
    name.to_str().map(str::to_string).ok_or_else(|| format!("folder name {name:?} is not UTF-8; use --rename ID"))
}

fn import_one(source: &Path, id: &str, runs: &Path) -> Outcome {
    match try_import(source, id, runs) {
        Ok(outcome) => outcome,
        Err(error) => Outcome::Refused(format!("{error:#}")),
    }
}

fn try_import(source: &Path, id: &str, runs: &Path) -> Result<Outcome> {
    let extra = manifest_extra(source, id)?;
    refuse_overlap(source, runs)?;
    fs::create_dir_all(runs).with_context(|| format!("cannot create {}", runs.display()))?;
    let dest = runs.join(id);
    if dest.symlink_metadata().is_ok() {
        return compare_existing(source, &extra, &dest);
    }
    let (temp, _lock) = claim_temp(runs, id)?;
    let stats = copy_into_temp(source, &extra, &temp)?;
    // Another import of the same id may have finished meanwhile: the rename then fails (the
    // folder is not empty) and the outcome is that of a re-import.
    if dest.symlink_metadata().is_ok() {
        remove_temp(&temp);
        return compare_existing(source, &extra, &dest);
    }
    if let Err(error) = fs::rename(&temp, &dest) {
        remove_temp(&temp);
        if dest.symlink_metadata().is_ok() {
            return compare_existing(source, &extra, &dest);
        }
        return Err(error).with_context(|| format!("cannot rename {} to {}", temp.display(), dest.display()));
    }
    Ok(Outcome::Imported(stats))
}

fn compare_existing(source: &Path, extra: &[ExtraFile], dest: &Path) -> Result<Outcome> {
    let ours = tree::hash(source, extra)?;
    let theirs = tree::hash(dest, &[]).with_context(|| format!("cannot read the existing {}", dest.display()))?;
    if ours.hash == theirs.hash {
        return Ok(Outcome::AlreadyPresent(ours));
    }
    bail!(
        "{} already holds a different run (xxh3 {} there, {} here); nothing was overwritten; \
         use --rename NEW_ID to import {} under another id",
        dest.display(),
        theirs.short_hash(),
        ours.short_hash(),
        source.display()
    )
}

fn copy_into_temp(source: &Path, extra: &[ExtraFile], temp: &Path) -> Result<TreeStats> {
    if temp.symlink_metadata().is_ok() {
        fs::remove_dir_all(temp).with_context(|| format!("cannot remove the stale {}", temp.display()))?;
    }
    fs::create_dir(temp).with_context(|| format!("cannot create {}", temp.display()))?;
    tree::copy(source, temp, extra).inspect_err(|_| remove_temp(temp))
}

fn remove_temp(temp: &Path) {
    if let Err(error) = fs::remove_dir_all(temp) {
        eprintln!("warning: cannot remove {}: {error}", temp.display());
    }
}

/// Refuses, before anything is created, a source that contains the runs folder (the copy
/// would copy itself) or lies inside one of its runs (part of a run is not a run). Paths are
/// compared resolved; a runs folder that does not exist yet is resolved through its nearest
/// existing parent.
fn refuse_overlap(source: &Path, runs: &Path) -> Result<()> {
    let source = fs::canonicalize(source).with_context(|| format!("cannot resolve {}", source.display()))?;
    let runs_resolved = resolve_existing_part(runs).with_context(|| format!("cannot resolve {}", runs.display()))?;
    if runs_resolved.starts_with(&source) {
        bail!("the runs folder {} is inside this run; import into another --runs", runs.display());
    }
    if source.parent().is_some_and(|parent| parent != runs_resolved && parent.starts_with(&runs_resolved)) {
        bail!("this folder is inside a run of the runs folder {}; import the run itself", runs.display());
    }
    Ok(())
}

/// `path` resolved: its nearest existing ancestor canonicalized, the rest appended.
fn resolve_existing_part(path: &Path) -> std::io::Result<std::path::PathBuf> {
    let absolute = std::path::absolute(path)?;
    let mut existing = absolute.as_path();
    let mut rest = Vec::new();
    while existing.symlink_metadata().is_err() {
        let Some(parent) = existing.parent() else { break };
        rest.extend(existing.file_name());
        existing = parent;
    }
    let mut resolved = fs::canonicalize(existing)?;
    resolved.extend(rest.iter().rev());
    Ok(resolved)
}

/// A file of the source run, read like every build input (beneath the source folder, a
/// regular file only, at most `input::MAX_FILE_BYTES`).
fn read_source(source: &Path, rel: &str) -> Result<Vec<u8>> {
    let root = fs::canonicalize(source).with_context(|| format!("cannot resolve {}", source.display()))?;
    let at = Beneath::new(input::Root::new(root), rel);
    input::read_all(&at, input::MAX_FILE_BYTES).with_context(|| format!("cannot read {}", source.join(rel).display()))
}

/// Checks the source's `manifest.txt`, or derives one when it is absent.
fn manifest_extra(source: &Path, id: &str) -> Result<Vec<ExtraFile>> {
    let path = source.join("manifest.txt");
    if path.symlink_metadata().is_err() {
        eprintln!("note: {} has no manifest.txt; run {id} gets a minimal derived one", source.display());
        return Ok(vec![ExtraFile { rel: "manifest.txt".into(), bytes: derived_manifest(source, id).into_bytes() }]);
    }
    let bytes = read_source(source, "manifest.txt")?;
    let manifest = parse_manifest(&bytes).map_err(|e| anyhow!("{}: {e}", path.display()))?;
    if let Some(recorded) = manifest.get("run_id").filter(|r| *r != id) {
        eprintln!(
            "note: {} records run_id={recorded}; imported as {id} (the folder name, or --rename, is the run id)",
            path.display()
        );
    }
    Ok(Vec::new())
}

/// A minimal manifest for a run folder without one. Only facts read from the folder itself,
/// so the same source always derives the same bytes.
fn derived_manifest(source: &Path, id: &str) -> String {
    let mut entries = vec![
        ("experiment".to_string(), "interview_details".to_string()),
        ("run_id".to_string(), id.to_string()),
        ("manifest".to_string(), "derived by nccl-report import: the source had no manifest.txt".to_string()),
    ];
    let read = |name: &str| {
        let bytes = read_source(source, &format!("artifacts/{name}")).unwrap_or_default();
        String::from_utf8_lossy(&bytes).into_owned()
    };
    if let Some(gpu) = gpu_summary(&read("nvidia_smi_query.txt")) {
        entries.push(("gpu".to_string(), gpu));
    }
    if let Some(topology) = topology_summary(&read("nvidia_smi_topo.txt")) {
        entries.push(("topology".to_string(), topology));
    }
    manifest_text(&entries, &[])
}

/// The lock file of a temporary import folder.
fn lock_path(temp: &Path) -> PathBuf {
    let mut name = temp.file_name().unwrap_or_default().to_os_string();
    name.push(".lock");
    temp.with_file_name(name)
}

/// Takes the `flock` of `path` (created if missing) without waiting; `None` when another
/// process holds it. The lock is on the file the path names once taken (a lock file removed
/// and made again meanwhile is taken again), so two processes never both hold one path.
fn try_lock(path: &Path) -> Result<Option<fs::File>> {
    loop {
        let file = fs::OpenOptions::new()
            .read(true)
            .write(true)
            .create(true)
            .truncate(false)
            .open(path)
            .with_context(|| format!("cannot open the lock file {}", path.display()))?;
        // SAFETY: flock on a descriptor this function owns; no memory is passed.
        if unsafe { libc::flock(file.as_raw_fd(), libc::LOCK_EX | libc::LOCK_NB) } != 0 {
            return Ok(None);
        }
        let same = fs::metadata(path).is_ok_and(|now| file.metadata().is_ok_and(|held| held.ino() == now.ino()));
        if same {
            return Ok(Some(file));
        }
    }
}

/// The most temporary folders of one id and PID tried (other PID namespaces may share a PID).
const MAX_TEMP_NAMES: usize = 100;

/// A temporary folder name for importing `id` whose lock this process now holds.
fn claim_temp(runs: &Path, id: &str) -> Result<(PathBuf, TempLock)> {
    let pid = std::process::id();
    for n in 0..MAX_TEMP_NAMES {
        let name = if n == 0 { format!(".import-{id}-{pid}") } else { format!(".import-{id}-{pid}-{n}") };
        let temp = runs.join(name);
        if let Some(file) = try_lock(&lock_path(&temp))? {
            return Ok((temp.clone(), TempLock { path: lock_path(&temp), _file: file }));
        }
    }
    bail!("cannot claim a temporary folder for {id} in {}: all {MAX_TEMP_NAMES} names are in use", runs.display())
}

/// The lock of a temporary import folder, held while the folder exists; dropping it removes
/// the lock file (the folder is gone by then: renamed into place or removed).
struct TempLock {
    path: PathBuf,
    _file: fs::File,
}

impl Drop for TempLock {
    fn drop(&mut self) {
        let _ = fs::remove_file(&self.path);
    }
}

/// Removes `runs/.import-*` folders whose lock no process holds (see the module header).
fn clean_leftovers(runs: &Path) -> Result<()> {
    let Ok(entries) = fs::read_dir(runs) else {
        return Ok(());
    };
    for entry in entries.filter_map(Result::ok) {
        let name = entry.file_name().to_string_lossy().into_owned();
        if !name.starts_with(".import-") || name.ends_with(".lock") {
            continue;
        }
        remove_leftover(&entry.path())?;
    }
    Ok(())
}

/// Removes the listed temporary folder `path` when no process holds its lock. Its import may
/// have ended between the listing and the lock (renamed into place, its lock file removed,
/// and the lock file made again by `try_lock`): then there is nothing to remove, and the lock
/// file this made goes too. (Four imports of one run at once failed now and then with "cannot
/// remove the leftover" before.)
fn remove_leftover(path: &Path) -> Result<()> {
    let lock_file = lock_path(path);
    let Some(lock) = try_lock(&lock_file)? else { return Ok(()) };
    match fs::remove_dir_all(path) {
        Ok(()) => eprintln!("note: removed {}, left by an interrupted import", path.display()),
        Err(error) if error.kind() == std::io::ErrorKind::NotFound => {}
        Err(error) => {
            return Err(error).with_context(|| format!("cannot remove the leftover {}", path.display()));
        }
    }
    let _ = fs::remove_file(&lock_file);
    drop(lock);
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_temporary_folder_whose_lock_is_held_is_not_a_leftover() {
        let dir = tempfile::tempdir().unwrap();
        let runs = dir.path();
        // Another import at work (in any PID namespace, its PID unknown here): it holds its
        // folder's lock (flock locks of two opens conflict, even in one process).
        let busy = runs.join(".import-r1-4242");
        fs::create_dir(&busy).unwrap();
        let held_by_other = try_lock(&lock_path(&busy)).unwrap().unwrap();
        let left = runs.join(".import-r2-4243");
        fs::create_dir(&left).unwrap();
        clean_leftovers(runs).unwrap();
        assert!(busy.is_dir(), "a running import's folder was removed");
        assert!(!left.exists() && !lock_path(&left).exists(), "a leftover was kept");
        drop(held_by_other);
        clean_leftovers(runs).unwrap();
        assert!(!busy.exists(), "the folder of an import that is gone was kept");
        let (temp, held) = claim_temp(runs, "r3").unwrap();
        let (other, _) = claim_temp(runs, "r3").unwrap();
        assert_ne!(temp, other, "one temporary name claimed twice");
        drop(held);
        assert!(!lock_path(&temp).exists());
    }

    #[test]
    fn a_temporary_folder_gone_since_the_listing_is_no_error() {
        // Another import renamed its folder into place (and dropped its lock file) after this
        // one listed the folder: taking the lock makes the lock file again, and the folder is
        // not there to remove.
        let dir = tempfile::tempdir().unwrap();
        let gone = dir.path().join(".import-r1-4242");
        remove_leftover(&gone).unwrap();
        assert!(!lock_path(&gone).exists(), "the lock file made for a folder that is gone was kept");
    }

    #[test]
    fn a_fifo_manifest_is_refused_not_read() {
        let dir = tempfile::tempdir().unwrap();
        let fifo = dir.path().join("manifest.txt");
        assert!(std::process::Command::new("mkfifo").arg(&fifo).status().unwrap().success());
        let error = manifest_extra(dir.path(), "r1").unwrap_err();
        assert!(format!("{error:#}").contains("not a regular file"), "{error:#}");
        fs::remove_file(&fifo).unwrap();
        std::os::unix::fs::symlink("/dev/zero", &fifo).unwrap();
        assert!(manifest_extra(dir.path(), "r1").is_err());
        fs::create_dir(dir.path().join("artifacts")).unwrap();
        fs::remove_file(&fifo).unwrap();
        // An artifact that is a symlink to a readable GPU list outside the run is not read
        // (the same list in the run is: `gpu=`).
        let outside = tempfile::tempdir().unwrap();
        let query = "0, NVIDIA H200, GPU-c4, 580.159.04, 143771 MiB, 00000000:00:06.0\n";
        fs::write(outside.path().join("query.txt"), query).unwrap();
        let artifact = dir.path().join("artifacts/nvidia_smi_query.txt");
        std::os::unix::fs::symlink(outside.path().join("query.txt"), &artifact).unwrap();
        assert!(!derived_manifest(dir.path(), "r1").contains("gpu="));
        fs::remove_file(&artifact).unwrap();
        fs::write(&artifact, query).unwrap();
        assert!(derived_manifest(dir.path(), "r1").contains("gpu="));
    }

    #[test]
    fn derived_manifest_is_deterministic_and_parses() {
        let dir = tempfile::tempdir().unwrap();
        fs::create_dir_all(dir.path().join("artifacts")).unwrap();
        fs::write(
            dir.path().join("artifacts/nvidia_smi_query.txt"),
            "0, NVIDIA H200, GPU-c4, 580.159.04, 143771 MiB, 00000000:00:06.0\n",
        )
        .unwrap();
        let text = derived_manifest(dir.path(), "r1");
        assert_eq!(text, derived_manifest(dir.path(), "r1"));
        let manifest = parse_manifest(text.as_bytes()).unwrap();
        assert_eq!(manifest.get("run_id"), Some("r1"));
        assert_eq!(manifest.get("gpu"), Some("1x NVIDIA H200"));
        assert_eq!(manifest.get("topology"), None);
    }
}
