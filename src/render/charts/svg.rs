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
/// (`opacity="1"`, `stroke="none"`, the `stroke-width="1"` of a shape without a stroke;
/// plotters writes no `<g>` to inherit from), font sizes to two decimals
/// (`16.935483870967744` -> `16.94`), and consecutive dots of one colour and opacity (the
/// per-cycle dots) in one `<g fill fill-opacity>` (`group_dots`). About a third of a chart's
/// bytes.
pub(super) fn compact(svg: &str) -> String {
    group_dots(&trim_defaults(svg))
}

/// A dot as plotters writes it, one a line: `<circle cx=".." cy=".." r=".." opacity="O"
/// fill="F"/>` -> (`cx=".." cy=".." r=".."`, O, F).
fn dot(line: &str) -> Option<(&str, &str, &str)> {
    let body = line.strip_prefix("<circle ")?.strip_suffix("/>")?;
    let (geometry, rest) = body.split_once(" opacity=\"")?;
    let (opacity, rest) = rest.split_once("\" fill=\"")?;
    let fill = rest.strip_suffix('"')?;
    let plain = |s: &str| !s.contains('"') && !s.contains('=');
    (geometry.starts_with("cx=\"") && plain(opacity) && plain(fill)).then_some((geometry, opacity, fill))
}

/// Runs of two or more consecutive dots of one fill and opacity become one group: the fill
/// and its opacity (`fill-opacity`, applied to each dot as `opacity` was: overlapping dots
/// still darken) on the `<g>`, where the dark-mode style's `[fill=..]` rules find it too.
fn group_dots(svg: &str) -> String {
    let lines: Vec<&str> = svg.split_inclusive('\n').collect();
    let mut out = String::with_capacity(svg.len());
    let mut i = 0;
    while i < lines.len() {
        let Some((_, opacity, fill)) = dot(lines[i].trim_end_matches('\n')) else {
            out.push_str(lines[i]);
            i += 1;
            continue;
        };
        let same = |line: &str| dot(line.trim_end_matches('\n')).is_some_and(|(_, o, f)| o == opacity && f == fill);
        let end = i + lines[i..].iter().take_while(|l| same(l)).count();
        if end - i < 2 || !lines[end - 1].ends_with('\n') {
            out.push_str(lines[i]);
            i += 1;
            continue;
        }
        out.push_str(&format!("<g fill=\"{fill}\" fill-opacity=\"{opacity}\">\n"));
        for line in &lines[i..end] {
            let (geometry, _, _) = dot(line.trim_end_matches('\n')).expect("a dot");
            out.push_str(&format!("<circle {geometry}/>\n"));
        }
        out.push_str("</g>\n");
        i = end;
    }
    out
}

fn trim_defaults(svg: &str) -> String {
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
        let dots = concat!(
            "<circle cx=\"1\" cy=\"2\" r=\"2\" opacity=\"0.3\" fill=\"#0072B2\" stroke=\"none\" stroke-width=\"1\"/>\n",
            "<circle cx=\"3\" cy=\"4\" r=\"2\" opacity=\"0.3\" fill=\"#0072B2\" stroke=\"none\" stroke-width=\"1\"/>\n",
            "<circle cx=\"5\" cy=\"6\" r=\"2\" opacity=\"0.3\" fill=\"#C14F00\" stroke=\"none\" stroke-width=\"1\"/>\n",
            "<circle cx=\"7\" cy=\"8\" r=\"4\" opacity=\"1\" fill=\"#C14F00\" stroke=\"none\" stroke-width=\"1\"/>\n",
        );
        assert_eq!(
            compact(dots),
            concat!(
                "<g fill=\"#0072B2\" fill-opacity=\"0.3\">\n<circle cx=\"1\" cy=\"2\" r=\"2\"/>\n",
                "<circle cx=\"3\" cy=\"4\" r=\"2\"/>\n</g>\n",
                "<circle cx=\"5\" cy=\"6\" r=\"2\" opacity=\"0.3\" fill=\"#C14F00\"/>\n",
                "<circle cx=\"7\" cy=\"8\" r=\"4\" fill=\"#C14F00\"/>\n",
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
