//! Drawing a chart: plotters lays out the frame (title, a legend band under it, outside the
//! data, then the plot's grid and axes), which `frame::FrameBackend` writes; each series' faint
//! sample dots, whiskers, median line and markers are placed by the chart's coordinate mapping
//! and written by `marks`.
//! Series `i` has colour `i % 8` and marker shape `i % 6`: the site's charts (at most
//! `site::sections::MAX_SERIES` series) give every series its own colour *and* shape, so
//! none depends on colour alone.

use std::error::Error;
use std::fmt::Write as _;

use plotters::backend::DrawingBackend;
use plotters::coord::CoordTranslate;
use plotters::coord::Shift;
use plotters::prelude::*;
use plotters::style::text_anchor::{HPos, Pos, VPos};

use super::axis::Axis;
use super::data::{DrawnPoint, DrawnSeries};
use super::frame::FrameBackend;
use super::layout::Layout;
use super::marks::Mark;
use super::palette::{series_colour, AXIS, BACKGROUND, GRID, MUTED, TEXT};
use super::text::{clean, escape_xml};
use crate::site::chart::ChartSpec;

pub(super) const FONT: &str = "sans-serif";
/// Marker shapes: circle, triangle, square, diamond, cross, plus.
const SHAPES: usize = 6;
/// Distinct colour + marker pairs (8 colours x 6 shapes repeat together after 24): a chart
/// with more series is not drawn.
pub(super) const MAX_SERIES: usize = 24;

const TITLE_CHARS: usize = 80;
/// Swatch (line and marker) plus the gap before the name.
const LEGEND_SWATCH: i32 = 28;
/// Space after an entry's name.
const LEGEND_GAP: i32 = 18;
/// Legend margin on the left and right of the chart.
const LEGEND_INSET: i32 = 20;
const AXIS_CHARS: usize = 90;
/// Upper bound handed to the mesh; the axes choose their own ticks.
const MESH_LABELS: usize = 64;

type Area<DB> = DrawingArea<DB, Shift>;
type DrawResult = Result<(), Box<dyn Error>>;

/// The whole chart as an SVG document (without `<title>`/`<desc>`): the frame laid out by
/// plotters and written by `FrameBackend`, then the data (`marks`), then the hover targets.
pub(super) fn draw(
    spec: &ChartSpec,
    series: &[DrawnSeries],
    x: Axis,
    y: Axis,
    layout: &Layout,
) -> Result<String, Box<dyn Error>> {
    let mut frame = String::new();
    let drawn = {
        let root = FrameBackend::new(&mut frame, (layout.width, layout.height)).into_drawing_area();
        draw_frame(&root, spec, series, x, y, layout)?
    };
    with_data(frame, &drawn)
}

/// `draw` through plotters' own SVG backend and `compact`: what `draw` must give, byte for
/// byte (the tests' oracle).
#[cfg(test)]
pub(super) fn draw_with_plotters_svg(
    spec: &ChartSpec,
    series: &[DrawnSeries],
    x: Axis,
    y: Axis,
    layout: &Layout,
) -> Result<String, Box<dyn Error>> {
    let mut frame = String::new();
    let drawn = {
        let root = SVGBackend::with_string(&mut frame, (layout.width, layout.height)).into_drawing_area();
        draw_frame(&root, spec, series, x, y, layout)?
    };
    with_data(super::compact::compact(&frame), &drawn)
}

/// Draws the frame on `root` and presents it; returns the data's marks and hover targets.
fn draw_frame<DB: DrawingBackend>(
    root: &Area<DB>,
    spec: &ChartSpec,
    series: &[DrawnSeries],
    x: Axis,
    y: Axis,
    layout: &Layout,
) -> Result<(Vec<Mark>, Vec<Hover>), Box<dyn Error>>
where
    DB::ErrorType: 'static,
{
    root.fill(&BACKGROUND)?;
    let title_band = draw_title(root, &spec.title, layout)?;
    let legend = Legend::new(root, series, layout)?;
    let (_, below_title) = root.split_vertically(title_band);
    let (legend_band, plot) = below_title.split_vertically(legend.height());
    legend.draw(&legend_band)?;
    let drawn = draw_plot(&plot, spec, series, x, y, layout)?;
    root.present()?;
    Ok(drawn)
}

/// The frame's document with the data's marks and the hover targets before its end.
fn with_data(mut svg: String, (marks, hover): &(Vec<Mark>, Vec<Hover>)) -> Result<String, Box<dyn Error>> {
    let end = svg.rfind("</svg>").ok_or("the frame has no closing tag")?;
    let mut data = super::marks::write(marks, svg.matches("<marker ").count());
    data.push_str(&hover_targets(hover));
    svg.insert_str(end, &data);
    Ok(svg)
}

/// A point's value for the reader's pointer: pixel position and text.
struct Hover {
    at: (i32, i32),
    text: String,
}

/// An invisible target over every median carrying its values as an SVG `<title>` (a browser
/// shows it on hover where the SVG is not a plain `<img>`: the site embeds charts with
/// `<object>`).
fn hover_targets(hover: &[Hover]) -> String {
    let mut targets = String::from("<g fill=\"#FFFFFF\" fill-opacity=\"0\">\n");
    for h in hover {
        let _ = writeln!(
            targets,
            "<circle cx=\"{}\" cy=\"{}\" r=\"7\"><title>{}</title></circle>",
            h.at.0,
            h.at.1,
            escape_xml(&clean(&h.text, 300))
        );
    }
    targets.push_str("</g>\n");
    targets
}

/// What a point says on hover: `series: x → median unit (fastest … to P95 …, n cycles)`.
fn hover_text(spec: &ChartSpec, series: &DrawnSeries, p: &DrawnPoint, x: &Axis, y: &Axis) -> String {
    let unit = spec.y_label.rsplit_once('(').and_then(|(_, u)| u.strip_suffix(')')).unwrap_or("");
    let mut text = format!("{}: {} → {} {unit}", series.name, x.value_label(p.x), y.value_label(p.y));
    if let (Some(low), Some(high)) = (p.low, p.high) {
        text.push_str(&format!(" (fastest {} to P95 {}", y.value_label(low), y.value_label(high)));
        if !p.samples.is_empty() {
            text.push_str(&format!(", {} cycles", p.samples.len()));
        }
        text.push(')');
    }
    text.trim_end().to_string()
}

fn text_style(size: f64, color: &'static RGBColor) -> TextStyle<'static> {
    TextStyle::from((FONT, size).into_font()).color(color)
}

/// The title, wrapped to the layout's line length; returns the height of its band.
fn draw_title<DB: DrawingBackend>(root: &Area<DB>, title: &str, layout: &Layout) -> Result<u32, Box<dyn Error>>
where
    DB::ErrorType: 'static,
{
    let style = text_style(layout.title_size, &TEXT).pos(Pos::new(HPos::Center, VPos::Top));
    let lines = wrap(&clean(title, TITLE_CHARS), layout.title_line_chars);
    for (line, at) in lines.iter().zip((10..).step_by(layout.title_line as usize)) {
        root.draw_text(line, &style, (layout.width as i32 / 2, at))?;
    }
    Ok(10 + lines.len() as u32 * layout.title_line)
}

/// Legend entries laid out in centred rows, every name whole: a name longer than
/// `LEGEND_LINE_CHARS` wraps onto rows of its own (never cut, never hidden).
struct Legend {
    entries: Vec<LegendEntry>,
    rows: u32,
    size: f64,
    row_height: u32,
}

struct LegendEntry {
    /// Index into the spec's series (colour and marker).
    series: usize,
    lines: Vec<String>,
    x: i32,
    row: u32,
}

impl Legend {
    fn new<DB: DrawingBackend>(
        root: &Area<DB>,
        series: &[DrawnSeries],
        layout: &Layout,
    ) -> Result<Legend, Box<dyn Error>>
    where
        DB::ErrorType: 'static,
    {
        let style = text_style(layout.legend_size, &TEXT);
        let mut sized = Vec::new();
        for s in series {
            let lines = wrap(&clean(&s.name, usize::MAX), layout.legend_line_chars);
            let mut widest = 0;
            for line in &lines {
                widest = widest.max(root.estimate_text_size(line, &style)?.0 as i32);
            }
            sized.push((s.index, lines, LEGEND_SWATCH + widest + LEGEND_GAP));
        }
        let shapes: Vec<(i32, u32)> = sized.iter().map(|(_, lines, w)| (*w, lines.len() as u32)).collect();
        let (placed, rows) = layout_rows(&shapes, layout.width as i32 - 2 * LEGEND_INSET);
        let entries = sized
            .into_iter()
            .zip(placed)
            .map(|((series, lines, _), (x, row))| LegendEntry { series, lines, x: x + LEGEND_INSET, row })
            .collect();
        Ok(Legend { entries, rows, size: layout.legend_size, row_height: layout.legend_row })
    }

    fn height(&self) -> u32 {
        self.rows * self.row_height + 4
    }

    fn draw<DB: DrawingBackend>(&self, band: &Area<DB>) -> DrawResult
    where
        DB::ErrorType: 'static,
    {
        let style = text_style(self.size, &TEXT).pos(Pos::new(HPos::Left, VPos::Center));
        for entry in &self.entries {
            let y = |row: u32| (row * self.row_height + self.row_height / 2) as i32;
            draw_swatch(band, entry.series, (entry.x, y(entry.row)))?;
            for (line, row) in entry.lines.iter().zip(entry.row..) {
                band.draw_text(line, &style, (entry.x + LEGEND_SWATCH, y(row)))?;
            }
        }
        Ok(())
    }
}

/// `text` in lines of at most `max_chars` characters, broken after spaces where possible.
fn wrap(text: &str, max_chars: usize) -> Vec<String> {
    let mut lines: Vec<String> = Vec::new();
    let mut current = String::new();
    for word in text.split(' ') {
        let mut word: Vec<char> = word.chars().collect();
        let used = current.chars().count();
        if used > 0 && used + 1 + word.len() <= max_chars {
            current.push(' ');
            current.extend(word.iter());
            continue;
        }
        if used > 0 {
            lines.push(std::mem::take(&mut current));
        }
        while word.len() > max_chars {
            lines.push(word.drain(..max_chars).collect());
        }
        current = word.into_iter().collect();
    }
    if !current.is_empty() || lines.is_empty() {
        lines.push(current);
    }
    lines
}

fn draw_swatch<DB: DrawingBackend>(band: &Area<DB>, index: usize, (x, y): (i32, i32)) -> DrawResult
where
    DB::ErrorType: 'static,
{
    let color = series_colour(index);
    band.draw(&PathElement::new(vec![(x, y), (x + 20, y)], color.stroke_width(2)))?;
    draw_marker(band, index, (x + 10, y), color.filled())?;
    Ok(())
}

/// Greedy rows of entries given as (width, lines): one-line entries share a row while they
/// fit; an entry of several lines takes that many rows of its own. Returns each entry's
/// `(x, first row)`, rows centred in `width`, and the number of rows.
fn layout_rows(entries: &[(i32, u32)], width: i32) -> (Vec<(i32, u32)>, u32) {
    // (entry widths, first row, rows taken)
    let mut rows: Vec<(Vec<i32>, u32, u32)> = Vec::new();
    let mut next_row = 0;
    for &(w, lines) in entries {
        match rows.last_mut() {
            Some((row, _, 1)) if lines == 1 && row.iter().sum::<i32>() + w <= width => row.push(w),
            _ => {
                rows.push((vec![w], next_row, lines.max(1)));
                next_row += lines.max(1);
            }
        }
    }
    let placed = rows
        .iter()
        .flat_map(|(row, first, _)| {
            let start = ((width - row.iter().sum::<i32>()) / 2).max(0);
            row.iter()
                .scan(start, |x, w| {
                    let at = *x;
                    *x += w;
                    Some(at)
                })
                .map(move |x| (x, *first))
        })
        .collect();
    (placed, next_row)
}

/// Draws the marker of series `index` centred on `at` (chart or pixel coordinates).
fn draw_marker<DB, CT>(area: &DrawingArea<DB, CT>, index: usize, at: CT::From, style: ShapeStyle) -> DrawResult
where
    DB: DrawingBackend,
    DB::ErrorType: 'static,
    CT: CoordTranslate,
    CT::From: Clone + 'static,
{
    let outline = ShapeStyle { filled: false, stroke_width: 2, ..style };
    let polygon = |shape: Vec<(i32, i32)>| EmptyElement::at(at.clone()) + Polygon::new(shape, style);
    match shape(index) {
        0 => area.draw(&Circle::new(at, 4, style))?,
        1 => area.draw(&TriangleMarker::new(at, 5, style))?,
        2 => area.draw(&polygon(vec![(-4, -4), (4, -4), (4, 4), (-4, 4)]))?,
        3 => area.draw(&polygon(vec![(0, -5), (5, 0), (0, 5), (-5, 0)]))?,
        4 => area.draw(&Cross::new(at, 4, outline))?,
        _ => area.draw(
            &(EmptyElement::at(at)
                + PathElement::new(vec![(-5, 0), (5, 0)], outline)
                + PathElement::new(vec![(0, -5), (0, 5)], outline)),
        )?,
    }
    Ok(())
}

/// The marker shape of series `index`: 0 circle, 1 triangle, 2 square, 3 diamond, 4 cross,
/// 5 plus.
fn shape(index: usize) -> usize {
    index % SHAPES
}

/// The plot area's mesh and axes; returns every series' marks (`marks::write` writes them)
/// and the points' hover targets.
fn draw_plot<DB: DrawingBackend>(
    plot: &Area<DB>,
    spec: &ChartSpec,
    series: &[DrawnSeries],
    x: Axis,
    y: Axis,
    layout: &Layout,
) -> Result<(Vec<Mark>, Vec<Hover>), Box<dyn Error>>
where
    DB::ErrorType: 'static,
{
    let label_style = text_style(layout.label_size, &MUTED);
    let widest_y_label = y
        .labels()
        .map(|label| plot.estimate_text_size(label, &label_style).map(|(w, _)| w))
        .try_fold(0, |widest, w| w.map(|w| widest.max(w)))?;
    let mut chart = ChartBuilder::on(plot)
        .margin_top(6)
        .margin_right(28)
        .margin_bottom(6)
        .margin_left(10)
        .x_label_area_size(46)
        .y_label_area_size(widest_y_label + 36)
        .build_cartesian_2d(x.clone(), y.clone())?;
    let (x_names, y_names) = (x, y);
    chart
        .configure_mesh()
        .x_labels(MESH_LABELS)
        .y_labels(MESH_LABELS)
        .label_style(label_style)
        .axis_desc_style(text_style(layout.label_size, &TEXT))
        .x_desc(clean(&spec.x_label, AXIS_CHARS))
        .y_desc(clean(&spec.y_label, AXIS_CHARS))
        .bold_line_style(GRID.mix(0.12))
        .light_line_style(GRID.mix(0.05))
        .axis_style(AXIS)
        .draw()?;
    let range = chart.y_range();
    let bounds = (range.start.min(range.end), range.start.max(range.end));
    // A mark's pixel as plotters places what it draws on the plot area: mapped, then held
    // inside the area (a point beyond a named axis' last name is drawn at its edge).
    let (xs, ys) = chart.plotting_area().get_pixel_range();
    let px = |x: f64, y: f64| {
        let (px, py) = chart.backend_coord(&(x, y));
        (px.min(xs.end).max(xs.start), py.min(ys.end).max(ys.start))
    };
    let mut marks = Vec::new();
    let mut hover = Vec::new();
    for s in series {
        series_marks(s, bounds, &px, &mut marks);
        for p in &s.points {
            let text = hover_text(spec, s, p, &x_names, &y_names);
            hover.push(Hover { at: chart.backend_coord(&(p.x, p.y)), text });
        }
    }
    Ok((marks, hover))
}

/// A series' marks, in the order they are painted: faint sample dots, samples beyond the y
/// range `(lo, hi)` as small triangles at the edge they lie beyond (pointing out), whiskers
/// (their end clamped to the range) with short caps, then the median line and its markers on
/// top.
fn series_marks(
    series: &DrawnSeries,
    (lo, hi): (f64, f64),
    px: &dyn Fn(f64, f64) -> (i32, i32),
    marks: &mut Vec<Mark>,
) {
    let color = series_colour(series.index);
    let inside = |v: &f64| (lo..=hi).contains(v);
    let dot_style = color.mix(0.3).filled();
    for p in &series.points {
        for &s in p.samples.iter().filter(|v| inside(v)) {
            marks.push(Mark::Dot { at: px(p.x, s), radius: 2, style: dot_style });
        }
    }
    let outlier = color.mix(0.8).filled().color;
    for p in &series.points {
        for &v in p.samples.iter().filter(|v| !inside(v)) {
            let (edge, shape) =
                if v > hi { (hi, [(0, -5), (4, 2), (-4, 2)]) } else { (lo, [(0, 5), (4, -2), (-4, -2)]) };
            marks.push(Mark::Polygon { colour: outlier, points: offsets(px(p.x, edge), &shape) });
        }
    }
    let whisker_style = color.mix(0.8).stroke_width(1);
    let clamp = |v: f64| v.clamp(lo, hi);
    let whiskers: Vec<(f64, f64, f64)> = series
        .points
        .iter()
        .filter_map(|p| whisker(p.y, p.low.map(clamp), p.high.map(clamp)).map(|(low, high)| (p.x, low, high)))
        .collect();
    for &(x, low, high) in &whiskers {
        marks.push(Mark::Stroke { style: whisker_style, points: vec![px(x, low), px(x, high)] });
    }
    for &(x, low, high) in &whiskers {
        for y in [low, high] {
            marks.push(Mark::Stroke { style: whisker_style, points: offsets(px(x, y), &[(-4, 0), (4, 0)]) });
        }
    }
    let line = color.stroke_width(2);
    if !series.points.is_empty() {
        marks.push(Mark::Stroke { style: line, points: series.points.iter().map(|p| px(p.x, p.y)).collect() });
    }
    for p in &series.points {
        marker_marks(series.index, px(p.x, p.y), color.filled(), marks);
    }
}

/// The marks of series `index`'s marker centred on pixel `at` (as `draw_marker` draws it).
fn marker_marks(index: usize, at: (i32, i32), style: ShapeStyle, marks: &mut Vec<Mark>) {
    let outline = ShapeStyle { filled: false, stroke_width: 2, ..style };
    let (x, y) = at;
    match shape(index) {
        0 => marks.push(Mark::Dot { at, radius: 4, style }),
        1 => marks.push(Mark::Polygon { colour: style.color, points: triangle(at, 5) }),
        2 => marks
            .push(Mark::Polygon { colour: style.color, points: offsets(at, &[(-4, -4), (4, -4), (4, 4), (-4, 4)]) }),
        3 => {
            marks.push(Mark::Polygon { colour: style.color, points: offsets(at, &[(0, -5), (5, 0), (0, 5), (-5, 0)]) })
        }
        4 => {
            marks.push(Mark::Stroke { style: outline, points: vec![(x - 4, y - 4), (x + 4, y + 4)] });
            marks.push(Mark::Stroke { style: outline, points: vec![(x - 4, y + 4), (x + 4, y - 4)] });
        }
        _ => {
            marks.push(Mark::Stroke { style: outline, points: offsets(at, &[(-5, 0), (5, 0)]) });
            marks.push(Mark::Stroke { style: outline, points: offsets(at, &[(0, -5), (0, 5)]) });
        }
    }
}

/// Pixel offsets `shape` placed at `at`.
fn offsets((x, y): (i32, i32), shape: &[(i32, i32)]) -> Vec<(i32, i32)> {
    shape.iter().map(|(dx, dy)| (x + dx, y + dy)).collect()
}

/// The corners of plotters' `TriangleMarker` of `size` centred on `at`, as it computes them.
fn triangle((x, y): (i32, i32), size: i32) -> Vec<(i32, i32)> {
    [-90, -210, -330]
        .iter()
        .map(|deg| f64::from(*deg) * std::f64::consts::PI / 180.0)
        .map(|rad| {
            (
                (rad.cos() * f64::from(size) + f64::from(x)).ceil() as i32,
                (rad.sin() * f64::from(size) + f64::from(y)).ceil() as i32,
            )
        })
        .collect()
}

/// `(low, high)` of a point's whisker (`low` and `high` clamped to the y range), when it
/// spans more than the median `y` itself.
fn whisker(y: f64, low: Option<f64>, high: Option<f64>) -> Option<(f64, f64)> {
    let low = low.unwrap_or(y).min(y);
    let high = high.unwrap_or(y).max(y);
    (low < high).then_some((low, high))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn legend_rows_wrap_and_centre() {
        assert_eq!(layout_rows(&[(100, 1), (100, 1)], 400), (vec![(100, 0), (200, 0)], 1));
        assert_eq!(layout_rows(&[(300, 1), (300, 1)], 400), (vec![(50, 0), (50, 1)], 2));
        assert_eq!(layout_rows(&[(500, 1)], 400), (vec![(0, 0)], 1));
        assert_eq!(layout_rows(&[(100, 1), (200, 2), (100, 1)], 400), (vec![(150, 0), (100, 1), (150, 3)], 4));
    }

    #[test]
    fn no_two_series_share_colour_and_marker() {
        let pairs = |n: usize| (0..n).flat_map(move |i| (0..i).map(move |j| (i, j)));
        let colour = series_colour;
        assert!(pairs(MAX_SERIES).all(|(i, j)| colour(i) != colour(j) || shape(i) != shape(j)));
        assert!(colour(MAX_SERIES) == colour(0) && shape(MAX_SERIES) == shape(0), "MAX_SERIES is not the limit");
        let site = crate::site::sections::MAX_SERIES;
        assert!(pairs(site).all(|(i, j)| colour(i) != colour(j) && shape(i) != shape(j)), "colour alone tells apart");
    }

    #[test]
    fn long_names_wrap_whole() {
        assert_eq!(wrap("ab cd ef", 5), ["ab cd", "ef"]);
        assert_eq!(wrap("abcdefg", 3), ["abc", "def", "g"]);
        assert_eq!(wrap("", 3), [""]);
        let name = "run 20261202T102803Z · TP=2 · world4_full_with_a_long_folder_name";
        assert_eq!(wrap(name, 20).concat().replace(' ', ""), name.replace(' ', ""));
    }
}
