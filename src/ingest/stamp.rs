//! A file's stamp: what the file system says of it without reading it (`FileStamp`), which
//! the build cache keys runs by and a kept layout is checked against. Uses `std` and `libc`.

use serde::{Deserialize, Serialize};
use std::path::Path;

/// What the file system says of a file without reading it: size, modification and change
/// times, inode. The change time moves on every write and cannot be set back by a user.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct FileStamp {
    pub len: u64,
    pub mtime_ns: i128,
    pub ctime_ns: i128,
    pub inode: u64,
}

impl FileStamp {
    pub fn of(meta: &std::fs::Metadata) -> FileStamp {
        let mtime_ns = meta
            .modified()
            .ok()
            .and_then(|t| t.duration_since(std::time::UNIX_EPOCH).ok())
            .map_or(0, |d| d.as_nanos() as i128);
        #[cfg(unix)]
        let (ctime_ns, inode) = {
            use std::os::unix::fs::MetadataExt;
            (meta.ctime() as i128 * 1_000_000_000 + meta.ctime_nsec() as i128, meta.ino())
        };
        #[cfg(not(unix))]
        let (ctime_ns, inode) = (0, 0);
        FileStamp { len: meta.len(), mtime_ns, ctime_ns, inode }
    }

    /// The stamp of the plain file at `path` (`None` when it is missing or anything else,
    /// a symlink included: it is not followed).
    pub(crate) fn of_plain_file(path: &Path) -> Option<FileStamp> {
        let meta = std::fs::symlink_metadata(path).ok().filter(std::fs::Metadata::is_file)?;
        Some(FileStamp::of(&meta))
    }

    /// The same from an `fstatat` of the listing.
    pub(crate) fn of_stat(stat: &libc::stat) -> FileStamp {
        FileStamp {
            len: stat.st_size as u64,
            mtime_ns: i128::from(stat.st_mtime) * 1_000_000_000 + i128::from(stat.st_mtime_nsec),
            ctime_ns: i128::from(stat.st_ctime) * 1_000_000_000 + i128::from(stat.st_ctime_nsec),
            inode: stat.st_ino,
        }
    }
}
