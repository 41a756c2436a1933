//! The one size a chart is drawn at, serving wide screens and phones alike: 480x440, scaled
//! by its `viewBox` to the width the page gives it (at most its own 480 px; two charts side
//! by side at 1280 px). Its text is 15.5 px at its own size and at least 11 px as rendered on
//! a 360 px phone (shown 344 px wide). (plotters writes font sizes as `size / 1.24` px.)

use super::axis::Density;

#[derive(Debug, Clone, Copy)]
pub(crate) struct Layout {
    pub width: u32,
    pub height: u32,
    pub title_size: f64,
    /// Height of one title line.
    pub title_line: u32,
    /// Characters of a title line before it wraps.
    pub title_line_chars: usize,
    pub legend_size: f64,
    pub legend_row: u32,
    /// Characters of a legend line before a name wraps.
    pub legend_line_chars: usize,
    pub label_size: f64,
    pub x_ticks: Density,
    pub y_ticks: Density,
}

pub(crate) const CHART: Layout = Layout {
    width: 480,
    height: 440,
    title_size: 21.0,
    title_line: 24,
    title_line_chars: 42,
    legend_size: 19.2,
    legend_row: 24,
    legend_line_chars: 38,
    label_size: 19.2,
    x_ticks: Density::SPARSE,
    y_ticks: Density::NORMAL,
};

#[cfg(test)]
mod tests {
    use super::*;

    /// Pixels of text as the browser draws it: plotters' size / 1.24, times the scale.
    fn rendered_px(size: f64, svg_width: u32, shown_width: f64) -> f64 {
        size / 1.24 * shown_width / f64::from(svg_width)
    }

    #[test]
    fn chart_text_is_at_least_11_px_as_rendered() {
        // At its own size on a wide screen, and on 390 px and 360 px phones (main's 7 px
        // padding and the image border on each side).
        for shown in [f64::from(CHART.width), 390.0 - 16.0, 360.0 - 16.0] {
            for size in [CHART.label_size, CHART.legend_size, CHART.title_size] {
                assert!(rendered_px(size, CHART.width, shown) >= 11.0, "{size} at {shown}");
            }
        }
    }
}
