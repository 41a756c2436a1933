//! The charts' numbers as CSV, one file for every chart of a page: one row per (chart,
//! series, point), the chart named by its id, every finite value, Rust's shortest
//! round-trip formatting, RFC 4180 quoting by the csv crate.

use crate::site::chart::{ChartSpec, Point};

const HEADER: [&str; 7] = ["chart", "series", "x", "y", "low", "high", "samples"];

/// Writes the CSV of `specs`, in their order; points whose x or y is not finite are left
/// out, as are non-finite whiskers (empty field) and samples.
pub(super) fn write_csv(specs: &[&ChartSpec]) -> csv::Result<Vec<u8>> {
    let mut writer = csv::Writer::from_writer(Vec::new());
    writer.write_record(HEADER)?;
    for spec in specs {
        for series in &spec.series {
            for point in series.points.iter().filter(|p| p.x.is_finite() && p.y.is_finite()) {
                writer.write_record(row(&spec.id, &series.name, point))?;
            }
        }
    }
    writer.into_inner().map_err(|e| csv::Error::from(e.into_error()))
}

fn row(chart: &str, name: &str, p: &Point) -> [String; 7] {
    let optional = |v: Option<f64>| v.filter(|v| v.is_finite()).map(|v| v.to_string());
    let samples: Vec<String> = p.samples.iter().filter(|v| v.is_finite()).map(f64::to_string).collect();
    [
        chart.to_string(),
        text_cell(name),
        p.x.to_string(),
        p.y.to_string(),
        optional(p.low).unwrap_or_default(),
        optional(p.high).unwrap_or_default(),
        samples.join(";"),
    ]
}

/// A cell of run text (a series is named by run ids and case names): one that a spreadsheet
/// would take for a formula (it begins with `=`, `+`, `-`, `@`, a tab or a carriage return)
/// begins with `'` instead, which spreadsheets read as "text follows" (a run folder named
/// `=HYPERLINK(...)` was a live formula in every chart CSV).
fn text_cell(text: &str) -> String {
    match text.starts_with(['=', '+', '-', '@', '\t', '\r']) {
        true => format!("'{text}"),
        false => text.to_string(),
    }
}
