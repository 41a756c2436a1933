//! The drawable part of a spec: values that are finite, zero or of magnitude within
//! `1e-100..=1e100` (so axis arithmetic never overflows or underflows), and positive on log
//! axes. Everything else is left out of the picture (the CSV keeps every finite value).

use crate::site::chart::{ChartSpec, Point, Scale};

const MAX_ABS: f64 = 1e100;
const MIN_ABS: f64 = 1e-100;

pub(super) struct DrawnSeries {
    /// Position in the spec: picks the colour, so colours do not shift when a series is empty.
    pub index: usize,
    pub name: String,
    pub points: Vec<DrawnPoint>,
}

pub(super) struct DrawnPoint {
    pub x: f64,
    pub y: f64,
    pub low: Option<f64>,
    pub high: Option<f64>,
    pub samples: Vec<f64>,
}

/// Series with at least one drawable point, in spec order.
pub(super) fn drawable(spec: &ChartSpec) -> Vec<DrawnSeries> {
    spec.series
        .iter()
        .enumerate()
        .map(|(index, series)| DrawnSeries {
            index,
            name: series.name.clone(),
            points: series.points.iter().filter_map(|p| drawable_point(p, spec.x_scale, spec.y_scale)).collect(),
        })
        .filter(|series| !series.points.is_empty())
        .collect()
}

fn drawable_point(p: &Point, x_scale: Scale, y_scale: Scale) -> Option<DrawnPoint> {
    if !usable(p.x, x_scale) || !usable(p.y, y_scale) {
        return None;
    }
    Some(DrawnPoint {
        x: p.x,
        y: p.y,
        low: p.low.filter(|&v| usable(v, y_scale)),
        high: p.high.filter(|&v| usable(v, y_scale)),
        samples: p.samples.iter().copied().filter(|&v| usable(v, y_scale)).collect(),
    })
}

fn usable(v: f64, scale: Scale) -> bool {
    let magnitude_ok = v == 0.0 || (MIN_ABS..=MAX_ABS).contains(&v.abs());
    v.is_finite() && magnitude_ok && (scale == Scale::Linear || v > 0.0)
}

/// Smallest and largest x over all drawn points.
pub(super) fn x_extent(series: &[DrawnSeries]) -> Option<(f64, f64)> {
    extent(series.iter().flat_map(|s| &s.points).map(|p| p.x))
}

/// Smallest and largest y over medians, whiskers and samples.
pub(super) fn y_extent(series: &[DrawnSeries]) -> Option<(f64, f64)> {
    let values = series
        .iter()
        .flat_map(|s| &s.points)
        .flat_map(|p| [Some(p.y), p.low, p.high].into_iter().flatten().chain(p.samples.iter().copied()));
    extent(values)
}

fn extent(values: impl Iterator<Item = f64>) -> Option<(f64, f64)> {
    values.fold(None, |acc, v| match acc {
        None => Some((v, v)),
        Some((lo, hi)) => Some((lo.min(v), hi.max(v))),
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::site::chart::Series;

    fn point(x: f64, y: f64, samples: Vec<f64>) -> Point {
        Point { x, y, low: Some(-1.0), high: Some(f64::INFINITY), samples }
    }

    #[test]
    fn drops_non_finite_and_non_positive_on_log_axes() {
        let spec = ChartSpec {
            id: "t".into(),
            title: "t".into(),
            x_label: "x".into(),
            y_label: "y".into(),
            x_scale: Scale::Log2,
            y_scale: Scale::Log10,
            series: vec![
                Series { name: "empty".into(), points: vec![point(0.0, 1.0, vec![]), point(f64::NAN, 1.0, vec![])] },
                Series { name: "kept".into(), points: vec![point(8.0, 2.0, vec![f64::NAN, 0.0, 3.0])] },
            ],
            description: String::new(),
        };
        let drawn = drawable(&spec);
        assert_eq!(drawn.len(), 1);
        assert_eq!(drawn[0].index, 1);
        let p = &drawn[0].points[0];
        assert_eq!((p.low, p.high, p.samples.as_slice()), (None, None, &[3.0][..]));
        assert_eq!(y_extent(&drawn), Some((2.0, 3.0)));
        assert_eq!(x_extent(&drawn), Some((8.0, 8.0)));
    }
}
