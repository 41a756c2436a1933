//! The verdicts of a candidate run, case by case and per metric family, against the history
//! of its configuration: the run is the replicate (`rule`). Uses `stats` (median, the
//! bootstrap) and `rule` only.
//!
//! 1. Cases are matched with the base run by section, world size, case text and metric. A
//!    case in one run only, any case when the configurations differ, or a case whose
//!    values are not finite and positive is `not_comparable` (with why).
//! 2. Per case: the run-level value (median over cycles) as a log cost against the run-level
//!    values of the earlier ok runs of the configuration (`Context::history`, oldest first)
//!    since the case's last change point, less its gross changes (`rule::without_changes`),
//!    by `rule::judge`, with `MIN_EFFECT` and a least spread: the timer step seen in the
//!    cycles (CUDA events tick in 32 ns) or the run-to-run spread of the case's family
//!    (`family_spread`), whichever is larger. `slower`/`faster` also needs the raw ratio to
//!    the base beyond the same floor, so no case whose ratio sits inside its floor is ever
//!    called a change.
//! 3. Per family (host-side, device-side): the run's shift, the median over the family's
//!    cases of its distance from their history medians, judged against the same shift of each
//!    earlier run (less the gross changes among them). A shift beyond the noise is a finding
//!    of its own ("every host-side case is 1.9x slower"), never divided out of the cases.
//!
//! The cycles of one run never decide: their bootstrap interval of the ratio to the base is
//! shown, not used.

use super::change_points::{self, log_cost};
use super::rule::{self, Call, MIN_EFFECT};
use super::samples::{CaseSamples, Family};
use crate::analysis::stats::bootstrap::{self, ratio_of_medians, seed_of};
use crate::analysis::stats::median;
use rayon::prelude::*;
use serde::Serialize;
use std::collections::BTreeMap;

/// A family's shift is judged only over at least this many comparable cases.
pub const MIN_CASES_FOR_SHIFT: usize = 3;

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Verdict {
    Slower,
    Faster,
    NoChange,
    NotComparable,
    InsufficientHistory,
}

impl Verdict {
    pub const ALL: [Verdict; 5] =
        [Verdict::Slower, Verdict::Faster, Verdict::NoChange, Verdict::NotComparable, Verdict::InsufficientHistory];

    pub fn as_str(self) -> &'static str {
        match self {
            Verdict::Slower => "slower",
            Verdict::Faster => "faster",
            Verdict::NoChange => "no_change",
            Verdict::NotComparable => "not_comparable",
            Verdict::InsufficientHistory => "insufficient_history",
        }
    }
}

/// One family's run-wide shift against its history.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Shift {
    pub family: Family,
    /// exp(median over the family's cases of the log-cost distance from their history
    /// medians): > 1 when the whole family is costlier than usual.
    pub ratio: f64,
    /// The noise floor of that shift (fraction), from the same shift of every earlier run.
    pub effect_floor: f64,
    pub cases: usize,
    /// Earlier runs the shift was judged against (`history_left_out` not counted).
    pub history_runs: usize,
    /// Earlier runs whose shift was a gross change, left out (`rule::without_changes`).
    pub history_left_out: usize,
    pub verdict: Verdict,
    pub reason: Option<String>,
}

impl Shift {
    /// `host-side 1.88x slower overall` (for counts and the index) and the like.
    pub fn short(&self) -> String {
        let side = self.family.as_str();
        match self.verdict {
            Verdict::Slower => format!("{side} {:.2}x slower overall", self.ratio),
            Verdict::Faster => format!("{side} {:.2}x faster overall", 1.0 / self.ratio),
            _ => format!("{side} within the noise"),
        }
    }

    /// `every host-side case is 1.88x slower` and the like.
    pub fn sentence(&self) -> String {
        let side = self.family.as_str();
        match self.verdict {
            Verdict::Slower => format!("every {side} case is {:.2}x slower than its history", self.ratio),
            Verdict::Faster => format!("every {side} case is {:.2}x faster than its history", 1.0 / self.ratio),
            _ => match &self.reason {
                Some(reason) => format!("{side} cases at {:.2}x their history: {reason}", self.ratio),
                None => format!(
                    "{side} cases at {:.2}x their history, within the noise ({:.0} %)",
                    self.ratio,
                    self.effect_floor * 100.0
                ),
            },
        }
    }
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
    pub family: Family,
    pub base_cycles: usize,
    pub candidate_cycles: usize,
    /// median(CAND) / median(BASE) of the metric, as measured.
    pub ratio: Option<f64>,
    /// Bootstrap interval of `ratio` over the two runs' cycles (`None` until `add_intervals`):
    /// shown, never decisive.
    pub ci_low: Option<f64>,
    pub ci_high: Option<f64>,
    /// The cost ratio to the base: `ratio` for times, its inverse for bandwidth (> 1: slower).
    pub cost_ratio: Option<f64>,
    /// Earlier ok runs of the configuration the case was judged against: its current regime
    /// (`current_regime`) less the changes left out.
    pub history_runs: usize,
    /// Earlier runs of the regime left out as gross changes (`rule::without_changes`: far
    /// beyond the others, or hidden behind one that is).
    pub history_left_out: usize,
    /// The candidate's cost against the median of those runs (> 1: costlier than usual).
    pub history_ratio: Option<f64>,
    /// The noise floor: the effect a change must exceed (fraction).
    pub effect_floor: f64,
    /// The timer step seen in the cycles (the metric's unit), when the values are quantized.
    pub timer_step: Option<f64>,
    pub verdict: Verdict,
    /// Why a case is not_comparable or insufficient_history, or why a beyond-floor case is not
    /// a change.
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

/// Inputs besides the two runs' samples.
#[derive(Debug, Clone, Default)]
pub struct Context {
    /// Key parts in which the two configurations differ (empty: comparable).
    pub key_differences: Vec<String>,
    /// Run-level values (case key -> median over cycles) of the earlier ok runs of the
    /// candidate's configuration, oldest first (`history::windows`).
    pub history: Vec<BTreeMap<String, f64>>,
}

#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Outcome {
    pub shifts: Vec<Shift>,
    pub cases: Vec<CaseResult>,
}

/// A case's history since its last change point (`change_points::detect` over the log costs
/// of the earlier runs): (the index in `history` of its first run, its log costs). A step the
/// runs on both sides confirm (another host, another driver) starts a new regime: the runs
/// before it are not the noise of the runs after it.
fn current_regime(history: &[BTreeMap<String, f64>], key: &str, higher_is_better: bool) -> (usize, Vec<f64>) {
    let present: Vec<(usize, f64)> = history
        .iter()
        .enumerate()
        .filter_map(|(i, run)| Some((i, log_cost(*run.get(key)?, higher_is_better)?)))
        .collect();
    let costs: Vec<f64> = present.iter().map(|(_, x)| *x).collect();
    let start = change_points::detect(&costs).last().map_or(0, |c| c.at);
    (present.get(start).map_or(0, |(i, _)| *i), costs[start..].to_vec())
}

/// A case judged against its history, for the family shifts: its family and key, which way is
/// better, its log cost `x`, the base run's `base_x`, the centre of its history's log costs,
/// and the first earlier run of its current regime (`current_regime`).
struct Judged {
    family: Family,
    key: String,
    higher_is_better: bool,
    x: f64,
    base_x: f64,
    centre: f64,
    since_run: usize,
}

/// A comparable case before its judgement: its place in the results, the case, its history
/// (gross changes left out) and its timer step.
struct Pending {
    at: usize,
    case: Judged,
    history: Vec<f64>,
    step: f64,
}

pub fn compare(base: &[CaseSamples], cand: &[CaseSamples], context: &Context) -> Outcome {
    let cand_by_key: BTreeMap<String, &CaseSamples> = cand.iter().map(|c| (c.key(), c)).collect();
    let base_keys: std::collections::BTreeSet<String> = base.iter().map(CaseSamples::key).collect();
    let comparable_config = context.key_differences.is_empty();
    let mut results: Vec<CaseResult> = Vec::new();
    let mut pending: Vec<Pending> = Vec::new();
    for b in base {
        let key = b.key();
        let Some(c) = cand_by_key.get(&key) else {
            results.push(not_comparable(b, b.values.len(), 0, "only in the base run".to_string()));
            continue;
        };
        if let Some(why) = super::samples::unusable(&b.values, &c.values) {
            results.push(not_comparable(b, b.values.len(), c.values.len(), why));
            continue;
        }
        let mut result = not_comparable(b, b.values.len(), c.values.len(), String::new());
        let (vb, vc) = (median(&b.values), median(&c.values));
        let (Some(xb), Some(xc)) = (log_cost(vb, b.higher_is_better), log_cost(vc, b.higher_is_better)) else {
            result.reason = Some("no finite positive values in one of the runs".to_string());
            results.push(result);
            continue;
        };
        result.ratio = Some(vc / vb);
        result.cost_ratio = Some((xc - xb).exp());
        if !comparable_config {
            result.reason = Some(format!("configurations differ: {}", context.key_differences.join(", ")));
            results.push(result);
            continue;
        }
        let (since_run, regime) = current_regime(&context.history, &key, b.higher_is_better);
        let step = timer_step(b.values.iter().chain(&c.values).copied());
        result.timer_step = step;
        let relative_step = step.map_or(0.0, |s| (1.0 + s / vc).ln());
        let (history, left_out) = rule::without_changes(&regime, relative_step, MIN_EFFECT.ln_1p());
        result.history_runs = history.len();
        result.history_left_out = left_out;
        let centre = xc - rule::judge(xc, &history, relative_step, MIN_EFFECT.ln_1p()).shift;
        let case = Judged {
            family: b.family,
            key,
            higher_is_better: b.higher_is_better,
            x: xc,
            base_x: xb,
            centre,
            since_run,
        };
        pending.push(Pending { at: results.len(), case, history, step: relative_step });
        results.push(result);
    }
    for c in cand.iter().filter(|c| !base_keys.contains(&c.key())) {
        results.push(not_comparable(c, 0, c.values.len(), "only in the candidate run".to_string()));
    }
    // Each family's level in the earlier runs, over the cases with enough history (those
    // judged below): its shift is judged against them, and every case's spread is at least
    // theirs (`family_spread`).
    let levels: BTreeMap<Family, (Vec<f64>, usize)> = [Family::Host, Family::Device]
        .into_iter()
        .filter_map(|family| {
            let cases: Vec<&Judged> = pending
                .iter()
                .filter(|p| p.case.family == family && p.history.len() >= rule::MIN_HISTORY)
                .map(|p| &p.case)
                .collect();
            Some((family, family_levels(&cases, &context.history)?))
        })
        .collect();
    let mut judged: Vec<Judged> = Vec::new();
    for Pending { at, case, history, step } in pending {
        let step = step.max(levels.get(&case.family).map_or(0.0, |(earlier, _)| family_spread(earlier)));
        let judgement = rule::judge(case.x, &history, step, MIN_EFFECT.ln_1p());
        let result = &mut results[at];
        result.effect_floor = judgement.floor_fraction();
        (result.verdict, result.reason) = case_verdict(judgement, case.x - case.base_x);
        // The cases judged are the ones the levels were made of (the same test), so the
        // family's shift is the median over the very cases its earlier levels are.
        let enough = history.len() >= rule::MIN_HISTORY;
        debug_assert_eq!(enough, !matches!(judgement.call, Call::InsufficientHistory { .. }));
        if enough {
            result.history_ratio = Some(judgement.shift.exp());
            judged.push(case);
        }
    }
    let shifts = [Family::Host, Family::Device]
        .into_iter()
        .filter_map(|family| Some(family_shift(family, &judged, levels.get(&family)?)))
        .collect();
    Outcome { shifts, cases: results }
}

/// The case's verdict from its judgement and its log cost ratio to the base.
fn case_verdict(judgement: rule::Judgement, to_base: f64) -> (Verdict, Option<String>) {
    let floor = judgement.floor;
    let percent = judgement.floor_fraction() * 100.0;
    match judgement.call {
        Call::InsufficientHistory { more_runs } => (
            Verdict::InsufficientHistory,
            Some(format!(
                "{} earlier ok runs of the configuration; {more_runs} more would decide",
                rule::MIN_HISTORY - more_runs
            )),
        ),
        Call::NoChange => (Verdict::NoChange, None),
        Call::Slower if to_base > floor => (Verdict::Slower, None),
        Call::Faster if -to_base > floor => (Verdict::Faster, None),
        Call::Slower | Call::Faster => {
            (Verdict::NoChange, Some(format!("outside its history, but within {percent:.0} % of the base run")))
        }
    }
}

/// The level of a family in every earlier run (the median over its cases of each case's
/// distance from its history's centre, over the runs that have at least half of them), less
/// the gross changes among them, and how many those were; `None` under
/// `MIN_CASES_FOR_SHIFT` cases.
fn family_levels(cases: &[&Judged], history: &[BTreeMap<String, f64>]) -> Option<(Vec<f64>, usize)> {
    if cases.len() < MIN_CASES_FOR_SHIFT {
        return None;
    }
    let earlier: Vec<f64> = history
        .iter()
        .enumerate()
        .filter_map(|(r, run)| {
            let distances: Vec<f64> = cases
                .iter()
                .filter(|j| r >= j.since_run)
                .filter_map(|j| Some(log_cost(*run.get(&j.key)?, j.higher_is_better)? - j.centre))
                .collect();
            (distances.len() * 2 >= cases.len()).then(|| median(&distances))
        })
        .collect();
    Some(rule::without_changes(&earlier, 0.0, MIN_EFFECT.ln_1p()))
}

/// The run-to-run spread of a family's level over the earlier runs (`family_levels`; 0
/// under `rule::MIN_HISTORY` of them): the least spread each of its cases is judged with.
/// Every real run lands at its own level, and a family's cases share it: on an H100 host
/// the host-side cases of 4 of 16 back-to-back runs moved together to 0.53-0.60x of their
/// history. One case's few earlier values can sit closer together than that by chance
/// (decode replay: 2.7 % over six runs where the family's level moved 7.3 %), and a run at
/// the family's other level then looked `faster` in that case alone; the family's level,
/// from all its cases, tells how far a run moves (docs/CALIBRATION.md).
fn family_spread(levels: &[f64]) -> f64 {
    if levels.len() < rule::MIN_HISTORY {
        return 0.0;
    }
    rule::spread(levels)
}

/// The family's shift: the median over its judged cases of `x - centre`, against the same
/// median of every earlier run (over the cases that run has). As for a case, `slower` /
/// `faster` also needs the family beyond the same floor from the base run (the median over
/// its cases of `x - base_x`): a candidate at the level of a base that was already off its
/// history (the second run of a new level, against the first) is no news of its own.
/// `levels`: the family's earlier levels over the same cases (`family_levels`).
fn family_shift(family: Family, judged: &[Judged], levels: &(Vec<f64>, usize)) -> Shift {
    let cases: Vec<&Judged> = judged.iter().filter(|j| j.family == family).collect();
    let (earlier, left_out) = levels;
    let shift = median(&cases.iter().map(|j| j.x - j.centre).collect::<Vec<_>>());
    let judgement = rule::judge(shift, earlier, 0.0, MIN_EFFECT.ln_1p());
    let to_base = median(&cases.iter().map(|j| j.x - j.base_x).collect::<Vec<_>>());
    let (verdict, reason) = match judgement.call {
        Call::InsufficientHistory { more_runs } => {
            (Verdict::InsufficientHistory, Some(format!("{more_runs} more earlier runs would decide")))
        }
        _ => case_verdict(judgement, to_base),
    };
    Shift {
        family,
        ratio: shift.exp(),
        effect_floor: judgement.floor_fraction(),
        cases: cases.len(),
        history_runs: earlier.len(),
        history_left_out: *left_out,
        verdict,
        reason,
    }
}

/// The timer's step when every value is (within 2 % of a step) a multiple of the smallest
/// gap between distinct values, and that gap is at least 0.1 % of the median: CUDA events
/// tick in 32 ns (3.104, 3.136, 3.168 us). `None` for continuous values.
pub fn timer_step(values: impl Iterator<Item = f64>) -> Option<f64> {
    let mut sorted: Vec<f64> = values.filter(|v| v.is_finite() && *v > 0.0).collect();
    sorted.sort_by(f64::total_cmp);
    let typical = *sorted.get(sorted.len() / 2)?;
    sorted.dedup_by(|a, b| (*a - *b).abs() <= 1e-9 * typical);
    let step = sorted.windows(2).map(|w| w[1] - w[0]).min_by(f64::total_cmp)?;
    let on_grid = |v: &f64| {
        let r = v / step;
        (r - r.round()).abs() <= 0.02
    };
    (sorted.len() >= 3 && step >= 1e-3 * typical && sorted.iter().all(on_grid)).then_some(step)
}

fn not_comparable(s: &CaseSamples, base_cycles: usize, candidate_cycles: usize, reason: String) -> CaseResult {
    CaseResult {
        section: s.section,
        world_size: s.world_size,
        case: s.case.clone(),
        case_folder: s.folder.clone(),
        metric: s.metric,
        family: s.family,
        base_cycles,
        candidate_cycles,
        ratio: None,
        ci_low: None,
        ci_high: None,
        cost_ratio: None,
        history_runs: 0,
        history_left_out: 0,
        history_ratio: None,
        effect_floor: MIN_EFFECT,
        timer_step: None,
        verdict: Verdict::NotComparable,
        reason: Some(reason),
    }
}

/// Tells the bootstrap the sample sizes of every interval that `add_intervals` will draw for
/// these (base, candidate) pairs: one per case in both runs with values on both sides, all
/// usable, which is every case `compare` gives a ratio. `bootstrap::expect` then makes, at once and in parallel,
/// the streams that enough of them read. A caller comparing many runs counts them all before
/// drawing any: counted run by run, while one thread made a stream the others' intervals drew
/// their resamples alone (the same ranks, at up to 65 times the work).
pub fn expect_intervals<'a>(pairs: impl IntoIterator<Item = (&'a [CaseSamples], &'a [CaseSamples])>) {
    let mut sizes = Vec::new();
    for (base, cand) in pairs {
        let cand_by_key: BTreeMap<String, &CaseSamples> = cand.iter().map(|c| (c.key(), c)).collect();
        for b in base {
            if let Some(c) = cand_by_key.get(&b.key()) {
                // `compare` gives a ratio to exactly these: both sides measured, every value usable.
                let measured = !b.values.is_empty() && !c.values.is_empty();
                if measured && super::samples::unusable(&b.values, &c.values).is_none() {
                    sizes.extend([(b.values.len(), 0), (c.values.len(), 1)]);
                }
            }
        }
    }
    bootstrap::expect(sizes);
}

/// Adds the bootstrap intervals of the ratio to the base to an outcome of `compare` on the
/// same samples. Kept apart: the verdicts do not depend on them, and they cost most. Each
/// interval's generator is seeded from its case key. Their sample sizes are counted first by
/// the caller (`expect_intervals`); uncounted, every interval draws its resamples alone (the
/// same intervals, at more cost).
pub fn add_intervals(outcome: &mut Outcome, base: &[CaseSamples], cand: &[CaseSamples]) {
    let base_by_key: BTreeMap<String, &CaseSamples> = base.iter().map(|s| (s.key(), s)).collect();
    let cand_by_key: BTreeMap<String, &CaseSamples> = cand.iter().map(|s| (s.key(), s)).collect();
    let intervals: Vec<(&mut CaseResult, String, &CaseSamples, &CaseSamples)> = outcome
        .cases
        .iter_mut()
        .filter(|r| r.ratio.is_some())
        .filter_map(|result| {
            let key = result.key();
            let (b, c) = (*base_by_key.get(&key)?, *cand_by_key.get(&key)?);
            Some((result, key, b, c))
        })
        .collect();
    intervals.into_par_iter().for_each(|(result, key, b, c)| {
        let (low, high) = ratio_of_medians(&b.values, &c.values, seed_of(&key));
        (result.ci_low, result.ci_high) = (Some(low), Some(high));
    });
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_ratio_to_the_base_exactly_at_the_floor_is_no_change() {
        let judged = |call| rule::Judgement { call, shift: 1.0, floor: 0.25 };
        assert_eq!(case_verdict(judged(Call::Slower), 0.25).0, Verdict::NoChange);
        assert_eq!(case_verdict(judged(Call::Faster), -0.25).0, Verdict::NoChange);
        assert_eq!(case_verdict(judged(Call::Slower), 0.25 + f64::EPSILON).0, Verdict::Slower);
        assert_eq!(case_verdict(judged(Call::Faster), -0.25 - f64::EPSILON).0, Verdict::Faster);
    }

    fn case(metric: &'static str, higher_is_better: bool, values: &[f64]) -> CaseSamples {
        CaseSamples {
            section: "nccl_tests",
            world_size: 2,
            case: "bytes=1048576".into(),
            metric,
            folder: None,
            higher_is_better,
            family: Family::Device,
            values: values.to_vec(),
        }
    }

    fn context(sample: &CaseSamples, levels: &[f64]) -> Context {
        let history = levels.iter().map(|v| [(sample.key(), *v)].into()).collect();
        Context { key_differences: Vec::new(), history }
    }

    fn only(outcome: &Outcome) -> &CaseResult {
        assert_eq!(outcome.cases.len(), 1);
        &outcome.cases[0]
    }

    const LEVELS: [f64; 6] = [100.0, 101.0, 99.0, 100.5, 99.5, 100.0];

    #[test]
    fn less_bandwidth_is_a_higher_cost() {
        let base = case("busbw_GBs", true, &[100.0; 5]);
        let slower =
            compare(std::slice::from_ref(&base), &[case("busbw_GBs", true, &[50.0; 5])], &context(&base, &LEVELS));
        let r = only(&slower);
        assert_eq!(r.verdict, Verdict::Slower, "{r:?}");
        assert_eq!(r.ratio, Some(0.5));
        assert!((r.cost_ratio.unwrap() - 2.0).abs() < 1e-12, "{r:?}");
        assert!((r.history_ratio.unwrap() - 2.0).abs() < 0.01, "{r:?}");
        let faster =
            compare(std::slice::from_ref(&base), &[case("busbw_GBs", true, &[200.0; 5])], &context(&base, &LEVELS));
        assert_eq!(only(&faster).verdict, Verdict::Faster);
    }

    #[test]
    fn beyond_its_history_but_not_beyond_the_base_is_no_change_and_says_why() {
        let base = case("time_us", false, &[145.0; 5]);
        let outcome =
            compare(std::slice::from_ref(&base), &[case("time_us", false, &[150.0; 5])], &context(&base, &LEVELS));
        let r = only(&outcome);
        assert_eq!(r.verdict, Verdict::NoChange, "{r:?}");
        let percent = format!("{:.0}", r.effect_floor * 100.0);
        assert_eq!(
            r.reason.as_deref(),
            Some(format!("outside its history, but within {percent} % of the base run").as_str())
        );
        assert!(r.effect_floor > 0.05 && r.effect_floor < 0.2, "{r:?}");
        let from_afar = compare(
            &[case("time_us", false, &[100.0; 5])],
            &[case("time_us", false, &[150.0; 5])],
            &context(&base, &LEVELS),
        );
        assert_eq!(only(&from_afar).verdict, Verdict::Slower);
    }

    #[test]
    fn a_timer_step_widens_the_floor_of_values_that_sit_on_it() {
        let ticks = [3.104, 3.136, 3.168, 3.104, 3.136];
        let base = case("time_us", false, &ticks);
        let outcome =
            compare(std::slice::from_ref(&base), &[case("time_us", false, &ticks)], &context(&base, &[3.136; 4]));
        let r = only(&outcome);
        assert!((r.timer_step.unwrap() - 0.032).abs() < 1e-9, "{r:?}");
        // Four equal earlier runs: the spread is the step (1 % of 3.136), times 1.25 t(0.99995,
        // 3) sqrt(1 + 1/4) = 39.1: a floor of 49 %.
        assert!(r.effect_floor > 0.4 && r.effect_floor < 0.55, "{r:?}");
    }

    #[test]
    fn below_its_history_but_not_below_the_base_is_no_change() {
        let base = case("time_us", false, &[51.0; 5]);
        let outcome =
            compare(std::slice::from_ref(&base), &[case("time_us", false, &[50.0; 5])], &context(&base, &LEVELS));
        assert_eq!(only(&outcome).verdict, Verdict::NoChange, "{:?}", only(&outcome));
        let from_afar = compare(
            &[case("time_us", false, &[100.0; 5])],
            &[case("time_us", false, &[50.0; 5])],
            &context(&base, &LEVELS),
        );
        assert_eq!(only(&from_afar).verdict, Verdict::Faster);
    }

    /// Ten runs at 100, one of them 40x slower, then five at 150 (a step): a run at 180 is
    /// judged against the five since the step, not against all fifteen (whose two levels
    /// would put its floor past 100 %).
    #[test]
    fn a_one_off_run_before_a_step_does_not_hide_it_from_the_regime() {
        let noise = [0.0, 1.0, -1.0, 0.5, -0.5];
        let mut levels: Vec<f64> = (0..15).map(|i| if i >= 10 { 150.0 } else { 100.0 } + noise[i % 5]).collect();
        levels[4] = 4000.0;
        let base = case("time_us", false, &[150.0; 5]);
        let outcome =
            compare(std::slice::from_ref(&base), &[case("time_us", false, &[180.0; 5])], &context(&base, &levels));
        let r = only(&outcome);
        assert_eq!((r.verdict, r.history_runs, r.history_left_out), (Verdict::Slower, 5, 0), "{r:?}");
        assert!(r.effect_floor < 0.15, "{r:?}");
    }

    fn named(name: &str, value: f64) -> CaseSamples {
        CaseSamples { case: name.into(), ..case("time_us", false, &[value; 3]) }
    }

    #[test]
    fn three_cases_make_a_family_shift_and_a_run_missing_most_of_them_is_not_counted() {
        let names = ["a", "b", "c"];
        let base: Vec<CaseSamples> = names.iter().map(|n| named(n, 100.0)).collect();
        let cand: Vec<CaseSamples> = names.iter().map(|n| named(n, 200.0)).collect();
        let mut history: Vec<BTreeMap<String, f64>> =
            LEVELS.iter().map(|v| base.iter().map(|c| (c.key(), *v)).collect()).collect();
        history.push([(base[0].key(), 100.0)].into());
        let outcome = compare(&base, &cand, &Context { key_differences: Vec::new(), history });
        let shift = outcome.shifts.iter().find(|s| s.family == Family::Device).expect("three cases make a shift");
        assert_eq!((shift.cases, shift.history_runs), (3, LEVELS.len()), "a run with one of three cases is left out");
        assert_eq!(shift.verdict, Verdict::Slower);
        let two = compare(&base[..2], &cand[..2], &context(&base[0], &LEVELS));
        assert!(two.shifts.is_empty(), "two cases make no shift");
    }

    fn host(name: &str, value: f64) -> CaseSamples {
        CaseSamples { family: Family::Host, ..named(name, value) }
    }

    /// Four host-side cases at 100 in the base run, and `runs` earlier runs that land at their
    /// own levels (0.93x-1.08x), case `a` steadier by chance (±1 %: `LEVELS`).
    fn four_host_cases(runs: usize) -> (Vec<CaseSamples>, Context) {
        const FAMILY: [f64; 6] = [1.0, 1.08, 0.93, 1.05, 0.95, 1.02];
        let base: Vec<CaseSamples> = ["a", "b", "c", "d"].iter().map(|n| host(n, 100.0)).collect();
        let history: Vec<BTreeMap<String, f64>> = (0..runs)
            .map(|r| {
                let value = |c: &CaseSamples| if c.case == "a" { LEVELS[r] } else { 100.0 * FAMILY[r] };
                base.iter().map(|c| (c.key(), value(c))).collect()
            })
            .collect();
        (base, Context { key_differences: Vec::new(), history })
    }

    /// A run with every case at 0.6x is no news in the steady case either (its least spread is
    /// the family's: a floor of 206 %), while that case alone at 4x still is.
    #[test]
    fn a_case_is_judged_with_at_least_its_familys_run_to_run_spread() {
        let (base, context) = four_host_cases(6);
        let steady = compare(std::slice::from_ref(&base[0]), &[host("a", 60.0)], &context);
        assert_eq!(only(&steady).verdict, Verdict::Faster, "alone, its own spread decides: {:?}", only(&steady));
        let all_low: Vec<CaseSamples> = base.iter().map(|c| host(&c.case, 60.0)).collect();
        let outcome = compare(&base, &all_low, &context);
        let shift = outcome.shifts.iter().find(|s| s.family == Family::Host).expect("four cases make a shift");
        assert_eq!(shift.verdict, Verdict::NoChange, "{shift:?}");
        for case in &outcome.cases {
            assert_eq!(case.verdict, Verdict::NoChange, "{case:?}");
            assert!(case.effect_floor >= shift.effect_floor - 1e-12, "{case:?} {shift:?}");
        }
        let one: Vec<CaseSamples> =
            base.iter().map(|c| host(&c.case, if c.case == "a" { 400.0 } else { 100.0 })).collect();
        let outcome = compare(&base, &one, &context);
        let verdicts: Vec<Verdict> = outcome.cases.iter().map(|c| c.verdict).collect();
        assert_eq!(verdicts, [Verdict::Slower, Verdict::NoChange, Verdict::NoChange, Verdict::NoChange]);
    }

    /// Three earlier runs, the fewest that judge, give the family's spread too: 20x in every
    /// case is beyond the steady case's own floor (144 spreads of 1.5 %: 8.4x), not beyond the
    /// family's.
    #[test]
    fn three_earlier_runs_give_the_familys_spread() {
        let (base, context) = four_host_cases(3);
        let alone = compare(std::slice::from_ref(&base[0]), &[host("a", 2000.0)], &context);
        assert_eq!(only(&alone).verdict, Verdict::Slower, "{:?}", only(&alone));
        let all_high: Vec<CaseSamples> = base.iter().map(|c| host(&c.case, 2000.0)).collect();
        let outcome = compare(&base, &all_high, &context);
        assert!(outcome.cases.iter().all(|c| c.verdict == Verdict::NoChange), "{:?}", outcome.cases);
    }

    /// Each family's spread is its own: beside the four host-side cases (whose levels move
    /// ±8 %), four steady device-side cases (±1 %). One device-side case at 1.5x is beyond its
    /// family's floor (it would not be beyond the host side's), and every host-side case at
    /// 0.6x, the steady one too, is within theirs (it would not be within the device side's).
    #[test]
    fn each_family_lends_its_spread_to_its_own_cases_only() {
        let (mut base, mut context) = four_host_cases(6);
        let device = ["w", "x", "y", "z"];
        base.extend(device.iter().map(|n| named(n, 100.0)));
        for (r, run) in context.history.iter_mut().enumerate() {
            for (k, name) in device.iter().enumerate() {
                run.insert(named(name, 0.0).key(), LEVELS[(r + k) % LEVELS.len()]);
            }
        }
        let verdicts = |outcome: &Outcome| -> Vec<(String, Verdict)> {
            outcome.cases.iter().map(|c| (c.case.clone(), c.verdict)).collect()
        };
        let one: Vec<CaseSamples> = base
            .iter()
            .map(|c| CaseSamples { values: vec![if c.case == "w" { 150.0 } else { 100.0 }; 3], ..c.clone() })
            .collect();
        let outcome = compare(&base, &one, &context);
        let slower: Vec<(String, Verdict)> =
            verdicts(&outcome).into_iter().filter(|(_, v)| *v != Verdict::NoChange).collect();
        assert_eq!(slower, [("w".to_string(), Verdict::Slower)], "{:?}", outcome.cases);
        let host_low: Vec<CaseSamples> = base
            .iter()
            .map(|c| CaseSamples { values: vec![if c.family == Family::Host { 60.0 } else { 100.0 }; 3], ..c.clone() })
            .collect();
        let outcome = compare(&base, &host_low, &context);
        assert!(verdicts(&outcome).iter().all(|(_, v)| *v == Verdict::NoChange), "{:?}", outcome.cases);
    }

    /// A timer step wider than the family's spread still sets the floor: a case on a 32 ns grid
    /// (1 % of its values) beside three cases that never move is no news at 1.3x (its floor
    /// is the step's, 38 %), as it is alone.
    #[test]
    fn a_timer_step_wider_than_the_familys_spread_still_sets_the_floor() {
        let ticks = [3.104, 3.136, 3.168, 3.104, 3.136];
        let mut base = vec![CaseSamples { case: "t".into(), ..case("time_us", false, &ticks) }];
        base.extend(["a", "b", "c"].iter().map(|n| named(n, 100.0)));
        let history: Vec<BTreeMap<String, f64>> = (0..4)
            .map(|_| base.iter().map(|c| (c.key(), if c.case == "t" { 3.136 } else { 100.0 })).collect())
            .collect();
        let context = Context { key_differences: Vec::new(), history };
        let mut cand = base.clone();
        cand[0].values = ticks.iter().map(|v| v + 30.0 * 0.032).collect();
        let outcome = compare(&base, &cand, &context);
        let t = &outcome.cases[0];
        assert_eq!((t.case.as_str(), t.verdict), ("t", Verdict::NoChange), "{t:?}");
        assert!(t.effect_floor > 0.3 && t.effect_floor < 0.45, "{t:?}");
        assert!(t.history_ratio.unwrap() > 1.3, "{t:?}");
    }

    /// Each case judged against three runs of its own, but no earlier run holds half of the
    /// family's cases: the shift has no history, and says how many runs would decide (earlier
    /// runs that hold half the cases, not runs of the configuration as a case says).
    #[test]
    fn a_family_without_runs_that_hold_half_its_cases_is_insufficient_history() {
        let names = ["a", "b", "c"];
        let base: Vec<CaseSamples> = names.iter().map(|n| named(n, 100.0)).collect();
        let cand: Vec<CaseSamples> = names.iter().map(|n| named(n, 200.0)).collect();
        let history: Vec<BTreeMap<String, f64>> =
            base.iter().flat_map(|c| LEVELS[..3].iter().map(|v| [(c.key(), *v)].into())).collect();
        let outcome = compare(&base, &cand, &Context { key_differences: Vec::new(), history });
        assert!(outcome.cases.iter().all(|c| c.history_runs == 3 && c.history_ratio.is_some()), "{:?}", outcome.cases);
        let shift = outcome.shifts.iter().find(|s| s.family == Family::Device).expect("three cases make a shift");
        assert_eq!((shift.verdict, shift.history_runs), (Verdict::InsufficientHistory, 0));
        assert_eq!(shift.reason.as_deref(), Some("3 more earlier runs would decide"));
    }

    #[test]
    fn intervals_are_counted_for_the_cases_given_a_ratio_only() {
        // Cases with no values on one side get no ratio and no interval: counted, their other
        // side would make a stream no interval reads. 70 candidates of a size no other test
        // uses (173 values) would make theirs (70 x 1,000 resamples > 65,536); the same 70
        // measured on both sides do.
        const N: usize = 173;
        let named = |values: &[f64]| -> Vec<CaseSamples> {
            (0..70).map(|i| CaseSamples { case: format!("c{i}"), ..case("time_us", false, values) }).collect()
        };
        let (base, cand) = (named(&[]), named(&[5.0; N]));
        let mut outcome = compare(&base, &cand, &context(&base[0], &LEVELS));
        assert!(outcome.cases.iter().all(|c| c.ratio.is_none()));
        expect_intervals([(base.as_slice(), cand.as_slice())]);
        assert!(!bootstrap::is_made(N, 1), "a case with no base values was counted");
        add_intervals(&mut outcome, &base, &cand);
        assert!(outcome.cases.iter().all(|c| c.ci_low.is_none()));
        let measured = named(&[5.0; N]);
        expect_intervals([(measured.as_slice(), cand.as_slice())]);
        assert!(bootstrap::is_made(N, 1), "measured on both sides, they are counted");
    }

    #[test]
    fn intervals_are_added_around_the_ratio() {
        let base = case("time_us", false, &[100.0, 101.0, 99.0, 100.5, 99.5]);
        let cand = case("time_us", false, &[150.0, 151.0, 149.0, 150.5, 149.5]);
        let mut outcome = compare(std::slice::from_ref(&base), std::slice::from_ref(&cand), &context(&base, &LEVELS));
        assert_eq!(only(&outcome).ci_low, None);
        add_intervals(&mut outcome, &[base], &[cand]);
        let r = only(&outcome);
        let (low, high, ratio) = (r.ci_low.unwrap(), r.ci_high.unwrap(), r.ratio.unwrap());
        assert!(low <= ratio && ratio <= high && high - low < 0.1, "{r:?}");
    }

    #[test]
    fn a_timer_step_needs_three_finite_positive_values_on_a_fine_enough_grid() {
        let step = |values: &[f64]| timer_step(values.iter().copied());
        assert!((step(&[3.104, 3.136, 3.168, f64::INFINITY]).unwrap() - 0.032).abs() < 1e-9);
        assert_eq!(step(&[0.0, 3.104, 3.136]), None, "zero is not a value");
        assert!(
            (step(&[3.104, 3.104 + 2e-9, 3.136, 3.168]).unwrap() - 0.032).abs() < 1e-6,
            "near-equal values are one"
        );
        assert_eq!(step(&[0.5, 1000.0, 1000.5, 1001.0, 1001.5, 1002.0]), None, "a step under 0.1 % of the median");
    }

    #[test]
    fn shifts_and_case_keys_read_as_they_should() {
        let shift = |ratio, verdict| Shift {
            family: Family::Host,
            ratio,
            effect_floor: 0.1,
            cases: 5,
            history_runs: 10,
            history_left_out: 0,
            verdict,
            reason: None,
        };
        assert_eq!(shift(1.88, Verdict::Slower).short(), "host-side 1.88x slower overall");
        assert_eq!(shift(0.5, Verdict::Faster).short(), "host-side 2.00x faster overall");
        assert_eq!(shift(1.05, Verdict::NoChange).short(), "host-side within the noise");
        assert_eq!(shift(1.88, Verdict::Slower).sentence(), "every host-side case is 1.88x slower than its history");
        assert_eq!(shift(0.5, Verdict::Faster).sentence(), "every host-side case is 2.00x faster than its history");
        assert_eq!(
            shift(1.05, Verdict::NoChange).sentence(),
            "host-side cases at 1.05x their history, within the noise (10 %)"
        );
        // Beyond its history but not beyond the base (the second run of a new level).
        let reason = "outside its history, but within 10 % of the base run".to_string();
        assert_eq!(
            Shift { reason: Some(reason), ..shift(1.88, Verdict::NoChange) }.sentence(),
            "host-side cases at 1.88x their history: outside its history, but within 10 % of the base run"
        );
        let sample = case("time_us", false, &[1.0; 3]);
        let outcome = compare(std::slice::from_ref(&sample), std::slice::from_ref(&sample), &Context::default());
        assert_eq!(only(&outcome).key(), sample.key());
    }
}
