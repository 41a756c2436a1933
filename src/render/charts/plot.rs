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
const LEGEND_MAX_ROWS: usize = 3;
const LEGEND_NAME_CHARS: usize = 32;
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

/// Legend entries laid out in centred rows; entries that do not fit in `LEGEND_MAX_ROWS`
/// rows are summarised as "+N more".
struct Legend {
    entries: Vec<LegendEntry>,
    rows: u32,
}

struct LegendEntry {
    /// Index into the spec's series (colour and marker); `None` for the "+N more" note.
    series: Option<usize>,
    name: String,
    x: i32,
    row: u32,
}

impl Legend {
    fn new(root: &Area, series: &[DrawnSeries]) -> Result<Legend, Box<dyn Error>> {
        let mut names: Vec<(Option<usize>, String)> =
            series.iter().map(|s| (Some(s.index), clean(&s.name, LEGEND_NAME_CHARS))).collect();
        loop {
            let widths = entry_widths(root, &names)?;
            let placed = layout_rows(&widths, WIDTH as i32 - 2 * LEGEND_INSET);
            let rows = placed.last().map_or(0, |&(_, row)| row + 1);
            if rows as usize <= LEGEND_MAX_ROWS || names.len() <= 1 {
                let entries = names
                    .into_iter()
                    .zip(placed)
                    .map(|((series, name), (x, row))| LegendEntry { series, name, x: x + LEGEND_INSET, row })
                    .collect();
                return Ok(Legend { entries, rows });
            }
            hide_one_more(&mut names, series.len());
        }
    }

    fn height(&self) -> u32 {
        self.rows * LEGEND_ROW + 4
    }

    fn draw(&self, band: &Area) -> DrawResult {
        let style = text_style(LEGEND_SIZE, &TEXT).pos(Pos::new(HPos::Left, VPos::Center));
        for entry in &self.entries {
            let y = (entry.row * LEGEND_ROW + LEGEND_ROW / 2) as i32;
            let text_x = match entry.series {
                Some(index) => {
                    draw_swatch(band, index, (entry.x, y))?;
                    entry.x + LEGEND_SWATCH
                }
                None => entry.x,
            };
            band.draw_text(&entry.name, &style, (text_x, y))?;
        }
        Ok(())
    }
}

fn draw_swatch(band: &Area, index: usize, (x, y): (i32, i32)) -> DrawResult {
    let color = PALETTE[index % PALETTE.len()];
    band.draw(&PathElement::new(vec![(x, y), (x + 20, y)], color.stroke_width(2)))?;
    band.draw(&marker(index, (x + 10, y), color.filled()))?;
    Ok(())
}

fn entry_widths(root: &Area, names: &[(Option<usize>, String)]) -> Result<Vec<i32>, Box<dyn Error>> {
    let style = text_style(LEGEND_SIZE, &TEXT);
    names
        .iter()
        .map(|(series, name)| {
            let swatch = if series.is_some() { LEGEND_SWATCH } else { 0 };
            let (w, _) = root.estimate_text_size(name, &style)?;
            Ok(swatch + w as i32 + LEGEND_GAP)
        })
        .collect()
}

/// Replaces the last series entry (and the previous note, if any) by "+N more".
fn hide_one_more(names: &mut Vec<(Option<usize>, String)>, total: usize) {
    if names.last().is_some_and(|(series, _)| series.is_none()) {
        names.pop();
    }
    names.pop();
    let hidden = total - names.len();
    names.push((None, format!("+{hidden} more")));
}

/// Greedy rows: `(x, row)` of each entry of the given widths, each row centred in `width`.
fn layout_rows(widths: &[i32], width: i32) -> Vec<(i32, u32)> {
    let mut rows: Vec<Vec<i32>> = Vec::new();
    for &w in widths {
        match rows.last_mut() {
            Some(row) if row.iter().sum::<i32>() + w <= width => row.push(w),
            _ => rows.push(vec![w]),
        }
    }
    rows.iter()
        .zip(0..)
        .flat_map(|(row, index)| {
            let start = ((width - row.iter().sum::<i32>()) / 2).max(0);
            row.iter()
                .scan(start, |x, w| {
                    let at = *x;
                    *x += w;
                    Some(at)
                })
                .map(move |x| (x, index))
        })
        .collect()
}

/// Circles for the first eight series, then triangles, then crosses: a repeated colour
/// still differs in shape.
fn marker<DB: DrawingBackend, C: Clone + 'static>(
    index: usize,
    at: C,
    style: ShapeStyle,
) -> DynElement<'static, DB, C> {
    match index / PALETTE.len() % 3 {
        0 => Circle::new(at, 3, style).into_dyn(),
        1 => TriangleMarker::new(at, 4, style).into_dyn(),
        _ => Cross::new(at, 3, style).into_dyn(),
    }
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
        assert_eq!(layout_rows(&[100, 100], 400), [(100, 0), (200, 0)]);
        assert_eq!(layout_rows(&[300, 300], 400), [(50, 0), (50, 1)]);
        assert_eq!(layout_rows(&[500], 400), [(0, 0)]);
    }
}
