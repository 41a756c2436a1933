//! The chart's numbers as CSV: one row per (series, point), every finite value, Rust's
//! shortest round-trip formatting, RFC 4180 quoting by the csv crate.

use crate::site::chart::{ChartSpec, Point};

const HEADER: [&str; 6] = ["series", "x", "y", "low", "high", "samples"];

/// Writes the CSV; points whose x or y is not finite are left out, as are non-finite
/// whiskers (empty field) and samples.
pub(super) fn write_csv(spec: &ChartSpec) -> csv::Result<Vec<u8>> {
    let mut writer = csv::Writer::from_writer(Vec::new());
    writer.write_record(HEADER)?;
    for series in &spec.series {
        for point in series.points.iter().filter(|p| p.x.is_finite() && p.y.is_finite()) {
            writer.write_record(row(&series.name, point))?;
        }
    }
    writer.into_inner().map_err(|e| csv::Error::from(e.into_error()))
}

fn row(name: &str, p: &Point) -> [String; 6] {
    let optional = |v: Option<f64>| v.filter(|v| v.is_finite()).map(|v| v.to_string());
    let samples: Vec<String> = p.samples.iter().filter(|v| v.is_finite()).map(f64::to_string).collect();
    [
        name.to_string(),
        p.x.to_string(),
        p.y.to_string(),
        optional(p.low).unwrap_or_default(),
        optional(p.high).unwrap_or_default(),
        samples.join(";"),
    ]
}
