//! Charts: `ChartSpec` -> SVG bytes (plotters, SVG backend, no system fonts) and the CSV of
//! the numbers drawn.

use crate::site::chart::ChartSpec;

pub fn render_svg(_spec: &ChartSpec) -> Vec<u8> {
    unimplemented!("chart rendering")
}

pub fn render_csv(_spec: &ChartSpec) -> Vec<u8> {
    unimplemented!("chart data CSV")
}
