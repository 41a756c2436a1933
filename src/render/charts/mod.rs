//! Charts: `ChartSpec` -> SVG bytes and the CSV of its numbers.
//!
//! The SVG is byte-identical on every machine: plotters' layout with its naive font metrics
//! (no system fonts), written by our own backend (`frame`) and `marks`, one size (`layout`:
//! 480x440, scaled by its viewBox on phones),
//! a fixed palette with a dark-mode `<style>` (`palette`), ticks chosen and labelled here
//! (`8 KiB`, `12.5`, `1.2k`). Values that cannot be drawn (non-finite, or not positive on a
//! log axis) are skipped; an empty or undrawable chart becomes a small message SVG, and so
//! does one with more series than distinct colour + marker pairs (the site draws at most
//! `site::sections::MAX_SERIES`). No input panics.

mod axis;
#[cfg(test)]
mod compact;
mod data;
mod frame;
mod label;
mod layout;
mod marks;
mod palette;
mod plot;
mod svg;
mod table;
mod text;

use crate::site::chart::{ChartSpec, Scale};
use axis::Axis;
use label::Units;
use layout::Layout;

/// The chart (480x440, for every screen) as a standalone SVG document with `<title>`,
/// `<desc>` and its dark-mode style.
pub(crate) fn render_svg(spec: &ChartSpec) -> Vec<u8> {
    render(spec, &layout::CHART)
}

fn render(spec: &ChartSpec, layout: &Layout) -> Vec<u8> {
    render_with(spec, layout, plot::draw)
}

/// How a chart is drawn once its axes are known (`plot::draw`; the tests also pass plotters'
/// own SVG backend, the oracle `draw` is held to).
type Draw = fn(&ChartSpec, &[data::DrawnSeries], Axis, Axis, &Layout) -> Result<String, Box<dyn std::error::Error>>;

fn render_with(spec: &ChartSpec, layout: &Layout, draw: Draw) -> Vec<u8> {
    let y_scale = data::y_scale(spec);
    let series = data::drawable(spec, y_scale);
    let extents = data::x_extent(&series).zip(data::y_extent(&series, y_scale));
    let message = |text| svg::message(&spec.title, text, layout);
    let body = match extents {
        _ if spec.series.len() > plot::MAX_SERIES => message("too many series to tell apart"),
        None => message("no data"),
        Some((x_extent, y_extent)) => {
            let x = if spec.x_names.is_empty() {
                Axis::new(spec.x_scale, units(&spec.x_label, spec.x_scale), x_extent, layout.x_ticks)
            } else {
                Axis::named(&spec.x_names, layout.x_ticks)
            };
            let y = Axis::new(y_scale, units(&spec.y_label, y_scale), y_extent, layout.y_ticks);
            draw(spec, &series, x, y, layout).unwrap_or_else(|_| message("chart could not be drawn"))
        }
    };
    svg::with_alt_text(&body, &spec.title, &spec.description).into_bytes()
}

/// `chart,series,x,y,low,high,samples` for every chart of `specs` (a page's), one row per
/// point, samples `;`-joined.
pub(crate) fn render_csv(specs: &[&ChartSpec]) -> Vec<u8> {
    table::write_csv(specs).unwrap_or_default()
}

/// Bytes when the axis label says so; whole-number counts on other base-2 axes.
fn units(label: &str, scale: Scale) -> Units {
    if label.to_ascii_lowercase().contains("bytes") {
        Units::Bytes
    } else if scale == Scale::Log2 {
        Units::Count
    } else {
        Units::Number
    }
}

#[cfg(test)]
mod tests;
