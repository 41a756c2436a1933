//! Reading run inputs: the one place that opens files under `runs/`, read-only, with
//! transparent gzip for `name.gz`. Every open is safe against hostile runs: the path is
//! resolved, opened with `O_NOFOLLOW | O_NONBLOCK` and checked with `fstat` to be a regular
//! file (a FIFO, socket, device or folder is refused, also one swapped in after listing), and
//! every read is capped at a limit of decompressed bytes (a gzip bomb stops at the limit).
//! Uses only std, libc (the open flags) and flate2.

use flate2::read::MultiGzDecoder;
use std::fs::{File, OpenOptions};
use std::io::{self, BufRead, BufReader, Read};
use std::os::unix::fs::OpenOptionsExt;
use std::path::Path;

/// The most bytes (decompressed) read from a file read whole: section CSVs, manifests,
/// artifacts, nccl-tests outputs, archived seed outputs.
pub(crate) const MAX_FILE_BYTES: u64 = 256 << 20;
/// The most bytes (decompressed) read from a `NOTES.md`.
pub(crate) const MAX_NOTES_BYTES: u64 = 1 << 20;
/// The most bytes (decompressed) streamed from one NCCL log.
pub(crate) const MAX_LOG_BYTES: u64 = 2 << 30;

/// Size limits per kind of input, in decompressed bytes (`build --max-file-bytes`,
/// `--max-notes-bytes`, `--max-log-bytes`; the defaults are the constants above).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct Limits {
    /// A file read whole: section CSVs, manifests, artifacts, nccl-tests outputs.
    pub file: u64,
    /// A `NOTES.md`.
    pub notes: u64,
    /// One NCCL log (streamed).
    pub log: u64,
}

impl Limits {
    pub(crate) const DEFAULT: Limits = Limits { file: MAX_FILE_BYTES, notes: MAX_NOTES_BYTES, log: MAX_LOG_BYTES };
}

/// The limits in force. Process-wide: a build sets them from its options before reading
/// anything (one build at a time per output folder, see `out_dir`), and the cache keys every
/// run with them, so raising a limit re-reads the runs it had stopped.
static LIMITS: std::sync::RwLock<Limits> = std::sync::RwLock::new(Limits::DEFAULT);

/// The limits in force.
pub(crate) fn limits() -> Limits {
    *LIMITS.read().unwrap_or_else(std::sync::PoisonError::into_inner)
}

/// Sets the limits for every read that follows.
pub(crate) fn set_limits(limits: Limits) {
    *LIMITS.write().unwrap_or_else(std::sync::PoisonError::into_inner) = limits;
}

/// Opens `path` for reading only if it is a regular file: the path is resolved first, the
/// open does not follow a (swapped-in) symlink nor block on a FIFO, and `fstat` on the open
/// file decides (so no race can make a FIFO or device be read).
pub(crate) fn open_regular(path: &Path) -> io::Result<File> {
    let real = path.canonicalize()?;
    let file = OpenOptions::new().read(true).custom_flags(libc::O_NOFOLLOW | libc::O_NONBLOCK).open(real)?;
    if !file.metadata()?.is_file() {
        return Err(io::Error::new(io::ErrorKind::InvalidInput, "not a regular file; not read"));
    }
    Ok(file)
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

/// The file's contents (decompressed for `*.gz`), failing past `limit` bytes.
fn limited_reader(path: &Path, limit: u64) -> io::Result<Limited<Box<dyn Read + Send>>> {
    let file = open_regular(path)?;
    let inner: Box<dyn Read + Send> = if is_gzip(path) { Box::new(MultiGzDecoder::new(file)) } else { Box::new(file) };
    Ok(Limited { inner, left: limit, limit })
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
pub(crate) fn open(path: &Path, limit: u64) -> io::Result<Box<dyn BufRead + Send>> {
    Ok(Box::new(BufReader::with_capacity(1 << 16, limited_reader(path, limit)?)))
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
    path: &Path,
    size_hint: u64,
    limit: u64,
    use_bytes: impl FnOnce(&[u8]) -> T,
) -> io::Result<T> {
    let mut buffer = BUFFER.take();
    buffer.clear();
    let read = limited_reader(path, limit).and_then(|mut file| {
        if is_gzip(path) {
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
pub(crate) fn read_all(path: &Path, limit: u64) -> io::Result<Vec<u8>> {
    let mut out = Vec::new();
    limited_reader(path, limit)?.read_to_end(&mut out)?;
    Ok(out)
}

/// Reads a file's bytes as stored (a `*.gz` stays compressed), through the same safe open;
/// a file of more than `limit` stored bytes is an error.
pub(crate) fn read_stored(path: &Path, limit: u64) -> io::Result<Vec<u8>> {
    let mut out = Vec::new();
    Limited { inner: open_regular(path)?, left: limit, limit }.read_to_end(&mut out)?;
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn whole_files_whatever_the_listed_size() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("a.csv");
        std::fs::write(&path, b"0123456789").unwrap();
        for listed in [0, 3, 9, 10, 11, 1 << 40] {
            let bytes = with_contents(&path, listed, MAX_FILE_BYTES, |b| b.to_vec()).unwrap();
            assert_eq!(bytes, b"0123456789", "listed {listed}");
        }
        std::fs::write(&path, b"").unwrap();
        assert!(with_contents(&path, 0, MAX_FILE_BYTES, |b| b.is_empty()).unwrap());
        let gz = dir.path().join("b.csv.gz");
        let mut encoder = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::fast());
        std::io::Write::write_all(&mut encoder, b"x,y\n1,2\n").unwrap();
        std::fs::write(&gz, encoder.finish().unwrap()).unwrap();
        assert_eq!(with_contents(&gz, 5, MAX_FILE_BYTES, |b| b.to_vec()).unwrap(), b"x,y\n1,2\n");
        assert!(with_contents(&dir.path().join("missing"), 1, MAX_FILE_BYTES, |_| ()).is_err());
    }

    #[test]
    fn non_regular_files_are_refused() {
        let dir = tempfile::tempdir().unwrap();
        let fifo = dir.path().join("rank0_async.csv");
        let status = std::process::Command::new("mkfifo").arg(&fifo).status().unwrap();
        assert!(status.success());
        let error = read_all(&fifo, MAX_FILE_BYTES).unwrap_err();
        assert!(error.to_string().contains("not a regular file"), "{error}");
        assert!(read_all(dir.path(), MAX_FILE_BYTES).is_err());
        assert!(read_all(Path::new("/dev/zero"), MAX_FILE_BYTES)
            .unwrap_err()
            .to_string()
            .contains("not a regular file"));
    }

    #[test]
    fn reads_stop_at_the_limit_also_decompressed() {
        let dir = tempfile::tempdir().unwrap();
        let sparse = dir.path().join("NOTES.md");
        File::create(&sparse).unwrap().set_len(2 << 30).unwrap();
        let error = read_all(&sparse, 1000).unwrap_err();
        assert!(error.to_string().contains("limit of 1000 bytes"), "{error}");
        assert!(with_contents(&sparse, 2 << 30, 1000, |_| ()).is_err());
        File::create(&sparse).unwrap().set_len(1000).unwrap();
        assert_eq!(read_all(&sparse, 1000).unwrap().len(), 1000);
        assert_eq!(with_contents(&sparse, 0, 1000, <[u8]>::len).unwrap(), 1000);
        let gz = dir.path().join("NOTES.md.gz");
        let mut encoder = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::fast());
        std::io::Write::write_all(&mut encoder, &vec![0u8; 1 << 20]).unwrap();
        std::fs::write(&gz, encoder.finish().unwrap()).unwrap();
        assert!(read_all(&gz, 4096).is_err());
        let mut lines = String::new();
        assert!(open(&gz, 4096).unwrap().read_to_string(&mut lines).is_err());
        assert_eq!(read_all(&gz, 1 << 20).unwrap().len(), 1 << 20);
    }
}
