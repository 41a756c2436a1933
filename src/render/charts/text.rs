//! Untrusted text for charts: control characters and bidi controls removed, length capped, XML escaping for
//! the parts of the SVG that this module writes itself (plotters escapes its own `<text>`).

/// Collapses control characters (invalid in XML 1.0 even when escaped) and runs of
/// whitespace into single spaces, trims, and caps the length at `max_chars` with an ellipsis.
/// One pass (a chart's every point has a hover text made clean).
pub(super) fn clean(text: &str, max_chars: usize) -> String {
    let mut out = String::with_capacity(text.len());
    let mut chars = 0;
    let mut gap = false;
    for c in text.chars() {
        if c.is_whitespace() || c.is_control() {
            gap = !out.is_empty();
            continue;
        }
        // A bidi control, as the pages drop it (`escape`): it would reorder the label.
        if crate::render::escape::dropped(c) {
            continue;
        }
        if gap {
            out.push(' ');
            chars += 1;
            gap = false;
        }
        out.push(c);
        chars += 1;
    }
    if chars <= max_chars {
        return out;
    }
    let kept: String = out.chars().take(max_chars.saturating_sub(1)).collect();
    format!("{}…", kept.trim_end())
}

/// Escapes `& < > " '` for XML text and attribute values (the text between them copied
/// whole).
pub(super) fn escape_xml(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    push_escaped(&mut out, text);
    out
}

/// `escape_xml(text)` appended to `out`.
pub(super) fn push_escaped(out: &mut String, text: &str) {
    let mut from = 0;
    for (at, byte) in text.bytes().enumerate() {
        let entity = match byte {
            b'&' => "&amp;",
            b'<' => "&lt;",
            b'>' => "&gt;",
            b'"' => "&quot;",
            b'\'' => "&apos;",
            _ => continue,
        };
        out.push_str(&text[from..at]);
        out.push_str(entity);
        from = at + 1;
    }
    out.push_str(&text[from..]);
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn clean_removes_controls_and_caps_length() {
        assert_eq!(clean("  a\u{0}b\n\tc  ", 80), "a b c");
        assert_eq!(clean("abcdefgh", 5), "abcd…");
        assert_eq!(clean("µµµµµµ", 6), "µµµµµµ");
        assert_eq!(clean("", 5), "");
        assert_eq!(clean(" \u{1}a  b\r\n", 80), "a b");
        assert_eq!(clean("ab cd ef", 6), "ab cd…");
        assert_eq!(clean("a\u{202E}b\u{2066}c", 80), "abc");
    }

    proptest::proptest! {
        #[test]
        fn clean_joins_the_words_between_blanks_and_controls(text in "[a \\t\\n\\u{0}\\u{85}\\u{3000}µ→]{0,24}", max in 1..12usize) {
            let words: Vec<&str> =
                text.split(|c: char| c.is_whitespace() || c.is_control()).filter(|w| !w.is_empty()).collect();
            let joined = words.join(" ");
            let expected = if joined.chars().count() <= max {
                joined
            } else {
                format!("{}…", joined.chars().take(max - 1).collect::<String>().trim_end())
            };
            proptest::prop_assert_eq!(clean(&text, max), expected);
        }
    }

    #[test]
    fn escape_xml_escapes_all_five() {
        assert_eq!(escape_xml(r#"<a href='x'>&"#), "&lt;a href=&apos;x&apos;&gt;&amp;");
        assert_eq!(escape_xml("µ → \"1\""), "µ → &quot;1&quot;");
    }
}
