//! Reading run inputs: the one place that opens files under `runs/`, read-only, with
//! transparent gzip for `name.gz`. Every open is safe against hostile runs: the path is
//! resolved, opened with `O_NOFOLLOW | O_NONBLOCK` and checked with `fstat` to be a regular
//! file (a FIFO, socket, device or folder is refused, also one swapped in after listing), and
//! every read is capped at a limit of decompressed bytes (a gzip bomb stops at the limit).
//! Uses only std, libc (the open flags) and `gunzip`.

use super::gunzip::Gunzip;
use std::collections::VecDeque;
use std::ffi::{CString, OsStr, OsString};
use std::fs::File;
use std::io::{self, BufRead, BufReader, Read};
use std::os::fd::{AsFd, AsRawFd, BorrowedFd, FromRawFd, OwnedFd, RawFd};
use std::os::unix::ffi::{OsStrExt, OsStringExt};
use std::path::{Component, Path, PathBuf};
use std::sync::{Arc, OnceLock};

/// The most bytes (decompressed) read from a file read whole: section CSVs, manifests,
/// artifacts, nccl-tests outputs, archived seed outputs.
pub(crate) const MAX_FILE_BYTES: u64 = 256 << 20;
/// The most bytes (decompressed) read from a `NOTES.md`.
pub(crate) const MAX_NOTES_BYTES: u64 = 1 << 20;
/// The most bytes (decompressed) streamed from one NCCL log.
pub(crate) const MAX_LOG_BYTES: u64 = 2 << 30;

/// Size limits per kind of input, in decompressed bytes (`--max-file-bytes`,
/// `--max-notes-bytes`, `--max-log-bytes` of `build`, `serve --watch`, `compare` and
/// `inspect`; the defaults are the constants above). A value passed to every reader, never
/// a process-wide setting.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Limits {
    /// A file read whole: section CSVs, manifests, artifacts, nccl-tests outputs.
    pub file: u64,
    /// A `NOTES.md`.
    pub notes: u64,
    /// One NCCL log (streamed).
    pub log: u64,
}

impl Limits {
    pub const DEFAULT: Limits = Limits { file: MAX_FILE_BYTES, notes: MAX_NOTES_BYTES, log: MAX_LOG_BYTES };
}

/// The default limits, for the one reader that is not handed a command's limits yet:
/// `comparison::baseline::read_pinned` (`baselines.json`, read with the notes limit), which
/// the comparison rebuild (issue 23) is to give a `Limits` parameter.
pub(crate) fn limits() -> Limits {
    Limits::DEFAULT
}

/// A folder files are opened beneath (the runs folder, resolved: the user named it). It is
/// opened on its first use and held open for as long as the value lives: the runs of one
/// build share one (`find::RunFolders`), so listing and reading their files opens the runs
/// folder once, not once a file, and every such read after the first is beneath the folder
/// opened then. (The runs folder's own entries are listed by path before; the site notes
/// and pinned baselines open their own.)
#[derive(Debug)]
pub(crate) struct Root {
    /// The folder, canonical.
    pub path: PathBuf,
    dir: OnceLock<OwnedFd>,
}

impl Root {
    pub(crate) fn new(path: impl Into<PathBuf>) -> Arc<Root> {
        Arc::new(Root { path: path.into(), dir: OnceLock::new() })
    }

    /// The folder's descriptor, opened now if it is not yet (a failure is not kept: the next
    /// use tries again).
    fn dir(&self) -> io::Result<BorrowedFd<'_>> {
        if let Some(dir) = self.dir.get() {
            return Ok(dir.as_fd());
        }
        let opened: OwnedFd = File::open(&self.path)?.into();
        Ok(self.dir.get_or_init(|| opened).as_fd())
    }
}

impl PartialEq for Root {
    fn eq(&self, other: &Root) -> bool {
        self.path == other.path
    }
}

impl Eq for Root {}

/// A file to read, named beneath a folder that is opened first (`Root`) by a path that is
/// walked from that folder's descriptor one component at a time, so nothing swapped into the
/// path after listing can lead outside the folder.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Beneath {
    /// The folder.
    pub root: Arc<Root>,
    /// The path under it, relative.
    pub rel: PathBuf,
}

impl Beneath {
    pub(crate) fn new(root: Arc<Root>, rel: impl Into<PathBuf>) -> Beneath {
        Beneath { root, rel: rel.into() }
    }

    /// `rel` under this one, beneath the same folder.
    pub(crate) fn join(&self, rel: impl AsRef<Path>) -> Beneath {
        Beneath { root: Arc::clone(&self.root), rel: self.rel.join(rel) }
    }

    /// A file the user named directly (`inspect FILE`): the path is resolved first (the user's
    /// own symlinks are followed, as they named it), then opened beneath its folder, so only
    /// its own name is walked.
    pub(crate) fn file(path: &Path) -> io::Result<Beneath> {
        let real = path.canonicalize()?;
        let not_a_file = || io::Error::new(io::ErrorKind::InvalidInput, "not a regular file; not read");
        let name = real.file_name().ok_or_else(not_a_file)?;
        let parent = real.parent().ok_or_else(not_a_file)?;
        Ok(Beneath { root: Root::new(parent), rel: PathBuf::from(name) })
    }
}

fn outside() -> io::Error {
    io::Error::new(io::ErrorKind::PermissionDenied, "a symlink on its path leads outside the runs folder; not read")
}

fn not_regular() -> io::Error {
    io::Error::new(io::ErrorKind::InvalidInput, "not a regular file; not read")
}

fn c_name(name: &OsStr) -> io::Result<CString> {
    CString::new(name.as_bytes()).map_err(|_| io::Error::new(io::ErrorKind::InvalidInput, "a NUL byte in a file name"))
}

/// `openat(dir, name, flags)` as an owned descriptor.
fn open_at(dir: BorrowedFd<'_>, name: &OsStr, flags: libc::c_int) -> io::Result<OwnedFd> {
    let name = c_name(name)?;
    // SAFETY: a valid descriptor and a NUL-terminated name that outlives the call.
    let fd = unsafe { libc::openat(dir.as_raw_fd(), name.as_ptr(), flags | libc::O_CLOEXEC) };
    if fd < 0 {
        return Err(io::Error::last_os_error());
    }
    // SAFETY: `fd` was just returned by openat and is owned by no one else.
    Ok(unsafe { OwnedFd::from_raw_fd(fd) })
}

/// Where the symlink `name` in `dir` points.
fn read_link_at(dir: BorrowedFd<'_>, name: &OsStr) -> io::Result<PathBuf> {
    let name = c_name(name)?;
    let mut buffer = vec![0u8; libc::PATH_MAX as usize];
    // SAFETY: a valid descriptor, a NUL-terminated name and a buffer of the length passed.
    let n = unsafe { libc::readlinkat(dir.as_raw_fd(), name.as_ptr(), buffer.as_mut_ptr().cast(), buffer.len()) };
    if n < 0 {
        return Err(io::Error::last_os_error());
    }
    buffer.truncate(n as usize);
    Ok(PathBuf::from(OsString::from_vec(buffer)))
}

/// The arguments of `openat2` (`struct open_how`, linux/openat2.h).
#[cfg(target_os = "linux")]
#[repr(C)]
struct OpenHow {
    flags: u64,
    mode: u64,
    resolve: u64,
}

/// `openat2(dir, rel, RESOLVE_BENEATH | RESOLVE_NO_SYMLINKS)`: the kernel walks `rel` from
/// `dir` and fails (`ELOOP`) on any symlink, (`EXDEV`) on any way out.
#[cfg(target_os = "linux")]
fn open_beneath_no_links(dir: BorrowedFd<'_>, rel: &Path, flags: libc::c_int) -> io::Result<OwnedFd> {
    let path = c_name(rel.as_os_str())?;
    let how = OpenHow {
        flags: (flags | libc::O_CLOEXEC) as u64,
        mode: 0,
        resolve: libc::RESOLVE_BENEATH | libc::RESOLVE_NO_SYMLINKS | libc::RESOLVE_NO_MAGICLINKS,
    };
    // SAFETY: a valid descriptor, a NUL-terminated path and an `open_how` of the size passed,
    // all outliving the call.
    let fd = unsafe {
        libc::syscall(
            libc::SYS_openat2,
            dir.as_raw_fd(),
            path.as_ptr(),
            &how as *const OpenHow,
            std::mem::size_of::<OpenHow>(),
        )
    };
    if fd < 0 {
        return Err(io::Error::last_os_error());
    }
    // SAFETY: `fd` was just returned by openat2 and is owned by no one else.
    Ok(unsafe { OwnedFd::from_raw_fd(fd as RawFd) })
}

#[cfg(not(target_os = "linux"))]
fn open_beneath_no_links(_: BorrowedFd<'_>, _: &Path, _: libc::c_int) -> io::Result<OwnedFd> {
    Err(io::Error::from_raw_os_error(libc::ENOSYS))
}

/// The most symlinks one open follows (as the kernel's own limit).
const MAX_LINKS: usize = 40;

/// Opens `rel` beneath the folder `root` (open as `root_fd`) one component at a time, each
/// with `O_NOFOLLOW` from the descriptor of the folder before it; a symlink met on the way is
/// read and followed by hand: a relative target continues from its folder, an absolute one
/// from the root when it lies inside it, and `..` never climbs above the root. Any way out
/// fails.
fn walk_beneath(root_fd: BorrowedFd<'_>, root: &Path, rel: &Path) -> io::Result<OwnedFd> {
    let mut folders: Vec<OwnedFd> = Vec::new();
    let mut queue: VecDeque<OsString> = components(rel)?;
    let mut links = 0;
    while let Some(name) = queue.pop_front() {
        if name == ".." {
            folders.pop().ok_or_else(outside)?;
            continue;
        }
        let dir = folders.last().map_or(root_fd, AsFd::as_fd);
        let last = queue.is_empty();
        let flags = libc::O_RDONLY | libc::O_NOFOLLOW | libc::O_NONBLOCK | if last { 0 } else { libc::O_DIRECTORY };
        match open_at(dir, &name, flags) {
            Ok(fd) if last => return Ok(fd),
            Ok(fd) => folders.push(fd),
            Err(error) if matches!(error.raw_os_error(), Some(libc::ELOOP | libc::ENOTDIR)) => {
                let Ok(target) = read_link_at(dir, &name) else { return Err(error) };
                links += 1;
                if links > MAX_LINKS {
                    return Err(io::Error::from_raw_os_error(libc::ELOOP));
                }
                let target = if target.is_absolute() {
                    folders.clear();
                    target.strip_prefix(root).map_err(|_| outside())?.to_path_buf()
                } else {
                    target
                };
                for component in components(&target)?.into_iter().rev() {
                    queue.push_front(component);
                }
            }
            Err(error) => return Err(error),
        }
    }
    Err(not_regular())
}

/// The names along a relative path (`.` dropped, `..` kept).
fn components(path: &Path) -> io::Result<VecDeque<OsString>> {
    path.components()
        .filter(|c| !matches!(c, Component::CurDir))
        .map(|c| match c {
            Component::Normal(name) => Ok(name.to_os_string()),
            Component::ParentDir => Ok(OsString::from("..")),
            _ => Err(outside()),
        })
        .collect()
}

/// Opens `at` for reading only if it is a regular file beneath its root: the root is opened
/// first, then the path is walked from its descriptor (by the kernel with `openat2`
/// `RESOLVE_BENEATH | RESOLVE_NO_SYMLINKS`; where a symlink is met or the kernel lacks
/// `openat2`, by `walk_beneath`), never blocking on a FIFO; `fstat` on the open file decides.
pub(crate) fn open_regular(at: &Beneath) -> io::Result<File> {
    open_regular_sized(at).map(|(file, _)| file)
}

/// `open_regular`, with the file's length (from the same `fstat`).
fn open_regular_sized(at: &Beneath) -> io::Result<(File, u64)> {
    let file = open_beneath(at)?;
    let meta = file.metadata()?;
    if !meta.is_file() {
        return Err(not_regular());
    }
    Ok((file, meta.len()))
}

/// Opens `at` beneath its root as `open_regular` does, whatever it is (a folder, a FIFO: the
/// caller asks `fstat`), for the listing of a run.
pub(crate) fn open_beneath(at: &Beneath) -> io::Result<File> {
    let root = at.root.dir()?;
    let flags = libc::O_RDONLY | libc::O_NOFOLLOW | libc::O_NONBLOCK;
    let fd = match open_beneath_no_links(root, &at.rel, flags) {
        Ok(fd) => fd,
        Err(error)
            if matches!(
                error.raw_os_error(),
                Some(libc::ELOOP | libc::EXDEV | libc::ENOSYS | libc::EPERM | libc::EAGAIN)
            ) =>
        {
            walk_beneath(root, &at.root.path, &at.rel)?
        }
        Err(error) => return Err(error),
    };
    Ok(File::from(fd))
}

/// What one entry of a folder listed from its descriptor is (`fstatat` without following).
pub(crate) enum Entry {
    /// A folder, opened, with what `fstatat` said of it before it was opened.
    Folder(File, libc::stat),
    File(libc::stat),
    Symlink,
    /// A FIFO, socket or device.
    Special,
}

/// The names in the folder open as `dir`, sorted (read from that descriptor: the listing is
/// of the folder that was opened, whatever its path names now). The entries are read with
/// `getdents64` into a buffer on the stack: two calls for a small folder, where `readdir` on
/// a duplicate took seven (`dup`, `fstat`, two `fcntl`, `getdents64` until it returns
/// nothing, `close`), and a failed read is an error, not the end of the folder.
#[cfg(target_os = "linux")]
pub(crate) fn read_dir_names(dir: &File) -> io::Result<Vec<OsString>> {
    // `struct linux_dirent64`: d_ino (8 bytes), d_off (8), d_reclen (2), d_type (1), then
    // d_name, NUL-terminated and padded to the record's length.
    const NAME_AT: usize = 19;
    let malformed = || io::Error::new(io::ErrorKind::InvalidData, "malformed folder entry from getdents64");
    let mut buffer = [0u8; 8192];
    let mut names = Vec::new();
    loop {
        // SAFETY: a valid descriptor and a buffer of the length passed, outliving the call.
        let n = unsafe { libc::syscall(libc::SYS_getdents64, dir.as_raw_fd(), buffer.as_mut_ptr(), buffer.len()) };
        if n < 0 {
            let error = io::Error::last_os_error();
            if error.kind() == io::ErrorKind::Interrupted {
                continue;
            }
            return Err(error);
        }
        let filled = buffer.get(..usize::try_from(n).map_err(|_| malformed())?).ok_or_else(malformed)?;
        if filled.is_empty() {
            break;
        }
        let mut at = 0;
        while at < filled.len() {
            let len = filled.get(at + 16..at + 18).map(|b| usize::from(u16::from_ne_bytes([b[0], b[1]])));
            let record =
                len.filter(|&len| len > NAME_AT).and_then(|len| filled.get(at..at + len)).ok_or_else(malformed)?;
            let name = &record[NAME_AT..];
            let name = &name[..memchr::memchr(0, name).unwrap_or(name.len())];
            if name != b"." && name != b".." {
                names.push(OsString::from_vec(name.to_vec()));
            }
            at += record.len();
        }
    }
    names.sort();
    Ok(names)
}

/// The names in the folder open as `dir`, sorted (`fdopendir` on a duplicate: the listing is
/// of the folder that was opened, whatever its path names now).
#[cfg(not(target_os = "linux"))]
pub(crate) fn read_dir_names(dir: &File) -> io::Result<Vec<OsString>> {
    let copy = dir.as_fd().try_clone_to_owned()?;
    // SAFETY: `copy` is an owned directory descriptor; on success `fdopendir` owns it (closed
    // by `closedir`), so it is released from `copy` first.
    let stream = unsafe { libc::fdopendir(copy.as_raw_fd()) };
    if stream.is_null() {
        return Err(io::Error::last_os_error());
    }
    std::mem::forget(copy);
    let mut names = Vec::new();
    loop {
        // SAFETY: a valid stream from fdopendir, read by this thread only.
        let entry = unsafe { libc::readdir(stream) };
        if entry.is_null() {
            break;
        }
        // SAFETY: readdir returned an entry whose `d_name` is NUL-terminated.
        let name = unsafe { std::ffi::CStr::from_ptr((*entry).d_name.as_ptr()) };
        let name = OsStr::from_bytes(name.to_bytes());
        if name != "." && name != ".." {
            names.push(name.to_os_string());
        }
    }
    // SAFETY: the stream from fdopendir, closed once.
    unsafe { libc::closedir(stream) };
    names.sort();
    Ok(names)
}

/// The entry `name` of the folder open as `dir`, not following a symlink; a folder is opened
/// (`O_NOFOLLOW | O_DIRECTORY`: one swapped for a symlink since is not entered).
pub(crate) fn entry_at(dir: &File, name: &OsStr) -> io::Result<Entry> {
    let c = c_name(name)?;
    // SAFETY: `stat` is plain data; zeroed is a valid value to be overwritten.
    let mut stat: libc::stat = unsafe { std::mem::zeroed() };
    // SAFETY: a valid descriptor, a NUL-terminated name and a `stat` to fill, all outliving it.
    if unsafe { libc::fstatat(dir.as_raw_fd(), c.as_ptr(), &mut stat, libc::AT_SYMLINK_NOFOLLOW) } != 0 {
        return Err(io::Error::last_os_error());
    }
    Ok(match stat.st_mode & libc::S_IFMT {
        libc::S_IFDIR => Entry::Folder(
            File::from(open_at(dir.as_fd(), name, libc::O_RDONLY | libc::O_DIRECTORY | libc::O_NOFOLLOW)?),
            stat,
        ),
        libc::S_IFREG => Entry::File(stat),
        libc::S_IFLNK => Entry::Symlink,
        _ => Entry::Special,
    })
}

/// A reader that fails once more than `left` bytes would be read.
struct Limited<R> {
    inner: R,
    left: u64,
    limit: u64,
}

impl<R: Read> Read for Limited<R> {
    fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
        let want = buf.len().min(usize::try_from(self.left.saturating_add(1)).unwrap_or(usize::MAX));
        let n = self.inner.read(&mut buf[..want])?;
        if n as u64 > self.left {
            return Err(too_large(self.limit));
        }
        self.left -= n as u64;
        Ok(n)
    }
}

fn too_large(limit: u64) -> io::Error {
    io::Error::new(io::ErrorKind::InvalidData, format!("larger than the limit of {limit} bytes; not read"))
}

/// The file's contents (decompressed for `*.gz`), failing past `limit` bytes; a stored file
/// larger than the limit is refused from its size (`fstat`) before anything is read. For a
/// `*.gz` the stored limit is `gzip_stored_limit`: deflate never grows data by more, so a
/// larger one is empty gzip members or blocks that would be read to their end for nothing.
fn limited_reader(at: &Beneath, limit: u64) -> io::Result<Limited<Box<dyn Read + Send>>> {
    let (file, len) = open_regular_sized(at)?;
    let gzip = is_gzip(&at.rel);
    within_stored_limit(gzip, len, limit)?;
    let inner: Box<dyn Read + Send> = match gzip {
        true => Box::new(Gunzip::new(BufReader::with_capacity(32 << 10, file))),
        false => Box::new(file),
    };
    Ok(Limited { inner, left: limit, limit })
}

/// Refuses a file of `len` stored bytes that cannot fit `limit` (decompressed, for a `*.gz`).
fn within_stored_limit(gzip: bool, len: u64, limit: u64) -> io::Result<()> {
    let stored_limit = if gzip { gzip_stored_limit(limit) } else { limit };
    if len > stored_limit {
        return Err(io::Error::new(
            io::ErrorKind::InvalidData,
            format!("{len} bytes, larger than the limit of {stored_limit} bytes; not read"),
        ));
    }
    Ok(())
}

/// The largest `*.gz` stored whose contents can fit `limit`: deflate stores incompressible
/// data with 5 bytes a 64 KiB block at most, gzip adds 18 a member; the margin is generous.
fn gzip_stored_limit(limit: u64) -> u64 {
    limit.saturating_add(limit / 1024).saturating_add(1 << 16)
}

/// True when the file is stored gzip-compressed (by name: `*.gz`).
pub(crate) fn is_gzip(path: &Path) -> bool {
    path.extension().is_some_and(|ext| ext == "gz")
}

/// The name a file is known by inside a run: its file name without a trailing `.gz`.
pub(crate) fn logical_name(path: &Path) -> String {
    let name = path.file_name().map(|n| n.to_string_lossy().into_owned()).unwrap_or_default();
    match name.strip_suffix(".gz") {
        Some(stem) => stem.to_string(),
        None => name,
    }
}

/// Opens a file for streaming, decompressing `*.gz` on the fly; reading past `limit`
/// (decompressed) bytes fails.
pub(crate) fn open(at: &Beneath, limit: u64) -> io::Result<Box<dyn BufRead + Send>> {
    Ok(Box::new(BufReader::with_capacity(1 << 16, limited_reader(at, limit)?)))
}

/// What `open` gives of the file `rel` (its path decides `.gz`), from its bytes already read
/// as stored (`read_stored`): the same limit, the same errors, no second read.
pub(crate) fn open_stored<'a>(rel: &Path, stored: &'a [u8], limit: u64) -> io::Result<Box<dyn BufRead + Send + 'a>> {
    let gzip = is_gzip(rel);
    within_stored_limit(gzip, stored.len() as u64, limit)?;
    Ok(match gzip {
        true => Box::new(gunzip_stored(stored, limit)),
        false => Box::new(stored),
    })
}

/// The contents of `stored`, the bytes of a `*.gz` already read as stored (`read_stored`),
/// decompressed as they are read; reading past `limit` decompressed bytes fails. What is
/// checked of a file is then what was read of it, not a second read.
pub(crate) fn gunzip_stored(stored: &[u8], limit: u64) -> impl BufRead + '_ {
    BufReader::with_capacity(1 << 16, Limited { inner: Gunzip::new(stored), left: limit, limit })
}

/// The most `with_contents` reads at once (larger files are read on in chunks).
const FIRST_READ_MAX: u64 = 64 << 20;
/// The largest buffer a thread keeps for the next file (a larger one is freed).
const KEEP_MAX: usize = 4 << 20;

thread_local! {
    /// The buffer `with_contents` reads into, kept from file to file on each thread.
    static BUFFER: std::cell::Cell<Vec<u8>> = const { std::cell::Cell::new(Vec::new()) };
}

/// Calls `use_bytes` with the whole contents of a (small) file, decompressing `*.gz`. The
/// bytes are read into a per-thread buffer reused from file to file, sized from `size_hint`
/// (the length listed when the run was found; any length is read correctly), so reading a
/// run's many small files costs no allocation, no size lookup and, usually, one `read`.
/// More than `limit` (decompressed) bytes is an error.
pub(crate) fn with_contents<T>(
    at: &Beneath,
    size_hint: u64,
    limit: u64,
    use_bytes: impl FnOnce(&[u8]) -> T,
) -> io::Result<T> {
    let mut buffer = BUFFER.take();
    buffer.clear();
    let read = limited_reader(at, limit).and_then(|mut file| {
        if is_gzip(&at.rel) {
            file.read_to_end(&mut buffer)
        } else {
            // One read of the listed size plus one byte: when exactly the listed size comes
            // back, the file is whole (no second read just to see its end); a file that grew
            // or shrank since it was listed is read on to its end. (A file system that returns
            // short reads of regular files, and exactly the listed size while the file grew,
            // would lose the growth: runs are archives, not files being written.)
            let listed = usize::try_from(size_hint.min(FIRST_READ_MAX).min(limit)).unwrap_or(0);
            buffer.resize(listed + 1, 0);
            let n = loop {
                match file.read(&mut buffer) {
                    Err(e) if e.kind() == io::ErrorKind::Interrupted => continue,
                    other => break other?,
                }
            };
            buffer.truncate(n);
            if n != listed {
                file.read_to_end(&mut buffer)?;
            }
            Ok(buffer.len())
        }
    });
    let result = read.map(|_| use_bytes(&buffer));
    if buffer.capacity() <= KEEP_MAX {
        BUFFER.set(buffer);
    }
    result
}

/// Reads a whole (small) file, decompressing `*.gz`; more than `limit` bytes is an error.
pub(crate) fn read_all(at: &Beneath, limit: u64) -> io::Result<Vec<u8>> {
    let mut out = Vec::new();
    limited_reader(at, limit)?.read_to_end(&mut out)?;
    Ok(out)
}

/// Reads a file's bytes as stored (a `*.gz` stays compressed), through the same safe open;
/// a file of more than `limit` stored bytes is an error. The buffer is made the `fstat` size
/// plus one byte and the file read straight into it: one read for a whole file, no zeroing,
/// no regrowth (a file that grew since is read on to its end or the limit).
pub(crate) fn read_stored(at: &Beneath, limit: u64) -> io::Result<Vec<u8>> {
    let (file, len) = open_regular_sized(at)?;
    let room = usize::try_from(len.min(limit)).unwrap_or(0).saturating_add(1);
    let mut out = Vec::with_capacity(room);
    if file.take(limit.saturating_add(1)).read_to_end(&mut out)? as u64 > limit {
        return Err(too_large(limit));
    }
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn at(path: &Path) -> Beneath {
        Beneath::file(path).unwrap()
    }

    #[test]
    fn whole_files_whatever_the_listed_size() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("a.csv");
        std::fs::write(&path, b"0123456789").unwrap();
        for listed in [0, 3, 9, 10, 11, 1 << 40] {
            let bytes = with_contents(&at(&path), listed, MAX_FILE_BYTES, |b| b.to_vec()).unwrap();
            assert_eq!(bytes, b"0123456789", "listed {listed}");
        }
        std::fs::write(&path, b"").unwrap();
        assert!(with_contents(&at(&path), 0, MAX_FILE_BYTES, |b| b.is_empty()).unwrap());
        let gz = dir.path().join("b.csv.gz");
        let mut encoder = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::fast());
        std::io::Write::write_all(&mut encoder, b"x,y\n1,2\n").unwrap();
        std::fs::write(&gz, encoder.finish().unwrap()).unwrap();
        assert_eq!(with_contents(&at(&gz), 5, MAX_FILE_BYTES, |b| b.to_vec()).unwrap(), b"x,y\n1,2\n");
        assert!(with_contents(&Beneath::new(Root::new(dir.path()), "missing"), 1, MAX_FILE_BYTES, |_| ()).is_err());
    }

    #[test]
    fn a_folder_is_listed_whole_and_sorted_over_several_reads() {
        let dir = tempfile::tempdir().unwrap();
        // 700 names of up to 120 bytes: about 60 KB of entries, several 8 KB reads.
        let mut expected: Vec<OsString> =
            (0..700).map(|i| OsString::from(format!("{i:04}-{}-é.csv", "x".repeat(i % 100)))).collect();
        for name in &expected {
            std::fs::write(dir.path().join(name), b"").unwrap();
        }
        std::fs::create_dir(dir.path().join("sub")).unwrap();
        expected.push("sub".into());
        expected.sort();
        let open = File::open(dir.path()).unwrap();
        assert_eq!(read_dir_names(&open).unwrap(), expected);
        let empty = tempfile::tempdir().unwrap();
        assert!(read_dir_names(&File::open(empty.path()).unwrap()).unwrap().is_empty());
        // A descriptor that is not a folder is an error, not an empty listing.
        let file = dir.path().join("0000--é.csv");
        assert!(read_dir_names(&File::open(file).unwrap()).is_err());
    }

    #[test]
    fn non_regular_files_are_refused() {
        let dir = tempfile::tempdir().unwrap();
        let fifo = dir.path().join("rank0_async.csv");
        let status = std::process::Command::new("mkfifo").arg(&fifo).status().unwrap();
        assert!(status.success());
        let error = read_all(&at(&fifo), MAX_FILE_BYTES).unwrap_err();
        assert!(error.to_string().contains("not a regular file"), "{error}");
        assert!(read_all(&Beneath::new(Root::new(dir.path()), "."), MAX_FILE_BYTES).is_err());
        assert!(read_all(&at(Path::new("/dev/zero")), MAX_FILE_BYTES)
            .unwrap_err()
            .to_string()
            .contains("not a regular file"));
    }

    #[test]
    fn reads_stop_at_the_limit_also_decompressed() {
        let dir = tempfile::tempdir().unwrap();
        let sparse = dir.path().join("NOTES.md");
        File::create(&sparse).unwrap().set_len(2 << 30).unwrap();
        let error = read_all(&at(&sparse), 1000).unwrap_err();
        assert!(error.to_string().contains("limit of 1000 bytes"), "{error}");
        assert!(with_contents(&at(&sparse), 2 << 30, 1000, |_| ()).is_err());
        File::create(&sparse).unwrap().set_len(1000).unwrap();
        assert_eq!(read_all(&at(&sparse), 1000).unwrap().len(), 1000);
        assert_eq!(with_contents(&at(&sparse), 0, 1000, <[u8]>::len).unwrap(), 1000);
        let gz = dir.path().join("NOTES.md.gz");
        let mut encoder = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::fast());
        std::io::Write::write_all(&mut encoder, &vec![0u8; 1 << 20]).unwrap();
        std::fs::write(&gz, encoder.finish().unwrap()).unwrap();
        assert!(read_all(&at(&gz), 4096).is_err());
        let mut lines = String::new();
        assert!(open(&at(&gz), 4096).unwrap().read_to_string(&mut lines).is_err());
        assert_eq!(read_all(&at(&gz), 1 << 20).unwrap().len(), 1 << 20);
    }

    #[test]
    fn stored_bytes_are_read_whole_up_to_the_limit_and_not_decompressed() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("a.log");
        let text: Vec<u8> = (0..300_000u32).map(|i| b'a' + (i % 26) as u8).collect();
        std::fs::write(&path, &text).unwrap();
        assert_eq!(read_stored(&at(&path), 300_000).unwrap(), text);
        assert_eq!(read_stored(&at(&path), u64::MAX).unwrap(), text);
        let error = read_stored(&at(&path), 299_999).unwrap_err();
        assert!(error.to_string().contains("limit of 299999 bytes"), "{error}");
        std::fs::write(&path, b"").unwrap();
        assert!(read_stored(&at(&path), 0).unwrap().is_empty());
        let gz = dir.path().join("b.log.gz");
        let mut encoder = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::fast());
        std::io::Write::write_all(&mut encoder, &text).unwrap();
        let stored = encoder.finish().unwrap();
        std::fs::write(&gz, &stored).unwrap();
        assert_eq!(read_stored(&at(&gz), 1 << 20).unwrap(), stored);
        assert!(read_stored(&at(dir.path()), 1 << 20).is_err());
    }

    #[test]
    fn an_over_limit_file_is_refused_from_its_size() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("big.stdout");
        File::create(&path).unwrap().set_len(1 << 40).unwrap();
        // The message names the stored size: it came from fstat, before any read.
        let error = read_all(&at(&path), 4096).unwrap_err();
        assert!(error.to_string().contains("1099511627776 bytes, larger than the limit of 4096 bytes"), "{error}");
        let error = with_contents(&at(&path), 0, 4096, |_| ()).unwrap_err();
        assert!(error.to_string().contains("1099511627776 bytes"), "{error}");
        // A `.gz` too: stored past what any contents within the limit can take (a margin
        // over deflate's growth), it is refused unread; one just within it is read.
        let gz = dir.path().join("big.log.gz");
        File::create(&gz).unwrap().set_len(1 << 40).unwrap();
        let error = read_all(&at(&gz), 4096).unwrap_err();
        let limit = gzip_stored_limit(4096);
        assert!(error.to_string().contains(&format!("1099511627776 bytes, larger than the limit of {limit} bytes")));
        let incompressible: Vec<u8> = (0..4096u32).map(|i| (i.wrapping_mul(2_654_435_761) >> 13) as u8).collect();
        let mut stored = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::none());
        std::io::Write::write_all(&mut stored, &incompressible).unwrap();
        let stored = stored.finish().unwrap();
        assert!(stored.len() as u64 > 4096 && stored.len() as u64 <= limit);
        std::fs::write(&gz, &stored).unwrap();
        assert_eq!(read_all(&at(&gz), 4096).unwrap(), incompressible);
    }

    #[test]
    fn a_root_is_opened_once_and_read_beneath_as_first_opened() {
        let dir = tempfile::tempdir().unwrap();
        let runs = dir.path().join("runs");
        let root = Root::new(&runs);
        let read = |root: &Arc<Root>| read_all(&Beneath::new(Arc::clone(root), "a.txt"), 1 << 20);
        assert!(read(&root).is_err(), "no folder yet");
        std::fs::create_dir_all(&runs).unwrap();
        std::fs::write(runs.join("a.txt"), "first").unwrap();
        assert_eq!(read(&root).unwrap(), b"first", "a failed open is not kept");
        std::fs::rename(&runs, dir.path().join("moved")).unwrap();
        std::fs::create_dir_all(&runs).unwrap();
        std::fs::write(runs.join("a.txt"), "second").unwrap();
        assert_eq!(read(&root).unwrap(), b"first", "beneath the folder as first opened");
        assert_eq!(read(&Root::new(&runs)).unwrap(), b"second");
    }

    #[test]
    fn paths_are_walked_beneath_the_root_only() {
        let dir = tempfile::tempdir().unwrap();
        let root = dir.path().join("runs");
        let outside = dir.path().join("outside");
        std::fs::create_dir_all(root.join("r1/artifacts")).unwrap();
        std::fs::create_dir_all(root.join("r2")).unwrap();
        std::fs::create_dir_all(&outside).unwrap();
        std::fs::write(root.join("r1/artifacts/a.txt"), "inside").unwrap();
        std::fs::write(outside.join("a.txt"), "MARKER").unwrap();
        let beneath = Root::new(root.canonicalize().unwrap());
        let root = &beneath.path;
        let read = |rel: &str| read_all(&Beneath::new(Arc::clone(&beneath), rel), 1 << 20);
        assert_eq!(read("r1/artifacts/a.txt").unwrap(), b"inside");
        // Symlinks that stay inside the runs folder are followed, relative or absolute.
        std::os::unix::fs::symlink("../r1/artifacts", root.join("r2/artifacts")).unwrap();
        assert_eq!(read("r2/artifacts/a.txt").unwrap(), b"inside");
        std::os::unix::fs::symlink(root.join("r1"), root.join("r3")).unwrap();
        assert_eq!(read("r3/artifacts/a.txt").unwrap(), b"inside");
        // Any way out is refused: an absolute link, a relative one climbing above the root,
        // a link as the last component, a loop.
        std::fs::create_dir_all(root.join("r4")).unwrap();
        std::os::unix::fs::symlink(&outside, root.join("r4/artifacts")).unwrap();
        std::os::unix::fs::symlink("../../outside/a.txt", root.join("r4/a.txt")).unwrap();
        std::os::unix::fs::symlink("loop", root.join("r4/loop")).unwrap();
        for rel in ["r4/artifacts/a.txt", "r4/a.txt", "r4/loop", "../outside/a.txt", "/etc/passwd"] {
            assert!(read(rel).is_err(), "{rel} was read");
        }
        assert!(read("r4/artifacts/a.txt").unwrap_err().to_string().contains("outside the runs folder"));
        // A file the user names is read through their own symlinks (`inspect LINK`).
        std::os::unix::fs::symlink(outside.join("a.txt"), dir.path().join("named.txt")).unwrap();
        assert_eq!(read_all(&at(&dir.path().join("named.txt")), 1 << 20).unwrap(), b"MARKER");
        // The fallback walk alone (a kernel without openat2) gives the same answers.
        let root_fd = File::open(root).unwrap();
        let walk = |rel: &str| walk_beneath(root_fd.as_fd(), root, Path::new(rel)).map(File::from);
        assert!(walk("r2/artifacts/a.txt").is_ok() && walk("r3/artifacts/a.txt").is_ok());
        for rel in ["r4/artifacts/a.txt", "r4/a.txt", "r4/loop", "../outside/a.txt"] {
            assert!(walk(rel).is_err(), "{rel}");
        }
    }
}
