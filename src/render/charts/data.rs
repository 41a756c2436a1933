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

/// The y scale a chart is drawn on: base-10 log where the medians span a decade or more and are
/// all positive (so values close together are not squeezed by one far away), else the spec's.
pub(super) fn y_scale(spec: &ChartSpec) -> Scale {
    let medians = spec.series.iter().flat_map(|s| &s.points).map(|p| p.y).filter(|y| usable(*y, Scale::Linear));
    match extent(medians) {
        Some((lo, hi)) if spec.y_scale == Scale::Linear && lo > 0.0 && hi / lo >= 10.0 => Scale::Log10,
        _ => spec.y_scale,
    }
}

/// Series with at least one drawable point on y scale `y_scale`, in spec order.
pub(super) fn drawable(spec: &ChartSpec, y_scale: Scale) -> Vec<DrawnSeries> {
    spec.series
        .iter()
        .enumerate()
        .map(|(index, series)| DrawnSeries {
            index,
            name: series.name.clone(),
            points: series.points.iter().filter_map(|p| drawable_point(p, spec.x_scale, y_scale)).collect(),
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

/// The y range shown: every median, and the spread (whiskers, samples) within the quartile
/// fences of all values (Q1 - 1.5 IQR to Q3 + 1.5 IQR, in the scale's units); a value beyond
/// is drawn at the edge, marked (`plot`), so one slow cycle does not squeeze the medians.
pub(super) fn y_extent(series: &[DrawnSeries], scale: Scale) -> Option<(f64, f64)> {
    let points = || series.iter().flat_map(|s| &s.points);
    let (lo, hi) = extent(points().map(|p| p.y))?;
    let to = |v: f64| if scale == Scale::Linear { v } else { v.log10() };
    let from = |t: f64| if scale == Scale::Linear { t } else { 10f64.powf(t) };
    let mut all: Vec<f64> = points()
        .flat_map(|p| [Some(p.y), p.low, p.high].into_iter().flatten().chain(p.samples.iter().copied()))
        .map(to)
        .collect();
    all.sort_by(f64::total_cmp);
    let quartile = |q: f64| all[((all.len() - 1) as f64 * q).round() as usize];
    let (q1, q3) = (quartile(0.25), quartile(0.75));
    let (fence_lo, fence_hi) = (from(q1 - 1.5 * (q3 - q1)), from(q3 + 1.5 * (q3 - q1)));
    let spread = all.iter().map(|t| from(*t)).filter(|v| (fence_lo..=fence_hi).contains(v));
    extent(spread.chain([lo, hi]))
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

    fn spec_of(y_scale: Scale, points: Vec<Point>) -> ChartSpec {
        ChartSpec {
            id: "t".into(),
            title: "t".into(),
            x_label: "x".into(),
            y_label: "y".into(),
            x_scale: Scale::Linear,
            y_scale,
            series: vec![Series { name: "s".into(), points }],
            description: String::new(),
            x_names: Vec::new(),
        }
    }

    #[test]
    fn medians_spanning_a_decade_go_on_a_log_axis() {
        let plain = |y: f64| Point { x: 1.0, y, low: None, high: None, samples: Vec::new() };
        assert_eq!(y_scale(&spec_of(Scale::Linear, vec![plain(2.0), plain(30.0)])), Scale::Log10);
        assert_eq!(y_scale(&spec_of(Scale::Linear, vec![plain(2.0), plain(19.0)])), Scale::Linear);
        assert_eq!(y_scale(&spec_of(Scale::Linear, vec![plain(0.0), plain(30.0)])), Scale::Linear);
    }

    #[test]
    fn the_range_shows_the_medians_not_one_far_cycle() {
        // Four runs at about 11 µs, one cycle at 60 µs: the axis stays near 11.
        let near =
            |y: f64| Point { x: 1.0, y, low: Some(y - 0.2), high: Some(y + 0.3), samples: vec![y - 0.1, y, y + 0.1] };
        let mut points: Vec<Point> = [10.8, 11.0, 11.1, 11.3].into_iter().map(near).collect();
        points[0].samples.push(60.0);
        points[0].high = Some(60.0);
        let spec = spec_of(Scale::Linear, points);
        let drawn = drawable(&spec, Scale::Linear);
        let (lo, hi) = y_extent(&drawn, Scale::Linear).unwrap();
        assert!(lo >= 10.5 && hi <= 12.0, "{lo} {hi}");
        assert!(lo <= 10.8 && hi >= 11.3, "every median is shown: {lo} {hi}");
    }

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
            x_names: Vec::new(),
        };
        let drawn = drawable(&spec, spec.y_scale);
        assert_eq!(drawn.len(), 1);
        assert_eq!(drawn[0].index, 1);
        let p = &drawn[0].points[0];
        assert_eq!((p.low, p.high, p.samples.as_slice()), (None, None, &[3.0][..]));
        assert_eq!(y_extent(&drawn, Scale::Log10), Some((2.0, 3.0)));
        assert_eq!(x_extent(&drawn), Some((8.0, 8.0)));
    }
}
