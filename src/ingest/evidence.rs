//! A run's archived inputs as evidence to publish beside its pages: each file's bytes as
//! stored (a `*.gz` stays gzipped), read through the safe opener (`input`), or why it is
//! withheld: not of a text kind (`PUBLISHED_EXTENSIONS`: nothing a browser would run from the
//! site), larger than the file limit, unreadable, an nccl-tests `-J` JSON (it holds the
//! process environment, which nccl-report never keeps), or text that assigns a variable whose
//! name marks a secret (`secrets`). Uses `find`, `input` and `secrets`.

use crate::ingest::find::RunFiles;
use crate::ingest::input;
use crate::ingest::secrets::{secret_line, streamed_secret_line};
use std::collections::HashMap;

/// One archived input: its run-relative path (as stored, `.gz` included), its stored size, and
/// what is published of it (`T`: its bytes as stored when read; the pipeline's record of its
/// copy once that is written) or why it is withheld.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct EvidenceFile<T = Vec<u8>> {
    pub rel: String,
    pub len: u64,
    pub published: Result<T, String>,
}

impl EvidenceFile {
    /// The file once `publish` has taken its bytes (written them, say): the same path, size
    /// and reason it is withheld, with what `publish` made of the bytes.
    pub(crate) fn publish<T, E>(
        self,
        publish: impl FnOnce(&str, Vec<u8>) -> Result<T, E>,
    ) -> Result<EvidenceFile<T>, E> {
        let published = match self.published {
            Ok(bytes) => Ok(publish(&self.rel, bytes)?),
            Err(why) => Err(why),
        };
        Ok(EvidenceFile { rel: self.rel, len: self.len, published })
    }
}

/// Every archived input of the run, by path, each handed to `publish` as soon as it is read,
/// so that no more than one of them is held at a time (a run can have thousands of large
/// logs); `limits.file` is the most stored bytes published per file, `limits.log` the most
/// bytes a compressed file may decompress to when it is checked for secrets. `read`: files
/// already read, checked and published (`read_to_publish`, the NCCL logs as the scan reads
/// them), taken as they are rather than read again. The first error of `publish` ends it.
pub(crate) fn collect<T, E>(
    files: &RunFiles,
    limits: input::Limits,
    read: Vec<EvidenceFile<T>>,
    mut publish: impl FnMut(&str, Vec<u8>) -> Result<T, E>,
) -> Result<Vec<EvidenceFile<T>>, E> {
    let mut all: Vec<_> = files.all().collect();
    all.sort_by(|a, b| a.rel.cmp(&b.rel));
    // By path: a run can have tens of thousands of logs.
    let mut read: HashMap<String, EvidenceFile<T>> = read.into_iter().map(|file| (file.rel.clone(), file)).collect();
    all.into_iter()
        .map(|file| match read.remove(&file.rel) {
            Some(known) => Ok(known),
            None => EvidenceFile {
                rel: file.rel.clone(),
                len: file.stamp.len,
                published: published(&file.at, &file.rel, file.stamp.len, limits),
            }
            .publish(&mut publish),
        })
        .collect()
}

/// A file to publish read once, for a reader that needs its bytes too (the NCCL log scan):
/// its stored bytes, and why they are withheld if they are.
pub(crate) struct ReadOnce {
    pub stored: Vec<u8>,
    rel: String,
    len: u64,
    withheld: Option<String>,
}

impl ReadOnce {
    /// The file's run-relative path.
    pub(crate) fn rel(&self) -> &str {
        &self.rel
    }

    /// What `collect` publishes of the file.
    pub(crate) fn into_evidence(self) -> EvidenceFile {
        let published = match self.withheld {
            Some(why) => Err(why),
            None => Ok(self.stored),
        };
        EvidenceFile { rel: self.rel, len: self.len, published }
    }
}

/// Whether a file of stored length `len` is read to be published (`read_to_publish`): not
/// withheld before it is read.
pub(crate) fn is_read(at: &input::Beneath, len: u64, limits: input::Limits) -> bool {
    withheld_unread(at, len, limits).is_none()
}

/// A file read once to be published and read by another reader (`ReadOnce`), or `None` when
/// it is withheld before it is read (its kind or its size) or cannot be read: `collect` then
/// reads it and says why, and the other reader reads it on its own, as without evidence.
pub(crate) fn read_to_publish(at: &input::Beneath, rel: &str, len: u64, limits: input::Limits) -> Option<ReadOnce> {
    if withheld_unread(at, len, limits).is_some() {
        return None;
    }
    let stored = input::read_stored(at, limits.file).ok()?;
    let withheld = checked(at, rel, &stored, limits).err();
    Some(ReadOnce { stored, rel: rel.to_string(), len, withheld })
}

/// Extensions (of the name without `.gz`) published as they are: text a browser shows as text
/// or downloads. Any other file (`.html`, `.svg`, `.js`...) could run in the reader's browser
/// from the site's origin, and is withheld.
const PUBLISHED_EXTENSIONS: [&str; 10] = ["txt", "log", "csv", "md", "stdout", "stderr", "out", "err", "json", "tsv"];

fn published(at: &input::Beneath, rel: &str, len: u64, limits: input::Limits) -> Result<Vec<u8>, String> {
    if let Some(why) = withheld_unread(at, len, limits) {
        return Err(why);
    }
    let stored = input::read_stored(at, limits.file).map_err(|e| format!("withheld: {e}"))?;
    checked(at, rel, &stored, limits)?;
    Ok(stored)
}

/// Why a file of stored length `len` is withheld before it is read, if it is: its kind, or
/// its size.
fn withheld_unread(at: &input::Beneath, len: u64, limits: input::Limits) -> Option<String> {
    let limit = limits.file;
    let name = input::logical_name(&at.rel);
    let extension = name.rsplit_once('.').map_or("", |(_, e)| e).to_ascii_lowercase();
    if !PUBLISHED_EXTENSIONS.contains(&extension.as_str()) {
        let kind = if extension.is_empty() {
            "a file without an extension".to_string()
        } else {
            format!("a .{extension} file")
        };
        return Some(format!("withheld: {kind} could be taken for a page or a script; only text kinds are published"));
    }
    if name.ends_with(".json") && name.starts_with("nccl_tests") {
        return Some("withheld: an nccl-tests JSON holds the process environment".to_string());
    }
    (len > limit).then(|| format!("withheld: larger than the {} publishing limit", crate::core::format::bytes(limit)))
}

/// Whether a file's stored bytes may be published: not when its text sets a secret.
fn checked(at: &input::Beneath, rel: &str, stored: &[u8], limits: input::Limits) -> Result<(), String> {
    let secret = if input::is_gzip(&at.rel) {
        // The stored bytes, decompressed as they are searched: a `.gz` may decompress to up
        // to `limits.log` (2 GiB), never held whole, and the bytes published are the ones checked.
        streamed_secret_line(input::gunzip_stored(stored, limits.log)).map_err(|e| format!("withheld: {e}"))?
    } else {
        secret_line(stored)
    };
    match secret {
        Some(line) => Err(format!("withheld: line {line} of {rel} sets a variable named like a secret")),
        None => Ok(()),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::io::Write as _;

    fn gzip(text: &[u8]) -> Vec<u8> {
        let mut encoder = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::fast());
        encoder.write_all(text).unwrap();
        encoder.finish().unwrap()
    }

    /// `collect` hands each file it reads and may publish to `publish` as soon as it is read,
    /// one at a time in path order, and keeps only what `publish` returns: never a withheld
    /// file, nor one already read; the first error of `publish` is its result.
    #[test]
    fn collect_hands_each_file_to_publish_as_it_reads_it() {
        let dir = tempfile::tempdir().unwrap();
        let mut files = RunFiles::default();
        for (rel, text) in [
            ("d.log", "NCCL INFO d\n"),
            ("a.log", "NCCL INFO a\n"),
            ("b.html", "<script>\n"),
            ("c.log", "export HF_TOKEN=hf_x\n"),
            ("e.txt", "e\n"),
        ] {
            let path = dir.path().join(rel);
            std::fs::write(&path, text).unwrap();
            let stamp = crate::ingest::find::FileStamp::of(&std::fs::metadata(&path).unwrap());
            let at = input::Beneath::file(&path).unwrap();
            files.nccl_logs.push(crate::ingest::find::FileRef { path, rel: rel.to_string(), stamp, at });
        }
        let limits = input::Limits::DEFAULT;
        let read = vec![EvidenceFile { rel: "d.log".to_string(), len: 12, published: Ok(0) }];
        let mut handed = Vec::new();
        let listed = collect(&files, limits, read, |rel, bytes: Vec<u8>| {
            handed.push((rel.to_string(), String::from_utf8(bytes).unwrap()));
            Ok::<_, String>(handed.len())
        })
        .unwrap();
        assert_eq!(
            handed,
            [("a.log".to_string(), "NCCL INFO a\n".to_string()), ("e.txt".to_string(), "e\n".to_string())]
        );
        let published: Vec<_> = listed.iter().map(|f| (f.rel.as_str(), f.published.clone().ok())).collect();
        assert_eq!(
            published,
            [("a.log", Some(1)), ("b.html", None), ("c.log", None), ("d.log", Some(0)), ("e.txt", Some(2))]
        );
        let mut calls = 0;
        let failed = collect(&files, limits, Vec::new(), |rel, _| {
            calls += 1;
            Err::<(), _>(format!("cannot write {rel}"))
        });
        assert_eq!((failed, calls), (Err("cannot write a.log".to_string()), 1));
    }

    /// A file of exactly the publishing limit is published; one byte more is withheld, before
    /// it is read, and the list says why.
    #[test]
    fn the_publishing_limit_is_the_most_bytes_published() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("a.log");
        std::fs::write(&path, b"NCCL INFO a\n").unwrap();
        let at = input::Beneath::file(&path).unwrap();
        let at_limit = input::Limits { file: 12, ..input::Limits::DEFAULT };
        assert_eq!(published(&at, "a.log", 12, at_limit), Ok(b"NCCL INFO a\n".to_vec()));
        let under = input::Limits { file: 11, ..input::Limits::DEFAULT };
        let why = published(&at, "a.log", 12, under).unwrap_err();
        assert_eq!(why, "withheld: larger than the 11 B publishing limit");
        assert!(read_to_publish(&at, "a.log", 12, under).is_none(), "not read");
    }

    /// A `.gz` is published as stored when its text sets no secret, withheld (naming the
    /// line) when it does, and withheld when it decompresses past the log limit.
    #[test]
    fn a_gzipped_file_is_checked_decompressed_and_published_as_stored() {
        let dir = tempfile::tempdir().unwrap();
        let write = |name: &str, bytes: &[u8]| {
            let path = dir.path().join(name);
            std::fs::write(&path, bytes).unwrap();
            input::Beneath::file(&path).unwrap()
        };
        let limits = input::Limits::DEFAULT;
        let clean = gzip(b"NCCL INFO a\nNCCL INFO b\n");
        let at = write("clean.log.gz", &clean);
        assert_eq!(published(&at, "clean.log.gz", clean.len() as u64, limits), Ok(clean));
        let secret = gzip(b"a\nb\nexport HF_TOKEN=hf_x\n");
        let at = write("secret.log.gz", &secret);
        let why = published(&at, "secret.log.gz", secret.len() as u64, limits).unwrap_err();
        assert_eq!(why, "withheld: line 3 of secret.log.gz sets a variable named like a secret");
        let big = gzip(&vec![b'x'; 1 << 16]);
        let at = write("big.log.gz", &big);
        let small = input::Limits { log: 1000, ..limits };
        let why = published(&at, "big.log.gz", big.len() as u64, small).unwrap_err();
        assert!(why.contains("limit of 1000 bytes"), "{why}");
    }
}
