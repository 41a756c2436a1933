//! The only module that writes the site: all output files go to a staging folder beside the
//! target (`.<name>.tmp-PID`, marked as ours from its creation), which is swapped in whole
//! once complete (`OutputLock::swap_in`), so a failed or killed build leaves the previous
//! site intact. Nothing is moved out of the live site: an unchanged run's file is hard-linked
//! from it (a second name; the live site stays as it was until the swap, and the old site is
//! removed after it, so the new site is then the file's only owner) when its stamp proves it
//! is the file the last build committed, else copied from the build cache (`cache.rs`). An existing output folder is replaced only if nccl-report made it
//! (it holds the marker file) or it is empty. Uses `out_dir` for the lock and the swap.

use crate::pipeline::out_dir::OutputLock;
use crate::render::OutputFile;
use std::fs;
use std::io;
use std::path::{Component, Path, PathBuf};

pub(crate) use crate::pipeline::out_dir::MARKER;

#[derive(Debug, thiserror::Error)]
pub(crate) enum WriteError {
    #[error("{0} exists and was not written by nccl-report (no {MARKER} in it); refusing to replace it")]
    NotOurs(PathBuf),
    #[error("refusing to write {0:?}: not a plain relative path")]
    BadPath(String),
    #[error("{path}: {source}")]
    Io { path: PathBuf, source: io::Error },
}

fn io_err(path: &Path) -> impl FnOnce(io::Error) -> WriteError + '_ {
    move |source| WriteError::Io { path: path.to_path_buf(), source }
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
}

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
        fs::write(&marker, b"written by nccl-report; the whole folder is replaced on each build\n")
            .map_err(io_err(&marker))?;
        Ok(Staging { dir, lock, committed: false })
    }

    /// Where a site-relative path lands in the staging folder.
    pub(crate) fn path_of(&self, rel: &str) -> Result<PathBuf, WriteError> {
        if !is_safe_relative(rel) {
            return Err(WriteError::BadPath(rel.to_string()));
        }
        Ok(self.dir.join(rel))
    }

    /// Writes one file (safe to call from several threads).
    pub(crate) fn put(&self, file: &OutputFile) -> Result<(), WriteError> {
        let path = self.path_of(&file.path)?;
        create_parent(&path)?;
        fs::write(&path, &file.bytes).map_err(io_err(&path))
    }

    /// Replaces the file at `rel`: the old one is unlinked first, so a file hard-linked from
    /// the live site (`link`) is never written through.
    pub(crate) fn replace(&self, file: &OutputFile) -> Result<(), WriteError> {
        self.remove(&file.path)?;
        self.put(file)
    }

    /// Removes the file at `rel`, if there is one.
    pub(crate) fn remove(&self, rel: &str) -> Result<(), WriteError> {
        let path = self.path_of(rel)?;
        match fs::remove_file(&path) {
            Err(error) if error.kind() != std::io::ErrorKind::NotFound => Err(io_err(&path)(error)),
            _ => Ok(()),
        }
    }

    /// The bytes of a file already in the new site.
    pub(crate) fn read(&self, rel: &str) -> Result<Vec<u8>, WriteError> {
        let path = self.path_of(rel)?;
        fs::read(&path).map_err(io_err(&path))
    }

    /// Hard-links an unchanged file of the live site (`from`, checked by the caller against the
    /// stamp recorded when it was committed) into the new site at `rel`. The live site is not
    /// changed; it is removed after the swap, leaving the new site the only owner of the file.
    pub(crate) fn link(&self, from: &Path, rel: &str) -> Result<(), WriteError> {
        let path = self.path_of(rel)?;
        create_parent(&path)?;
        fs::hard_link(from, &path).map_err(io_err(&path))
    }

    /// Appends `bytes` to the file at `rel`, creating it (for a file written in parts, such as
    /// `data/runs.json` a page of runs at a time; one writer per file).
    pub(crate) fn append(&self, rel: &str, bytes: &[u8]) -> Result<(), WriteError> {
        let path = self.path_of(rel)?;
        create_parent(&path)?;
        let mut file = fs::OpenOptions::new().create(true).append(true).open(&path).map_err(io_err(&path))?;
        std::io::Write::write_all(&mut file, bytes).map_err(io_err(&path))
    }

    /// How many files the new site holds, and how many of them are pages (`.html`).
    pub(crate) fn count(&self) -> Result<SiteCount, WriteError> {
        count_site(&self.dir)
    }

    /// Swaps the complete staging folder in place of `out` in one atomic step.
    pub(crate) fn commit(mut self) -> Result<(), WriteError> {
        self.lock.swap_in(&self.dir).map_err(io_err(self.lock.out()))?;
        self.committed = true;
        Ok(())
    }
}

impl Drop for Staging<'_> {
    fn drop(&mut self) {
        if !self.committed {
            let _ = crate::pipeline::out_dir::remove_ours(&self.dir);
        }
    }
}

/// The files of a site and its pages (`.html` files), the marker not counted.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
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
            WriteError::Io { path, source: e.into() }
        })?;
        if !entry.file_type().is_file() || (entry.depth() == 1 && entry.file_name() == MARKER) {
            continue;
        }
        count.files += 1;
        count.pages += usize::from(entry.path().extension().is_some_and(|e| e == "html"));
    }
    Ok(count)
}

fn create_parent(path: &Path) -> Result<(), WriteError> {
    match path.parent() {
        Some(dir) => fs::create_dir_all(dir).map_err(io_err(dir)),
        None => Ok(()),
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
