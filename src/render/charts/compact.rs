//! The tests' oracle for the chart's SVG form: plotters' own SVG backend's output, made
//! smaller (issue 27's footprint). The site's charts are written in this form directly
//! (`frame` for the frame, `marks` for the data); tests draw with plotters' backend, run
//! `compact` over it and require the same bytes.

use super::plot::FONT;
use super::svg::root_tag_end;
use memchr::memmem;
use std::borrow::Cow;
use std::fmt::Write as _;
use std::ops::Range;

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
/// About half of a chart's bytes. Every step reads plotters' one-element-a-line output,
/// where a `"` only ever delimits an attribute (plotters escapes it in values and text), and
/// passes lines on without copying them again: rendering a run's charts calls this a dozen
/// times, and its passes were a tenth of a log-free build's time.
pub(super) fn compact(svg: &str) -> String {
    hoist_font(merge_strokes(&dots_as_markers(&trim_defaults(svg))))
}

/// `text` without any of the non-overlapping occurrences of `pattern` (`str::replace` with
/// nothing), borrowed when there is none.
fn remove_all<'a>(text: &'a str, pattern: &str) -> Cow<'a, str> {
    let mut found = memmem::find_iter(text.as_bytes(), pattern.as_bytes()).peekable();
    if found.peek().is_none() {
        return Cow::Borrowed(text);
    }
    let mut out = String::with_capacity(text.len());
    let mut from = 0;
    for at in found {
        out.push_str(&text[from..at]);
        from = at + pattern.len();
    }
    out.push_str(&text[from..]);
    Cow::Owned(out)
}

fn trim_defaults(svg: &str) -> String {
    let trimmed = remove_all(svg, " opacity=\"1\"");
    let trimmed = remove_all(&trimmed, " stroke=\"none\" stroke-width=\"1\"");
    let trimmed = remove_all(&trimmed, " stroke=\"none\"");
    const FONT_SIZE: &str = "font-size=\"";
    let mut out = String::with_capacity(trimmed.len());
    let mut rest: &str = &trimmed;
    while let Some(at) = memmem::find(rest.as_bytes(), FONT_SIZE.as_bytes()) {
        let (head, tail) = rest.split_at(at + FONT_SIZE.len());
        out.push_str(head);
        let end = memchr::memchr(b'"', tail.as_bytes()).unwrap_or(tail.len());
        match tail[..end].parse::<f64>() {
            Ok(size) => {
                let start = out.len();
                let _ = write!(out, "{size:.2}");
                // `16.90` -> `16.9`, `16.00` -> `16`: zeros after the point, then the point.
                while out.len() > start && out.ends_with('0') {
                    out.pop();
                }
                if out.len() > start && out.ends_with('.') {
                    out.pop();
                }
            }
            Err(_) => out.push_str(&tail[..end]),
        }
        rest = &tail[end..];
    }
    out.push_str(rest);
    out
}

/// Calls `each(name, value)` for a tag body's `name="value"` pairs in order, until it returns
/// false. False when the body is anything else or a value holds markup (so an element this
/// module does not know stays as it is), or when `each` refused a pair.
fn each_pair<'a>(body: &'a str, mut each: impl FnMut(&'a str, &'a str) -> bool) -> bool {
    let mut rest = body.trim_start();
    while !rest.is_empty() {
        let Some((name, after)) = rest.split_once("=\"") else { return false };
        let Some(end) = memchr::memchr(b'"', after.as_bytes()) else { return false };
        let value = &after[..end];
        if name.bytes().any(|b| matches!(b, b' ' | b'<' | b'>' | b'"'))
            || value.bytes().any(|b| matches!(b, b'<' | b'>' | b'&'))
            || !each(name, value)
        {
            return false;
        }
        rest = after[end + 1..].trim_start();
    }
    true
}

/// Sets `slot` to `value` unless an earlier pair of the same name did (the first counts).
fn first<'a>(slot: &mut Option<&'a str>, value: &'a str) {
    slot.get_or_insert(value);
}

/// A dot as `trim_defaults` leaves it, one a line: `<circle cx="X" cy="Y" r="R"
/// [opacity="O"] fill="F"/>` -> (X, Y, R, O or "", F).
fn dot(line: &str) -> Option<[&str; 5]> {
    let body = line.strip_prefix("<circle ")?.strip_suffix("/>")?;
    let mut slots: [Option<&str>; 5] = [None; 5];
    let known = each_pair(body, |name, value| {
        let at = match name {
            "cx" => 0,
            "cy" => 1,
            "r" => 2,
            "opacity" => 3,
            "fill" => 4,
            _ => return false,
        };
        first(&mut slots[at], value);
        true
    });
    let [cx, cy, r, opacity, fill] = slots;
    known.then_some([cx?, cy?, r?, opacity.unwrap_or(""), fill?])
}

/// Runs of two or more consecutive dots of one radius, colour and opacity (a series'
/// per-cycle samples) become a polyline with no stroke and a circle marker at every vertex.
/// The marker (one per radius, colour and opacity) carries the fill, where the dark-mode
/// style's `[fill=..]` rules find it, and the opacity as `fill-opacity`. Returns the lines.
fn dots_as_markers(svg: &str) -> Vec<Cow<'_, str>> {
    let lines: Vec<&str> = svg.split_inclusive('\n').collect();
    let dots: Vec<Option<[&str; 5]>> = lines.iter().map(|line| dot(line.trim_end_matches('\n'))).collect();
    let mut markers: Vec<[&str; 3]> = Vec::new();
    let mut out = Vec::with_capacity(lines.len());
    let mut i = 0;
    while i < lines.len() {
        let Some([_, _, r, opacity, fill]) = dots[i] else {
            out.push(Cow::Borrowed(lines[i]));
            i += 1;
            continue;
        };
        let same = |d: &&Option<[&str; 5]>| d.is_some_and(|d| d[2..] == [r, opacity, fill]);
        let end = i + dots[i..].iter().take_while(same).count();
        if end - i < 2 {
            out.push(Cow::Borrowed(lines[i]));
            i += 1;
            continue;
        }
        let id = match markers.iter().position(|m| *m == [r, opacity, fill]) {
            Some(id) => id,
            None => {
                let mut marker = format!(
                    "<marker id=\"m{}\" markerUnits=\"userSpaceOnUse\" overflow=\"visible\"><circle r=\"{r}\" fill=\"{fill}\"",
                    markers.len()
                );
                if !opacity.is_empty() {
                    let _ = write!(marker, " fill-opacity=\"{opacity}\"");
                }
                marker.push_str("/></marker>\n");
                out.push(Cow::Owned(marker));
                markers.push([r, opacity, fill]);
                markers.len() - 1
            }
        };
        let mut polyline = format!(
            "<polyline fill=\"none\" marker-start=\"url(#m{id})\" marker-mid=\"url(#m{id})\" marker-end=\"url(#m{id})\" points=\""
        );
        for (k, [cx, cy, ..]) in dots[i..end].iter().flatten().enumerate() {
            if k > 0 {
                polyline.push(' ');
            }
            for part in [*cx, ",", *cy] {
                polyline.push_str(part);
            }
        }
        polyline.push_str("\"/>\n");
        out.push(Cow::Owned(polyline));
        i = end;
    }
    out
}

/// A stroke's vertices: a `<line>`'s two, or a `<polyline>`'s `points` (checked to be
/// `x,y` pairs, at least one).
#[derive(Clone, Copy)]
enum Vertices<'a> {
    Line([(&'a str, &'a str); 2]),
    Points(&'a str),
}

impl<'a> Vertices<'a> {
    fn for_each(self, mut each: impl FnMut((&'a str, &'a str))) {
        match self {
            Vertices::Line(ends) => ends.into_iter().for_each(each),
            Vertices::Points(points) => points.split_whitespace().filter_map(|p| p.split_once(',')).for_each(&mut each),
        }
    }
}

/// The style attributes a merged stroke keeps, in this order.
const STROKE_STYLE: [&str; 3] = ["opacity", "stroke", "stroke-width"];

/// A stroke: its style (the values of `STROKE_STYLE`; written as `<path>` attributes after
/// `fill="none"`) and its vertices.
type Stroke<'a> = ([Option<&'a str>; 3], Vertices<'a>);

/// A stroke as `trim_defaults` leaves it, one a line: `<polyline fill="none" [opacity]
/// stroke [stroke-width] points/>` or `<line [opacity] stroke [stroke-width] x1 y1 x2 y2/>`.
fn stroke(line: &str) -> Option<Stroke<'_>> {
    let (tag, body) = line.strip_suffix("/>")?.split_once(' ')?;
    let line_tag = match tag {
        "<line" => true,
        "<polyline" => false,
        _ => return None,
    };
    // fill, points, x1, y1, x2, y2, then the style.
    let mut slots: [Option<&str>; 9] = [None; 9];
    let known = each_pair(body, |name, value| {
        let at = match (name, line_tag) {
            ("fill", false) => 0,
            ("points", false) => 1,
            ("x1", true) => 2,
            ("y1", true) => 3,
            ("x2", true) => 4,
            ("y2", true) => 5,
            ("opacity", _) => 6,
            ("stroke", _) => 7,
            ("stroke-width", _) => 8,
            _ => return false,
        };
        first(&mut slots[at], value);
        true
    });
    let [fill, points, x1, y1, x2, y2, opacity, stroke, width] = slots;
    if !known || stroke.is_none() {
        return None;
    }
    let vertices = if line_tag {
        Vertices::Line([(x1?, y1?), (x2?, y2?)])
    } else {
        let points = points.filter(|_| fill == Some("none"))?;
        let mut tokens = points.split_whitespace().peekable();
        if tokens.peek().is_none() || !tokens.all(|p| p.contains(',')) {
            return None;
        }
        Vertices::Points(points)
    };
    Some(([opacity, stroke, width], vertices))
}

/// A path's data for `vertices` after the ones already in `d`: a move to the first, then a
/// vertical (`V`), horizontal (`H`) or general (`L`) line to each next one.
fn push_path<'a>(d: &mut String, vertices: Vertices<'a>) {
    let mut previous: Option<(&'a str, &'a str)> = None;
    vertices.for_each(|(nx, ny)| {
        let parts: [&str; 4] = match previous {
            None => ["M", nx, " ", ny],
            Some((x, _)) if nx == x => ["V", ny, "", ""],
            Some((_, y)) if ny == y => ["H", nx, "", ""],
            Some(_) => ["L", nx, " ", ny],
        };
        parts.iter().for_each(|part| d.push_str(part));
        previous = Some((nx, ny));
    });
}

/// Every stroke as a `<path>`, and consecutive strokes of one style as one path. A `<text>`
/// between two strokes of one style (an axis' tick labels between its ticks) is drawn
/// after the merged path: ticks and their labels do not overlap, so nothing paints
/// differently. Any other element ends the run, keeping the painting order.
fn merge_strokes(lines: &[Cow<'_, str>]) -> String {
    let items = items(lines);
    let is_text = |item: &Range<usize>| lines[item.start].starts_with("<text");
    // A stroke is one line; an item of several lines is a `<text>`.
    let strokes: Vec<Option<Stroke>> = items
        .iter()
        .map(|item| (item.len() == 1).then(|| stroke(lines[item.start].trim_end_matches('\n'))).flatten())
        .collect();
    let mut out = String::with_capacity(lines.iter().map(|l| l.len()).sum());
    let push_item = |out: &mut String, item: &Range<usize>| lines[item.clone()].iter().for_each(|l| out.push_str(l));
    let mut i = 0;
    while i < items.len() {
        let Some((style, vertices)) = strokes[i] else {
            push_item(&mut out, &items[i]);
            i += 1;
            continue;
        };
        out.push_str("<path fill=\"none\"");
        for (name, value) in STROKE_STYLE.iter().zip(style) {
            if let Some(value) = value {
                for part in [" ", name, "=\"", value, "\""] {
                    out.push_str(part);
                }
            }
        }
        out.push_str(" d=\"");
        push_path(&mut out, vertices);
        let mut last = i;
        for (j, item) in items.iter().enumerate().skip(i + 1) {
            if is_text(item) {
                continue;
            }
            match strokes[j] {
                Some((next, vertices)) if next == style => {
                    push_path(&mut out, vertices);
                    last = j;
                }
                _ => break,
            }
        }
        out.push_str("\"/>\n");
        // Between the merged strokes there are only texts.
        for item in items[i + 1..last + 1].iter().filter(|item| is_text(item)) {
            push_item(&mut out, item);
        }
        i = last + 1;
    }
    out
}

/// The lines as drawing items (ranges of lines): a `<text ..>` with its content and
/// `</text>` lines is one item, every other line one.
fn items(lines: &[Cow<'_, str>]) -> Vec<Range<usize>> {
    let mut items = Vec::with_capacity(lines.len());
    let mut text: Option<usize> = None;
    for (at, line) in lines.iter().enumerate() {
        match text {
            Some(start) if line.trim_end() == "</text>" => {
                items.push(start..at + 1);
                text = None;
            }
            Some(_) => {}
            None if line.starts_with("<text") && !line.contains("</text>") => text = Some(at),
            None => items.push(at..at + 1),
        }
    }
    items.extend(text.map(|start| start..lines.len()));
    items
}

/// The font family written on every `<text>` once on the root `<svg>` (inherited).
fn hoist_font(svg: String) -> String {
    let family = format!(" font-family=\"{FONT}\"");
    let Some(root_end) = root_tag_end(&svg) else {
        return svg;
    };
    let (root, body) = svg.split_at(root_end);
    let body = remove_all(body, &family);
    if let Cow::Borrowed(_) = body {
        return svg;
    }
    let mut out = String::with_capacity(root.len() + family.len() + body.len());
    for part in [root, &family, &body] {
        out.push_str(part);
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

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
}
