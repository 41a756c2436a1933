//! SVG text this module writes itself: the `<title>`/`<desc>` text alternative, the
//! dark-mode `<style>`, and the hand-made fallback drawing for "no data" and failures.
//! Everything is escaped here. The chart itself is written in the compact form that
//! `compact` (the tests' oracle) gives plotters' SVG: its frame by `frame`, its data by
//! `marks`.

use super::layout::Layout;
use super::palette::{hex, scheme_style, BACKGROUND, TEXT};
use super::plot::FONT;
use super::text::{clean, escape_xml};

/// Longest `<title>`/`<desc>` text kept (characters).
const ALT_CHARS: usize = 4000;

/// Inserts `<title>`, `<desc>` and the dark-mode `<style>` (the colours `svg` paints)
/// right after the opening `<svg ...>` tag.
pub(super) fn with_alt_text(svg: &str, title: &str, description: &str) -> String {
    let alt = format!(
        "<title>{}</title>\n<desc>{}</desc>\n{}",
        escape_xml(&clean(title, ALT_CHARS)),
        escape_xml(&clean(description, ALT_CHARS)),
        scheme_style(svg)
    );
    let insert_at = root_tag_end(svg).map_or(0, |end| end + 1 + usize::from(svg[end + 1..].starts_with('\n')));
    let mut out = String::with_capacity(svg.len() + alt.len());
    out.push_str(&svg[..insert_at]);
    out.push_str(&alt);
    out.push_str(&svg[insert_at..]);
    out
}

/// Where the root `<svg ...>` tag ends (its `>`).
pub(super) fn root_tag_end(svg: &str) -> Option<usize> {
    svg.find("<svg").and_then(|at| svg[at..].find('>').map(|end| at + end))
}

/// A chart-sized SVG with the title and a one-line message (e.g. "no data").
pub(super) fn message(title: &str, text: &str, layout: &Layout) -> String {
    let (w, h) = (layout.width, layout.height);
    format!(
        concat!(
            "<svg width=\"{w}\" height=\"{h}\" viewBox=\"0 0 {w} {h}\" ",
            "xmlns=\"http://www.w3.org/2000/svg\">\n",
            "<rect x=\"0\" y=\"0\" width=\"{w}\" height=\"{h}\" fill=\"{bg}\"/>\n",
            "<text x=\"{cx}\" y=\"30\" text-anchor=\"middle\" font-family=\"{font}\" ",
            "font-size=\"16\" fill=\"{fg}\">{title}</text>\n",
            "<text x=\"{cx}\" y=\"{cy}\" text-anchor=\"middle\" font-family=\"{font}\" ",
            "font-size=\"14\" fill=\"{fg}\">{text}</text>\n",
            "</svg>\n"
        ),
        w = w,
        h = h,
        cx = w / 2,
        cy = h / 2,
        bg = hex(BACKGROUND),
        fg = hex(TEXT),
        font = FONT,
        title = escape_xml(&clean(title, layout.title_line_chars)),
        text = escape_xml(text),
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn alt_text_goes_right_after_the_svg_tag() {
        let svg = with_alt_text("<svg a=\"1\">\n<rect/>\n</svg>\n", "T<", "D&");
        let head = "<svg a=\"1\">\n<title>T&lt;</title>\n<desc>D&amp;</desc>\n<style>\n";
        assert!(svg.starts_with(head), "{svg}");
        assert!(svg.ends_with("</style>\n<rect/>\n</svg>\n"), "{svg}");
    }

    #[test]
    fn message_escapes_the_title() {
        let svg = message("<b>", "no data", &super::super::layout::CHART);
        assert!(svg.contains("&lt;b&gt;") && !svg.contains("<b>"));
        assert!(svg.contains(">no data</text>"));
    }
}
