//! The verdicts between a base and a candidate run, case by case, from their per-cycle
//! samples. Uses `stats` (median, Mann-Whitney, BH, bootstrap) only.
//!
//! 1. Cases are matched by section, world size, case text and metric. A case in one run
//!    only, or any case when the configurations differ, is `not_comparable` (with why).
//! 2. Run-wide drift: the median over comparable cases of the cost ratio (time CAND/BASE;
//!    BASE/CAND for bandwidth), with a bootstrap interval. With at least
//!    `MIN_CASES_FOR_DRIFT` comparable cases it is divided out of the candidate's samples
//!    before the per-case tests (with fewer, one changed case would be mistaken for drift).
//! 3. Per case: two-sided Mann-Whitney p on the drift-corrected samples. A case whose
//!    smallest reachable p cannot pass BH's first cut q/m (m = comparable cases) is
//!    `too_few_cycles`, with the cycles it needs. The others get BH q-values among themselves.
//! 4. `slower`/`faster` needs q <= `Q` and a drift-corrected effect of at least the noise
//!    floor: max(3 %, the case's noise between repeated runs of the configuration, if known),
//!    for the point estimate *and* the whole bootstrap interval (as criterion.rs requires of
//!    its noise threshold). BH alone lets about q = 5 % of null comparisons flag some case;
//!    the interval rule keeps that below 5 % also at cv 10 % (see `simulation_tests`).

use super::samples::CaseSamples;
use crate::analysis::stats::bootstrap::{median_interval, ratio_of_medians, seed_of};
use crate::analysis::stats::median;
use crate::analysis::stats::significance::{benjamini_hochberg, cycles_needed, mann_whitney_p, min_two_sided_p};
use rayon::prelude::*;
use serde::Serialize;
use std::collections::BTreeMap;

/// False discovery rate of Benjamini-Hochberg.
pub const Q: f64 = 0.05;
/// The smallest effect ever called a change.
pub const MIN_EFFECT: f64 = 0.03;
/// Drift is divided out only when this many cases are comparable.
pub const MIN_CASES_FOR_DRIFT: usize = 5;

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Verdict {
    Slower,
    Faster,
    NoChange,
    NotComparable,
    TooFewCycles,
}

impl Verdict {
    pub fn as_str(self) -> &'static str {
        match self {
            Verdict::Slower => "slower",
            Verdict::Faster => "faster",
            Verdict::NoChange => "no_change",
            Verdict::NotComparable => "not_comparable",
            Verdict::TooFewCycles => "too_few_cycles",
        }
    }
}

#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Drift {
    /// Median cost ratio over comparable cases (> 1: the candidate is slower overall).
    pub ratio: f64,
    /// Bootstrap interval (`None` until `add_intervals`).
    pub ci_low: Option<f64>,
    pub ci_high: Option<f64>,
    pub cases: usize,
    /// Whether it was divided out before the per-case verdicts.
    pub applied: bool,
}

#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct CaseResult {
    pub section: &'static str,
    pub world_size: i64,
    pub case: String,
    /// The case folder of a decode case (`CaseSamples::folder`); absent from the JSON for
    /// the other sections.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub case_folder: Option<String>,
    pub metric: &'static str,
    pub base_cycles: usize,
    pub candidate_cycles: usize,
    /// median(CAND) / median(BASE) of the metric, as measured.
    pub ratio: Option<f64>,
    /// Bootstrap interval of `ratio` (`None` until `add_intervals`).
    pub ci_low: Option<f64>,
    pub ci_high: Option<f64>,
    /// The cost ratio as measured: `ratio` for times, its inverse for bandwidth (> 1: slower).
    pub cost_ratio: Option<f64>,
    /// The cost ratio after dividing out the drift (> 1: slower).
    pub corrected_cost_ratio: Option<f64>,
    pub p: Option<f64>,
    pub q: Option<f64>,
    /// The effect a change must reach (fraction).
    pub effect_floor: f64,
    pub verdict: Verdict,
    /// Why a case is not_comparable or too_few_cycles.
    pub reason: Option<String>,
}

impl CaseResult {
    /// The case's identity, as `CaseSamples::key` writes it.
    pub fn key(&self) -> String {
        super::samples::case_key(self.section, self.world_size, self.case_folder.as_deref(), &self.case, self.metric)
    }

    /// The case as people read it: `world2_decode: tokens=1;...` for a decode case, else the
    /// seed's case text.
    pub fn case_label(&self) -> String {
        match &self.case_folder {
            Some(folder) => format!("{folder}: {}", self.case),
            None => self.case.clone(),
        }
    }
}

/// Inputs besides the samples.
#[derive(Debug, Clone, Default)]
pub struct Context {
    /// Key parts in which the two configurations differ (empty: comparable).
    pub key_differences: Vec<String>,
    /// Per case key: the relative noise between repeated runs of the configuration.
    pub noise: BTreeMap<String, f64>,
}

#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Outcome {
    pub drift: Option<Drift>,
    pub cases: Vec<CaseResult>,
}

struct Pair<'a> {
    base: &'a CaseSamples,
    cand: &'a CaseSamples,
    cost_ratio: f64,
}

pub fn compare(base: &[CaseSamples], cand: &[CaseSamples], context: &Context) -> Outcome {
    let cand_by_key: BTreeMap<String, &CaseSamples> = cand.iter().map(|c| (c.key(), c)).collect();
    let base_keys: std::collections::BTreeSet<String> = base.iter().map(CaseSamples::key).collect();
    let comparable_config = context.key_differences.is_empty();
    let mut results: Vec<CaseResult> = Vec::new();
    let mut pairs: Vec<(usize, Pair)> = Vec::new();
    for b in base {
        let Some(c) = cand_by_key.get(&b.key()) else {
            results.push(not_comparable(b, b.values.len(), 0, "only in the base run".to_string()));
            continue;
        };
        if b.values.is_empty() || c.values.is_empty() {
            results.push(not_comparable(b, b.values.len(), c.values.len(), "no samples".to_string()));
            continue;
        }
        if let Some(why) = super::samples::unusable(&b.values, &c.values) {
            results.push(not_comparable(b, b.values.len(), c.values.len(), why));
            continue;
        }
        let ratio = median(&c.values) / median(&b.values);
        let cost_ratio = if b.higher_is_better { 1.0 / ratio } else { ratio };
        let mut result = not_comparable(b, b.values.len(), c.values.len(), String::new());
        (result.ratio, result.cost_ratio) = (Some(ratio), Some(cost_ratio));
        if comparable_config {
            pairs.push((results.len(), Pair { base: b, cand: c, cost_ratio }));
        } else {
            result.reason = Some(format!("configurations differ: {}", context.key_differences.join(", ")));
        }
        results.push(result);
    }
    for c in cand.iter().filter(|c| !base_keys.contains(&c.key())) {
        results.push(not_comparable(c, 0, c.values.len(), "only in the candidate run".to_string()));
    }

    let drift = drift_of(&pairs);
    let divisor = drift.as_ref().filter(|d| d.applied).map_or(1.0, |d| d.ratio);
    let first_cut = Q / pairs.len().max(1) as f64;
    let mut tested: Vec<(usize, f64)> = Vec::new();
    for (index, pair) in &pairs {
        let result = &mut results[*index];
        let corrected: Vec<f64> = pair
            .cand
            .values
            .iter()
            .map(|v| if pair.base.higher_is_better { v * divisor } else { v / divisor })
            .collect();
        result.corrected_cost_ratio = Some(pair.cost_ratio / divisor);
        result.effect_floor = context.noise.get(&pair.base.key()).copied().unwrap_or(0.0).max(MIN_EFFECT);
        let p = mann_whitney_p(&pair.base.values, &corrected);
        result.p = Some(p);
        let (nb, nc) = (pair.base.values.len(), pair.cand.values.len());
        if min_two_sided_p(nb, nc) > first_cut {
            result.verdict = Verdict::TooFewCycles;
            result.reason = Some(format!(
                "{nb} vs {nc} cycles reach p >= {:.2e} at best, above q/m = {:.2e}; needs at least {} cycles per run",
                min_two_sided_p(nb, nc),
                first_cut,
                cycles_needed(first_cut)
            ));
        } else {
            tested.push((*index, p));
        }
    }
    let q_values = benjamini_hochberg(&tested.iter().map(|t| t.1).collect::<Vec<_>>());
    let pair_at: BTreeMap<usize, &Pair> = pairs.iter().map(|(i, p)| (*i, p)).collect();
    for ((index, _), q) in tested.into_iter().zip(q_values) {
        let result = &mut results[index];
        result.q = Some(q);
        result.reason = None;
        let effect = result.corrected_cost_ratio.unwrap_or(1.0);
        let floor = result.effect_floor;
        result.verdict = if q > Q || (effect - 1.0).abs() < floor {
            Verdict::NoChange
        } else {
            let (low, high) = corrected_cost_interval(pair_at[&index], divisor);
            if low >= 1.0 + floor {
                Verdict::Slower
            } else if high <= 1.0 - floor {
                Verdict::Faster
            } else {
                result.reason =
                    Some(format!("significant, but the interval reaches within {:.0} % of no change", floor * 100.0));
                Verdict::NoChange
            }
        };
    }
    Outcome { drift, cases: results }
}

/// Bootstrap interval of the drift-corrected cost ratio (computed only for candidates to a
/// change: the costly part stays off the common path).
fn corrected_cost_interval(pair: &Pair, divisor: f64) -> (f64, f64) {
    let (low, high) = ratio_of_medians(&pair.base.values, &pair.cand.values, seed_of(&pair.base.key()));
    if pair.base.higher_is_better {
        (1.0 / high / divisor, 1.0 / low / divisor)
    } else {
        (low / divisor, high / divisor)
    }
}

fn not_comparable(s: &CaseSamples, base_cycles: usize, candidate_cycles: usize, reason: String) -> CaseResult {
    CaseResult {
        section: s.section,
        world_size: s.world_size,
        case: s.case.clone(),
        case_folder: s.folder.clone(),
        metric: s.metric,
        base_cycles,
        candidate_cycles,
        ratio: None,
        ci_low: None,
        ci_high: None,
        cost_ratio: None,
        corrected_cost_ratio: None,
        p: None,
        q: None,
        effect_floor: MIN_EFFECT,
        verdict: Verdict::NotComparable,
        reason: Some(reason),
    }
}

fn drift_of(pairs: &[(usize, Pair)]) -> Option<Drift> {
    if pairs.is_empty() {
        return None;
    }
    let ratios: Vec<f64> = pairs.iter().map(|(_, p)| p.cost_ratio).collect();
    Some(Drift {
        ratio: median(&ratios),
        ci_low: None,
        ci_high: None,
        cases: ratios.len(),
        applied: ratios.len() >= MIN_CASES_FOR_DRIFT,
    })
}

/// Adds the bootstrap intervals (per case, and of the drift) to an outcome of `compare` on
/// the same samples. Kept apart: the verdicts do not depend on them, and they cost most.
/// Each interval's generator is seeded from its case key (the drift's from all of them).
pub fn add_intervals(outcome: &mut Outcome, base: &[CaseSamples], cand: &[CaseSamples]) {
    let base_by_key: BTreeMap<String, &CaseSamples> = base.iter().map(|s| (s.key(), s)).collect();
    let cand_by_key: BTreeMap<String, &CaseSamples> = cand.iter().map(|s| (s.key(), s)).collect();
    outcome.cases.par_iter_mut().filter(|r| r.ratio.is_some()).for_each(|result| {
        let key = result.key();
        if let (Some(b), Some(c)) = (base_by_key.get(&key), cand_by_key.get(&key)) {
            let (low, high) = ratio_of_medians(&b.values, &c.values, seed_of(&key));
            (result.ci_low, result.ci_high) = (Some(low), Some(high));
        }
    });
    let mut drift_ratios = Vec::new();
    let mut drift_keys = Vec::new();
    for result in outcome.cases.iter().filter(|r| r.ratio.is_some()) {
        if let (Some(cost), Some(_)) = (result.cost_ratio, result.corrected_cost_ratio) {
            drift_ratios.push(cost);
            drift_keys.push(result.key());
        }
    }
    if let Some(drift) = outcome.drift.as_mut().filter(|_| !drift_ratios.is_empty()) {
        let (low, high) = median_interval(&drift_ratios, seed_of(&format!("drift\n{}", drift_keys.join("\n"))));
        (drift.ci_low, drift.ci_high) = (Some(low), Some(high));
    }
}
