//! Reading run inputs: the one place that opens files under `runs/`, read-only, with
//! transparent gzip for `name.gz`. Uses only std and flate2.

use flate2::read::MultiGzDecoder;
use std::fs::File;
use std::io::{self, BufRead, BufReader, Read};
use std::path::Path;

/// True when the file is stored gzip-compressed (by name: `*.gz`).
pub fn is_gzip(path: &Path) -> bool {
    path.extension().is_some_and(|ext| ext == "gz")
}

/// The name a file is known by inside a run: its file name without a trailing `.gz`.
pub fn logical_name(path: &Path) -> String {
    let name = path.file_name().map(|n| n.to_string_lossy().into_owned()).unwrap_or_default();
    match name.strip_suffix(".gz") {
        Some(stem) => stem.to_string(),
        None => name,
    }
}

/// Opens a file for streaming, decompressing `*.gz` on the fly.
pub fn open(path: &Path) -> io::Result<Box<dyn BufRead + Send>> {
    let file = File::open(path)?;
    if is_gzip(path) {
        Ok(Box::new(BufReader::with_capacity(1 << 16, MultiGzDecoder::new(file))))
    } else {
        Ok(Box::new(BufReader::with_capacity(1 << 16, file)))
    }
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
pub fn with_contents<T>(path: &Path, size_hint: u64, use_bytes: impl FnOnce(&[u8]) -> T) -> io::Result<T> {
    let mut buffer = BUFFER.take();
    buffer.clear();
    let read = File::open(path).and_then(|file| {
        if is_gzip(path) {
            MultiGzDecoder::new(file).read_to_end(&mut buffer)
        } else {
            // One read of the listed size plus one byte: when exactly the listed size comes
            // back, the file is whole (no second read just to see its end); a file that grew
            // or shrank since it was listed is read on to its end. (A file system that returns
            // short reads of regular files, and exactly the listed size while the file grew,
            // would lose the growth: runs are archives, not files being written.)
            let listed = usize::try_from(size_hint.min(FIRST_READ_MAX)).unwrap_or(0);
            buffer.resize(listed + 1, 0);
            let n = loop {
                match (&file).read(&mut buffer) {
                    Err(e) if e.kind() == io::ErrorKind::Interrupted => continue,
                    other => break other?,
                }
            };
            buffer.truncate(n);
            if n != listed {
                (&file).read_to_end(&mut buffer)?;
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

/// Reads a whole (small) file, decompressing `*.gz`.
pub fn read_all(path: &Path) -> io::Result<Vec<u8>> {
    if is_gzip(path) {
        let mut out = Vec::new();
        MultiGzDecoder::new(File::open(path)?).read_to_end(&mut out)?;
        Ok(out)
    } else {
        std::fs::read(path)
    }
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
            let bytes = with_contents(&path, listed, |b| b.to_vec()).unwrap();
            assert_eq!(bytes, b"0123456789", "listed {listed}");
        }
        std::fs::write(&path, b"").unwrap();
        assert!(with_contents(&path, 0, |b| b.is_empty()).unwrap());
        let gz = dir.path().join("b.csv.gz");
        let mut encoder = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::fast());
        std::io::Write::write_all(&mut encoder, b"x,y\n1,2\n").unwrap();
        std::fs::write(&gz, encoder.finish().unwrap()).unwrap();
        assert_eq!(with_contents(&gz, 5, |b| b.to_vec()).unwrap(), b"x,y\n1,2\n");
        assert!(with_contents(&dir.path().join("missing"), 1, |_| ()).is_err());
    }
}
