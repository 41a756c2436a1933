//! Untrusted markdown (NOTES.md) -> safe HTML with pulldown-cmark: raw HTML is shown as
//! text, never passed through; links and images keep only `http`, `https`, `mailto` and
//! relative targets that stay in the page's folder or below (others are dropped, their text
//! kept); an image from another host is never
//! embedded (it would be fetched by every reader: a tracking pixel), it is shown as a link. Tables are wrapped in the site's
//! horizontal scroll box, as every other table of the site.

use pulldown_cmark::{html, CowStr, Event, HeadingLevel, Options, Parser, Tag, TagEnd};

/// Renders `markdown`; its headings are moved `shift` levels down (a `#` becomes `h1+shift`,
/// at most `h6`) so that notes nest under the page's own headings.
pub(crate) fn to_html(markdown: &str, shift: usize) -> String {
    let options = Options::ENABLE_TABLES | Options::ENABLE_STRIKETHROUGH;
    let mut dropped_links = 0usize;
    let mut in_dropped_image = 0usize;
    let mut links = 0usize;
    // For each open image: whether it became a link (a remote image outside any link).
    let mut remote_images: Vec<bool> = Vec::new();
    let events = Parser::new_ext(markdown, options).filter_map(|event| match event {
        Event::Html(raw) | Event::InlineHtml(raw) => Some(Event::Text(raw)),
        Event::Start(Tag::Heading { level, id, classes, attrs }) => {
            Some(Event::Start(Tag::Heading { level: lower(level, shift), id, classes, attrs }))
        }
        Event::End(TagEnd::Heading(level)) => Some(Event::End(TagEnd::Heading(lower(level, shift)))),
        Event::Start(Tag::Link { dest_url, .. }) if !safe_url(&dest_url) => {
            dropped_links += 1;
            None
        }
        Event::End(TagEnd::Link) if dropped_links > 0 => {
            dropped_links -= 1;
            None
        }
        Event::Start(Tag::Link { .. }) => {
            links += 1;
            Some(event)
        }
        Event::End(TagEnd::Link) => {
            links = links.saturating_sub(1);
            Some(event)
        }
        Event::Start(Tag::Image { dest_url, .. }) if !safe_url(&dest_url) => {
            in_dropped_image += 1;
            None
        }
        Event::End(TagEnd::Image) if in_dropped_image > 0 => {
            in_dropped_image -= 1;
            None
        }
        // A remote image would be fetched by every reader's browser (a tracking pixel): it is
        // shown as a link to it, or as its text inside a link.
        Event::Start(Tag::Image { link_type, dest_url, title, id }) if remote(&dest_url) => {
            remote_images.push(links == 0);
            (links == 0).then_some(Event::Start(Tag::Link { link_type, dest_url, title, id }))
        }
        Event::End(TagEnd::Image) if remote_images.last().is_some() => {
            remote_images.pop().unwrap_or(false).then_some(Event::End(TagEnd::Link))
        }
        other => Some(other),
    });
    let wrapped = events.flat_map(|event| match event {
        Event::Start(Tag::Table(_)) => vec![Event::Html(CowStr::Borrowed("<div class=\"table-wrap\">\n")), event],
        Event::End(TagEnd::Table) => vec![event, Event::Html(CowStr::Borrowed("</div>\n"))],
        // What the pages' escaper drops from run text (`escape`): these are put in unescaped.
        Event::Text(text) => vec![Event::Text(kept(text))],
        Event::Code(text) => vec![Event::Code(kept(text))],
        other => vec![other],
    });
    let mut out = String::new();
    html::push_html(&mut out, wrapped);
    out
}

/// `text` without what the pages' escaper drops (`escape::kept`), as it is when it has none.
fn kept(text: CowStr<'_>) -> CowStr<'_> {
    let cleaned = match super::escape::kept(&text) {
        std::borrow::Cow::Owned(cleaned) => Some(cleaned),
        std::borrow::Cow::Borrowed(_) => None,
    };
    cleaned.map_or(text, CowStr::from)
}

fn lower(level: HeadingLevel, shift: usize) -> HeadingLevel {
    const LEVELS: [HeadingLevel; 6] =
        [HeadingLevel::H1, HeadingLevel::H2, HeadingLevel::H3, HeadingLevel::H4, HeadingLevel::H5, HeadingLevel::H6];
    let index = LEVELS.iter().position(|l| *l == level).unwrap_or(0);
    LEVELS[(index + shift).min(5)]
}

/// Whether a URL leads off the site: a scheme, or a network path (`//host`, and `\\host` or
/// `/\\host`, which browsers read alike).
fn remote(url: &CowStr) -> bool {
    let url = url.trim();
    let normalized = url.replace('\\', "/");
    normalized.starts_with("//") || url.find([':', '/', '?', '#']).is_some_and(|i| url[i..].starts_with(':'))
}

/// `http:`, `https:`, `mailto:` or a relative reference (no scheme at all).
fn safe_url(url: &CowStr) -> bool {
    let url = url.trim();
    let scheme_end = url.find([':', '/', '?', '#']);
    match scheme_end {
        Some(i) if url[i..].starts_with(':') => {
            let scheme = url[..i].to_ascii_lowercase();
            matches!(scheme.as_str(), "http" | "https" | "mailto")
        }
        _ => !url.chars().any(char::is_control) && (remote(&CowStr::from(url)) || stays_beneath(url)),
    }
}

/// Whether a relative URL stays in the page's folder or below it: not rooted at `/` and with
/// no `..` segment, as a browser reads it (`\` for `/`, `%2e` for `.`). A note is shown on
/// pages at several depths of the site, and a link that climbs could leave its run's folder
/// or the site (`../../../../etc/passwd`, `/etc/passwd` from a page opened as a file).
fn stays_beneath(url: &str) -> bool {
    let path = url.split(['?', '#']).next().unwrap_or_default().replace('\\', "/");
    !path.starts_with('/') && !path.split('/').any(|segment| segment.to_ascii_lowercase().replace("%2e", ".") == "..")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn headings_nest_under_the_page() {
        assert_eq!(to_html("# Title\n\n#### deep\n", 3), "<h4>Title</h4>\n<h6>deep</h6>\n");
    }

    #[test]
    fn tables_sit_in_the_scroll_box() {
        let html = to_html("| a | b |\n|---|---|\n| 1 | 2 |\n", 0);
        assert!(html.starts_with("<div class=\"table-wrap\">\n<table>"), "{html}");
        assert!(html.trim_end().ends_with("</table>\n</div>"), "{html}");
    }

    #[test]
    fn raw_html_is_escaped() {
        let html = to_html("hi <script>alert(1)</script>\n\n<img src=x onerror=alert(1)>\n", 0);
        assert!(!html.contains("<script"), "{html}");
        assert!(!html.contains("<img"), "{html}");
        assert!(html.contains("&lt;script&gt;"), "{html}");
    }

    #[test]
    fn unsafe_links_are_dropped_text_kept() {
        let html = to_html("[click](javascript:alert(1)) [ok](https://example.org) [rel](x/y.html) [v](JaVaScRiPt:x) [d](data:text/html,x)", 0);
        assert!(!html.to_lowercase().contains("javascript"), "{html}");
        assert!(!html.contains("data:"), "{html}");
        assert!(html.contains("click"));
        assert!(html.contains("href=\"https://example.org\""));
        assert!(html.contains("href=\"x/y.html\""));
    }

    /// A relative link or image stays in the page's folder or below: one that climbs, or is
    /// rooted at `/`, is dropped (its text kept), however it is spelt.
    #[test]
    fn links_and_images_that_climb_out_are_dropped() {
        let notes = r"[a](../x.html) [b](/etc/passwd) [c](a/../../x) [d](..\\..\\x) [e](%2e%2E/x) [f](./ok.html#..)
![g](../../../secret.png) ![h](/secret.png) [i]

[i]: ../../../etc/passwd";
        let html = to_html(notes, 0);
        assert_eq!(html.matches("href=").count(), 1, "{html}");
        assert!(html.contains("<a href=\"./ok.html#..\">f</a>"), "{html}");
        assert!(!html.contains("<img"), "{html}");
        for text in ["a b c d e", "g h i"] {
            assert!(html.contains(text), "{text}: {html}");
        }
    }

    #[test]
    fn remote_images_are_links_never_embedded() {
        let notes = "![pixel](http://t.example/p.gif) ![p2](//t.example/p.gif) ![p3](/\\\\t.example/p.gif) \
                     ![p4](HTTPS://t.example/p.gif) [![inner](https://t.example/i.png)](https://example.org) ![ok](local.png)";
        let html = to_html(notes, 0);
        assert_eq!(html.matches("<img").count(), 1, "{html}");
        assert!(html.contains("src=\"local.png\""), "{html}");
        assert!(html.contains("<a href=\"http://t.example/p.gif\">pixel</a>"), "{html}");
        assert!(html.contains("<a href=\"//t.example/p.gif\">p2</a>"), "{html}");
        assert!(html.contains("<a href=\"https://example.org\">inner</a>"), "{html}");
    }

    #[test]
    fn controls_and_bidi_controls_are_dropped_from_notes() {
        let html = to_html("# a\u{202E}b\n\nc\u{1}d `e\u{2066}f` <g\u{7f}>", 0);
        assert!(html.contains("ab</h1>") && html.contains("cd") && html.contains("<code>ef</code>"), "{html}");
        assert!(html.contains("&lt;g&gt;"), "{html}");
    }

    #[test]
    fn unsafe_images_are_dropped() {
        let html = to_html("![x](javascript:alert(1)) ![y](pic.png)", 0);
        assert!(!html.contains("javascript"), "{html}");
        assert!(html.contains("src=\"pic.png\""), "{html}");
    }
}
