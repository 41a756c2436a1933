//! Lines that set a variable named like a secret (`HF_TOKEN=...`, `"api_key": ...`): a file
//! with one is not published, and an artifact with one is not shown.
//!
//! Whole text is searched, not walked line by line: the text is folded a block at a time
//! (every byte `| 0x20`, which makes a letter lower case and makes no other byte a letter), a
//! multi-pattern search (`aho-corasick`, SIMD) finds the marker words in the folded block, and
//! only a line holding one is read by `assigns_secret`; lines are counted only to name the one
//! found (`cargo bench --bench parse` prints its speed). Pure: bytes or a reader
//! in, a line number out.

use aho_corasick::{AhoCorasick, MatchKind};
use memchr::{memchr, memchr_iter, memrchr};
use std::io::{self, BufRead};
use std::sync::OnceLock;

/// A variable whose name holds one of these is a secret: never recorded (`collect`), and a
/// file that assigns one (the marker a whole `_`-separated word of the name) is not published.
pub(crate) const SECRET_MARKERS: [&str; 5] = ["TOKEN", "KEY", "SECRET", "PASSWORD", "CREDENTIAL"];

/// Bytes folded and searched at a time (stays in a core's cache).
const FOLD_BLOCK: usize = 64 * 1024;

/// The marker words in lower case, as found in folded text.
fn finder() -> &'static AhoCorasick {
    static FINDER: OnceLock<AhoCorasick> = OnceLock::new();
    FINDER.get_or_init(|| {
        // Leftmost-first: the kind the SIMD (Teddy) search serves.
        AhoCorasick::builder()
            .match_kind(MatchKind::LeftmostFirst)
            .build(SECRET_MARKERS.map(str::to_ascii_lowercase))
            .expect("five short words are within every limit")
    })
}

/// The 1-based number of the first line of `text` that assigns a name holding a secret marker
/// (`assigns_secret`), lines split at `\n`.
pub fn secret_line(text: &[u8]) -> Option<usize> {
    let start = first_secret_start(text)?;
    Some(1 + memchr_iter(b'\n', &text[..start]).count())
}

/// Where the first line that assigns a secret begins. Only lines where a marker word is found
/// in any case are read; each line at most once.
fn first_secret_start(text: &[u8]) -> Option<usize> {
    let finder = finder();
    let longest = SECRET_MARKERS.iter().map(|m| m.len()).max().unwrap_or(1);
    let mut folded = vec![0u8; FOLD_BLOCK.min(text.len())];
    let (mut at, mut checked) = (0, 0);
    loop {
        let end = (at + FOLD_BLOCK).min(text.len());
        let block = &mut folded[..end - at];
        for (out, byte) in block.iter_mut().zip(&text[at..end]) {
            *out = byte | 0x20;
        }
        for found in finder.find_iter(&*block) {
            let p = at + found.start();
            if p < checked {
                continue;
            }
            let start = memrchr(b'\n', &text[..p]).map_or(0, |i| i + 1);
            let end = memchr(b'\n', &text[p..]).map_or(text.len(), |i| p + i);
            if assigns_secret(&text[start..end]) {
                return Some(start);
            }
            checked = end + 1;
        }
        if end == text.len() {
            return None;
        }
        // A marker across the block's end is found whole in the next block.
        at = end - (longest - 1);
    }
}

/// `secret_line` of what `reader` gives, read a block at a time: a line is looked at in
/// pieces as it comes, each with the last `OVERLAP` bytes before it, so memory stays a block
/// and an overlap however long a line is. A line under `OVERLAP` bytes is judged whole; in a
/// longer one an assignment (name, quote, blanks and `=` together) shorter than the overlap
/// is seen wherever it lies, and a piece may look like one where the whole line is not
/// (`MONKEY=` cut to `KEY=`): such a file is withheld, never published by mistake. The whole
/// lines of a block are searched as one text.
pub(crate) fn streamed_secret_line(mut reader: impl BufRead) -> io::Result<Option<usize>> {
    const OVERLAP: usize = 4096;
    let (mut line, mut number) = (Vec::new(), 1);
    loop {
        let block = reader.fill_buf()?;
        if block.is_empty() {
            return Ok(first_secret_start(&line).map(|_| number));
        }
        let taken = block.len();
        match (memchr(b'\n', block), memrchr(b'\n', block)) {
            (Some(first), Some(last)) => {
                line.extend_from_slice(&block[..first]);
                if first_secret_start(&line).is_some() {
                    return Ok(Some(number));
                }
                // The lines that begin and end in this block, each with its `\n`.
                let whole = &block[first + 1..=last];
                if let Some(k) = secret_line(whole) {
                    return Ok(Some(number + k));
                }
                number += 1 + memchr_iter(b'\n', whole).count();
                line.clear();
                line.extend_from_slice(&block[last + 1..]);
            }
            _ => line.extend_from_slice(block),
        }
        if line.len() > OVERLAP {
            if first_secret_start(&line).is_some() {
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
    use proptest::prelude::*;

    /// The definition: every line read.
    fn oracle(text: &[u8]) -> Option<usize> {
        text.split(|b| *b == b'\n').position(assigns_secret).map(|i| i + 1)
    }

    #[test]
    fn lines_setting_secret_names_are_found() {
        assert_eq!(secret_line(b"NCCL_DEBUG=INFO\nexport HF_TOKEN=abc\n"), Some(2));
        assert_eq!(secret_line(b"aws_secret_access_key: x\n"), Some(1));
        assert_eq!(secret_line(b"timing_env=NCCL_ALGO=Ring\nkeys are fine\nMONKEY_BUSINESS\n"), None);
        assert_eq!(secret_line(b"a PASSWORD=hunter2"), Some(1));
        assert_eq!(secret_line(b""), None);
        assert_eq!(secret_line(b"decode tokens=1;tp=2 decode_tokens=128\n"), None);
        assert_eq!(secret_line(b"x\nkey tokens\nApi_kEy=1\n"), Some(3));
    }

    #[test]
    fn markers_across_fold_blocks_and_in_lines_past_them_are_found() {
        for pad in [FOLD_BLOCK - 12, FOLD_BLOCK - 5, FOLD_BLOCK - 1, FOLD_BLOCK, FOLD_BLOCK + 3] {
            // The marker straddles (or just follows) the first block's end.
            let text = format!("{}\nMY_CREDENTIAL = 1\n", "n".repeat(pad - 3));
            assert_eq!(secret_line(text.as_bytes()), Some(2), "pad {pad}");
            // One line longer than a block, its assignment at its end.
            let long = format!("k\n{} my_key: 2\n", "token ".repeat(pad / 3));
            assert_eq!(secret_line(long.as_bytes()), Some(2), "pad {pad}");
        }
        let many = "token key secret\n".repeat(10_000) + "PASSWORD=1";
        assert_eq!(secret_line(many.as_bytes()), Some(10_001));
    }

    #[test]
    fn a_streamed_scan_finds_what_a_whole_one_does_across_blocks_and_in_long_lines() {
        let long = "x".repeat(20_000);
        let texts = [
            "a=1\nb=2\nexport HF_TOKEN=abc\n".to_string(),
            format!("{long}\n{long} API_KEY=1 {long}\n"),
            format!("{long}{long} no secret here\nlast PASSWORD=x"),
            format!("{long}\nnothing\n"),
            "a\n\n\nb\nc\nd=1\nkey\nKEY=3\n".to_string(),
            String::new(),
        ];
        for text in &texts {
            for block in [1, 2, 13, 4096, 1 << 20] {
                let streamed = streamed_secret_line(std::io::BufReader::with_capacity(block, text.as_bytes())).unwrap();
                assert_eq!(streamed, secret_line(text.as_bytes()), "{block}: {}", &text[..text.len().min(40)]);
            }
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

    /// Texts of marker words in any case, assignments and bytes that fold near letters.
    fn texts() -> impl Strategy<Value = Vec<u8>> {
        let piece = prop_oneof![
            Just(b"\n".to_vec()),
            Just(b"=".to_vec()),
            Just(b": ".to_vec()),
            Just(b"_".to_vec()),
            Just(b"\"".to_vec()),
            Just(b"@[`{\x80\xc0".to_vec()),
            "[a-zA-Z0-9 _=:\n]{0,12}".prop_map(String::into_bytes),
            (prop::sample::select(SECRET_MARKERS.to_vec()), any::<u64>()).prop_map(|(marker, cases)| {
                marker
                    .bytes()
                    .enumerate()
                    .map(|(i, b)| if cases >> i & 1 == 1 { b.to_ascii_lowercase() } else { b })
                    .collect()
            }),
        ];
        prop::collection::vec(piece, 0..60).prop_map(|pieces| pieces.concat())
    }

    proptest! {
        #[test]
        fn the_search_finds_the_line_every_line_read_finds(text in texts()) {
            prop_assert_eq!(secret_line(&text), oracle(&text));
        }

        #[test]
        fn the_search_finds_it_across_fold_blocks(
            head in texts(),
            tail in texts(),
            pad in (FOLD_BLOCK - 40)..(FOLD_BLOCK + 40),
            newline in any::<bool>(),
        ) {
            // A text of head, filler up to about a block, then tail: the tail's markers fall
            // on or about the first block's end, in the filler's line or after it.
            let filler: Vec<u8> = (0..pad.saturating_sub(head.len())).map(|i| if newline && i % 97 == 96 { b'\n' } else { b'x' }).collect();
            let text = [head, filler, tail].concat();
            prop_assert_eq!(secret_line(&text), oracle(&text));
        }

        #[test]
        fn a_streamed_search_finds_it_at_any_block_size(text in texts(), block in 1usize..64) {
            let streamed = streamed_secret_line(std::io::BufReader::with_capacity(block, &text[..])).unwrap();
            prop_assert_eq!(streamed, oracle(&text));
        }
    }
}
