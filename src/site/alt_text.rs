//! A chart's text alternative from its data: what each series does (where it starts and ends,
//! whether it rises, falls or stays flat, and a peak between the ends), so that a reader who
//! cannot see the chart gets its trend, not its caption again. Uses `site::chart` and
//! `format` only.

use crate::format::{bytes, count, gbs, measured, trimmed};
use crate::site::chart::{ChartSpec, Point};

/// A change smaller than this factor either way reads as flat.
const FLAT: f64 = 1.1;

/// `Title. N series. <name>: rises from 1.2 µs at 8 B to 40 µs at 8 MiB (33x). ...`
pub(crate) fn alt_text(spec: &ChartSpec) -> String {
    let mut out = format!("{}. ", spec.title.trim_end_matches('.'));
    if spec.series.is_empty() {
        out.push_str("No data to draw.");
        return out;
    }
    out.push_str(&format!(
        "{}, {} against {}.",
        count(spec.series.len(), "series"),
        bare(&spec.y_label),
        bare(&spec.x_label)
    ));
    for series in &spec.series {
        out.push(' ');
        out.push_str(&series_trend(spec, &series.name, &series.points));
    }
    out
}

fn series_trend(spec: &ChartSpec, name: &str, points: &[Point]) -> String {
    let finite: Vec<&Point> = points.iter().filter(|p| p.y.is_finite()).collect();
    let (Some(first), Some(last)) = (finite.first(), finite.last()) else {
        return format!("{name}: no values.");
    };
    let y = |v: f64| y_value(&spec.y_label, v);
    let x = |v: f64| x_value(&spec.x_label, v);
    if finite.len() == 1 {
        return format!("{name}: {} at {}.", y(first.y), x(first.x));
    }
    let ratio = last.y / first.y;
    let flat = finite.iter().all(|p| p.y == first.y);
    let shape = if flat {
        format!("flat at {} from {} to {}", y(first.y), x(first.x), x(last.x))
    } else if first.y > 0.0 && ratio > FLAT {
        format!(
            "rises from {} at {} to {} at {} ({}x)",
            y(first.y),
            x(first.x),
            y(last.y),
            x(last.x),
            trimmed(ratio, 1)
        )
    } else if first.y > 0.0 && ratio < 1.0 / FLAT {
        format!(
            "falls from {} at {} to {} at {} ({}x)",
            y(first.y),
            x(first.x),
            y(last.y),
            x(last.x),
            trimmed(ratio, 2)
        )
    } else if first.y > 0.0 {
        format!("stays within 10 % of {} from {} to {}", y(first.y), x(first.x), x(last.x))
    } else {
        format!("goes from {} at {} to {} at {}", y(first.y), x(first.x), y(last.y), x(last.x))
    };
    let top = finite.iter().max_by(|a, b| a.y.total_cmp(&b.y)).expect("two points");
    let ends = first.y.max(last.y);
    if top.y > ends * FLAT && ends > 0.0 {
        format!("{name}: {shape}, peaking at {} at {}.", y(top.y), x(top.x))
    } else {
        format!("{name}: {shape}.")
    }
}

/// An axis label without its parenthesized unit: `time (µs)` -> `time`.
fn bare(label: &str) -> &str {
    label.split(" (").next().unwrap_or(label).trim()
}

/// A y value with the axis's unit.
fn y_value(label: &str, v: f64) -> String {
    if label.contains("(GB/s)") {
        format!("{} GB/s", gbs(v))
    } else if label.contains("(µs)") {
        format!("{} µs", measured(v, None))
    } else if label.contains("(%)") {
        format!("{} %", measured(v, None))
    } else {
        measured(v, None)
    }
}

/// An x value: a byte size on a size axis, else the number (the first sentence names the axis).
fn x_value(label: &str, v: f64) -> String {
    if label.contains("bytes") && v.fract() == 0.0 && v.abs() < 9e18 {
        bytes(v as i64)
    } else {
        trimmed(v, 3)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::site::chart::{Scale, Series};

    fn spec(x_label: &str, y_label: &str, series: Vec<(&str, Vec<(f64, f64)>)>) -> ChartSpec {
        ChartSpec {
            id: "c".into(),
            title: "Decode replay".into(),
            x_label: x_label.into(),
            y_label: y_label.into(),
            x_scale: Scale::Log2,
            y_scale: Scale::Linear,
            series: series
                .into_iter()
                .map(|(name, points)| Series {
                    name: name.into(),
                    points: points
                        .into_iter()
                        .map(|(x, y)| Point { x, y, low: None, high: None, samples: Vec::new() })
                        .collect(),
                })
                .collect(),
            description: "Lines join the medians.".into(),
        }
    }

    #[test]
    fn says_the_trend_of_every_series() {
        let chart = spec(
            "message size (bytes)",
            "bus bandwidth (GB/s)",
            vec![
                ("2 ranks", vec![(8.0, 0.5), (1048576.0, 120.0), (8589934592.0, 370.123)]),
                ("expected peak", vec![(8.0, 450.0), (8589934592.0, 450.0)]),
                ("falling", vec![(8.0, 10.0), (16.0, 4.0)]),
                ("humped", vec![(1.0, 10.0), (2.0, 30.0), (3.0, 10.5)]),
                ("one", vec![(1024.0, 2.0)]),
                ("none", vec![(1024.0, f64::NAN)]),
            ],
        );
        assert_eq!(
            alt_text(&chart),
            "Decode replay. 6 series, bus bandwidth against message size. \
             2 ranks: rises from 0.50 GB/s at 8 B to 370.12 GB/s at 8 GiB (740.2x). \
             expected peak: flat at 450.00 GB/s from 8 B to 8 GiB. \
             falling: falls from 10.00 GB/s at 8 B to 4.00 GB/s at 16 B (0.4x). \
             humped: stays within 10 % of 10.00 GB/s from 1 B to 3 B, peaking at 30.00 GB/s at 2 B. \
             one: 2.00 GB/s at 1 KiB. none: no values."
        );
    }

    #[test]
    fn names_the_x_axis_when_it_is_not_a_size() {
        let chart = spec(
            "tokens per step (tokens x 4096 FP16)",
            "time per call (µs)",
            vec![("TP=2", vec![(1.0, 12.34), (128.0, 45.67)])],
        );
        assert_eq!(
            alt_text(&chart),
            "Decode replay. 1 series, time per call against tokens per step. \
             TP=2: rises from 12.3 µs at 1 to 45.7 µs at 128 (3.7x)."
        );
        assert_eq!(alt_text(&spec("x", "y", Vec::new())), "Decode replay. No data to draw.");
    }
}
