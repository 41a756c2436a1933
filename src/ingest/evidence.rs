//! A run's archived inputs as evidence to publish beside its pages: each file's bytes as
//! stored (a `*.gz` stays gzipped), read through the safe opener (`input`), or why it is
//! withheld: not of a text kind (`PUBLISHED_EXTENSIONS`: nothing a browser would run from the
//! site), larger than the file limit, unreadable, an nccl-tests `-J` JSON (it holds the
//! process environment, which nccl-report never keeps), or text that assigns a variable whose
//! name marks a secret (`SECRET_MARKERS`, the names `collect` never records). Uses `find` and
//! `input`.

use crate::ingest::find::RunFiles;
use crate::ingest::input;

/// A variable whose name holds one of these is a secret: never recorded (`collect`), and a
/// file that assigns one (the marker a whole `_`-separated word of the name) is not published.
pub(crate) const SECRET_MARKERS: [&str; 5] = ["TOKEN", "KEY", "SECRET", "PASSWORD", "CREDENTIAL"];

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

/// The 1-based line of the first line that assigns a name holding a secret marker
/// (`assigns_secret`): such a file is not published, and an artifact shown on the run page is
/// shown as withheld (`load`).
pub(crate) fn secret_line(text: &[u8]) -> Option<usize> {
    text.split(|b| *b == b'\n').position(assigns_secret).map(|i| i + 1)
}

/// `secret_line` of what `reader` gives, read a block at a time: a line is looked at in
/// pieces as it comes, each with the last `OVERLAP` bytes before it, so memory stays a block
/// and an overlap however long a line is, and an assignment whose name is shorter than the
/// overlap is seen wherever it lies.
fn streamed_secret_line(mut reader: impl std::io::BufRead) -> std::io::Result<Option<usize>> {
    const OVERLAP: usize = 4096;
    let (mut line, mut number) = (Vec::new(), 1);
    loop {
        let block = reader.fill_buf()?;
        if block.is_empty() {
            return Ok(assigns_secret(&line).then_some(number));
        }
        let taken = block.len();
        let mut rest = block;
        while let Some(end) = memchr::memchr(b'\n', rest) {
            line.extend_from_slice(&rest[..end]);
            if assigns_secret(&line) {
                return Ok(Some(number));
            }
            line.clear();
            number += 1;
            rest = &rest[end + 1..];
        }
        line.extend_from_slice(rest);
        if line.len() > OVERLAP {
            if assigns_secret(&line) {
                return Ok(Some(number));
            }
            line.drain(..line.len() - OVERLAP);
        }
        reader.consume(taken);
    }
}

/// Whether `line` assigns a NAME (letters, digits, `_`) naming a secret: one of its
/// `_`-separated words is a marker (`HF_TOKEN`, `api_key`; not `tokens`), followed by `=` or
/// `:`, after a closing quote and blanks if any (`NAME=`, `NAME = `, `NAME: `, `"NAME": ` of
/// JSON or YAML, `'NAME' =`), but not `==` or `::` (a comparison, a path).
fn assigns_secret(line: &[u8]) -> bool {
    let mut start = 0;
    for (i, &b) in line.iter().enumerate() {
        if b.is_ascii_alphanumeric() || b == b'_' {
            continue;
        }
        if i > start && assigned_after(&line[i..]) {
            let name = String::from_utf8_lossy(&line[start..i]).to_ascii_uppercase();
            if name.split('_').any(|word| SECRET_MARKERS.contains(&word)) {
                return true;
            }
        }
        start = i + 1;
    }
    false
}

/// Whether what follows a name assigns it: an optional closing quote, blanks, then `=` or `:`
/// not doubled.
fn assigned_after(rest: &[u8]) -> bool {
    let rest = rest.strip_prefix(b"\"").or_else(|| rest.strip_prefix(b"'")).unwrap_or(rest);
    let blanks = rest.iter().take_while(|b| **b == b' ' || **b == b'\t').count();
    match &rest[blanks..] {
        [b'=' | b':', next, ..] => next != &rest[blanks],
        [b'=' | b':'] => true,
        _ => false,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn lines_setting_secret_names_are_found() {
        assert_eq!(secret_line(b"NCCL_DEBUG=INFO\nexport HF_TOKEN=abc\n"), Some(2));
        assert_eq!(secret_line(b"aws_secret_access_key: x\n"), Some(1));
        assert_eq!(secret_line(b"timing_env=NCCL_ALGO=Ring\nkeys are fine\nMONKEY_BUSINESS\n"), None);
        assert_eq!(secret_line(b"a PASSWORD=hunter2"), Some(1));
        assert_eq!(secret_line(b""), None);
        assert_eq!(secret_line(b"decode tokens=1;tp=2 decode_tokens=128\n"), None);
    }

    #[test]
    fn a_streamed_scan_finds_what_a_whole_one_does_across_blocks_and_in_long_lines() {
        let long = "x".repeat(20_000);
        let texts = [
            "a=1\nb=2\nexport HF_TOKEN=abc\n".to_string(),
            format!("{long}\n{long} API_KEY=1 {long}\n"),
            format!("{long}{long} no secret here\nlast PASSWORD=x"),
            format!("{long}\nnothing\n"),
            String::new(),
        ];
        for text in &texts {
            // Blocks of 13 bytes: every boundary falls somewhere in the line.
            let streamed = streamed_secret_line(std::io::BufReader::with_capacity(13, text.as_bytes())).unwrap();
            assert_eq!(streamed, secret_line(text.as_bytes()), "{}", &text[..text.len().min(40)]);
        }
        assert_eq!(streamed_secret_line(&b"x\ny\nHF_TOKEN: 1"[..]).unwrap(), Some(3));
    }

    #[test]
    fn secrets_set_with_blanks_quotes_or_json_are_found_and_comparisons_are_not() {
        for line in [
            &b"HF_TOKEN = hf_abc"[..],
            b"{\"HF_TOKEN\": \"hf_abc\"}",
            b"{\"api_key\":\"x\"}",
            b"'WANDB_API_KEY' = 'x'",
            b"export AWS_SECRET_ACCESS_KEY=x",
            b"password:\tx",
            b"HF_TOKEN:",
        ] {
            assert_eq!(secret_line(line), Some(1), "{}", String::from_utf8_lossy(line));
        }
        for line in [&b"if TOKEN == x"[..], b"Token::new()", b"tokens = 128", b"keys: 3", b"HF_TOKEN"] {
            assert_eq!(secret_line(line), None, "{}", String::from_utf8_lossy(line));
        }
    }
}
