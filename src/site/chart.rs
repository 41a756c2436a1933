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
    /// Names of x positions (a history's runs: x = 0, 1, 2... in time order), shown as the x
    /// ticks and in hover text instead of numbers; empty for a numeric x axis.
    pub x_names: Vec<String>,
}

/// One run's value of a case, for a history chart: the run-level value (a median over
/// cycles, or what the comparison engine computes per run) and its spread.
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct RunValue {
    /// The run's id (its position in `runs`).
    pub run: String,
    pub value: f64,
    /// Spread whiskers (e.g. fastest cycle and P95), when the value has one.
    pub low: Option<f64>,
    pub high: Option<f64>,
    /// Every cycle's value, drawn as faint dots (may be empty).
    pub samples: Vec<f64>,
}

/// A time-ordered chart of run-level values with their spread: x is each run's place in
/// `runs` (oldest first), named by its short id, one series per `(name, values)`; a value of a
/// run not in `runs` is left out. Drawn like every chart (`render::charts`: log y when the
/// values span a decade, outliers at the edge, hover values).
pub(crate) fn history(
    id: &str,
    title: &str,
    y_label: &str,
    runs: &[String],
    series: Vec<(String, Vec<RunValue>)>,
    description: &str,
) -> ChartSpec {
    let place = |run: &str| runs.iter().position(|r| r == run);
    let series = series
        .into_iter()
        .map(|(name, values)| {
            let mut points: Vec<Point> = values
                .into_iter()
                .filter_map(|v| {
                    let x = place(&v.run)? as f64;
                    Some(Point { x, y: v.value, low: v.low, high: v.high, samples: v.samples })
                })
                .collect();
            points.sort_by(|a, b| a.x.total_cmp(&b.x));
            Series { name, points }
        })
        .collect();
    ChartSpec {
        id: id.to_string(),
        title: title.to_string(),
        x_label: "run (oldest to newest)".to_string(),
        y_label: y_label.to_string(),
        x_scale: Scale::Linear,
        y_scale: Scale::Linear,
        series,
        description: description.to_string(),
        x_names: runs.iter().map(|r| short_id(r)).collect(),
    }
}

/// A run id as chart legends abbreviate it: a seed-style id (`%Y%m%dT%H%M%SZ`, optionally
/// followed by `-suffix`) without its date (`T081133Z`, `T081133Z-h200`); any other id whole
/// (legend names wrap, never cut).
pub(crate) fn short_id(id: &str) -> String {
    let b = id.as_bytes();
    let stamped = b.len() >= 16
        && b[..8].iter().all(u8::is_ascii_digit)
        && b[8] == b'T'
        && b[9..15].iter().all(u8::is_ascii_digit)
        && b[15] == b'Z'
        && (b.len() == 16 || b[16] == b'-');
    if stamped {
        id[8..].to_string()
    } else {
        id.to_string()
    }
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

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_history_places_runs_in_time_order_and_names_them() {
        let runs: Vec<String> = ["20261203T081106Z", "20261203T081120Z", "h200-rdzv"].map(String::from).to_vec();
        let value = |run: &str, value: f64| RunValue { run: run.into(), value, low: None, high: None, samples: vec![] };
        let spec = history(
            "h",
            "tokens=1 over time",
            "time (µs)",
            &runs,
            vec![(
                "tokens=1".into(),
                vec![value("h200-rdzv", 3.0), value("20261203T081106Z", 1.0), value("gone", 9.0)],
            )],
            "",
        );
        let xs: Vec<(f64, f64)> = spec.series[0].points.iter().map(|p| (p.x, p.y)).collect();
        assert_eq!(xs, [(0.0, 1.0), (2.0, 3.0)]);
        assert_eq!(spec.x_names, ["T081106Z", "T081120Z", "h200-rdzv"]);
    }
}
