//! Chart specifications: what a chart shows (series of points with their spread), built by
//! the site model and drawn by `render::charts`. No drawing code here.

use serde::Serialize;

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
pub(crate) enum Scale {
    Linear,
    /// Base-2 logarithmic axis (message sizes, call counts, tokens).
    Log2,
    /// Base-10 logarithmic axis (times, bandwidths spanning decades).
    Log10,
}

#[derive(Debug, Clone, PartialEq, Serialize)]
pub(crate) struct ChartSpec {
    /// File stem, unique within the page's folder: `<id>.svg` and `<id>.csv`.
    pub id: String,
    pub title: String,
    /// Axis labels with units, e.g. `message size (bytes)`, `time (µs)`.
    pub x_label: String,
    pub y_label: String,
    pub x_scale: Scale,
    pub y_scale: Scale,
    pub series: Vec<Series>,
    /// Text alternative: what the chart shows and how to read it.
    pub description: String,
}

#[derive(Debug, Clone, PartialEq, Serialize)]
pub(crate) struct Series {
    /// Legend label (may come from a run: untrusted text).
    pub name: String,
    /// Sorted by x.
    pub points: Vec<Point>,
}

#[derive(Debug, Clone, PartialEq, Serialize)]
pub(crate) struct Point {
    pub x: f64,
    /// The drawn value (median over cycles, or the single value).
    pub y: f64,
    /// Spread whiskers: lowest cycle and P95 (None when the value is not a statistic over cycles).
    pub low: Option<f64>,
    pub high: Option<f64>,
    /// Every cycle's critical-path value, drawn as faint dots.
    pub samples: Vec<f64>,
}
