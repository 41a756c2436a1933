//! SVG text this module writes itself: the `<title>`/`<desc>` text alternative, the
//! dark-mode `<style>`, and the hand-made fallback drawing for "no data" and failures.
//! Everything is escaped here. `compact` trims plotters' output (issue 27's footprint).

use super::layout::Layout;
use super::palette::{hex, scheme_style, BACKGROUND, TEXT};
use super::plot::FONT;
use super::text::{clean, escape_xml};

/// Longest `<title>`/`<desc>` text kept (characters).
const ALT_CHARS: usize = 4000;

/// Inserts `<title>`, `<desc>` and the dark-mode `<style>` right after the opening
/// `<svg ...>` tag.
pub(super) fn with_alt_text(svg: &str, title: &str, description: &str) -> String {
    let alt = format!(
        "<title>{}</title>\n<desc>{}</desc>\n{}",
        escape_xml(&clean(title, ALT_CHARS)),
        escape_xml(&clean(description, ALT_CHARS)),
        scheme_style()
    );
    let insert_at = svg
        .find("<svg")
        .and_then(|start| svg[start..].find('>').map(|end| start + end + 1))
        .map_or(0, |end| end + usize::from(svg[end..].starts_with('\n')));
    let mut out = String::with_capacity(svg.len() + alt.len());
    out.push_str(&svg[..insert_at]);
    out.push_str(&alt);
    out.push_str(&svg[insert_at..]);
    out
}

/// Plotters' SVG without what draws nothing different: attributes at their SVG default
/// (`opacity="1"`, `stroke="none"`, the `stroke-width="1"` of a shape without a stroke; the
/// drawing has no `<g>` to inherit from) and font sizes to two decimals (`16.935483870967744`
/// -> `16.94`). About a fifth of a chart's bytes, most of them its per-cycle dots.
pub(super) fn compact(svg: &str) -> String {
    let trimmed = svg
        .replace(" opacity=\"1\"", "")
        .replace(" stroke=\"none\" stroke-width=\"1\"", "")
        .replace(" stroke=\"none\"", "");
    let mut out = String::with_capacity(trimmed.len());
    let mut rest = trimmed.as_str();
    const FONT_SIZE: &str = "font-size=\"";
    while let Some(at) = rest.find(FONT_SIZE) {
        let (head, tail) = rest.split_at(at + FONT_SIZE.len());
        out.push_str(head);
        let end = tail.find('"').unwrap_or(tail.len());
        match tail[..end].parse::<f64>() {
            Ok(size) => {
                let text = format!("{size:.2}");
                out.push_str(text.trim_end_matches('0').trim_end_matches('.'));
            }
            Err(_) => out.push_str(&tail[..end]),
        }
        rest = &tail[end..];
    }
    out.push_str(rest);
    out
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
    fn compact_drops_default_attributes_and_rounds_font_sizes() {
        let plotters = concat!(
            "<circle cx=\"1\" cy=\"2\" r=\"2\" opacity=\"0.3\" fill=\"#0072B2\" stroke=\"none\" stroke-width=\"1\"/>\n",
            "<rect x=\"0\" opacity=\"1\" fill=\"#FFFFFF\" stroke=\"none\"/>\n",
            "<text font-size=\"16.935483870967744\" fill=\"#222222\">a</text><text font-size=\"16\">b</text>\n",
            "<polyline fill=\"none\" stroke=\"#0072B2\" stroke-width=\"2\"/>\n",
        );
        assert_eq!(
            compact(plotters),
            concat!(
                "<circle cx=\"1\" cy=\"2\" r=\"2\" opacity=\"0.3\" fill=\"#0072B2\"/>\n",
                "<rect x=\"0\" fill=\"#FFFFFF\"/>\n",
                "<text font-size=\"16.94\" fill=\"#222222\">a</text><text font-size=\"16\">b</text>\n",
                "<polyline fill=\"none\" stroke=\"#0072B2\" stroke-width=\"2\"/>\n",
            )
        );
    }

    #[test]
    fn message_escapes_the_title() {
        let svg = message("<b>", "no data", &super::super::layout::CHART);
        assert!(svg.contains("&lt;b&gt;") && !svg.contains("<b>"));
        assert!(svg.contains(">no data</text>"));
    }
}
