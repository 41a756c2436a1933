//! A chart's text alternative from its data: what each series does (where it starts and ends,
//! whether it rises, falls or stays within 10 % at every point, a peak or dip between the
//! ends, its range where it ends near its start), so that a reader who
//! cannot see the chart gets its trend, not its caption again. Uses `site::chart` and
//! `format` only.

use crate::core::format::{bytes, count, gbs, measured, trimmed};
use crate::site::chart::{ChartSpec, Point};

/// A change smaller than this factor either way reads as flat.
const FLAT: f64 = 1.1;

/// `Title. N series, y against x. <name>: rises from 1.2 µs at 8 B to 40 µs at 8 MiB (33x
/// higher). ...`
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
    // A named x place (a history's run) by its name.
    let named = |v: f64| (v >= 0.0 && v.fract() == 0.0).then(|| spec.x_names.get(v as usize).cloned()).flatten();
    let x = |v: f64| named(v).unwrap_or_else(|| x_value(&spec.x_label, v));
    if finite.len() == 1 {
        return format!("{name}: {} at {}.", y(first.y), x(first.x));
    }
    let at = |p: &Point| format!("{} at {}", y(p.y), x(p.x));
    let top = finite.iter().copied().max_by(|a, b| a.y.total_cmp(&b.y)).expect("two points");
    let bottom = finite.iter().copied().min_by(|a, b| a.y.total_cmp(&b.y)).expect("two points");
    if top.y == bottom.y {
        return format!("{name}: flat at {} from {} to {}.", y(first.y), x(first.x), x(last.x));
    }
    if first.y <= 0.0 || last.y <= 0.0 {
        return format!("{name}: goes from {} to {}, between {} and {}.", at(first), at(last), y(bottom.y), y(top.y));
    }
    if top.y <= first.y * FLAT && bottom.y >= first.y / FLAT {
        return format!("{name}: stays within 10 % of {} from {} to {}.", y(first.y), x(first.x), x(last.x));
    }
    let ratio = last.y / first.y;
    let mut shape = if ratio > FLAT {
        format!("rises from {} to {} ({}x higher)", at(first), at(last), trimmed(ratio, 1))
    } else if ratio < 1.0 / FLAT {
        format!("falls from {} to {} ({}x lower)", at(first), at(last), trimmed(1.0 / ratio, 1))
    } else {
        return format!(
            "{name}: ends within 10 % of where it starts ({} to {}), ranging from {} to {}.",
            at(first),
            at(last),
            at(bottom),
            at(top)
        );
    };
    if top.y > first.y.max(last.y) * FLAT {
        shape.push_str(&format!(", peaking at {}", at(top)));
    }
    if bottom.y < first.y.min(last.y) / FLAT {
        shape.push_str(&format!(", dipping to {}", at(bottom)));
    }
    format!("{name}: {shape}.")
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
            x_names: Vec::new(),
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
             2 ranks: rises from 0.50 GB/s at 8 B to 370.12 GB/s at 8 GiB (740.2x higher). \
             expected peak: flat at 450.00 GB/s from 8 B to 8 GiB. \
             falling: falls from 10.00 GB/s at 8 B to 4.00 GB/s at 16 B (2.5x lower). \
             humped: ends within 10 % of where it starts (10.00 GB/s at 1 B to 10.50 GB/s at 3 B), ranging from 10.00 GB/s at 1 B to 30.00 GB/s at 2 B. \
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
             TP=2: rises from 12.3 µs at 1 to 45.7 µs at 128 (3.7x higher)."
        );
        assert_eq!(alt_text(&spec("x", "y", Vec::new())), "Decode replay. No data to draw.");
        // Within 10 % means every point: a wobble past it is named with its range.
        let wobble = spec("calls", "time (µs)", vec![("w", vec![(1.0, 4.40), (2.0, 3.91), (3.0, 4.94), (4.0, 4.43)])]);
        assert!(alt_text(&wobble).ends_with(
            "w: ends within 10 % of where it starts (4.40 µs at 1 to 4.43 µs at 4), ranging from 3.91 µs at 2 to 4.94 µs at 3."
        ));
        let steady = spec("calls", "time (µs)", vec![("s", vec![(1.0, 4.40), (2.0, 4.10), (3.0, 4.80)])]);
        assert!(alt_text(&steady).ends_with("s: stays within 10 % of 4.40 µs from 1 to 3."));
        let rise_with_dip =
            spec("calls", "time (µs)", vec![("r", vec![(1.0, 10.0), (2.0, 5.0), (3.0, 40.0), (4.0, 20.0)])]);
        assert!(alt_text(&rise_with_dip).ends_with(
            "r: rises from 10.0 µs at 1 to 20.0 µs at 4 (2x higher), peaking at 40.0 µs at 3, dipping to 5.00 µs at 2."
        ));
        let through_zero = spec("x", "overhead (%)", vec![("z", vec![(1.0, 5.0), (2.0, -3.0)])]);
        assert!(
            alt_text(&through_zero).ends_with("z: goes from 5.00 % at 1 to -3.00 % at 2, between -3.00 % and 5.00 %.")
        );
    }
}
