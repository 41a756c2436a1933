//! A run's archived inputs as evidence to publish beside its pages: each file's bytes as
//! stored (a `*.gz` stays gzipped), read through the safe opener (`input`), or why it is
//! withheld: not of a text kind (`PUBLISHED_EXTENSIONS`: nothing a browser would run from the
//! site), larger than the file limit, unreadable, an nccl-tests `-J` JSON (it holds the
//! process environment, which nccl-report never keeps), or text that assigns a variable whose
//! name marks a secret (`secrets`). Uses `find`, `input` and `secrets`.

use crate::ingest::find::RunFiles;
use crate::ingest::input;
use crate::ingest::secrets::{secret_line, streamed_secret_line};

/// One archived input: its run-relative path (as stored, `.gz` included), its stored size, and
/// its bytes or why they are not published.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct EvidenceFile {
    pub rel: String,
    pub len: u64,
    pub bytes: Result<Vec<u8>, String>,
}

/// Every archived input of the run, by path, with its bytes as stored or why it is withheld;
/// `limits.file` is the most stored bytes published per file, `limits.log` the most bytes a
/// compressed file may decompress to when it is checked for secrets.
pub(crate) fn collect(files: &RunFiles, limits: input::Limits) -> Vec<EvidenceFile> {
    let mut all: Vec<_> = files.all().collect();
    all.sort_by(|a, b| a.rel.cmp(&b.rel));
    all.into_iter()
        .map(|file| EvidenceFile {
            rel: file.rel.clone(),
            len: file.stamp.len,
            bytes: published(&file.at, &file.rel, file.stamp.len, limits),
        })
        .collect()
}

/// Extensions (of the name without `.gz`) published as they are: text a browser shows as text
/// or downloads. Any other file (`.html`, `.svg`, `.js`...) could run in the reader's browser
/// from the site's origin, and is withheld.
const PUBLISHED_EXTENSIONS: [&str; 10] = ["txt", "log", "csv", "md", "stdout", "stderr", "out", "err", "json", "tsv"];

fn published(at: &input::Beneath, rel: &str, len: u64, limits: input::Limits) -> Result<Vec<u8>, String> {
    let limit = limits.file;
    let name = input::logical_name(&at.rel);
    let extension = name.rsplit_once('.').map_or("", |(_, e)| e).to_ascii_lowercase();
    if !PUBLISHED_EXTENSIONS.contains(&extension.as_str()) {
        let kind = if extension.is_empty() {
            "a file without an extension".to_string()
        } else {
            format!("a .{extension} file")
        };
        return Err(format!("withheld: {kind} could be taken for a page or a script; only text kinds are published"));
    }
    if name.ends_with(".json") && name.starts_with("nccl_tests") {
        return Err("withheld: an nccl-tests JSON holds the process environment".to_string());
    }
    if len > limit {
        return Err(format!("withheld: larger than the {} publishing limit", crate::core::format::bytes(limit)));
    }
    let stored = input::read_stored(at, limit).map_err(|e| format!("withheld: {e}"))?;
    let secret = if input::is_gzip(&at.rel) {
        // Streamed: a `.gz` may decompress to up to `limits.log` (2 GiB), never held whole.
        input::open(at, limits.log).and_then(streamed_secret_line).map_err(|e| format!("withheld: {e}"))?
    } else {
        secret_line(&stored)
    };
    match secret {
        Some(line) => Err(format!("withheld: line {line} of {rel} sets a variable named like a secret")),
        None => Ok(stored),
    }
}
