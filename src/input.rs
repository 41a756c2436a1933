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
