//! The two sizes a chart is drawn at. `WIDE` (720x420) is shown on screens wider than
//! 760 px, at its own size, so its 11.3 px text stays 11.3 px. `PHONE` (360x480) is chosen by
//! `<picture><source media="(max-width: 760px)">`: at 390 px it is shown about 374 px wide
//! (scale 1.04), its 12.1 px text is about 12.6 px as rendered, with fewer x ticks and titles
//! wrapped to fit. (plotters writes font sizes as `size / 1.24` px.)

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

pub(crate) const WIDE: Layout = Layout {
    width: 720,
    height: 420,
    title_size: 20.0,
    title_line: 24,
    title_line_chars: 80,
    legend_size: 14.0,
    legend_row: 20,
    legend_line_chars: 48,
    label_size: 14.0,
    x_ticks: Density::NORMAL,
    y_ticks: Density::NORMAL,
};

pub(crate) const PHONE: Layout = Layout {
    width: 360,
    height: 480,
    title_size: 18.0,
    title_line: 20,
    title_line_chars: 36,
    legend_size: 15.0,
    legend_row: 20,
    legend_line_chars: 34,
    label_size: 15.0,
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
        // Wide: shown at its own 720 px from 761 px of viewport on (main's 15 px padding).
        for size in [WIDE.label_size, WIDE.legend_size, WIDE.title_size] {
            assert!(rendered_px(size, WIDE.width, 720.0) >= 11.0, "{size}");
        }
        // Phone: 390 px viewport, main's 7 px padding and the image border on each side;
        // also on a 360 px phone.
        for viewport in [390.0, 360.0] {
            let shown = viewport - 2.0 * 7.0 - 2.0;
            for size in [PHONE.label_size, PHONE.legend_size, PHONE.title_size] {
                assert!(rendered_px(size, PHONE.width, shown) >= 11.0, "{size} at {viewport}");
            }
        }
    }
}
