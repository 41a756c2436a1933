//! Drawing with plotters: title, a legend band under it (outside the data), then the plot
//! with grid, axes, and per series faint sample dots, whiskers, a median line and markers.

use std::error::Error;

use plotters::coord::Shift;
use plotters::element::DynElement;
use plotters::prelude::*;
use plotters::style::text_anchor::{HPos, Pos, VPos};

use super::axis::Axis;
use super::data::{DrawnPoint, DrawnSeries};
use super::text::clean;
use crate::site::chart::ChartSpec;

pub(super) const WIDTH: u32 = 720;
pub(super) const HEIGHT: u32 = 420;
pub(super) const FONT: &str = "sans-serif";
/// Distinct colour + marker pairs: a chart with more series is not drawn.
pub(super) const MAX_SERIES: usize = PALETTE.len() * 3;

pub(super) const BACKGROUND: RGBColor = RGBColor(0xff, 0xff, 0xff);
pub(super) const TEXT: RGBColor = RGBColor(0x22, 0x22, 0x22);
const MUTED: RGBColor = RGBColor(0x44, 0x44, 0x44);
const AXIS: RGBColor = RGBColor(0x66, 0x66, 0x66);
/// Okabe-Ito, reordered so the low-contrast yellow comes last.
const PALETTE: [RGBColor; 8] = [
    RGBColor(0x00, 0x72, 0xb2),
    RGBColor(0xd5, 0x5e, 0x00),
    RGBColor(0x00, 0x9e, 0x73),
    RGBColor(0xcc, 0x79, 0xa7),
    RGBColor(0xe6, 0x9f, 0x00),
    RGBColor(0x56, 0xb4, 0xe9),
    RGBColor(0x00, 0x00, 0x00),
    RGBColor(0xf0, 0xe4, 0x42),
];

const TITLE_SIZE: f64 = 20.0;
const TITLE_BAND: u32 = 34;
const TITLE_CHARS: usize = 80;
const LEGEND_SIZE: f64 = 14.0;
const LEGEND_ROW: u32 = 20;
/// Characters of a legend line before a name wraps.
const LEGEND_LINE_CHARS: usize = 48;
/// Swatch (line and marker) plus the gap before the name.
const LEGEND_SWATCH: i32 = 28;
/// Space after an entry's name.
const LEGEND_GAP: i32 = 18;
/// Legend margin on the left and right of the chart.
const LEGEND_INSET: i32 = 20;
const LABEL_SIZE: f64 = 14.0;
const AXIS_CHARS: usize = 90;
/// Upper bound handed to the mesh; the axes choose their own ticks.
const MESH_LABELS: usize = 64;

type Area<'a> = DrawingArea<SVGBackend<'a>, Shift>;
type Chart<'a, 'b> = ChartContext<'a, SVGBackend<'b>, Cartesian2d<Axis, Axis>>;
type DrawResult = Result<(), Box<dyn Error>>;

/// The whole chart as an SVG document (without `<title>`/`<desc>`).
pub(super) fn draw(spec: &ChartSpec, series: &[DrawnSeries], x: Axis, y: Axis) -> Result<String, Box<dyn Error>> {
    let mut svg = String::new();
    {
        let root = SVGBackend::with_string(&mut svg, (WIDTH, HEIGHT)).into_drawing_area();
        root.fill(&BACKGROUND)?;
        draw_title(&root, &spec.title)?;
        let legend = Legend::new(&root, series)?;
        let (_, below_title) = root.split_vertically(TITLE_BAND);
        let (legend_band, plot) = below_title.split_vertically(legend.height());
        legend.draw(&legend_band)?;
        draw_plot(&plot, spec, series, x, y)?;
        root.present()?;
    }
    Ok(svg)
}

fn text_style(size: f64, color: &'static RGBColor) -> TextStyle<'static> {
    TextStyle::from((FONT, size).into_font()).color(color)
}

fn draw_title(root: &Area, title: &str) -> DrawResult {
    let style = text_style(TITLE_SIZE, &TEXT).pos(Pos::new(HPos::Center, VPos::Top));
    root.draw_text(&clean(title, TITLE_CHARS), &style, (WIDTH as i32 / 2, 10))?;
    Ok(())
}

/// Legend entries laid out in centred rows, every name whole: a name longer than
/// `LEGEND_LINE_CHARS` wraps onto rows of its own (never cut, never hidden).
struct Legend {
    entries: Vec<LegendEntry>,
    rows: u32,
}

struct LegendEntry {
    /// Index into the spec's series (colour and marker).
    series: usize,
    lines: Vec<String>,
    x: i32,
    row: u32,
}

impl Legend {
    fn new(root: &Area, series: &[DrawnSeries]) -> Result<Legend, Box<dyn Error>> {
        let style = text_style(LEGEND_SIZE, &TEXT);
        let mut sized = Vec::new();
        for s in series {
            let lines = wrap(&clean(&s.name, usize::MAX), LEGEND_LINE_CHARS);
            let mut widest = 0;
            for line in &lines {
                widest = widest.max(root.estimate_text_size(line, &style)?.0 as i32);
            }
            sized.push((s.index, lines, LEGEND_SWATCH + widest + LEGEND_GAP));
        }
        let shapes: Vec<(i32, u32)> = sized.iter().map(|(_, lines, w)| (*w, lines.len() as u32)).collect();
        let (placed, rows) = layout_rows(&shapes, WIDTH as i32 - 2 * LEGEND_INSET);
        let entries = sized
            .into_iter()
            .zip(placed)
            .map(|((series, lines, _), (x, row))| LegendEntry { series, lines, x: x + LEGEND_INSET, row })
            .collect();
        Ok(Legend { entries, rows })
    }

    fn height(&self) -> u32 {
        self.rows * LEGEND_ROW + 4
    }

    fn draw(&self, band: &Area) -> DrawResult {
        let style = text_style(LEGEND_SIZE, &TEXT).pos(Pos::new(HPos::Left, VPos::Center));
        for entry in &self.entries {
            let y = |row: u32| (row * LEGEND_ROW + LEGEND_ROW / 2) as i32;
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
    let color = PALETTE[index % PALETTE.len()];
    band.draw(&PathElement::new(vec![(x, y), (x + 20, y)], color.stroke_width(2)))?;
    band.draw(&marker(index, (x + 10, y), color.filled()))?;
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

/// Circles for the first eight series, then triangles, then crosses: no two series of a
/// chart share colour and shape (up to `MAX_SERIES`).
fn marker<DB: DrawingBackend, C: Clone + 'static>(
    index: usize,
    at: C,
    style: ShapeStyle,
) -> DynElement<'static, DB, C> {
    match shape(index) {
        0 => Circle::new(at, 3, style).into_dyn(),
        1 => TriangleMarker::new(at, 4, style).into_dyn(),
        _ => Cross::new(at, 3, style).into_dyn(),
    }
}

/// The marker shape of series `index`: 0 circle, 1 triangle, 2 cross.
fn shape(index: usize) -> usize {
    index / PALETTE.len() % 3
}

fn draw_plot(plot: &Area, spec: &ChartSpec, series: &[DrawnSeries], x: Axis, y: Axis) -> DrawResult {
    let label_style = text_style(LABEL_SIZE, &MUTED);
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
        .build_cartesian_2d(x, y)?;
    chart
        .configure_mesh()
        .x_labels(MESH_LABELS)
        .y_labels(MESH_LABELS)
        .label_style(label_style)
        .axis_desc_style(text_style(LABEL_SIZE, &TEXT))
        .x_desc(clean(&spec.x_label, AXIS_CHARS))
        .y_desc(clean(&spec.y_label, AXIS_CHARS))
        .bold_line_style(BLACK.mix(0.12))
        .light_line_style(BLACK.mix(0.05))
        .axis_style(AXIS)
        .draw()?;
    for s in series {
        draw_series(&mut chart, s)?;
    }
    Ok(())
}

/// Faint sample dots, then whiskers, then the median line and its markers on top.
fn draw_series(chart: &mut Chart<'_, '_>, series: &DrawnSeries) -> DrawResult {
    let color = PALETTE[series.index % PALETTE.len()];
    draw_samples(chart, &series.points, color)?;
    draw_whiskers(chart, &series.points, color)?;
    let medians = series.points.iter().map(|p| (p.x, p.y));
    chart.draw_series(LineSeries::new(medians.clone(), color.stroke_width(2)))?;
    chart.draw_series(medians.map(|at| marker(series.index, at, color.filled())))?;
    Ok(())
}

fn draw_samples(chart: &mut Chart<'_, '_>, points: &[DrawnPoint], color: RGBColor) -> DrawResult {
    let style = color.mix(0.3).filled();
    let dots = points.iter().flat_map(|p| p.samples.iter().map(|&s| Circle::new((p.x, s), 2, style)));
    chart.draw_series(dots)?;
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
        let distinct = (0..MAX_SERIES)
            .flat_map(|i| (0..i).map(move |j| (i, j)))
            .all(|(i, j)| (PALETTE[i % PALETTE.len()] != PALETTE[j % PALETTE.len()]) || shape(i) != shape(j));
        assert!(distinct);
        assert!(crate::site::sections::MAX_SERIES <= PALETTE.len(), "site charts differ by colour alone");
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
