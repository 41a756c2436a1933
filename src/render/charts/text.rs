//! Untrusted text for charts: control characters removed, length capped, XML escaping for
//! the parts of the SVG that this module writes itself (plotters escapes its own `<text>`).

/// Collapses control characters (invalid in XML 1.0 even when escaped) and runs of
/// whitespace into single spaces, trims, and caps the length at `max_chars` with an ellipsis.
pub(super) fn clean(text: &str, max_chars: usize) -> String {
    let collapsed = text
        .split(|c: char| c.is_whitespace() || c.is_control())
        .filter(|word| !word.is_empty())
        .collect::<Vec<_>>()
        .join(" ");
    if collapsed.chars().count() <= max_chars {
        return collapsed;
    }
    let kept: String = collapsed.chars().take(max_chars.saturating_sub(1)).collect();
    format!("{}…", kept.trim_end())
}

/// Escapes `& < > " '` for XML text and attribute values.
pub(super) fn escape_xml(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    for c in text.chars() {
        match c {
            '&' => out.push_str("&amp;"),
            '<' => out.push_str("&lt;"),
            '>' => out.push_str("&gt;"),
            '"' => out.push_str("&quot;"),
            '\'' => out.push_str("&apos;"),
            other => out.push(other),
        }
    }
    out
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
    }

    #[test]
    fn escape_xml_escapes_all_five() {
        assert_eq!(escape_xml(r#"<a href='x'>&"#), "&lt;a href=&apos;x&apos;&gt;&amp;");
    }
}
