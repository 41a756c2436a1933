//! Chart points from per-cycle critical-path values: median line, whiskers from the lowest
//! cycle to P95 (none from a single cycle: it has no spread), every cycle as a dot.

use crate::analysis::stats::{Spread, MIN_SPREAD_CYCLES};
use crate::site::chart::Point;

/// A point summarizing `cycles` (scaled by `scale`, e.g. 1/collectives for per-call values).
pub(crate) fn point(x: f64, cycles: &[f64], scale: f64) -> Point {
    let samples: Vec<f64> = cycles.iter().map(|v| v * scale).collect();
    let Some(spread) = Spread::of(&samples) else {
        return Point { x, y: f64::NAN, low: None, high: None, samples };
    };
    if samples.len() < MIN_SPREAD_CYCLES {
        return Point { x, y: spread.median, low: None, high: None, samples };
    }
    Point { x, y: spread.median, low: Some(spread.min), high: Some(spread.p95), samples }
}

/// A point for a value that is not a statistic over cycles.
pub(crate) fn plain(x: f64, y: f64) -> Point {
    Point { x, y, low: None, high: None, samples: Vec::new() }
}
