//! The only module that writes the site: all output files go to a staging folder beside the
//! target (`.<name>.tmp-PID`, marked as ours from its creation), which is swapped in whole
//! once complete (`OutputLock::swap_in`), so a failed or killed build leaves the previous
//! site intact. Nothing is moved out of the live site: an unchanged run's file is hard-linked
//! from it (a second name; the live site stays as it was until the swap, and the old site is
//! removed after it, so the new site is then the file's only owner) when its stamp proves it
//! is the file the last build committed, else copied from the build cache (`cache.rs`). An existing output folder is replaced only if nccl-report made it
//! (it holds the marker file) or it is empty. Uses `out_dir` for the lock and the swap.
//!
//! An incremental build of a site this tool committed (`Staging::in_place`) instead updates
//! the live site file by file: each file is written beside its place and renamed over it (a
//! reader sees the old file or the new one, never a part), a file whose bytes are already
//! there is not written, and the marker file's times are set before the first change, so that
//! a build killed half-way leaves a site whose marker the cache does not know, which the next
//! build rebuilds whole through a staging folder. Every writer counts what it wrote
//! (`Staging::counts`).

use crate::ingest::find::FileStamp;
use crate::pipeline::out_dir::OutputLock;
use crate::render::OutputFile;
use std::fs;
use std::io;
use std::path::{Component, Path, PathBuf};
use std::sync::atomic::{AtomicBool, AtomicI64, AtomicU64, Ordering};
use std::sync::Mutex;

pub(crate) use crate::pipeline::out_dir::MARKER;

#[derive(Debug, thiserror::Error)]
pub(crate) enum WriteError {
    #[error("{0} exists and was not written by nccl-report (no {MARKER} in it); refusing to replace it")]
    NotOurs(PathBuf),
    #[error("refusing to write {0:?}: not a plain relative path")]
    BadPath(String),
    /// The cause is part of the message, not a source of its own: a chain printed whole
    /// (`{:#}`) names it once.
    #[error("{path}: {cause}")]
    Io { path: PathBuf, cause: io::Error },
}

fn io_err(path: &Path) -> impl FnOnce(io::Error) -> WriteError + '_ {
    move |cause| WriteError::Io { path: path.to_path_buf(), cause }
}

/// Checks that `path` stays inside the folder it is joined to.
pub(crate) fn is_safe_relative(path: &str) -> bool {
    !path.is_empty() && Path::new(path).components().all(|c| matches!(c, Component::Normal(_)))
}

/// A site being written: files go into a staging folder beside `out`, which `commit` swaps
/// in. Dropped without `commit`, it removes itself and `out` is untouched. It borrows the
/// output's lock, so only one build writes a site at a time.
#[derive(Debug)]
pub(crate) struct Staging<'a> {
    dir: PathBuf,
    lock: &'a OutputLock,
    committed: bool,
    /// Writing into the live site (`in_place`) rather than a staging folder.
    in_place: bool,
    /// In place: whether the marker's times were already set (before the first change).
    touched: Mutex<bool>,
    counts: Counts,
    /// What the folder held before this writer's first change, when known (a staging folder:
    /// nothing; the live site: the count the last build recorded), so that `count` need not
    /// walk it.
    base: Option<SiteCount>,
    /// The folder was found to differ from what `base` counted (a file of the last commit
    /// missing): `count` walks it.
    recount: AtomicBool,
}

/// What a writer did: files written (created or replaced), their bytes, files hard-linked,
/// files removed, and files left alone because their bytes were already there.
#[derive(Debug, Default)]
struct Counts {
    written: AtomicU64,
    bytes: AtomicU64,
    linked: AtomicU64,
    removed: AtomicU64,
    unchanged: AtomicU64,
    /// Files and pages (`.html`) this writer added to the folder, less those it removed.
    files_added: AtomicI64,
    pages_added: AtomicI64,
}

impl Counts {
    /// Notes that the folder has one more (`by` 1) or fewer (-1) file at `rel`.
    fn add_file(&self, rel: &str, by: i64) {
        self.files_added.fetch_add(by, Ordering::Relaxed);
        if rel.ends_with(".html") {
            self.pages_added.fetch_add(by, Ordering::Relaxed);
        }
    }
}

/// A snapshot of `Counts`, for the build report.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub(crate) struct WriteCounts {
    pub written: u64,
    pub bytes: u64,
    pub linked: u64,
    pub removed: u64,
    pub unchanged: u64,
}

/// Tells the temporary names of in-place writes apart (one process writes a site at a time).
static TEMP_SERIAL: AtomicU64 = AtomicU64::new(0);

impl<'a> Staging<'a> {
    /// Starts a new site for the locked output; refuses an output that nccl-report did not make.
    pub(crate) fn begin(lock: &'a OutputLock) -> Result<Staging<'a>, WriteError> {
        let out = lock.out();
        if out.exists() && !replaceable(out) {
            return Err(WriteError::NotOurs(out.to_path_buf()));
        }
        let dir = lock.staging_dir();
        fs::create_dir(&dir).map_err(io_err(&dir))?;
        let marker = dir.join(MARKER);
        fs::write(&marker, MARKER_TEXT).map_err(io_err(&marker))?;
        Ok(Staging {
            dir,
            lock,
            committed: false,
            in_place: false,
            touched: Mutex::new(false),
            counts: Counts::default(),
            base: Some(SiteCount::default()),
            recount: Default::default(),
        })
    }

    /// Updates the live site of `lock` in place (the caller has checked that it is the site
    /// the last build committed; `base` is its count as that build recorded it, if known).
    /// Nothing is written until a file differs.
    pub(crate) fn in_place(lock: &'a OutputLock, base: Option<SiteCount>) -> Staging<'a> {
        let dir = lock.out().to_path_buf();
        Staging {
            dir,
            lock,
            committed: false,
            in_place: true,
            touched: Mutex::new(false),
            counts: Counts::default(),
            base,
            recount: Default::default(),
        }
    }

    /// What this writer has written, linked, removed and left alone so far.
    pub(crate) fn counts(&self) -> WriteCounts {
        let c = &self.counts;
        WriteCounts {
            written: c.written.load(Ordering::Relaxed),
            bytes: c.bytes.load(Ordering::Relaxed),
            linked: c.linked.load(Ordering::Relaxed),
            removed: c.removed.load(Ordering::Relaxed),
            unchanged: c.unchanged.load(Ordering::Relaxed),
        }
    }

    /// In place, before the first change: sets the marker's modification time (so its change
    /// time too, and with them its stamp), which tells the next build that this site may be
    /// half-updated until the cache records the new stamp at the end of this build. The
    /// marker is never replaced, so no temporary file is left if the build is killed here.
    fn touch(&self) -> Result<(), WriteError> {
        if !self.in_place {
            return Ok(());
        }
        let mut touched = self.touched.lock().unwrap_or_else(|e| e.into_inner());
        if !*touched {
            let marker = self.dir.join(MARKER);
            let file = fs::OpenOptions::new().write(true).open(&marker).map_err(io_err(&marker))?;
            file.set_modified(std::time::SystemTime::now()).map_err(io_err(&marker))?;
            *touched = true;
        }
        Ok(())
    }

    /// The folder this writer writes (the staging folder, or the live site in place).
    pub(crate) fn dir(&self) -> &Path {
        &self.dir
    }

    /// Where a site-relative path lands in the staging folder.
    pub(crate) fn path_of(&self, rel: &str) -> Result<PathBuf, WriteError> {
        if !is_safe_relative(rel) {
            return Err(WriteError::BadPath(rel.to_string()));
        }
        Ok(self.dir.join(rel))
    }

    /// The stamp of the site-relative `rel` here when it is a plain file (`None` for a
    /// symlink, which is not followed, or anything else).
    pub(crate) fn stamp(&self, rel: &str) -> Option<FileStamp> {
        FileStamp::of_plain_file(&self.path_of(rel).ok()?)
    }

    /// Every plain file under the folder `rel` here, as site-relative paths in name order
    /// (none when there is no such folder); symlinks are not followed. What a run's folder of
    /// the live site holds, whatever the cache recorded of it.
    pub(crate) fn files_under(&self, rel: &str) -> Result<Vec<String>, WriteError> {
        let root = self.path_of(rel)?;
        if !root.symlink_metadata().is_ok_and(|meta| meta.is_dir()) {
            return Ok(Vec::new());
        }
        let mut files = Vec::new();
        for entry in walkdir::WalkDir::new(&root).min_depth(1).sort_by_file_name() {
            let entry = entry.map_err(|e| {
                let path = e.path().unwrap_or(&root).to_path_buf();
                WriteError::Io { path, cause: e.into() }
            })?;
            if entry.file_type().is_file() {
                files.extend(entry.path().strip_prefix(&self.dir).ok().and_then(Path::to_str).map(str::to_string));
            }
        }
        Ok(files)
    }

    /// Writes one file (safe to call from several threads). A file already at its path is
    /// replaced, never written through, as the live site may hold a hard link to it (`link`):
    /// in a staging folder it is unlinked and a new file created; in place, the new bytes are
    /// written beside it and renamed over it, and only when they differ.
    pub(crate) fn put(&self, file: &OutputFile) -> Result<(), WriteError> {
        let path = self.path_of(&file.path)?;
        let replaced = if self.in_place {
            if holds(&path, &file.bytes) {
                self.counts.unchanged.fetch_add(1, Ordering::Relaxed);
                return Ok(());
            }
            let existed = path.symlink_metadata().is_ok();
            self.touch()?;
            in_parent(&path, || replace_file(&path, &file.bytes))?;
            existed
        } else {
            in_parent(&path, || write_new(&path, &file.bytes))?
        };
        if !replaced {
            self.counts.add_file(&file.path, 1);
        }
        self.counts.written.fetch_add(1, Ordering::Relaxed);
        self.counts.bytes.fetch_add(file.bytes.len() as u64, Ordering::Relaxed);
        Ok(())
    }

    /// Removes the file at `rel`, if there is one.
    pub(crate) fn remove(&self, rel: &str) -> Result<(), WriteError> {
        let path = self.path_of(rel)?;
        if self.in_place && path.symlink_metadata().is_err() {
            // A file of the last commit is gone from the live site (removed by hand).
            self.recount();
            return Ok(());
        }
        self.touch()?;
        match fs::remove_file(&path) {
            Err(error) if error.kind() != std::io::ErrorKind::NotFound => Err(io_err(&path)(error)),
            Err(_) => Ok(()),
            Ok(()) => {
                self.counts.removed.fetch_add(1, Ordering::Relaxed);
                self.counts.add_file(rel, -1);
                Ok(())
            }
        }
    }

    /// Removes the folder at `rel` and everything in it, if there is one (a run that is gone).
    pub(crate) fn remove_dir(&self, rel: &str) -> Result<(), WriteError> {
        let path = self.path_of(rel)?;
        if path.symlink_metadata().is_err() {
            return Ok(());
        }
        self.touch()?;
        let held = count_site(&path)?;
        fs::remove_dir_all(&path).map_err(io_err(&path))?;
        self.counts.removed.fetch_add(1, Ordering::Relaxed);
        self.counts.files_added.fetch_add(-(held.files as i64), Ordering::Relaxed);
        self.counts.pages_added.fetch_add(-(held.pages as i64), Ordering::Relaxed);
        Ok(())
    }

    /// Removes each file of `rels` (`remove`), then each folder that leaves empty, the deepest
    /// first (so that a folder emptied by removing its empty subfolder goes too): the site
    /// then holds the folders a whole build makes.
    pub(crate) fn remove_files<'r>(&self, rels: impl IntoIterator<Item = &'r String>) -> Result<(), WriteError> {
        let mut folders = std::collections::BTreeSet::new();
        for rel in rels {
            self.remove(rel)?;
            folders.extend(Path::new(rel).ancestors().skip(1).filter_map(Path::to_str));
        }
        for folder in folders.iter().rev().filter(|f| !f.is_empty()) {
            self.remove_if_empty(folder)?;
        }
        Ok(())
    }

    /// Removes the folder `rel` if it is empty (a folder whose files a build removed, e.g. the
    /// `compare/` of a site an older version wrote); a folder that still holds anything stays,
    /// also one that another thread wrote into meanwhile (`rmdir` fails with ENOTEMPTY, or
    /// EEXIST where POSIX allows it). The stages that run at once remove in folders of their
    /// own (history pages beside cross-run pages); a write that finds its folder gone makes it
    /// again once (`in_parent`).
    pub(crate) fn remove_if_empty(&self, rel: &str) -> Result<(), WriteError> {
        let path = self.path_of(rel)?;
        if fs::read_dir(&path).map_or(true, |mut entries| entries.next().is_some()) {
            return Ok(());
        }
        self.touch()?;
        match fs::remove_dir(&path) {
            Err(error)
                if matches!(
                    error.kind(),
                    io::ErrorKind::DirectoryNotEmpty | io::ErrorKind::AlreadyExists | io::ErrorKind::NotFound
                ) =>
            {
                Ok(())
            }
            other => other.map_err(io_err(&path)),
        }
    }

    /// Moves every file of `from` (a staging folder of this output, holding only new files)
    /// into this in-place site at the same path, each renamed over the file there; returns
    /// the site paths moved. Used to put the runs built into a staging folder in place.
    pub(crate) fn take_from(&self, from: &Staging) -> Result<Vec<String>, WriteError> {
        let mut moved = Vec::new();
        let mut pending = vec![String::new()];
        while let Some(rel) = pending.pop() {
            let dir = if rel.is_empty() { from.dir.clone() } else { from.dir.join(&rel) };
            let mut entries: Vec<fs::DirEntry> =
                fs::read_dir(&dir).map_err(io_err(&dir))?.collect::<Result<_, _>>().map_err(io_err(&dir))?;
            entries.sort_by_key(fs::DirEntry::file_name);
            for entry in entries {
                let name = entry.file_name().to_string_lossy().into_owned();
                if rel.is_empty() && name == MARKER {
                    continue;
                }
                let child = if rel.is_empty() { name } else { format!("{rel}/{name}") };
                if entry.file_type().map_err(io_err(&entry.path()))?.is_dir() {
                    pending.push(child);
                    continue;
                }
                let target = self.path_of(&child)?;
                self.touch()?;
                let replaced = target.symlink_metadata().is_ok();
                in_parent(&target, || fs::rename(entry.path(), &target))?;
                if !replaced {
                    self.counts.add_file(&child, 1);
                }
                from.counts.add_file(&child, -1);
                moved.push(child);
            }
        }
        self.counts.written.fetch_add(moved.len() as u64, Ordering::Relaxed);
        Ok(moved)
    }

    /// The bytes of a file already in the new site.
    pub(crate) fn read(&self, rel: &str) -> Result<Vec<u8>, WriteError> {
        let path = self.path_of(rel)?;
        fs::read(&path).map_err(io_err(&path))
    }

    /// Hard-links an unchanged file of the live site (`from`, checked by the caller against the
    /// stamp recorded when it was committed) into the new site at `rel`. The live site is not
    /// changed (a later write of `rel` replaces the file: `put`); it is removed after the swap,
    /// leaving the new site the only owner of the file.
    pub(crate) fn link(&self, from: &Path, rel: &str) -> Result<(), WriteError> {
        let path = self.path_of(rel)?;
        if self.in_place {
            return Err(WriteError::BadPath(format!("{rel} (no links inside the live site)")));
        }
        in_parent(&path, || fs::hard_link(from, &path))?;
        self.counts.linked.fetch_add(1, Ordering::Relaxed);
        self.counts.add_file(rel, 1);
        Ok(())
    }

    /// Notes that the folder is not what the count it started from says (a file of the last
    /// commit found missing), so `count` walks it.
    pub(crate) fn recount(&self) {
        self.recount.store(true, Ordering::Relaxed);
    }

    /// How many files the new site holds, and how many of them are pages (`.html`): what the
    /// folder held before (`base`) with what this writer added and removed, or, where that is
    /// not known (or `recount` was called), counted by walking the folder. Files put into the
    /// live site by hand are counted only by a walk.
    pub(crate) fn count(&self) -> Result<SiteCount, WriteError> {
        let base = self.base.filter(|_| !self.recount.load(Ordering::Relaxed));
        let Some(base) = base else { return count_site(&self.dir) };
        let add = |n: usize, by: &AtomicI64| usize::try_from(n as i64 + by.load(Ordering::Relaxed)).ok();
        match (add(base.files, &self.counts.files_added), add(base.pages, &self.counts.pages_added)) {
            (Some(files), Some(pages)) => Ok(SiteCount { files, pages }),
            _ => count_site(&self.dir),
        }
    }

    /// Swaps the complete staging folder in place of `out` in one atomic step (in place:
    /// every file is already there).
    pub(crate) fn commit(mut self) -> Result<(), WriteError> {
        if !self.in_place {
            self.lock.swap_in(&self.dir).map_err(io_err(self.lock.out()))?;
        }
        self.committed = true;
        Ok(())
    }
}

impl Drop for Staging<'_> {
    fn drop(&mut self) {
        // The live site is never removed; a staging folder not committed is.
        if !self.committed && !self.in_place {
            let _ = crate::pipeline::out_dir::remove_ours(&self.dir);
        }
    }
}

/// What the marker file says.
const MARKER_TEXT: &[u8] = b"written by nccl-report; the whole folder is replaced on each build\n";

/// Writes `bytes` to a new file at `path`; a file already there is unlinked first (a hard link
/// to it elsewhere keeps its bytes). Returns whether there was one.
fn write_new(path: &Path, bytes: &[u8]) -> io::Result<bool> {
    use std::io::Write as _;
    let create = || fs::OpenOptions::new().write(true).create_new(true).open(path);
    let (mut file, replaced) = match create() {
        Err(error) if error.kind() == io::ErrorKind::AlreadyExists => {
            fs::remove_file(path)?;
            (create()?, true)
        }
        other => (other?, false),
    };
    file.write_all(bytes)?;
    Ok(replaced)
}

/// Whether the file at `path` is a regular file holding `bytes`, compared a block at a time
/// (the old copy of a large file is never held beside the new). Opened without following a
/// symlink and without waiting on a FIFO: anything but such a file (a symlink put there by
/// hand, whatever it points to) is replaced.
fn holds(path: &Path, bytes: &[u8]) -> bool {
    use std::io::Read as _;
    use std::os::unix::fs::OpenOptionsExt as _;
    let open = fs::OpenOptions::new().read(true).custom_flags(libc::O_NOFOLLOW | libc::O_NONBLOCK).open(path);
    let Ok(mut file) = open else { return false };
    if !file.metadata().is_ok_and(|meta| meta.is_file() && meta.len() == bytes.len() as u64) {
        return false;
    }
    let mut block = vec![0; bytes.len().clamp(1, 256 * 1024)];
    let mut rest = bytes;
    loop {
        match file.read(&mut block) {
            Ok(0) => return rest.is_empty(),
            Ok(n) if n <= rest.len() && block[..n] == rest[..n] => rest = &rest[n..],
            Err(error) if error.kind() == io::ErrorKind::Interrupted => {}
            _ => return false,
        }
    }
}

/// Writes `bytes` beside `path` and renames the new file over it (a new inode: a hard link
/// to the old file elsewhere is not written through).
fn replace_file(path: &Path, bytes: &[u8]) -> io::Result<()> {
    let name = path.file_name().map(|n| n.to_string_lossy().into_owned()).unwrap_or_default();
    let serial = TEMP_SERIAL.fetch_add(1, Ordering::Relaxed);
    let temp = path.with_file_name(format!(".{name}.nccl-report-tmp-{}-{serial}", std::process::id()));
    // A write that fails (a full disk) or a failed rename leaves no temporary file behind.
    fs::write(&temp, bytes).and_then(|()| fs::rename(&temp, path)).inspect_err(|_| {
        let _ = fs::remove_file(&temp);
    })
}

/// The files of a site and its pages (`.html` files), the marker not counted.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub(crate) struct SiteCount {
    pub files: usize,
    pub pages: usize,
}

/// Counts the files of the site at `dir` (a build's staging folder, or the live site when a
/// build writes nothing), so the build's summary says what is there, cached or not.
pub(crate) fn count_site(dir: &Path) -> Result<SiteCount, WriteError> {
    let mut count = SiteCount::default();
    for entry in walkdir::WalkDir::new(dir).min_depth(1) {
        let entry = entry.map_err(|e| {
            let path = e.path().unwrap_or(dir).to_path_buf();
            WriteError::Io { path, cause: e.into() }
        })?;
        if !entry.file_type().is_file() || (entry.depth() == 1 && entry.file_name() == MARKER) {
            continue;
        }
        count.files += 1;
        count.pages += usize::from(entry.path().extension().is_some_and(|e| e == "html"));
    }
    Ok(count)
}

/// Runs `op`, which makes the file at `path`; where the kernel says a folder on the way is
/// missing, creates the file's folder and runs `op` again. The folder is made only then, not
/// before every file: `mkdir` of a folder that exists still takes its parent's lock, and with
/// one `mkdir runs/<id>` per file every thread of a build queued on the lock of `runs/`.
fn in_parent<T>(path: &Path, op: impl Fn() -> io::Result<T>) -> Result<T, WriteError> {
    match op() {
        Err(error) if error.kind() == io::ErrorKind::NotFound => {
            if let Some(dir) = path.parent() {
                fs::create_dir_all(dir).map_err(io_err(dir))?;
            }
            op().map_err(io_err(path))
        }
        other => other.map_err(io_err(path)),
    }
}

fn replaceable(out: &Path) -> bool {
    out.join(MARKER).is_file() || fs::read_dir(out).is_ok_and(|mut entries| entries.next().is_none())
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Writes `files` as the whole content of `out`, as a build does.
    fn write_site(out: &Path, files: &[OutputFile]) -> Result<(), WriteError> {
        let lock = OutputLock::acquire(out).unwrap();
        let staging = Staging::begin(&lock)?;
        for file in files {
            staging.put(file)?;
        }
        staging.commit()
    }

    #[test]
    fn replaces_own_site_and_refuses_foreign_folder() {
        let dir = tempfile::tempdir().unwrap();
        let out = dir.path().join("site");
        write_site(&out, &[OutputFile::new("a/b.txt", "1")]).unwrap();
        write_site(&out, &[OutputFile::new("c.txt", "2")]).unwrap();
        assert!(!out.join("a/b.txt").exists());
        assert_eq!(fs::read_to_string(out.join("c.txt")).unwrap(), "2");

        let foreign = dir.path().join("mine");
        fs::create_dir(&foreign).unwrap();
        fs::write(foreign.join("keep.txt"), "precious").unwrap();
        assert!(matches!(write_site(&foreign, &[]), Err(WriteError::NotOurs(_))));
        assert_eq!(fs::read_to_string(foreign.join("keep.txt")).unwrap(), "precious");
    }

    #[test]
    fn counts_files_and_pages_but_not_the_marker() {
        let dir = tempfile::tempdir().unwrap();
        let out = dir.path().join("site");
        let files = ["index.html", "a/b.html", "a/c.svg", ".nojekyll"].map(|p| OutputFile::new(p, "x"));
        write_site(&out, &files).unwrap();
        assert_eq!(count_site(&out).unwrap(), SiteCount { files: 4, pages: 2 });
    }

    /// A file linked from the live site into a new site, then written again there, is
    /// replaced: the live site's file keeps its bytes (a build that fails before its swap
    /// leaves the live site as it was). The count follows what was added.
    #[test]
    fn a_linked_file_written_again_is_replaced_not_written_through() {
        let dir = tempfile::tempdir().unwrap();
        let out = dir.path().join("site");
        write_site(&out, &[OutputFile::new("runs/a/index.html", "live")]).unwrap();
        let lock = OutputLock::acquire(&out).unwrap();
        let staging = Staging::begin(&lock).unwrap();
        staging.link(&out.join("runs/a/index.html"), "runs/a/index.html").unwrap();
        staging.put(&OutputFile::new("runs/a/index.html", "new")).unwrap();
        staging.put(&OutputFile::new("runs/a/x.svg", "new")).unwrap();
        assert_eq!(fs::read_to_string(out.join("runs/a/index.html")).unwrap(), "live");
        assert_eq!(fs::read_to_string(staging.dir().join("runs/a/index.html")).unwrap(), "new");
        assert_eq!(staging.count().unwrap(), SiteCount { files: 2, pages: 1 });
        assert_eq!(staging.count().unwrap(), count_site(staging.dir()).unwrap());
    }

    /// Folders are made when a file first needs them (`in_parent`), by every way a file
    /// arrives: written, written in place, linked, moved in. Where a file stands in the way of
    /// a folder, the error names the path.
    #[test]
    fn folders_are_made_on_demand_by_each_writer() {
        let dir = tempfile::tempdir().unwrap();
        let out = dir.path().join("site");
        write_site(&out, &[OutputFile::new("runs/a/index.html", "live")]).unwrap();
        let lock = OutputLock::acquire(&out).unwrap();
        let staging = Staging::begin(&lock).unwrap();
        staging.put(&OutputFile::new("runs/b/charts/x.svg", "new")).unwrap();
        staging.link(&out.join("runs/a/index.html"), "runs/a/deep/index.html").unwrap();
        assert_eq!(fs::read_to_string(staging.dir().join("runs/b/charts/x.svg")).unwrap(), "new");
        assert_eq!(fs::read_to_string(staging.dir().join("runs/a/deep/index.html")).unwrap(), "live");
        drop(staging);

        let in_place = Staging::in_place(&lock, None);
        in_place.put(&OutputFile::new("runs/c/charts/y.svg", "in place")).unwrap();
        assert_eq!(fs::read_to_string(out.join("runs/c/charts/y.svg")).unwrap(), "in place");
        let staged = Staging::begin(&lock).unwrap();
        staged.put(&OutputFile::new("runs/d/e/z.csv", "moved")).unwrap();
        assert_eq!(in_place.take_from(&staged).unwrap(), ["runs/d/e/z.csv"]);
        assert_eq!(fs::read_to_string(out.join("runs/d/e/z.csv")).unwrap(), "moved");

        let error = in_place.put(&OutputFile::new("runs/a/index.html/under-a-file.txt", "x")).unwrap_err();
        assert!(
            matches!(&error, WriteError::Io { path, cause }
                if path.ends_with("runs/a/index.html/under-a-file.txt")
                    && cause.kind() == io::ErrorKind::NotADirectory),
            "{error}"
        );
    }

    /// In place, a file is left as it is only when a regular file with its very bytes is
    /// there (compared a block at a time, a difference in a large file's last byte seen); a
    /// symlink with those bytes behind it, and a FIFO (also for a file of no bytes), are
    /// replaced without waiting on it.
    #[test]
    fn in_place_only_a_regular_file_with_the_same_bytes_is_left() {
        use std::os::unix::fs::MetadataExt as _;
        let dir = tempfile::tempdir().unwrap();
        let out = dir.path().join("site");
        let large: Vec<u8> = (0..600_000u32).map(|i| (i % 251) as u8).collect();
        let mut changed = large.clone();
        *changed.last_mut().unwrap() ^= 1;
        let files = [OutputFile::new("same.txt", "same"), OutputFile::new("large.bin", large.clone())];
        write_site(&out, &files).unwrap();
        let outside = dir.path().join("outside.txt");
        fs::write(&outside, "link").unwrap();
        std::os::unix::fs::symlink(&outside, out.join("link.txt")).unwrap();
        for rel in ["fifo.txt", "empty-fifo.txt"] {
            let fifo = std::ffi::CString::new(out.join(rel).into_os_string().into_encoded_bytes()).unwrap();
            // SAFETY: a valid NUL-terminated path.
            assert_eq!(unsafe { libc::mkfifo(fifo.as_ptr(), 0o600) }, 0);
        }
        let inode = |rel: &str| fs::metadata(out.join(rel)).unwrap().ino();
        let same = inode("same.txt");
        let (done, finished) = std::sync::mpsc::channel();
        // A thread of its own, which a failing test leaves waiting rather than waiting for it.
        let site = out.clone();
        let written = [
            OutputFile::new("same.txt", "same"),
            OutputFile::new("large.bin", large),
            OutputFile::new("large.bin", changed.clone()),
            OutputFile::new("link.txt", "link"),
            OutputFile::new("fifo.txt", "fifo"),
            OutputFile::new("empty-fifo.txt", ""),
        ];
        std::thread::spawn(move || {
            let lock = OutputLock::acquire(&site).unwrap();
            let in_place = Staging::in_place(&lock, None);
            for file in &written {
                in_place.put(file).unwrap();
            }
            done.send(in_place.counts()).unwrap();
        });
        let counts = finished.recv_timeout(std::time::Duration::from_secs(20)).expect("no wait on a FIFO");
        assert_eq!((counts.unchanged, counts.written), (2, 4));
        assert_eq!(inode("same.txt"), same);
        assert_eq!(fs::read(out.join("large.bin")).unwrap(), changed);
        for (rel, text) in [("link.txt", "link"), ("fifo.txt", "fifo"), ("empty-fifo.txt", "")] {
            let meta = fs::symlink_metadata(out.join(rel)).unwrap();
            assert!(meta.is_file(), "{rel} replaced by a regular file");
            assert_eq!(fs::read_to_string(out.join(rel)).unwrap(), text);
        }
        assert_eq!(fs::read_to_string(&outside).unwrap(), "link");
    }

    #[test]
    fn only_an_empty_folder_is_removed_if_empty() {
        let dir = tempfile::tempdir().unwrap();
        let out = dir.path().join("site");
        write_site(&out, &[OutputFile::new("compare/a..b.html", "x"), OutputFile::new("runs/a/index.html", "y")])
            .unwrap();
        let lock = OutputLock::acquire(&out).unwrap();
        let staging = Staging::begin(&lock).unwrap();
        staging.put(&OutputFile::new("kept/x.txt", "z")).unwrap();
        staging.put(&OutputFile::new("emptied/x.txt", "z")).unwrap();
        staging.remove("emptied/x.txt").unwrap();
        staging.remove_if_empty("emptied").unwrap();
        staging.remove_if_empty("kept").unwrap();
        staging.remove_if_empty("never-there").unwrap();
        assert!(!staging.dir().join("emptied").exists() && staging.dir().join("kept/x.txt").is_file());
        assert!(staging.remove_if_empty("../site").is_err(), "no path outside the output");
    }

    #[test]
    fn rejects_escaping_paths() {
        let dir = tempfile::tempdir().unwrap();
        for bad in ["../x", "/etc/x", "a/../../x", ""] {
            assert!(matches!(
                write_site(&dir.path().join("s"), &[OutputFile::new(bad, "")]),
                Err(WriteError::BadPath(_))
            ));
        }
        assert!(!dir.path().join("s").exists());
    }
}
