//! The pages' HTML escaper (`askama.toml` names it for every `.html` template): askama's own,
//! after dropping what a run's text must not bring into a page, control characters (but tab
//! and line ends) and the Unicode bidi controls, which reorder what a reader sees around them
//! (a U+202E in a manifest value showed the site's own text after it reversed). Markdown notes,
//! put in unescaped, drop the same (`markdown`). Uses askama only.

use std::borrow::Cow;
use std::fmt;

/// askama's `Html` escaper after `dropped` characters are left out.
#[derive(Debug, Clone, Copy)]
pub(crate) struct Html;

impl askama::filters::Escaper for Html {
    fn write_escaped_str<W: fmt::Write>(&self, dest: W, text: &str) -> fmt::Result {
        askama::filters::Html.write_escaped_str(dest, &kept(text))
    }
}

/// `text` without the characters `dropped` takes; borrowed when it has none. Every such
/// character is a byte under 0x20, 0x7f, or begins with 0xc2 (C1 controls), 0xd8 (U+061C)
/// or 0xe2 (U+200E..U+2069), so text without those bytes, most of it, is not decoded.
pub(crate) fn kept(text: &str) -> Cow<'_, str> {
    let suspect = |b: u8| (b < 0x20 && !matches!(b, b'\t' | b'\n' | b'\r')) || matches!(b, 0x7f | 0xc2 | 0xd8 | 0xe2);
    if !text.bytes().any(suspect) || !text.chars().any(dropped) {
        return Cow::Borrowed(text);
    }
    Cow::Owned(text.chars().filter(|c| !dropped(*c)).collect())
}

/// A control character but tab, line feed and carriage return, or a bidi control: the
/// marks (U+200E, U+200F, U+061C), embeddings and overrides (U+202A..U+202E) and isolates
/// (U+2066..U+2069).
pub(crate) fn dropped(c: char) -> bool {
    (c.is_control() && !matches!(c, '\t' | '\n' | '\r'))
        || matches!(c, '\u{200E}' | '\u{200F}' | '\u{061C}' | '\u{202A}'..='\u{202E}' | '\u{2066}'..='\u{2069}')
}

#[cfg(test)]
mod tests {
    use super::*;
    use askama::filters::Escaper;

    fn escaped(text: &str) -> String {
        let mut out = String::new();
        Html.write_escaped_str(&mut out, text).unwrap();
        out
    }

    #[test]
    fn controls_and_bidi_go_and_the_rest_is_escaped_as_askama_does() {
        assert_eq!(escaped("a\u{202E}b\u{0}c\u{1b}d\u{2067}e\u{85}"), "abcde");
        assert_eq!(escaped("x\ty\nz"), "x\ty\nz");
        for text in ["<a href=\"x\">'&'</a>", "µ · — … ≥ ×", "plain"] {
            let mut askama = String::new();
            askama::filters::Html.write_escaped_str(&mut askama, text).unwrap();
            assert_eq!(escaped(text), askama, "{text}");
        }
    }
}
