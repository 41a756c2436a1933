//! A chart's data written as SVG text directly: per-cycle dots, outliers beyond the y range,
//! whiskers, median lines and markers (`Mark`s, in pixels), each in exactly the form that
//! `compact` (the tests' oracle) gives plotters' drawing of it. The frame (title, legend,
//! grid, axes) is laid out by plotters and written by `frame::FrameBackend`; the data is most
//! of a chart's elements (a history chart holds a thousand markers), and it needs no layout.
//! Pixels come from the chart's own coordinate mapping,
//! held inside the plot area as plotters holds what it draws there (`plot`), so every mark
//! lies where plotters would have put it; the site's bytes are unchanged.

use plotters::style::{RGBAColor, ShapeStyle};
use std::fmt::Write as _;

/// One element of a chart's data, in pixels, with the plotters style it is drawn in.
#[derive(Debug)]
pub(super) enum Mark {
    /// A filled circle of `radius` centred on `at`.
    Dot { at: (i32, i32), radius: u32, style: ShapeStyle },
    /// A line through `points` (plotters' `<polyline>` of a path, or `<line>`).
    Stroke { style: ShapeStyle, points: Vec<(i32, i32)> },
    /// A filled polygon.
    Polygon { colour: RGBAColor, points: Vec<(i32, i32)> },
}

impl Mark {
    fn colour(&self) -> RGBAColor {
        match self {
            Mark::Dot { style, .. } | Mark::Stroke { style, .. } => style.color,
            Mark::Polygon { colour, .. } => *colour,
        }
    }
}

/// `marks` as SVG lines, as `compact` leaves plotters' drawing of them:
/// - attributes at their default left out (`opacity="1"`, a dot's `stroke="none"
///   stroke-width="1"`);
/// - a run of two or more dots of one radius, opacity and fill as a polyline with a circle
///   marker at every vertex (a `<marker>` defined where its style first appears, numbered
///   from `first_marker`: the markers the frame defined before);
/// - consecutive strokes of one style as one `<path>`, each stroke a move (`M`) then a
///   vertical (`V`), horizontal (`H`) or general (`L`) line to each next vertex.
pub(super) fn write(marks: &[Mark], first_marker: usize) -> String {
    // Plotters draws nothing in a colour of no opacity at all.
    let marks: Vec<&Mark> = marks.iter().filter(|m| m.colour().3 != 0.0).collect();
    let mut out = String::new();
    // The markers defined so far: a dot's radius and colour (with its opacity).
    let mut markers: Vec<(u32, RGBAColor)> = Vec::new();
    let mut i = 0;
    while i < marks.len() {
        match &marks[i] {
            Mark::Dot { at, radius, style } => {
                // Dots of one radius, colour and opacity (what `compact` compares as
                // written) form a run; one that keeps a stroke width is never taken into one.
                let in_run = |m: &Mark| {
                    matches!(m, Mark::Dot { radius: r, style: s, .. }
                        if r == radius && s.color == style.color && s.stroke_width == 1)
                };
                let run = if style.stroke_width == 1 { marks[i..].iter().take_while(|m| in_run(m)).count() } else { 1 };
                if run >= 2 {
                    let key = (*radius, style.color);
                    let id = match markers.iter().position(|m| *m == key) {
                        Some(at) => at,
                        None => {
                            define(&mut out, first_marker + markers.len(), key);
                            markers.push(key);
                            markers.len() - 1
                        }
                    };
                    let _ = write!(
                        out,
                        "<polyline fill=\"none\" marker-start=\"url(#m{n})\" marker-mid=\"url(#m{n})\" marker-end=\"url(#m{n})\" points=\"",
                        n = first_marker + id
                    );
                    for (k, mark) in marks[i..i + run].iter().enumerate() {
                        if let Mark::Dot { at: (x, y), .. } = mark {
                            let _ = write!(out, "{}{x},{y}", if k > 0 { " " } else { "" });
                        }
                    }
                    out.push_str("\"/>\n");
                } else {
                    dot(&mut out, *at, *radius, style);
                }
                i += run;
            }
            Mark::Stroke { style, points } => {
                out.push_str("<path fill=\"none\"");
                if let Some(opacity) = opacity(style.color) {
                    let _ = write!(out, " opacity=\"{opacity}\"");
                }
                let _ = write!(out, " stroke=\"{}\" stroke-width=\"{}\" d=\"", Hex(style.color), style.stroke_width);
                path(&mut out, points);
                i += 1;
                while let Some(Mark::Stroke { style: next, points }) = marks.get(i) {
                    if !same_stroke(next, style) {
                        break;
                    }
                    path(&mut out, points);
                    i += 1;
                }
                out.push_str("\"/>\n");
            }
            Mark::Polygon { colour, points } => {
                out.push_str("<polygon");
                if let Some(opacity) = opacity(*colour) {
                    let _ = write!(out, " opacity=\"{opacity}\"");
                }
                let _ = write!(out, " fill=\"{}\" points=\"", Hex(*colour));
                for (x, y) in points {
                    let _ = write!(out, "{x},{y} ");
                }
                out.push_str("\"/>\n");
                i += 1;
            }
        }
    }
    out
}

/// Defines marker `id`: a circle of the dots' radius, fill and opacity.
fn define(out: &mut String, id: usize, (radius, colour): (u32, RGBAColor)) {
    let _ = write!(
        out,
        "<marker id=\"m{id}\" markerUnits=\"userSpaceOnUse\" overflow=\"visible\"><circle r=\"{radius}\" fill=\"{}\"",
        Hex(colour)
    );
    if let Some(opacity) = opacity(colour) {
        let _ = write!(out, " fill-opacity=\"{opacity}\"");
    }
    out.push_str("/></marker>\n");
}

/// A dot on its own: plotters' `<circle>` without its default attributes.
fn dot(out: &mut String, (x, y): (i32, i32), radius: u32, style: &ShapeStyle) {
    let _ = write!(out, "<circle cx=\"{x}\" cy=\"{y}\" r=\"{radius}\"");
    if let Some(opacity) = opacity(style.color) {
        let _ = write!(out, " opacity=\"{opacity}\"");
    }
    let _ = write!(out, " fill=\"{}\"", Hex(style.color));
    if style.stroke_width != 1 {
        let _ = write!(out, " stroke-width=\"{}\"", style.stroke_width);
    }
    out.push_str("/>\n");
}

/// Whether two strokes are written with the same attributes (and so share a path): the
/// same colour and opacity (plotters writes each value one way) and width.
fn same_stroke(a: &ShapeStyle, b: &ShapeStyle) -> bool {
    a.color == b.color && a.stroke_width == b.stroke_width
}

/// A stroke's path data: a move to its first vertex, then a line to each next one.
fn path(out: &mut String, points: &[(i32, i32)]) {
    let mut previous: Option<(i32, i32)> = None;
    for &(x, y) in points {
        let _ = match previous {
            None => write!(out, "M{x} {y}"),
            Some((px, _)) if px == x => write!(out, "V{y}"),
            Some((_, py)) if py == y => write!(out, "H{x}"),
            Some(_) => write!(out, "L{x} {y}"),
        };
        previous = Some((x, y));
    }
}

/// A colour's opacity as plotters writes it (`{}` of the alpha), `None` at 1 (the default,
/// left out).
fn opacity(RGBAColor(_, _, _, alpha): RGBAColor) -> Option<f64> {
    (alpha != 1.0).then_some(alpha)
}

/// A colour as plotters writes it: `#RRGGBB`.
struct Hex(RGBAColor);

impl std::fmt::Display for Hex {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let RGBAColor(r, g, b, _) = self.0;
        write!(f, "#{r:02X}{g:02X}{b:02X}")
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use plotters::prelude::*;
    use proptest::prelude::*;

    /// What `compact` makes of plotters' own SVG backend drawing `marks` (between the root
    /// tags): the form `write` must give directly.
    fn compacted_by_plotters(marks: &[Mark]) -> String {
        let mut svg = String::new();
        {
            let mut backend = SVGBackend::with_string(&mut svg, (480, 440));
            for mark in marks {
                match mark {
                    Mark::Dot { at, radius, style } => backend.draw_circle(*at, *radius, style, style.filled),
                    Mark::Stroke { style, points } if points.len() == 2 => {
                        backend.draw_line(points[0], points[1], style)
                    }
                    Mark::Stroke { style, points } => backend.draw_path(points.iter().copied(), style),
                    Mark::Polygon { colour, points } => backend.fill_polygon(points.iter().copied(), colour),
                }
                .unwrap();
            }
            backend.present().unwrap();
        }
        let compact = crate::render::charts::compact::compact(&svg);
        let body = &compact[compact.find('>').unwrap() + 2..];
        body.strip_suffix("</svg>\n").unwrap().to_string()
    }

    fn colour() -> impl Strategy<Value = RGBAColor> {
        (0..3usize, prop::sample::select(vec![1.0, 0.8, 0.3, 0.0])).prop_map(|(c, alpha)| {
            let RGBColor(r, g, b) = crate::render::charts::palette::series_colour(c);
            RGBAColor(r, g, b, alpha)
        })
    }

    fn point() -> impl Strategy<Value = (i32, i32)> {
        (70..74i32, 100..103i32)
    }

    fn mark() -> impl Strategy<Value = Mark> {
        prop_oneof![
            (point(), prop::sample::select(vec![2u32, 4]), colour(), 0..3u32).prop_map(|(at, radius, color, width)| {
                Mark::Dot { at, radius, style: ShapeStyle { color, filled: true, stroke_width: width } }
            }),
            (colour(), 1..3u32, prop::collection::vec(point(), 1..5)).prop_map(|(color, width, points)| {
                Mark::Stroke { style: ShapeStyle { color, filled: false, stroke_width: width }, points }
            }),
            (colour(), prop::collection::vec(point(), 3..5))
                .prop_map(|(colour, points)| Mark::Polygon { colour, points }),
        ]
    }

    proptest! {
        #[test]
        fn marks_are_written_as_compact_leaves_plotters_drawing_of_them(
            marks in prop::collection::vec(mark(), 0..24)
        ) {
            prop_assert_eq!(write(&marks, 0), compacted_by_plotters(&marks));
        }
    }

    #[test]
    fn runs_of_dots_share_a_marker_and_strokes_of_one_style_a_path() {
        let dot = |x, alpha| Mark::Dot {
            at: (x, 5),
            radius: 2,
            style: ShapeStyle { color: RGBAColor(0, 0x72, 0xB2, alpha), filled: true, stroke_width: 1 },
        };
        let line = |points: Vec<(i32, i32)>| Mark::Stroke { style: RGBColor(1, 2, 3).stroke_width(2), points };
        let marks = [
            dot(1, 0.3),
            dot(2, 0.3),
            dot(3, 1.0),
            line(vec![(1, 1), (1, 4), (3, 4), (5, 6)]),
            line(vec![(0, 0)]),
            dot(4, 0.3),
            dot(5, 0.3),
        ];
        let expected = concat!(
            "<marker id=\"m7\" markerUnits=\"userSpaceOnUse\" overflow=\"visible\"><circle r=\"2\" fill=\"#0072B2\" fill-opacity=\"0.3\"/></marker>\n",
            "<polyline fill=\"none\" marker-start=\"url(#m7)\" marker-mid=\"url(#m7)\" marker-end=\"url(#m7)\" points=\"1,5 2,5\"/>\n",
            "<circle cx=\"3\" cy=\"5\" r=\"2\" fill=\"#0072B2\"/>\n",
            "<path fill=\"none\" stroke=\"#010203\" stroke-width=\"2\" d=\"M1 1V4H3L5 6M0 0\"/>\n",
            "<polyline fill=\"none\" marker-start=\"url(#m7)\" marker-mid=\"url(#m7)\" marker-end=\"url(#m7)\" points=\"4,5 5,5\"/>\n",
        );
        assert_eq!(write(&marks, 7), expected);
    }
}
