//! Chart points from per-cycle critical-path values: median line, whiskers from the lowest
//! cycle to P95, every cycle as a dot.

use crate::site::chart::Point;
use crate::stats::{median, percentile, py_min};

/// A point summarizing `cycles` (scaled by `scale`, e.g. 1/collectives for per-call values).
pub fn point(x: f64, cycles: &[f64], scale: f64) -> Point {
    let samples: Vec<f64> = cycles.iter().map(|v| v * scale).collect();
    if samples.is_empty() {
        return Point { x, y: f64::NAN, low: None, high: None, samples };
    }
    Point { x, y: median(&samples), low: Some(py_min(&samples)), high: Some(percentile(&samples, 0.95)), samples }
}

/// A point for a value that is not a statistic over cycles.
pub fn plain(x: f64, y: f64) -> Point {
    Point { x, y, low: None, high: None, samples: Vec::new() }
}
