//! A run folder's layout as a walk met it (`find`): every folder's stamp and every file's
//! name. The build cache keeps it beside a run's entry, so that the next build checks a
//! cached run with one `fstatat` a folder and a file (`Layout::recheck`) instead of listing
//! its folders again. Adding, removing or renaming an entry changes its folder's modification
//! and change times, so a folder whose stamp is the one recorded holds the names recorded.
//!
//! A layout is made only of a walk that met nothing but plain folders and plain files with
//! UTF-8 names, gave no diagnostic, and found every folder last changed at least `SETTLED`
//! before the walk began: an entry added in the same clock tick as a folder's last change
//! (file times are coarse, a few milliseconds, and two seconds on FAT) could leave the
//! folder's stamp as it was. Each folder's stamp is taken before its names are read, so a
//! name added during the walk leaves the layout's stamp older than the folder's, never the
//! reverse. Uses `input` (descriptor-based opening) only.

use crate::ingest::input::{self, Beneath, Entry};
use crate::ingest::stamp::FileStamp;
use serde::{Deserialize, Serialize};
use std::ffi::OsStr;
use std::fs::File;
use std::time::{Duration, SystemTime};

/// How long before a walk every folder it records must have last changed (longer than the
/// coarsest file-time tick in use: FAT's two seconds).
const SETTLED: Duration = Duration::from_secs(3);

/// The time (nanoseconds since the Unix epoch) before which every folder a walk beginning
/// now records must have last changed.
pub(crate) fn settled_before_now() -> i128 {
    let now = SystemTime::now().duration_since(SystemTime::UNIX_EPOCH).unwrap_or_default();
    now.saturating_sub(SETTLED).as_nanos() as i128
}

/// The folders and files of a run folder, as a walk met them.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Layout {
    /// Each folder after its parent; the first is the run folder itself.
    folders: Vec<Folder>,
    /// Every file, by the index of its folder and its name, in run-relative path order (the
    /// order in which the cache hashes a run's listing: `Cache::inputs`).
    files: Vec<(u32, String)>,
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
struct Folder {
    /// The index of its parent folder (the run folder's own is 0, unused).
    parent: u32,
    /// Its name in its parent (`""` for the run folder).
    name: String,
    stamp: FileStamp,
}

impl Layout {
    /// Calls `visit` with every file's folder (its run-relative path: `""` for the run folder)
    /// and name, in the layout's order (its run-relative path is the two joined by `/`). The
    /// layout must hold together (`holds_together`: a walk's does; one read back is checked).
    pub(crate) fn visit_files(&self, mut visit: impl FnMut(&str, &str)) {
        let folders = folder_paths(&self.folders);
        for (folder, name) in &self.files {
            visit(folders.get(*folder as usize).map_or("", String::as_str), name);
        }
    }

    /// Whether the layout is one a walk could have recorded: every folder after its parent,
    /// every file in a recorded folder, and every name a plain one (not empty, `.` or `..`, no
    /// `/` or NUL), so a recheck looks only where the walk did. A layout read back from a
    /// damaged or forged file may not be.
    pub(crate) fn holds_together(&self) -> bool {
        let plain = |name: &str| !matches!(name, "" | "." | "..") && !name.contains(['/', '\0']);
        let Some((first, rest)) = self.folders.split_first() else { return false };
        first.name.is_empty()
            && rest.iter().enumerate().all(|(at, f)| (f.parent as usize) <= at && plain(&f.name))
            && self.files.iter().all(|(folder, name)| (*folder as usize) < self.folders.len() && plain(name))
    }

    /// The stamps of the layout's files now, in its order, when every folder still has the
    /// stamp recorded and every file is still a plain file; `None` otherwise (the run is then
    /// listed again), and on a file system not known to move a folder's times whenever a name
    /// in it changes (`moves_folder_times`). `run` is the run folder beneath the runs folder;
    /// every folder is opened from its parent's descriptor without following a symlink, as a
    /// walk opens them, and only a folder's ancestors are held open (a walk's depth of
    /// descriptors, not one a folder). The layout must hold together (`holds_together`).
    pub(crate) fn recheck(&self, run: &Beneath) -> Option<Vec<FileStamp>> {
        let (first, _) = self.folders.split_first()?;
        let root = input::open_beneath(run).ok()?;
        if !moves_folder_times(&root) || FileStamp::of(&root.metadata().ok()?) != first.stamp {
            return None;
        }
        // Each folder's files, by their places in the layout's order.
        let mut by_folder: Vec<Vec<usize>> = vec![Vec::new(); self.folders.len()];
        for (at, (folder, _)) in self.files.iter().enumerate() {
            by_folder.get_mut(*folder as usize)?.push(at);
        }
        let mut stamps = vec![FileStamp::default(); self.files.len()];
        // The open folders from the run folder down to the last one opened: (index, folder).
        let mut open: Vec<(usize, File)> = vec![(0, root)];
        for (at, folder) in self.folders.iter().enumerate() {
            if at > 0 {
                while open.last().is_some_and(|(index, _)| *index != folder.parent as usize) {
                    open.pop();
                }
                let (_, parent) = open.last()?;
                match input::entry_at(parent, OsStr::new(&folder.name)).ok()? {
                    Entry::Folder(dir, stat) if FileStamp::of_stat(&stat) == folder.stamp => open.push((at, dir)),
                    _ => return None,
                }
            }
            let (_, dir) = open.last()?;
            for &file in &by_folder[at] {
                match input::entry_at(dir, OsStr::new(&self.files[file].1)).ok()? {
                    Entry::File(stat) => stamps[file] = FileStamp::of_stat(&stat),
                    _ => return None,
                }
            }
        }
        Some(stamps)
    }
}

/// Whether the file system holding the open folder `dir` is one known to change a folder's
/// modification and change times whenever a name in it is added, removed or renamed, and to
/// report them without caching: local Linux file systems. Not network file systems (NFS
/// serves cached attributes for up to a minute) nor FUSE mounts of object stores (fixed
/// folder times): their runs are always listed.
#[cfg(target_os = "linux")]
pub(super) fn moves_folder_times(dir: &File) -> bool {
    use std::os::fd::AsRawFd;
    // ext2/3/4, XFS, Btrfs, tmpfs, ZFS, F2FS, overlayfs.
    const LOCAL: [i64; 7] = [0xEF53, 0x5846_5342, 0x9123_683E, 0x0102_1994, 0x2FC1_2FC1, 0xF2F5_2010, 0x794C_7630];
    // SAFETY: `statfs` is plain data; zeroed is a valid value to be overwritten.
    let mut fs: libc::statfs = unsafe { std::mem::zeroed() };
    // SAFETY: a valid descriptor and a `statfs` to fill, both outliving the call.
    if unsafe { libc::fstatfs(dir.as_raw_fd(), &mut fs) } != 0 {
        return false;
    }
    // `f_type`'s width differs between targets.
    #[allow(trivial_numeric_casts, clippy::unnecessary_cast)]
    let kind = fs.f_type as i64;
    LOCAL.contains(&kind)
}

#[cfg(not(target_os = "linux"))]
pub(super) fn moves_folder_times(_: &File) -> bool {
    false
}

fn join(folder: &str, name: &str) -> String {
    if folder.is_empty() {
        name.to_string()
    } else {
        format!("{folder}/{name}")
    }
}

/// Every folder's run-relative path, from its parent's and its name (each folder comes after
/// its parent).
fn folder_paths(folders: &[Folder]) -> Vec<String> {
    let mut paths: Vec<String> = Vec::with_capacity(folders.len());
    for folder in folders {
        let path = paths.get(folder.parent as usize).map_or_else(String::new, |parent| join(parent, &folder.name));
        paths.push(path);
    }
    paths
}

/// A layout being recorded by a walk (`find`); spoiled by anything a layout cannot stand for.
pub(crate) struct Recorder {
    /// Folders must have last changed before this (nanoseconds since the Unix epoch).
    settled_before: i128,
    folders: Vec<Folder>,
    files: Vec<(u32, String)>,
    spoiled: bool,
}

impl Recorder {
    /// A recorder for a walk of a run folder whose own stamp is `stamp` (taken before its
    /// names are read), whose folders must have last changed before `settled_before`
    /// (`settled_before_now`).
    pub(crate) fn start(stamp: FileStamp, settled_before: i128) -> Recorder {
        let mut recorder = Recorder { settled_before, folders: Vec::new(), files: Vec::new(), spoiled: false };
        recorder.add_folder(0, "", stamp);
        recorder
    }

    /// A sub-folder `name` of folder `parent`; returns its index (a name that is not UTF-8
    /// spoils the layout, and its files are counted in the parent's).
    pub(crate) fn folder(&mut self, parent: u32, name: &OsStr, stamp: FileStamp) -> u32 {
        match name.to_str() {
            Some(name) => self.add_folder(parent, name, stamp),
            None => {
                self.spoiled = true;
                parent
            }
        }
    }

    fn add_folder(&mut self, parent: u32, name: &str, stamp: FileStamp) -> u32 {
        if stamp.mtime_ns >= self.settled_before || stamp.ctime_ns >= self.settled_before {
            self.spoiled = true;
        }
        self.folders.push(Folder { parent, name: name.to_string(), stamp });
        (self.folders.len() - 1) as u32
    }

    /// A plain file `name` of folder `folder`.
    pub(crate) fn file(&mut self, folder: u32, name: &OsStr) {
        match name.to_str() {
            Some(name) => self.files.push((folder, name.to_string())),
            None => self.spoiled = true,
        }
    }

    /// Anything else met: a symlink, a FIFO, an unreadable entry.
    pub(crate) fn spoil(&mut self) {
        self.spoiled = true;
    }

    /// The layout, unless the walk met something it cannot stand for or `diagnosed` (the walk
    /// gave diagnostics: they are part of what a run's listing is keyed by).
    pub(crate) fn finish(self, diagnosed: bool) -> Option<Layout> {
        if self.spoiled || diagnosed || self.folders.len() > u32::MAX as usize {
            return None;
        }
        let Recorder { folders, files, .. } = self;
        let paths = folder_paths(&folders);
        let mut keyed: Vec<(String, (u32, String))> =
            files.into_iter().map(|(folder, name)| (join(&paths[folder as usize], &name), (folder, name))).collect();
        keyed.sort_by(|a, b| a.0.cmp(&b.0));
        Some(Layout { folders, files: keyed.into_iter().map(|(_, file)| file).collect() })
    }
}
