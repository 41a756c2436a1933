//! SVG text this module writes itself: the `<title>`/`<desc>` text alternative, the
//! dark-mode `<style>`, and the hand-made fallback drawing for "no data" and failures.
//! Everything is escaped here. `compact` trims plotters' output (issue 27's footprint).

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

/// Plotters' SVG in fewer bytes, drawing the same chart (issue 27's footprint):
/// - attributes at their SVG default dropped (`opacity="1"`, `stroke="none"`, the
///   `stroke-width="1"` of a shape without a stroke) and font sizes to two decimals
///   (`16.935483870967744` -> `16.94`): `trim_defaults`;
/// - runs of per-cycle dots of one colour, opacity and radius as one polyline whose vertices
///   carry a circle marker: each marker is painted on its own, so overlapping dots still
///   darken as separate circles did: `dots_as_markers`;
/// - strokes of one style (grid lines, ticks, whiskers) as one `<path>`, vertical and
///   horizontal segments as `V`/`H`: `merge_strokes`;
/// - the font family once, on the root element, inherited by every text: `hoist_font`.
///
/// About half of a chart's bytes.
pub(super) fn compact(svg: &str) -> String {
    hoist_font(&merge_strokes(&dots_as_markers(&trim_defaults(svg))))
}

/// A dot as `trim_defaults` leaves it, one a line: `<circle cx="X" cy="Y" r="R"
/// [opacity="O"] fill="F"/>` -> (X, Y, R, O or "", F).
fn dot(line: &str) -> Option<[&str; 5]> {
    let pairs = pairs(line.strip_prefix("<circle ")?.strip_suffix("/>")?)?;
    let only = pairs.iter().all(|(name, _)| ["cx", "cy", "r", "opacity", "fill"].contains(name));
    let get = |name| value(&pairs, name);
    only.then_some([get("cx")?, get("cy")?, get("r")?, get("opacity").unwrap_or(""), get("fill")?])
}

/// A tag's `name="value"` pairs; `None` when its body is anything else, or a value holds
/// markup (so an element this module does not know stays as it is).
fn pairs(body: &str) -> Option<Vec<(&str, &str)>> {
    let mut pairs = Vec::new();
    let mut rest = body.trim_start();
    while !rest.is_empty() {
        let (name, after) = rest.split_once("=\"")?;
        let end = after.find('"')?;
        let value = &after[..end];
        if name.contains([' ', '<', '>', '"']) || value.contains(['<', '>', '&']) {
            return None;
        }
        pairs.push((name, value));
        rest = after[end + 1..].trim_start();
    }
    Some(pairs)
}

fn value<'a>(pairs: &[(&str, &'a str)], name: &str) -> Option<&'a str> {
    pairs.iter().find(|(n, _)| *n == name).map(|(_, v)| *v)
}

/// Runs of two or more consecutive dots of one radius, colour and opacity (a series'
/// per-cycle samples) become a polyline with no stroke and a circle marker at every vertex.
/// The marker (one per radius, colour and opacity) carries the fill, where the dark-mode
/// style's `[fill=..]` rules find it, and the opacity as `fill-opacity`.
fn dots_as_markers(svg: &str) -> String {
    let lines: Vec<&str> = svg.split_inclusive('\n').collect();
    let dots: Vec<Option<[&str; 5]>> = lines.iter().map(|line| dot(line.trim_end_matches('\n'))).collect();
    let mut markers: Vec<[&str; 3]> = Vec::new();
    let mut out = String::with_capacity(svg.len());
    let mut i = 0;
    while i < lines.len() {
        let Some([_, _, r, opacity, fill]) = dots[i] else {
            out.push_str(lines[i]);
            i += 1;
            continue;
        };
        let same = |d: &&Option<[&str; 5]>| d.is_some_and(|d| d[2..] == [r, opacity, fill]);
        let end = i + dots[i..].iter().take_while(same).count();
        if end - i < 2 {
            out.push_str(lines[i]);
            i += 1;
            continue;
        }
        let id = match markers.iter().position(|m| *m == [r, opacity, fill]) {
            Some(id) => id,
            None => {
                let fill_opacity =
                    if opacity.is_empty() { String::new() } else { format!(" fill-opacity=\"{opacity}\"") };
                out.push_str(&format!(
                    "<marker id=\"m{}\" markerUnits=\"userSpaceOnUse\" overflow=\"visible\"><circle r=\"{r}\" fill=\"{fill}\"{fill_opacity}/></marker>\n",
                    markers.len()
                ));
                markers.push([r, opacity, fill]);
                markers.len() - 1
            }
        };
        let points: Vec<String> = dots[i..end].iter().flatten().map(|[cx, cy, ..]| format!("{cx},{cy}")).collect();
        out.push_str(&format!(
            "<polyline fill=\"none\" marker-start=\"url(#m{id})\" marker-mid=\"url(#m{id})\" marker-end=\"url(#m{id})\" points=\"{}\"/>\n",
            points.join(" ")
        ));
        i = end;
    }
    out
}

/// A stroke's style as `<path>` attributes, and its vertices.
type Stroke<'a> = (String, Vec<(&'a str, &'a str)>);

/// A stroke as `trim_defaults` leaves it, one a line: `<polyline fill="none" [opacity]
/// stroke [stroke-width] points/>` or `<line [opacity] stroke [stroke-width] x1 y1 x2 y2/>`
/// -> (its style as `<path>` attributes, its vertices).
fn stroke(line: &str) -> Option<Stroke<'_>> {
    let (tag, body) = line.strip_suffix("/>")?.split_once(' ')?;
    let pairs = pairs(body)?;
    let get = |name| value(&pairs, name);
    let (geometry, vertices): (&[&str], Vec<(&str, &str)>) = match tag {
        "<polyline" if get("fill") == Some("none") => {
            let vertices: Option<Vec<_>> = get("points")?.split_whitespace().map(|p| p.split_once(',')).collect();
            (&["fill", "points"], vertices?)
        }
        "<line" => (&["x1", "y1", "x2", "y2"], vec![(get("x1")?, get("y1")?), (get("x2")?, get("y2")?)]),
        _ => return None,
    };
    let style = ["opacity", "stroke", "stroke-width"];
    let known = pairs.iter().all(|(name, _)| geometry.contains(name) || style.contains(name));
    if !known || vertices.is_empty() || get("stroke").is_none() {
        return None;
    }
    let mut attributes = String::from("fill=\"none\"");
    for name in style {
        if let Some(v) = get(name) {
            attributes.push_str(&format!(" {name}=\"{v}\""));
        }
    }
    Some((attributes, vertices))
}

/// A path's data for `vertices` after the ones already in `d`: a move to the first, then a
/// vertical (`V`), horizontal (`H`) or general (`L`) line to each next one.
fn push_path(d: &mut String, vertices: &[(&str, &str)]) {
    let Some(((mut x, mut y), rest)) = vertices.split_first().map(|(f, r)| (*f, r)) else { return };
    d.push_str(&format!("M{x} {y}"));
    for &(nx, ny) in rest {
        match (nx == x, ny == y) {
            (true, _) => d.push_str(&format!("V{ny}")),
            (false, true) => d.push_str(&format!("H{nx}")),
            (false, false) => d.push_str(&format!("L{nx} {ny}")),
        }
        (x, y) = (nx, ny);
    }
}

/// Every stroke as a `<path>`, and consecutive strokes of one style as one path. A `<text>`
/// between two strokes of one style (an axis' tick labels between its ticks) is drawn
/// after the merged path: ticks and their labels do not overlap, so nothing paints
/// differently. Any other element ends the run, keeping the painting order.
fn merge_strokes(svg: &str) -> String {
    let items = items(svg);
    let strokes: Vec<Option<Stroke>> = items.iter().map(|item| stroke(item.trim_end_matches('\n'))).collect();
    let mut out = String::with_capacity(svg.len());
    let mut i = 0;
    while i < items.len() {
        let Some((style, vertices)) = &strokes[i] else {
            out.push_str(items[i]);
            i += 1;
            continue;
        };
        let mut d = String::new();
        push_path(&mut d, vertices);
        let mut texts_between: Vec<&str> = Vec::new();
        let mut last = i;
        for (j, item) in items.iter().enumerate().skip(i + 1) {
            if item.starts_with("<text") {
                continue;
            }
            match &strokes[j] {
                Some((next, vertices)) if next == style => {
                    texts_between.extend(&items[last + 1..j]);
                    push_path(&mut d, vertices);
                    last = j;
                }
                _ => break,
            }
        }
        out.push_str(&format!("<path {style} d=\"{d}\"/>\n"));
        out.extend(texts_between);
        i = last + 1;
    }
    out
}

/// `svg` as drawing items: a `<text ..>` with its content and `</text>` lines is one item,
/// every other line one.
fn items(svg: &str) -> Vec<&str> {
    let mut items = Vec::new();
    let mut start = 0;
    let mut in_text = false;
    for (at, line) in svg.split_inclusive('\n').scan(0, |at, line| {
        let this = *at;
        *at += line.len();
        Some((this, line))
    }) {
        if !in_text {
            start = at;
            in_text = line.starts_with("<text") && !line.contains("</text>");
        } else if line.trim_end() == "</text>" {
            in_text = false;
        }
        if !in_text {
            items.push(&svg[start..at + line.len()]);
        }
    }
    if in_text {
        items.push(&svg[start..]);
    }
    items
}

/// Where the root `<svg ...>` tag ends (its `>`).
fn root_tag_end(svg: &str) -> Option<usize> {
    svg.find("<svg").and_then(|at| svg[at..].find('>').map(|end| at + end))
}

/// The font family written on every `<text>` once on the root `<svg>` (inherited).
fn hoist_font(svg: &str) -> String {
    let family = format!(" font-family=\"{FONT}\"");
    let Some(root_end) = root_tag_end(svg) else {
        return svg.to_string();
    };
    let (root, body) = svg.split_at(root_end);
    if !body.contains(&family) {
        return svg.to_string();
    }
    format!("{root}{family}{}", body.replace(&family, ""))
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
            "<svg width=\"4\">\n",
            "<circle cx=\"1\" cy=\"2\" r=\"2\" opacity=\"0.3\" fill=\"#0072B2\" stroke=\"none\" stroke-width=\"1\"/>\n",
            "<rect x=\"0\" opacity=\"1\" fill=\"#FFFFFF\" stroke=\"none\"/>\n",
            "<text font-family=\"sans-serif\" font-size=\"16.935483870967744\" fill=\"#222222\">a</text>\n",
            "<text font-family=\"sans-serif\" font-size=\"16\">b</text>\n",
            "</svg>\n",
        );
        assert_eq!(
            compact(plotters),
            concat!(
                "<svg width=\"4\" font-family=\"sans-serif\">\n",
                "<circle cx=\"1\" cy=\"2\" r=\"2\" opacity=\"0.3\" fill=\"#0072B2\"/>\n",
                "<rect x=\"0\" fill=\"#FFFFFF\"/>\n",
                "<text font-size=\"16.94\" fill=\"#222222\">a</text>\n",
                "<text font-size=\"16\">b</text>\n",
                "</svg>\n",
            )
        );
    }

    #[test]
    fn runs_of_dots_become_markers_on_a_polyline() {
        let dot = |x: u32, r: u32, opacity: &str, fill: &str| {
            let opacity = if opacity.is_empty() { String::new() } else { format!(" opacity=\"{opacity}\"") };
            format!("<circle cx=\"{x}\" cy=\"{}\" r=\"{r}\"{opacity} fill=\"{fill}\" stroke=\"none\" stroke-width=\"1\"/>\n", x + 1)
        };
        let svg = [
            dot(1, 2, "0.3", "#0072B2"),
            dot(3, 2, "0.3", "#0072B2"),
            dot(5, 2, "0.3", "#C14F00"),
            dot(7, 4, "", "#C14F00"),
            dot(9, 4, "", "#C14F00"),
            "<rect/>\n".into(),
            dot(11, 2, "0.3", "#0072B2"),
            dot(13, 2, "0.3", "#0072B2"),
        ]
        .concat();
        let marks =
            |id: u32| format!("marker-start=\"url(#m{id})\" marker-mid=\"url(#m{id})\" marker-end=\"url(#m{id})\"");
        let marker = "markerUnits=\"userSpaceOnUse\" overflow=\"visible\"";
        assert_eq!(
            compact(&svg),
            [
                format!(
                    "<marker id=\"m0\" {marker}><circle r=\"2\" fill=\"#0072B2\" fill-opacity=\"0.3\"/></marker>\n"
                ),
                format!("<polyline fill=\"none\" {} points=\"1,2 3,4\"/>\n", marks(0)),
                "<circle cx=\"5\" cy=\"6\" r=\"2\" opacity=\"0.3\" fill=\"#C14F00\"/>\n".into(),
                format!("<marker id=\"m1\" {marker}><circle r=\"4\" fill=\"#C14F00\"/></marker>\n"),
                format!("<polyline fill=\"none\" {} points=\"7,8 9,10\"/>\n", marks(1)),
                "<rect/>\n".into(),
                format!("<polyline fill=\"none\" {} points=\"11,12 13,14\"/>\n", marks(0)),
            ]
            .concat()
        );
    }

    #[test]
    fn strokes_of_one_style_become_one_path_across_texts_only() {
        let svg = concat!(
            "<line opacity=\"0.05\" stroke=\"#000000\" stroke-width=\"1\" x1=\"77\" y1=\"387\" x2=\"77\" y2=\"140\"/>\n",
            "<line opacity=\"0.05\" stroke=\"#000000\" stroke-width=\"1\" x1=\"62\" y1=\"300\" x2=\"451\" y2=\"300\"/>\n",
            "<polyline fill=\"none\" stroke=\"#666666\" stroke-width=\"1\" points=\"57,344 62,344 \"/>\n",
            "<text x=\"53\" font-size=\"15.48\">\n5\n</text>\n",
            "<polyline fill=\"none\" stroke=\"#666666\" stroke-width=\"1\" points=\"57,296 62,290 \"/>\n",
            "<text x=\"53\">\n10\n</text>\n",
            "<polygon fill=\"#C14F00\" points=\"1,2 3,4 5,6 \"/>\n",
            "<polyline fill=\"none\" stroke=\"#666666\" stroke-width=\"1\" points=\"1,2 1,3 \"/>\n",
            "<polyline fill=\"none\" opacity=\"0.8\" stroke=\"#666666\" stroke-width=\"1\" points=\"1,2 1,3 \"/>\n",
            "<polyline fill=\"#C14F00\" stroke=\"#666666\" points=\"1,2 1,3 \"/>\n",
        );
        assert_eq!(
            compact(svg),
            concat!(
                "<path fill=\"none\" opacity=\"0.05\" stroke=\"#000000\" stroke-width=\"1\" d=\"M77 387V140M62 300H451\"/>\n",
                "<path fill=\"none\" stroke=\"#666666\" stroke-width=\"1\" d=\"M57 344H62M57 296L62 290\"/>\n",
                "<text x=\"53\" font-size=\"15.48\">\n5\n</text>\n",
                "<text x=\"53\">\n10\n</text>\n",
                "<polygon fill=\"#C14F00\" points=\"1,2 3,4 5,6 \"/>\n",
                "<path fill=\"none\" stroke=\"#666666\" stroke-width=\"1\" d=\"M1 2V3\"/>\n",
                "<path fill=\"none\" opacity=\"0.8\" stroke=\"#666666\" stroke-width=\"1\" d=\"M1 2V3\"/>\n",
                "<polyline fill=\"#C14F00\" stroke=\"#666666\" points=\"1,2 1,3 \"/>\n",
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
