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
    text("scenario", |r| t(scenario_label(&r.scenario))),
    num("placements", |r| t(r.cases.to_string())),
    num("FP16 mismatches", |r| t(r.fp16_mismatch_count.to_string())),
    num("FP16 non-finite", |r| t(r.fp16_nonfinite_count.to_string())),
    num("FP32 mismatches", |r| flagged(r.fp32_mismatch_count.to_string(), r.fp32_mismatch_count > 0)),
    text("FP16 results", |r| t(r.unique_fp16_results.clone())),
];

/// Scenario names of other worker versions and the canonical name the site shows for them
/// (the current `suite/worker.py`'s), so one scenario is one name on every page. The seed
/// files of a run keep the names the run recorded.
pub(crate) const SCENARIO_ALIASES: &[(&str, &str)] = &[
    ("absorption_2048_plus_small", "absorption"),
    ("exact_small_integers", "control"),
    ("overflow_then_cancel", "overflow"),
];

/// The canonical name of scenario `name` (itself when it has no alias).
pub(crate) fn canonical_scenario(name: &str) -> &str {
    SCENARIO_ALIASES.iter().find(|(alias, _)| *alias == name).map_or(name, |(_, canonical)| canonical)
}

/// The scenario as a table shows it: the canonical name, and the recorded one when it differs.
fn scenario_label(name: &str) -> String {
    match canonical_scenario(name) {
        canonical if canonical == name => name.to_string(),
        canonical => format!("{canonical} (recorded as {name})"),
    }
}

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

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn scenario_names_of_every_worker_version_have_one_canonical_name() {
        assert_eq!(canonical_scenario("absorption_2048_plus_small"), "absorption");
        assert_eq!(canonical_scenario("exact_small_integers"), "control");
        assert_eq!(canonical_scenario("overflow_then_cancel"), "overflow");
        assert_eq!(canonical_scenario("overflow"), "overflow");
        assert_eq!(scenario_label("overflow_then_cancel"), "overflow (recorded as overflow_then_cancel)");
        assert_eq!(scenario_label("absorption"), "absorption");
    }
}
