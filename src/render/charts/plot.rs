//! Drawing with plotters: title, a legend band under it (outside the data), then the plot
//! with grid, axes, and per series faint sample dots, whiskers, a median line and markers.
//! Series `i` has colour `i % 8` and marker shape `i % 6`: the site's charts (at most
//! `site::sections::MAX_SERIES` series) give every series its own colour *and* shape, so
//! none depends on colour alone.

use std::error::Error;

use plotters::coord::CoordTranslate;
use plotters::coord::Shift;
use plotters::prelude::*;
use plotters::style::text_anchor::{HPos, Pos, VPos};

use super::axis::Axis;
use super::data::{DrawnPoint, DrawnSeries};
use super::layout::Layout;
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

type Area<'a> = DrawingArea<SVGBackend<'a>, Shift>;
type Chart<'a, 'b> = ChartContext<'a, SVGBackend<'b>, Cartesian2d<Axis, Axis>>;
type DrawResult = Result<(), Box<dyn Error>>;

/// The whole chart as an SVG document (without `<title>`/`<desc>`).
pub(super) fn draw(
    spec: &ChartSpec,
    series: &[DrawnSeries],
    x: Axis,
    y: Axis,
    layout: &Layout,
) -> Result<String, Box<dyn Error>> {
    let mut svg = String::new();
    let hover;
    {
        let root = SVGBackend::with_string(&mut svg, (layout.width, layout.height)).into_drawing_area();
        root.fill(&BACKGROUND)?;
        let title_band = draw_title(&root, &spec.title, layout)?;
        let legend = Legend::new(&root, series, layout)?;
        let (_, below_title) = root.split_vertically(title_band);
        let (legend_band, plot) = below_title.split_vertically(legend.height());
        legend.draw(&legend_band)?;
        hover = draw_plot(&plot, spec, series, x, y, layout)?;
        root.present()?;
    }
    Ok(with_hover(svg, &hover))
}

/// A point's value for the reader's pointer: pixel position and text.
struct Hover {
    at: (i32, i32),
    text: String,
}

/// `svg` with an invisible target over every median carrying its values as an SVG `<title>`
/// (a browser shows it on hover where the SVG is not a plain `<img>`: the site embeds charts
/// with `<object>`), before the closing tag.
fn with_hover(mut svg: String, hover: &[Hover]) -> String {
    let Some(end) = svg.rfind("</svg>") else { return svg };
    let mut targets = String::from("<g fill=\"#FFFFFF\" fill-opacity=\"0\">\n");
    for h in hover {
        targets.push_str(&format!(
            "<circle cx=\"{}\" cy=\"{}\" r=\"7\"><title>{}</title></circle>\n",
            h.at.0,
            h.at.1,
            escape_xml(&clean(&h.text, 300))
        ));
    }
    targets.push_str("</g>\n");
    svg.insert_str(end, &targets);
    svg
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
fn draw_title(root: &Area, title: &str, layout: &Layout) -> Result<u32, Box<dyn Error>> {
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
    fn new(root: &Area, series: &[DrawnSeries], layout: &Layout) -> Result<Legend, Box<dyn Error>> {
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

    fn draw(&self, band: &Area) -> DrawResult {
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

fn draw_swatch(band: &Area, index: usize, (x, y): (i32, i32)) -> DrawResult {
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
fn draw_marker<CT>(area: &DrawingArea<SVGBackend<'_>, CT>, index: usize, at: CT::From, style: ShapeStyle) -> DrawResult
where
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

/// The plot area: mesh, axes and every series; returns the points' hover targets.
fn draw_plot(
    plot: &Area,
    spec: &ChartSpec,
    series: &[DrawnSeries],
    x: Axis,
    y: Axis,
    layout: &Layout,
) -> Result<Vec<Hover>, Box<dyn Error>> {
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
    let mut hover = Vec::new();
    for s in series {
        draw_series(&mut chart, s, (range.start.min(range.end), range.start.max(range.end)))?;
        for p in &s.points {
            let text = hover_text(spec, s, p, &x_names, &y_names);
            hover.push(Hover { at: chart.backend_coord(&(p.x, p.y)), text });
        }
    }
    Ok(hover)
}

/// Faint sample dots, then whiskers, then the median line and its markers on top; a sample
/// or whisker end beyond the y range `(lo, hi)` is drawn at its edge, a sample there as a
/// small triangle pointing out.
fn draw_series(chart: &mut Chart<'_, '_>, series: &DrawnSeries, (lo, hi): (f64, f64)) -> DrawResult {
    let color = series_colour(series.index);
    let clamp = |v: f64| v.clamp(lo, hi);
    let points: Vec<DrawnPoint> = series
        .points
        .iter()
        .map(|p| DrawnPoint {
            x: p.x,
            y: p.y,
            low: p.low.map(clamp),
            high: p.high.map(clamp),
            samples: p.samples.iter().copied().filter(|v| (lo..=hi).contains(v)).collect(),
        })
        .collect();
    draw_samples(chart, &points, color)?;
    draw_outliers(chart, &series.points, (lo, hi), color)?;
    draw_whiskers(chart, &points, color)?;
    let medians = series.points.iter().map(|p| (p.x, p.y));
    chart.draw_series(LineSeries::new(medians.clone(), color.stroke_width(2)))?;
    for at in medians {
        draw_marker(chart.plotting_area(), series.index, at, color.filled())?;
    }
    Ok(())
}

fn draw_samples(chart: &mut Chart<'_, '_>, points: &[DrawnPoint], color: RGBColor) -> DrawResult {
    let style = color.mix(0.3).filled();
    let dots = points.iter().flat_map(|p| p.samples.iter().map(|&s| Circle::new((p.x, s), 2, style)));
    chart.draw_series(dots)?;
    Ok(())
}

/// Samples beyond the y range, as triangles at the edge they lie beyond.
fn draw_outliers(
    chart: &mut Chart<'_, '_>,
    points: &[DrawnPoint],
    (lo, hi): (f64, f64),
    color: RGBColor,
) -> DrawResult {
    let style = color.mix(0.8).filled();
    let marks = points.iter().flat_map(|p| {
        p.samples.iter().filter(|v| !(lo..=hi).contains(*v)).map(move |&v| {
            let (edge, shape) =
                if v > hi { (hi, vec![(0, -5), (4, 2), (-4, 2)]) } else { (lo, vec![(0, 5), (4, -2), (-4, -2)]) };
            EmptyElement::at((p.x, edge)) + Polygon::new(shape, style)
        })
    });
    chart.draw_series(marks)?;
    Ok(())
}

/// A vertical line from `low` to `high` with short caps at both ends.
fn draw_whiskers(chart: &mut Chart<'_, '_>, points: &[DrawnPoint], color: RGBColor) -> DrawResult {
    let style = color.mix(0.8).stroke_width(1);
    let whiskers: Vec<(f64, f64, f64)> = points.iter().filter_map(whisker).collect();
    let lines = whiskers.iter().map(|&(x, low, high)| PathElement::new(vec![(x, low), (x, high)], style));
    chart.draw_series(lines)?;
    let caps = whiskers.iter().flat_map(|&(x, low, high)| {
        [low, high].map(|y| EmptyElement::at((x, y)) + PathElement::new(vec![(-4, 0), (4, 0)], style))
    });
    chart.draw_series(caps)?;
    Ok(())
}

/// `(x, low, high)` of a point's whisker, when it spans more than the point itself.
fn whisker(p: &DrawnPoint) -> Option<(f64, f64, f64)> {
    let low = p.low.unwrap_or(p.y).min(p.y);
    let high = p.high.unwrap_or(p.y).max(p.y);
    (low < high).then_some((p.x, low, high))
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
