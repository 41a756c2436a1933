//! The only module that writes the site: all output files go to a temporary folder beside
//! the target, which is then swapped in, so a failed or interrupted build leaves the
//! previous site intact. An existing output folder is replaced only if nccl-report made it
//! (it holds the marker file) or it is empty. Run folders that a build knows to be unchanged
//! are moved over from the current site at commit time (a rename each), after everything else
//! is written: a build that fails before then leaves the current site untouched.

use std::fs;
use std::io;
use std::path::{Component, Path, PathBuf};
use std::sync::Mutex;

/// One file of the site: a `/`-separated path relative to the site root, and its bytes.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct OutputFile {
    pub path: String,
    pub bytes: Vec<u8>,
}

impl OutputFile {
    pub fn new(path: impl Into<String>, bytes: impl Into<Vec<u8>>) -> Self {
        OutputFile { path: path.into(), bytes: bytes.into() }
    }
}

/// Marks a folder as a site written by nccl-report (and so safe to replace).
pub const MARKER: &str = ".nccl-report-site";

#[derive(Debug, thiserror::Error)]
pub enum WriteError {
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
pub fn is_safe_relative(path: &str) -> bool {
    !path.is_empty() && Path::new(path).components().all(|c| matches!(c, Component::Normal(_)))
}

/// A site being written: files go into a temporary folder beside `out`, which `commit`
/// swaps in. Dropped without `commit`, it removes itself and `out` is untouched.
#[derive(Debug)]
pub struct Staging {
    dir: PathBuf,
    out: PathBuf,
    committed: bool,
    /// Folders of the current site to carry over unchanged (moved in at commit).
    adopted: Mutex<Vec<String>>,
}

impl Staging {
    /// Starts a new site for `out`; refuses an `out` that nccl-report did not make.
    pub fn begin(out: &Path) -> Result<Staging, WriteError> {
        if out.exists() && !replaceable(out) {
            return Err(WriteError::NotOurs(out.to_path_buf()));
        }
        let parent = parent_of(out);
        fs::create_dir_all(&parent).map_err(io_err(&parent))?;
        let dir = parent.join(format!(".{}.tmp-{}", name_of(out), std::process::id()));
        if dir.exists() {
            fs::remove_dir_all(&dir).map_err(io_err(&dir))?;
        }
        fs::create_dir_all(&dir).map_err(io_err(&dir))?;
        Ok(Staging { dir, out: out.to_path_buf(), committed: false, adopted: Mutex::new(Vec::new()) })
    }

    /// Where a site-relative path lands in the staging folder.
    pub fn path_of(&self, rel: &str) -> Result<PathBuf, WriteError> {
        if !is_safe_relative(rel) {
            return Err(WriteError::BadPath(rel.to_string()));
        }
        Ok(self.dir.join(rel))
    }

    /// Writes one file (safe to call from several threads). A file already there (a link into
    /// the build cache) is unlinked first, never written through.
    pub fn put(&self, file: &OutputFile) -> Result<(), WriteError> {
        let path = self.path_of(&file.path)?;
        create_parent(&path)?;
        let _ = fs::remove_file(&path);
        fs::write(&path, &file.bytes).map_err(io_err(&path))
    }

    /// Appends `bytes` to the file at `rel`, creating it (for a file written in parts, such as
    /// `data/runs.json` a page of runs at a time; one writer per file).
    pub fn append(&self, rel: &str, bytes: &[u8]) -> Result<(), WriteError> {
        let path = self.path_of(rel)?;
        create_parent(&path)?;
        let mut file = fs::OpenOptions::new().create(true).append(true).open(&path).map_err(io_err(&path))?;
        std::io::Write::write_all(&mut file, bytes).map_err(io_err(&path))
    }

    /// Places an existing file (from the build cache) at `rel`: a hard link, or a copy where
    /// links are not possible.
    pub fn link(&self, rel: &str, source: &Path) -> Result<(), WriteError> {
        let path = self.path_of(rel)?;
        create_parent(&path)?;
        if fs::hard_link(source, &path).is_err() {
            fs::copy(source, &path).map_err(io_err(&path))?;
        }
        Ok(())
    }

    /// Whether the current site (one nccl-report wrote) has the file or folder `rel`.
    pub fn can_adopt(&self, rel: &str) -> bool {
        is_safe_relative(rel) && self.out.join(MARKER).is_file() && self.out.join(rel).symlink_metadata().is_ok()
    }

    /// Carries the file or folder `rel` of the current site over into the new one unchanged
    /// (the caller knows it is what this build would write). It is moved in at `commit`, in
    /// one rename, so unchanged runs cost no file writes. False when there is no such entry.
    pub fn adopt(&self, rel: &str) -> bool {
        let adoptable = self.can_adopt(rel);
        if adoptable {
            self.adopted.lock().unwrap_or_else(|e| e.into_inner()).push(rel.to_string());
        }
        adoptable
    }

    /// Moves the adopted folders in, marks the folder as ours and swaps it in place of `out`.
    /// If a move fails, the folders already moved go back and `out` is left as it was.
    pub fn commit(mut self) -> Result<(), WriteError> {
        let adopted = std::mem::take(&mut *self.adopted.lock().unwrap_or_else(|e| e.into_inner()));
        let mut moved = Vec::new();
        for rel in &adopted {
            let (from, to) = (self.out.join(rel), self.dir.join(rel));
            let result = create_parent(&to).and_then(|()| fs::rename(&from, &to).map_err(io_err(&from)));
            if let Err(error) = result {
                for (from, to) in moved {
                    let _ = fs::rename(to, from);
                }
                return Err(error);
            }
            moved.push((from, to));
        }
        let marker = self.dir.join(MARKER);
        fs::write(&marker, b"written by nccl-report; the whole folder is replaced on each build\n")
            .map_err(io_err(&marker))?;
        swap(&self.dir, &self.out)?;
        self.committed = true;
        Ok(())
    }
}

impl Drop for Staging {
    fn drop(&mut self) {
        if !self.committed {
            let _ = fs::remove_dir_all(&self.dir);
        }
    }
}

fn parent_of(out: &Path) -> PathBuf {
    match out.parent() {
        Some(p) if !p.as_os_str().is_empty() => p.to_path_buf(),
        _ => PathBuf::from("."),
    }
}

fn name_of(out: &Path) -> String {
    out.file_name().map(|n| n.to_string_lossy().into_owned()).unwrap_or_else(|| "site".into())
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

fn swap(staging: &Path, out: &Path) -> Result<(), WriteError> {
    if !out.exists() {
        return fs::rename(staging, out).map_err(io_err(out));
    }
    let old = parent_of(out).join(format!(".{}.old-{}", name_of(out), std::process::id()));
    fs::rename(out, &old).map_err(io_err(out))?;
    if let Err(source) = fs::rename(staging, out) {
        let _ = fs::rename(&old, out);
        return Err(WriteError::Io { path: out.to_path_buf(), source });
    }
    fs::remove_dir_all(&old).map_err(io_err(&old))
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Writes `files` as the whole content of `out`, as a build does.
    fn write_site(out: &Path, files: &[OutputFile]) -> Result<(), WriteError> {
        let staging = Staging::begin(out)?;
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
