//! The output folder as a whole: where it really is (canonical parent + name), the check that
//! it and the build cache stay apart from the runs folder, the lock that lets one build at a
//! time write it, the clean-up of folders left by killed builds, and the atomic swap of a
//! complete new site in place of the old one. Uses only `std` and `libc` (flock, renameat2).

use std::fs;
use std::io;
use std::os::fd::AsRawFd;
use std::path::{Component, Path, PathBuf};

/// Marks a folder as written by nccl-report: a site, or a staging or old folder beside it.
pub(crate) const MARKER: &str = ".nccl-report-site";
/// The folder beside the output that holds the build cache.
pub(crate) const CACHE_DIR: &str = ".nccl-report-cache";

/// `path` made absolute and free of symlinks, `.` and `..` as far as it exists; the part that
/// does not exist yet is appended as given (it may not hold `..`).
pub(crate) fn canonical(path: &Path) -> io::Result<PathBuf> {
    let mut existing = if path.is_absolute() { path.to_path_buf() } else { std::env::current_dir()?.join(path) };
    let mut rest = Vec::new();
    loop {
        match existing.canonicalize() {
            Ok(found) => {
                let mut out = found;
                for part in rest.iter().rev() {
                    out.push(part);
                }
                return Ok(out);
            }
            Err(_) => match (existing.file_name(), existing.components().next_back()) {
                (Some(name), Some(Component::Normal(_))) => {
                    rest.push(name.to_os_string());
                    existing.pop();
                }
                _ => return Err(io::Error::other(format!("cannot resolve {}", path.display()))),
            },
        }
    }
}

/// The output folder, resolved: its canonical parent joined with its name. Refuses a path
/// without a folder name (`.`, `..`, `/`, `site/..`) and a symlink.
pub(crate) fn resolve(out: &Path) -> anyhow::Result<PathBuf> {
    let refuse = || anyhow::anyhow!("--out {} does not name a folder (give a path ending in its name)", out.display());
    let name = match out.components().next_back() {
        Some(Component::Normal(name)) => name.to_os_string(),
        _ => return Err(refuse()),
    };
    let parent = out.parent().filter(|p| !p.as_os_str().is_empty()).unwrap_or(Path::new("."));
    let resolved = canonical(parent)?.join(name);
    if resolved.symlink_metadata().is_ok_and(|m| m.file_type().is_symlink()) {
        anyhow::bail!("--out {} is a symlink; give the folder it leads to", out.display());
    }
    Ok(resolved)
}

/// The cache folder of the site at `out` (resolved): `.nccl-report-cache/<name>` beside it.
pub(crate) fn cache_dir(out: &Path) -> PathBuf {
    parent_of(out).join(CACHE_DIR).join(name_of(out))
}

/// Refuses an output folder equal to, inside or above the runs folder, or whose cache would
/// be inside it: a build must never write into its input nor replace it.
pub(crate) fn check_apart(out: &Path, runs: &Path) -> anyhow::Result<()> {
    let site = resolve(out)?;
    let runs_c = canonical(runs)?;
    let cache = parent_of(&site).join(CACHE_DIR);
    if site.starts_with(&runs_c) || runs_c.starts_with(&site) || cache.starts_with(&runs_c) {
        anyhow::bail!(
            "--out {} and --runs {} overlap ({} and its cache {} must be outside the runs folder, \
             and the runs folder outside it); choose an output folder beside the runs folder",
            out.display(),
            runs.display(),
            site.display(),
            cache.display()
        );
    }
    Ok(())
}

fn parent_of(out: &Path) -> PathBuf {
    out.parent().map(Path::to_path_buf).unwrap_or_else(|| PathBuf::from("/"))
}

fn name_of(out: &Path) -> String {
    out.file_name().map(|n| n.to_string_lossy().into_owned()).unwrap_or_else(|| "site".into())
}

/// What a build refused by the lock says: the holder's pid when the lock file names one (it is
/// empty between the holder's lock and its write, and may hold anything), else no pid.
fn busy_message(out: &Path, holder: &str) -> String {
    match holder.trim().parse::<u32>() {
        Ok(pid) => format!("another build of {} is running, pid {pid}; try again when it has finished", out.display()),
        Err(_) => format!("another build of {} is running; try again when it has finished", out.display()),
    }
}

/// The exclusive right to write one output folder (and its cache), held until dropped: an
/// `flock` on `.<name>.lock` beside the folder. Taking it also cleans what killed builds
/// left: a site moved aside and never put back is restored, staging and old folders (only
/// those carrying the marker) are removed.
#[derive(Debug)]
pub(crate) struct OutputLock {
    out: PathBuf,
    _file: fs::File,
}

impl OutputLock {
    /// Takes the lock of `out` or fails at once, naming the process that holds it.
    pub(crate) fn acquire(out: &Path) -> anyhow::Result<OutputLock> {
        let out = resolve(out)?;
        let parent = parent_of(&out);
        fs::create_dir_all(&parent).map_err(|e| anyhow::anyhow!("cannot create {}: {e}", parent.display()))?;
        let path = parent.join(format!(".{}.lock", name_of(&out)));
        let mut file = fs::OpenOptions::new()
            .read(true)
            .write(true)
            .create(true)
            .truncate(false)
            .open(&path)
            .map_err(|e| anyhow::anyhow!("cannot open the lock file {}: {e}", path.display()))?;
        // SAFETY: flock on a descriptor this function owns; no memory is passed.
        if unsafe { libc::flock(file.as_raw_fd(), libc::LOCK_EX | libc::LOCK_NB) } != 0 {
            anyhow::bail!("{}", busy_message(&out, &fs::read_to_string(&path).unwrap_or_default()));
        }
        file.set_len(0)?;
        io::Write::write_all(&mut file, format!("{}\n", std::process::id()).as_bytes())?;
        clean_leftovers(&out)?;
        Ok(OutputLock { out, _file: file })
    }

    /// The output folder, resolved.
    pub(crate) fn out(&self) -> &Path {
        &self.out
    }

    /// Where this process stages a new site, and where a swapped-out old site goes.
    pub(crate) fn staging_dir(&self) -> PathBuf {
        self.beside("tmp")
    }

    fn beside(&self, kind: &str) -> PathBuf {
        parent_of(&self.out).join(format!(".{}.{kind}-{}", name_of(&self.out), std::process::id()))
    }

    /// Puts the complete site `staging` in place of the output folder in one atomic step
    /// (`renameat2(RENAME_EXCHANGE)`), then removes the old site. Where the exchange is not
    /// supported: the old site is renamed to `.<name>.old-PID`, the new one renamed in, the
    /// old one removed; a build killed between the two renames leaves no output folder, and
    /// the next build (`acquire`) renames the old site back before anything else.
    pub(crate) fn swap_in(&self, staging: &Path) -> io::Result<()> {
        if self.out.symlink_metadata().is_err() {
            return fs::rename(staging, &self.out);
        }
        match exchange(staging, &self.out) {
            Ok(()) => {
                let _ = remove_ours(staging);
                Ok(())
            }
            Err(error) if unsupported(&error) => {
                let old = self.beside("old");
                fs::rename(&self.out, &old)?;
                if let Err(error) = fs::rename(staging, &self.out) {
                    let _ = fs::rename(&old, &self.out);
                    return Err(error);
                }
                let _ = remove_ours(&old);
                Ok(())
            }
            Err(error) => Err(error),
        }
    }
}

#[cfg(target_os = "linux")]
fn exchange(a: &Path, b: &Path) -> io::Result<()> {
    use std::ffi::CString;
    use std::os::unix::ffi::OsStrExt;
    let a = CString::new(a.as_os_str().as_bytes()).map_err(io::Error::other)?;
    let b = CString::new(b.as_os_str().as_bytes()).map_err(io::Error::other)?;
    // SAFETY: both paths are valid NUL-terminated strings that outlive the call.
    let rc = unsafe { libc::renameat2(libc::AT_FDCWD, a.as_ptr(), libc::AT_FDCWD, b.as_ptr(), libc::RENAME_EXCHANGE) };
    if rc == 0 {
        Ok(())
    } else {
        Err(io::Error::last_os_error())
    }
}

#[cfg(not(target_os = "linux"))]
fn exchange(_: &Path, _: &Path) -> io::Result<()> {
    Err(io::Error::from(io::ErrorKind::Unsupported))
}

fn unsupported(error: &io::Error) -> bool {
    error.kind() == io::ErrorKind::Unsupported || matches!(error.raw_os_error(), Some(libc::ENOSYS | libc::EINVAL))
}

/// Removes a folder nccl-report made, its marker last: a removal killed half-way leaves
/// either a folder still marked as ours or an empty one, both removed by the next build.
pub(crate) fn remove_ours(dir: &Path) -> io::Result<()> {
    for entry in fs::read_dir(dir)? {
        let entry = entry?;
        if entry.file_name() == MARKER {
            continue;
        }
        if entry.file_type()?.is_dir() {
            fs::remove_dir_all(entry.path())?;
        } else {
            fs::remove_file(entry.path())?;
        }
    }
    let _ = fs::remove_file(dir.join(MARKER));
    fs::remove_dir(dir)
}

/// Restores a site left aside by a build killed between the two renames of the fallback
/// swap, then removes every staging or old folder of this output that carries the marker,
/// or is empty (a folder created, or emptied, by a build killed then); the caller holds the
/// lock, so no live build owns one.
fn clean_leftovers(out: &Path) -> io::Result<()> {
    let parent = parent_of(out);
    let name = name_of(out);
    let (tmp, old) = (format!(".{name}.tmp-"), format!(".{name}.old-"));
    let ours = |path: &Path| path.join(MARKER).is_file() && !path.symlink_metadata().is_ok_and(|m| m.is_symlink());
    let mut leftovers = Vec::new();
    for entry in fs::read_dir(&parent)?.flatten() {
        let file_name = entry.file_name().to_string_lossy().into_owned();
        let kind = if file_name.starts_with(&old) {
            "old"
        } else if file_name.starts_with(&tmp) {
            "tmp"
        } else {
            continue;
        };
        if ours(&entry.path()) {
            leftovers.push((kind, entry.path()));
        } else if entry.file_type().is_ok_and(|t| t.is_dir()) {
            let _ = fs::remove_dir(entry.path());
        }
    }
    if out.symlink_metadata().is_err() {
        if let Some((_, old_site)) = leftovers.iter().find(|(kind, _)| *kind == "old") {
            fs::rename(old_site, out)?;
        }
    }
    for (_, path) in leftovers {
        if path.exists() {
            remove_ours(&path)?;
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn resolves_dot_and_dotdot_to_the_same_folder() {
        let dir = tempfile::tempdir().unwrap();
        let site = dir.path().canonicalize().unwrap().join("site");
        fs::create_dir(&site).unwrap();
        assert_eq!(resolve(&site.join(".")).unwrap(), site);
        assert_eq!(resolve(&site.join("../site")).unwrap(), site);
        assert!(resolve(&site.join("..")).is_err());
        assert!(resolve(Path::new("/")).is_err());
    }

    #[test]
    fn the_lock_message_names_a_pid_only_when_there_is_one() {
        let out = Path::new("/x/site");
        assert!(busy_message(out, "42\n").contains("running, pid 42; try"));
        for holder in ["", " \n", "junk", "-1"] {
            let message = busy_message(out, holder);
            assert_eq!(message, "another build of /x/site is running; try again when it has finished");
        }
    }

    #[test]
    fn second_lock_fails_naming_the_holder() {
        let dir = tempfile::tempdir().unwrap();
        let _held = OutputLock::acquire(&dir.path().join("site")).unwrap();
        let error = OutputLock::acquire(&dir.path().join("site")).unwrap_err().to_string();
        assert!(error.contains(&format!("pid {}", std::process::id())), "{error}");
    }

    #[test]
    fn a_site_left_aside_between_the_fallback_renames_is_put_back() {
        let dir = tempfile::tempdir().unwrap();
        let old = dir.path().join(".site.old-12345");
        fs::create_dir(&old).unwrap();
        fs::write(old.join(MARKER), "").unwrap();
        fs::write(old.join("index.html"), "old site").unwrap();
        let lock = OutputLock::acquire(&dir.path().join("site")).unwrap();
        assert_eq!(fs::read_to_string(lock.out().join("index.html")).unwrap(), "old site");
        assert!(!old.exists());
    }
}
