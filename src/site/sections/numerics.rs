//! FP16 reduction-order counterexamples: rank 0's results over all placements of the values.

use super::{flagged, num, t, text, ChartKit, Column};
use crate::analysis::overview::RunOverview;
use crate::core::model::summary::NumericSummary;
use crate::site::chart::ChartSpec;

pub(super) const SLUG: &str = "numerics";
pub(super) const TITLE: &str = "FP16 reduction-order counterexamples";
pub(super) const CAPTION: &str = "Rank 0's results over all placements of the values on ranks";
pub(super) const SCOPE: &[&str] = &[
    "FP16 counterexamples show that callers cannot assume implicit FP32 accumulation; they do not describe every GPU architecture's internal reduction order.",
];

pub(super) const COLUMNS: &[Column<NumericSummary>] = &[
    num("ranks", |r| t(r.world_size.map_or("?".into(), |w| w.to_string()))),
    text("scenario", |r| t(r.scenario.clone())),
    num("placements", |r| t(r.cases.to_string())),
    num("FP16 mismatches", |r| t(r.fp16_mismatch_count.to_string())),
    num("FP16 non-finite", |r| t(r.fp16_nonfinite_count.to_string())),
    num("FP32 mismatches", |r| flagged(r.fp32_mismatch_count.to_string(), r.fp32_mismatch_count > 0)),
    text("FP16 results", |r| t(r.unique_fp16_results.clone())),
];

pub(super) fn rows(run: &RunOverview) -> &[NumericSummary] {
    run.sections.numerics.as_deref().unwrap_or_default()
}

pub(super) fn has(run: &RunOverview) -> bool {
    !rows(run).is_empty()
}

/// The numerics section is a table only.
pub(super) fn charts(_kit: &ChartKit, _runs: &[(&RunOverview, String)]) -> Vec<ChartSpec> {
    Vec::new()
}
