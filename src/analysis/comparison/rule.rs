//! The verdict rule, as one small pure function: is a run-level value outside the spread of
//! the earlier runs of its configuration? The run is the replicate: every real run lands at
//! its own level (seven back-to-back H200 runs put a 3.1 us GPU-side metric 5 % apart while
//! its cycles agree within 1 %), so the cycles of one run never decide.
//!
//! Values are *log costs* (`ln` of a time; `-ln` of a bandwidth), so "slower" is always
//! "larger", a factor is a difference, and scaling every run alike changes nothing.
//!
//! With `n` earlier runs `h` (at least [`MIN_HISTORY`]), centre `c = median(h)`, spread
//! `s = max(1.4826 MAD(h), SD(h), timer step)` and `k = TAIL t(1 - ALPHA/2, n - 1) sqrt(1 +
//! 1/n)` (the Student-t factor of a `1 - ALPHA` prediction interval for one new run, widened
//! for the heavier tails of real runs), the noise floor is `max(min_floor, k s)`. The
//! candidate `x` is
//! - `slower` when `x - c > floor` and `x` is above every earlier run,
//! - `faster` when `c - x > floor` and `x` is below every earlier run,
//! - `no_change` otherwise; `insufficient_history` with fewer than `MIN_HISTORY` runs.
//!
//! Why both spreads: MAD alone is blind to the heavy tails real runs have (a back-to-back run
//! at 0.61x of its neighbours in every decode case), SD alone to a case whose values are few
//! and equal. Why "beyond every earlier run": a value the configuration has already produced
//! is not news. Calibrated on real back-to-back runs of an H200 and of four H100 hosts
//! (docs/CALIBRATION.md; `TAIL`). Uses std only.

/// The smallest effect ever called a change (fraction).
pub const MIN_EFFECT: f64 = 0.03;

/// Fewest earlier runs a verdict needs (with two, no spread can be told).
pub const MIN_HISTORY: usize = 3;

/// Two-sided miss rate of the prediction interval: 1 in 10,000 unchanged runs per case. A run
/// has about 50 timed cases, so under normal run-to-run noise about 0.5 % of unchanged runs
/// would report some case by chance; the rest of the 5 % that A/A pairs may show is left to
/// the heavy tails real runs have (a host-bound decode run at 0.6x of its neighbours in every
/// case). At 1 in 1,000, that one real outlier run put 7.6 % of 171 real A/A pairs over.
pub const ALPHA: f64 = 0.0001;

/// Real run-to-run deviations have heavier tails than the normal model behind the t factor.
/// Over 1,508 real values (every case of every run with at least 3 earlier runs, judged as
/// `compare` judges it, in three A/A sets: 8 runs of an H200, 16 and 14 runs of two H100
/// hosts), those beyond the t factor's 1 in 100, 1 in 1,000 and 1 in 10,000 were 21, 4 and 1
/// where 15.1, 1.5 and 0.15 were expected; the 1 in 10,000 (z 6.54 over 13 runs: one host-side
/// case 9.8 % off where 13 earlier runs sat within 2.3 %) made 9 of 91 A/A pairs of the 14-run
/// set `slower`. With the t factor times 1.25: 9, 3 and 0 (`scripts/tail-check.py`). A constant
/// factor, as the tails are the values' own, not the spread's: a smaller ALPHA would have
/// widened small histories' floors most (1 in 100,000: 2.2x at 4 earlier runs). Held out: a
/// third H100 host's 16 A/A runs, collected after the factor was set, had 4 of 120 pairs
/// `slower` without it and none with it (its 676 values: 22, 5, 1 beyond the t factor's
/// levels where 6.8, 0.7, 0.07 were expected; 11, 3, 0 with it). Cost: every verdict's floor
/// is 1.25x wider (README, "The rule").
pub const TAIL: f64 = 1.25;

/// t(1 - ALPHA/2, df) for df = 1..=29 (scipy.stats.t.ppf); larger df use the last (a history
/// is at most 30 runs).
const T_QUANTILE: Quantiles = [
    6366.197671,
    99.992500,
    28.000130,
    15.544101,
    11.177710,
    9.082346,
    7.884584,
    7.120004,
    6.593683,
    6.211051,
    5.921194,
    5.694466,
    5.512515,
    5.363413,
    5.239088,
    5.133894,
    5.043765,
    4.965706,
    4.897462,
    4.837301,
    4.783877,
    4.736124,
    4.693189,
    4.654381,
    4.619135,
    4.586984,
    4.557539,
    4.530474,
    4.505512,
];

/// t(0.9995, df) for df = 1..=29: the 99.9 % floor a change point's step must clear
/// (`change_points`). A step also needs Welch's t >= 5 and three runs on each side, so it
/// keeps the level it was calibrated at.
const T_QUANTILE_STEP: Quantiles = [
    636.619249, 31.599055, 12.923979, 8.610302, 6.868827, 5.958816, 5.407883, 5.041305, 4.780913, 4.586894, 4.436979,
    4.317791, 4.220832, 4.140454, 4.072765, 4.014996, 3.965126, 3.921646, 3.883406, 3.849516, 3.819277, 3.792131,
    3.767627, 3.745399, 3.725144, 3.706612, 3.689592, 3.673906, 3.659405,
];

/// t(1 - 0.00000001/2, df) for df = 1..=29 (mpmath's regularized incomplete beta, which gives
/// `T_QUANTILE` to its last digit): the floor beyond which an earlier run is left out of a
/// history as a change (`without_changes`). At 1 in 100,000,000, ten
/// thousand times rarer than a verdict's own, only gross changes go (the bundled blocking run:
/// 16-40x where unchanged runs sit within 5 %): the heavy tails of unchanged runs stay in the
/// spread. In a simulation with one run in ten 0.6x or 1.7x host-side (`simulation_tests`,
/// three seeds), leaving out at 1 in 10,000 had 7.5-9.0 % of unchanged candidates report a
/// change (the rule without leaving out: 2.5-4.0 %); at 1 in 100,000,000, 3.0-5.0 %.
const T_QUANTILE_CHANGE: Quantiles = [
    63661977.236758,
    9999.999925,
    604.164896,
    156.497809,
    71.693503,
    43.412353,
    30.718382,
    23.902002,
    19.782179,
    17.076429,
    15.187347,
    13.805478,
    12.756956,
    11.937638,
    11.28183,
    10.746283,
    10.301497,
    9.926724,
    9.606992,
    9.331246,
    9.091164,
    8.88037,
    8.6939,
    8.527841,
    8.379063,
    8.245041,
    8.123711,
    8.013375,
    7.91262,
];

/// A gross change is at least this many times the smallest effect a verdict calls (`min_floor`:
/// 1.34x at 3 %), however tight the other runs: runs that agree exactly (copies, a quantized
/// value) have no spread, and 3 % off them is no gross change.
const GROSS_FLOORS: f64 = 10.0;

type Quantiles = [f64; 29];

/// How far beyond the spread a value must be: `tail` times the Student-t quantile `t` for the
/// history's degrees of freedom.
struct Level {
    t: &'static Quantiles,
    tail: f64,
}

/// A verdict: `TAIL` times the 1 in 10,000 quantile.
const VERDICT: Level = Level { t: &T_QUANTILE, tail: TAIL };
/// A change point's step (`step_floor`).
const STEP: Level = Level { t: &T_QUANTILE_STEP, tail: 1.0 };
/// A gross change left out of a history (`without_changes`).
const CHANGE: Level = Level { t: &T_QUANTILE_CHANGE, tail: 1.0 };

/// What the rule decided for one value.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Call {
    Slower,
    Faster,
    NoChange,
    /// Fewer than `MIN_HISTORY` earlier runs: this many more would decide.
    InsufficientHistory {
        more_runs: usize,
    },
}

/// The decision and what it was measured against (all in log units).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Judgement {
    pub call: Call,
    /// `x - median(history)` (> 0: costlier than usual); 0 without history.
    pub shift: f64,
    /// The noise floor; `min_floor` without history.
    pub floor: f64,
}

/// The widest floor shown (log units): the widest ratio two measurements can have,
/// `MAX_SAMPLE / MIN_SAMPLE` (1e24). A floor beyond it rules out every change alike, and
/// shown as it is it could overflow (`exp`) to infinity; the verdict uses the floor itself.
pub const MAX_SHOWN_FLOOR: f64 = 55.262_042_231_857_095;

impl Judgement {
    /// The floor as a factor minus one (0.05: a change must exceed 5 %), at most
    /// `MAX_SHOWN_FLOOR`'s (always finite).
    pub fn floor_fraction(&self) -> f64 {
        self.floor.min(MAX_SHOWN_FLOOR).exp() - 1.0
    }
}

/// Judges the log cost `x` against the log costs of earlier runs. `step` is the least spread
/// the history is taken to have: the timer's quantum relative to the value (0 when none is
/// seen), or more (`engine`: the run-to-run spread of the case's family); `min_floor` the
/// smallest effect ever called a change (log units). Non-finite inputs are the caller's to
/// refuse.
pub fn judge(x: f64, history: &[f64], step: f64, min_floor: f64) -> Judgement {
    judge_at(&VERDICT, x, history, step, min_floor)
}

/// The floor a step of a change point must clear: `judge`'s floor at 99.9 % (no timer step).
pub fn step_floor(history: &[f64], min_floor: f64) -> f64 {
    judge_at(&STEP, 0.0, history, 0.0, min_floor).floor
}

/// The history with its gross changes left out, and how many were: the earlier runs beyond
/// the floor of the others at 1 in 100,000,000 (`T_QUANTILE_CHANGE`; the floor and "beyond
/// every other run" as in `judge`, with `step` as the only least spread: a case's history is
/// trimmed before its family's spread is known) and at least `GROSS_FLOORS` times `min_floor`
/// away. A
/// `CUDA_LAUNCH_BLOCKING` run 40x slower is a change, not noise: kept, its one value widened
/// the floor of the next 30 runs past ±40,000 % and put every later regression below its own
/// level. As Rosner's generalized ESD test, with that judgement as the test: the run farthest
/// from the median of the runs still kept is taken out and judged against them, then the
/// next farthest, at most `len / 4` times (so at least `MIN_HISTORY` stay); the runs left
/// out are the first `i` taken out, for the largest `i` judged a change (so two equal
/// outliers, each hiding the other, both go). The newest run goes too: the candidate judged
/// against the result is the later run that tells what it was. Back at the old level, the
/// candidate shows it a one-off; at the newest run's level, the candidate is judged against
/// the old level, and the base run decides (`engine`: no case or family is a change within its
/// floor of the base, so the second run of a new level is no news against the first, and is
/// `slower` against a run before it; kept in, a 10x newest run widened the floor past ±1,900 %
/// and a real second `CUDA_LAUNCH_BLOCKING` run was `no_change` against the run before the
/// first, exit 0). A level that three runs hold is a new regime (`change_points`), and a level
/// that more than a quarter of the runs share is not a one-off either. The result is sorted.
pub fn without_changes(history: &[f64], step: f64, min_floor: f64) -> (Vec<f64>, usize) {
    let mut kept = history.to_vec();
    kept.sort_by(f64::total_cmp);
    let most = history.len() / 4;
    let mut taken = Vec::with_capacity(most);
    let mut changes = 0;
    // A quarter of 4 runs or more leaves at least `MIN_HISTORY`.
    while taken.len() < most {
        let centre = median_sorted(&kept);
        let last = kept.len() - 1;
        let x = kept.remove(if kept[last] - centre >= centre - kept[0] { last } else { 0 });
        taken.push(x);
        if gross_sorted(x, &kept, step, min_floor) {
            changes = taken.len();
        }
    }
    kept.extend(&taken[changes..]);
    kept.sort_by(f64::total_cmp);
    (kept, changes)
}

/// Whether `x` is a gross change against `others` (`without_changes`' judgement, no timer
/// step): the one-off runs a change point search leaves out (`change_points`).
pub fn is_gross(x: f64, others: &[f64], min_floor: f64) -> bool {
    let mut sorted = others.to_vec();
    sorted.sort_by(f64::total_cmp);
    gross_sorted(x, &sorted, 0.0, min_floor)
}

/// The least factor a gross change is off the other runs at the verdicts' `MIN_EFFECT` (1.34x).
pub fn gross_factor() -> f64 {
    (GROSS_FLOORS * MIN_EFFECT.ln_1p()).exp()
}

/// `x` beyond the floor of the `sorted` runs at 1 in 100,000,000 and at least `GROSS_FLOORS`
/// times `min_floor` away.
fn gross_sorted(x: f64, sorted: &[f64], step: f64, min_floor: f64) -> bool {
    let judgement = judge_sorted(&CHANGE, x, sorted, step, GROSS_FLOORS * min_floor);
    matches!(judgement.call, Call::Slower | Call::Faster)
}

/// The spread `judge` measures a history by (its log costs; 0 for fewer than two values):
/// `max(1.4826 MAD, SD)`, without the timer step.
pub fn spread(history: &[f64]) -> f64 {
    if history.len() < 2 {
        return 0.0;
    }
    let mut sorted = history.to_vec();
    sorted.sort_by(f64::total_cmp);
    spread_sorted(&sorted, median_sorted(&sorted))
}

/// `spread` of a history already sorted, around its median `centre`.
fn spread_sorted(sorted: &[f64], centre: f64) -> f64 {
    robust_spread(sorted, centre).max(standard_deviation(sorted))
}

fn judge_at(level: &Level, x: f64, history: &[f64], step: f64, min_floor: f64) -> Judgement {
    let mut sorted = history.to_vec();
    sorted.sort_by(f64::total_cmp);
    judge_sorted(level, x, &sorted, step, min_floor)
}

/// `judge_at` of a history already sorted (`f64::total_cmp`).
fn judge_sorted(level: &Level, x: f64, sorted: &[f64], step: f64, min_floor: f64) -> Judgement {
    let n = sorted.len();
    if n < MIN_HISTORY {
        return Judgement {
            call: Call::InsufficientHistory { more_runs: MIN_HISTORY - n },
            shift: 0.0,
            floor: min_floor,
        };
    }
    let centre = median_sorted(sorted);
    let spread = spread_sorted(sorted, centre).max(step);
    let k = level.tail * level.t[(n - 2).min(level.t.len() - 1)] * (1.0 + 1.0 / n as f64).sqrt();
    let floor = min_floor.max(k * spread);
    let shift = x - centre;
    let call = if shift > floor && x > sorted[n - 1] {
        Call::Slower
    } else if -shift > floor && x < sorted[0] {
        Call::Faster
    } else {
        Call::NoChange
    };
    Judgement { call, shift, floor }
}

fn median_sorted(sorted: &[f64]) -> f64 {
    let n = sorted.len();
    if n % 2 == 1 {
        sorted[n / 2]
    } else {
        (sorted[n / 2 - 1] + sorted[n / 2]) / 2.0
    }
}

/// 1.4826 x the median absolute deviation: the standard deviation of normal data.
fn robust_spread(sorted: &[f64], centre: f64) -> f64 {
    let mut deviations: Vec<f64> = sorted.iter().map(|v| (v - centre).abs()).collect();
    deviations.sort_by(f64::total_cmp);
    1.4826 * median_sorted(&deviations)
}

/// The sample standard deviation (n - 1).
fn standard_deviation(values: &[f64]) -> f64 {
    let n = values.len() as f64;
    let mean = values.iter().sum::<f64>() / n;
    (values.iter().map(|v| (v - mean).powi(2)).sum::<f64>() / (n - 1.0)).sqrt()
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    #[test]
    fn a_floor_wider_than_any_ratio_of_measurements_is_shown_finite() {
        use super::super::samples::{MAX_SAMPLE, MIN_SAMPLE};
        assert_eq!(MAX_SHOWN_FLOOR, (MAX_SAMPLE / MIN_SAMPLE).ln());
        // Three earlier runs, one of them 1e5x the others (all measurements): a floor whose
        // factor overflows, shown as the widest ratio.
        let wide = judge(0.0, &[0.0, 0.01, 11.5], 0.0, MIN_EFFECT.ln_1p());
        assert!(wide.floor.exp().is_infinite(), "{wide:?}");
        assert_eq!(wide.floor_fraction(), MAX_SHOWN_FLOOR.exp() - 1.0);
        assert!(wide.floor_fraction().is_finite());
        let narrow = judge(0.0, &[0.0, 0.01, 0.02], 0.0, MIN_EFFECT.ln_1p());
        assert_eq!(narrow.floor_fraction(), narrow.floor.exp() - 1.0);
    }

    const FLOOR: f64 = 0.03;

    /// `sqrt(1 + 1/n)` times the spread of `h` (no timer step): a floor over its t factor.
    fn spread_factor(h: &[f64]) -> f64 {
        (1.0 + 1.0 / h.len() as f64).sqrt() * spread(h)
    }

    fn history() -> Vec<f64> {
        [1.00, 1.01, 0.99, 1.02, 0.98, 1.00, 1.01, 0.99].iter().map(|v: &f64| v.ln()).collect()
    }

    #[test]
    fn too_few_runs_say_how_many_more_would_decide() {
        for n in 0..MIN_HISTORY {
            let j = judge(10.0, &vec![0.0; n], 0.0, FLOOR);
            assert_eq!(j.call, Call::InsufficientHistory { more_runs: MIN_HISTORY - n });
        }
        assert_ne!(judge(10.0, &[0.0; MIN_HISTORY], 0.0, FLOOR).call, Call::InsufficientHistory { more_runs: 0 });
    }

    #[test]
    fn beyond_every_run_but_inside_the_floor_is_no_change() {
        let h = history();
        assert_eq!(judge(1.025f64.ln(), &h, 0.0, FLOOR).call, Call::NoChange);
        assert_eq!(judge(0.975f64.ln(), &h, 0.0, FLOOR).call, Call::NoChange);
    }

    #[test]
    fn a_value_an_earlier_run_already_had_is_never_a_change() {
        // 40 runs at 0 and one at +-1: SD 0.156, so the floor (about 0.89) is below 1, yet a
        // candidate at the extreme run's own value is not news. (Up to 30 runs, one value's
        // own spread puts the floor beyond it.)
        for extreme in [1.0, -1.0] {
            let mut h = vec![0.0; 40];
            h.push(extreme);
            let j = judge(extreme, &h, 0.0, FLOOR);
            assert!(j.floor < 1.0, "{j:?}");
            assert_eq!(j.call, Call::NoChange, "{j:?}");
            assert_ne!(judge(extreme * 1.01, &h, 0.0, FLOOR).call, Call::NoChange);
        }
    }

    #[test]
    fn far_above_every_run_is_slower_and_far_below_is_faster() {
        let h = history();
        assert_eq!(judge(1.5f64.ln(), &h, 0.0, FLOOR).call, Call::Slower);
        assert_eq!(judge((1.0f64 / 1.5).ln(), &h, 0.0, FLOOR).call, Call::Faster);
        assert_eq!(judge(1.0f64.ln(), &h, 0.0, FLOOR).call, Call::NoChange);
    }

    #[test]
    fn the_floor_is_the_prediction_interval_of_the_spread() {
        let h = history();
        let j = judge(0.0, &h, 0.0, FLOOR);
        let expected = TAIL * T_QUANTILE[h.len() - 2] * spread_factor(&h);
        assert!((j.floor - expected).abs() < 1e-12, "{} vs {expected}", j.floor);
        assert!(j.floor > FLOOR);
        // Just inside and just outside the floor.
        assert_eq!(judge(j.floor * 0.999, &h, 0.0, FLOOR).call, Call::NoChange);
        // The centre is `0 - shift`.
        assert_eq!(judge(j.floor * 1.001 - j.shift, &h, 0.0, FLOOR).call, Call::Slower);
    }

    #[test]
    fn exactly_at_the_floor_is_no_change() {
        // "Beyond the floor" is strict: a shift equal to it (exact in binary) is no change.
        let h = vec![0.0; 10];
        assert_eq!(judge(0.25, &h, 0.0, 0.25).call, Call::NoChange);
        assert_eq!(judge(-0.25, &h, 0.0, 0.25).call, Call::NoChange);
        assert_eq!(judge(0.25 + f64::EPSILON, &h, 0.0, 0.25).call, Call::Slower);
        assert_eq!(judge(-0.25 - f64::EPSILON, &h, 0.0, 0.25).call, Call::Faster);
    }

    #[test]
    fn the_minimum_effect_holds_when_the_history_agrees_exactly() {
        let h = vec![0.0; 10];
        assert_eq!(judge(0.02, &h, 0.0, FLOOR).call, Call::NoChange);
        assert_eq!(judge(0.04, &h, 0.0, FLOOR).call, Call::Slower);
        assert_eq!(judge(-0.04, &h, 0.0, FLOOR).call, Call::Faster);
        assert_eq!(judge(0.0, &h, 0.0, FLOOR).floor, FLOOR);
    }

    #[test]
    fn the_floor_as_a_fraction() {
        let j = judge(0.0, &[0.0; 5], 0.0, 0.05f64.ln_1p());
        assert!((j.floor_fraction() - 0.05).abs() < 1e-12, "{j:?}");
    }

    /// `TAIL` widens a verdict's floor only (`the_floor_is_the_prediction_interval_of_the_spread`):
    /// a change point's step floor and the gross-change judgement keep the t factor (their
    /// levels were calibrated on their own).
    #[test]
    fn only_a_verdict_floor_allows_for_real_tails() {
        let h = history();
        let factor = spread_factor(&h);
        let at = h.len() - 2;
        assert!((step_floor(&h, 0.0) - T_QUANTILE_STEP[at] * factor).abs() < 1e-12);
        let gross = judge_at(&CHANGE, 0.0, &h, 0.0, 0.0).floor;
        assert!((gross - T_QUANTILE_CHANGE[at] * factor).abs() < 1e-9 * gross);
    }

    #[test]
    fn histories_longer_than_the_table_use_its_last_quantile() {
        let h: Vec<f64> = (0..40).map(|i| [0.0, 0.02][i % 2]).collect();
        let j = judge(0.0, &h, 0.0, 0.0);
        let expected = TAIL * T_QUANTILE[T_QUANTILE.len() - 1] * spread_factor(&h);
        assert!((j.floor - expected).abs() < 1e-12, "{} vs {expected}", j.floor);
    }

    #[test]
    fn a_timer_step_widens_the_floor() {
        let h = vec![0.0; 10];
        let stepped = judge(0.04, &h, 0.01, FLOOR);
        assert_eq!(stepped.call, Call::NoChange, "{stepped:?}");
        assert!(stepped.floor > 0.04);
    }

    #[test]
    fn a_value_the_history_already_reached_is_not_news() {
        // A heavy-tailed history: far from the centre, but not beyond the earlier extreme.
        let mut h = vec![0.0; 20];
        h[3] = -0.5;
        let j = judge(-0.45, &h, 0.0, FLOOR);
        assert_eq!(j.call, Call::NoChange, "{j:?}");
        assert!(-j.shift > FLOOR);
    }

    #[test]
    fn the_spread_of_a_history_is_the_one_judge_uses() {
        assert_eq!(spread(&[]), 0.0);
        assert_eq!(spread(&[0.5]), 0.0);
        assert!((spread(&[0.0, 0.1]) - 1.4826 * 0.05).abs() < 1e-15);
        let history = [0.0, 0.01, -0.01, 0.02, 0.3];
        let at = |spread: f64| judge(0.0, &history, spread, 0.0).floor;
        assert_eq!(at(0.0), at(spread(&history)));
        assert!(at(spread(&history) * 1.01) > at(0.0));
        // One far value: the SD (0.129) beats 1.4826 MAD (0.0148).
        assert!((spread(&history) - standard_deviation(&history)).abs() < 1e-15);
    }

    #[test]
    fn robust_spread_is_mad_times_1_4826() {
        let sorted = [1.0, 2.0, 3.0, 4.0, 10.0];
        assert!((robust_spread(&sorted, 3.0) - 1.4826).abs() < 1e-12);
        assert!((median_sorted(&[1.0, 2.0, 3.0, 4.0]) - 2.5).abs() < 1e-12);
        assert!((standard_deviation(&[1.0, 3.0]) - 2f64.sqrt()).abs() < 1e-12);
    }

    /// Eleven quiet runs (log costs of 1 +- 2 %) with `extra` ones among them (after the
    /// fifth: the newest run is a quiet one).
    fn quiet_and(extra: &[f64]) -> Vec<f64> {
        let mut h: Vec<f64> =
            [1.0, 1.01, 0.99, 1.02, 0.98, 1.0, 1.01, 0.99, 1.0, 1.02, 0.98].iter().map(|v: &f64| v.ln()).collect();
        h.splice(5..5, extra.iter().map(|v| v.ln()));
        h
    }

    #[test]
    fn a_gross_newest_run_goes_too() {
        let mut h = quiet_and(&[]);
        h.push(40f64.ln());
        let (kept, left_out) = without_changes(&h, 0.0, FLOOR);
        assert_eq!((kept.len(), left_out), (11, 1));
        // A candidate at its level is a change against the old level (the base decides).
        assert_eq!(judge(40f64.ln(), &kept, 0.0, FLOOR).call, Call::Slower);
        assert_eq!(judge(40f64.ln(), &h, 0.0, FLOOR).call, Call::NoChange);
        // Two gross runs, the newest among them: both go.
        let mut h = quiet_and(&[40.0]);
        h.push(40f64.ln());
        assert_eq!(without_changes(&h, 0.0, FLOOR).1, 2);
    }

    #[test]
    fn a_gross_change_is_left_out_and_the_floor_falls_back() {
        let with = quiet_and(&[40.0]);
        let (kept, left_out) = without_changes(&with, 0.0, FLOOR);
        assert_eq!((kept.len(), left_out), (11, 1));
        assert!(kept.iter().all(|v| v.abs() < 0.03), "{kept:?}");
        // Kept, the 40x run put the floor past 5,000 % and made 1.5x no news.
        assert!(judge(1.5f64.ln(), &with, 0.0, FLOOR).floor.exp() > 50.0);
        assert_eq!(judge(1.5f64.ln(), &with, 0.0, FLOOR).call, Call::NoChange);
        assert_eq!(judge(1.5f64.ln(), &kept, 0.0, FLOOR).call, Call::Slower);
        // Faster alike, at any level: the runs near 1 us (log costs near 0) or near 1 ms.
        for level in [1.0, 1000.0] {
            let faster: Vec<f64> = quiet_and(&[1.0 / 40.0]).iter().map(|v| v + f64::ln(level)).collect();
            let (kept, left_out) = without_changes(&faster, 0.0, FLOOR);
            assert_eq!((kept.len(), left_out), (11, 1), "{level}");
            assert!(kept.iter().all(|v| (v - f64::ln(level)).abs() < 0.03), "{level}: {kept:?}");
        }
    }

    #[test]
    fn two_equal_changes_that_hide_each_other_both_go() {
        // The farther of the two, judged against the other, is not beyond every run kept: both
        // are left out only because the second, judged against the quiet runs, is a change.
        let (kept, left_out) = without_changes(&quiet_and(&[40.0, 40.0]), 0.0, FLOOR);
        assert_eq!((kept.len(), left_out), (11, 2));
        let (kept, left_out) = without_changes(&quiet_and(&[40.0, 1.0 / 30.0]), 0.0, FLOOR);
        assert_eq!((kept.len(), left_out), (11, 2));
    }

    #[test]
    fn quiet_runs_and_heavy_tails_stay() {
        let quiet = quiet_and(&[]);
        let (kept, left_out) = without_changes(&quiet, 0.0, FLOOR);
        assert_eq!(left_out, 0);
        let mut sorted = quiet.clone();
        sorted.sort_by(f64::total_cmp);
        assert_eq!(kept, sorted);
        // 1.2x beside runs within 2 %: a change for a verdict (1 in 10,000), kept as noise
        // here (1 in 100,000,000); 1.5x is not.
        assert_eq!(judge(1.2f64.ln(), &quiet, 0.0, FLOOR).call, Call::Slower);
        assert_eq!(without_changes(&quiet_and(&[1.2]), 0.0, FLOOR).1, 0);
        assert_eq!(without_changes(&quiet_and(&[1.5]), 0.0, FLOOR).1, 1);
        // Runs that agree exactly: 1.2x off them is no gross change, 1.5x is.
        assert_eq!(without_changes(&[0.0, 1.2f64.ln(), 0.0, 0.0], 0.0, FLOOR).1, 0);
        assert_eq!(without_changes(&[0.0, 1.5f64.ln(), 0.0, 0.0], 0.0, FLOOR).1, 1);
        // A timer step as wide as the change keeps it too.
        assert_eq!(without_changes(&quiet_and(&[40.0]), 4.0, FLOOR).1, 0);
    }

    #[test]
    fn at_most_a_quarter_goes_and_min_history_stays() {
        // Four runs: one may go, judged against the three others.
        let (kept, left_out) = without_changes(&[0.0, 5.0, 0.0, 0.0], 0.0, FLOOR);
        assert_eq!((kept, left_out), (vec![0.0; 3], 1));
        // Three runs: none, whatever they hold.
        assert_eq!(without_changes(&[0.0, 5.0, 0.0], 0.0, FLOOR), (vec![0.0, 0.0, 5.0], 0));
        // Eleven quiet runs and three equal gross ones: 14 / 4 = 3 may go, and do; with a
        // fourth, more than a quarter of the runs share that level, and none goes.
        let (kept, left_out) = without_changes(&quiet_and(&[40.0, 40.0, 40.0]), 0.0, FLOOR);
        assert_eq!((kept.len(), left_out), (11, 3));
        let (kept, left_out) = without_changes(&quiet_and(&[40.0, 40.0, 40.0, 40.0]), 0.0, FLOOR);
        assert_eq!((kept.len(), left_out), (15, 0));
        // Eight runs, half at another level: a regime, not one-offs (`change_points`).
        let (_, left_out) = without_changes(&[0.0, 0.01, 0.0, 0.01, 3.0, 3.01, 3.0, 3.01], 0.0, FLOOR);
        assert_eq!(left_out, 0);
    }

    /// Histories of every length (too short to judge too), most of them quiet enough (within
    /// 5 %) that a candidate drawn within ±2 is often beyond their floor: wide ones alone put
    /// every floor past ±2, and a property of `slower` or `faster` would never be tried
    /// (`the_property_tests_draw_real_verdicts`).
    fn histories() -> impl Strategy<Value = Vec<f64>> {
        prop_oneof![
            3 => prop::collection::vec(-0.05f64..0.05, 3..30),
            1 => prop::collection::vec(-1.0f64..1.0, 0..30),
        ]
    }

    /// The property tests below see verdicts: at least a fifth of what they draw is judged
    /// `slower` or `faster`.
    #[test]
    fn the_property_tests_draw_real_verdicts() {
        use proptest::strategy::ValueTree;
        let mut runner = proptest::test_runner::TestRunner::deterministic();
        let strategy = (-2.0f64..2.0, histories());
        let called = (0..1000)
            .filter(|_| {
                let (x, h) = strategy.new_tree(&mut runner).expect("a draw").current();
                matches!(judge(x, &h, 0.0, FLOOR).call, Call::Slower | Call::Faster)
            })
            .count();
        assert!(called >= 200, "{called} of 1000 drawn were slower or faster");
    }

    /// Quiet runs (within 5 %) with up to 8 gross ones among them, either way, and a newest
    /// run of either kind.
    fn with_gross_runs() -> impl Strategy<Value = Vec<f64>> {
        (
            prop::collection::vec(-0.05f64..0.05, 0..26),
            prop::collection::vec(prop_oneof![2.0f64..5.0, -5.0f64..-2.0], 0..8),
            prop_oneof![-0.05f64..0.05, 2.0f64..5.0, -5.0f64..-2.0],
        )
            .prop_map(|(quiet, gross, newest)| quiet.into_iter().chain(gross).chain([newest]).collect())
    }

    fn mirrored(call: Call) -> Call {
        match call {
            Call::Slower => Call::Faster,
            Call::Faster => Call::Slower,
            other => other,
        }
    }

    proptest! {
        /// Judging the mirror image (every cost negated: B against A instead of A against B)
        /// swaps slower and faster and nothing else.
        #[test]
        fn mirror_symmetry(x in -2.0f64..2.0, h in histories(), step in 0.0f64..0.05) {
            let negated: Vec<f64> = h.iter().map(|v| -v).collect();
            let a = judge(x, &h, step, FLOOR);
            let b = judge(-x, &negated, step, FLOOR);
            prop_assert_eq!(b.call, mirrored(a.call));
            prop_assert!((a.floor - b.floor).abs() < 1e-9);
        }

        /// Scaling every run by one factor (adding a constant to every log cost) changes no
        /// verdict.
        #[test]
        fn invariant_to_scaling_every_run(x in -2.0f64..2.0, h in histories(), shift in -5.0f64..5.0) {
            let moved: Vec<f64> = h.iter().map(|v| v + shift).collect();
            let a = judge(x, &h, 0.0, FLOOR);
            let b = judge(x + shift, &moved, 0.0, FLOOR);
            // Rounding can move a value sitting exactly on the floor; elsewhere they agree.
            if (a.shift.abs() - a.floor).abs() > 1e-9 {
                prop_assert_eq!(a.call, b.call);
            }
        }

        /// A costlier candidate is never judged better: slower stays slower as x grows,
        /// faster stays faster as x shrinks.
        #[test]
        fn monotonic_in_the_effect(x in -2.0f64..2.0, more in 0.0f64..2.0, h in histories()) {
            let a = judge(x, &h, 0.0, FLOOR);
            let b = judge(x + more, &h, 0.0, FLOOR);
            if a.call == Call::Slower { prop_assert_eq!(b.call, Call::Slower); }
            if b.call == Call::Faster { prop_assert_eq!(a.call, Call::Faster); }
        }

        /// Leaving out depends on the values only (not their order), keeps a sub-list of
        /// them (sorted), and leaves out at most a quarter, never below `MIN_HISTORY`.
        #[test]
        fn leaving_out_is_order_free_and_bounded(h in with_gross_runs(), step in 0.0f64..0.05) {
            let (kept, left_out) = without_changes(&h, step, FLOOR);
            let mut reordered = h.clone();
            reordered.reverse();
            prop_assert_eq!(without_changes(&reordered, step, FLOOR), (kept.clone(), left_out));
            prop_assert_eq!(kept.len() + left_out, h.len());
            prop_assert!(left_out <= h.len() / 4);
            prop_assert!(left_out == 0 || kept.len() >= MIN_HISTORY);
            prop_assert!(kept.windows(2).all(|w| w[0] <= w[1]));
            let mut rest = h.clone();
            for v in &kept {
                let at = rest.iter().position(|r| r == v);
                prop_assert!(at.is_some());
                rest.swap_remove(at.unwrap_or_default());
            }
            // What goes is gross: farther out than anything kept, and never a quiet run.
            prop_assert!(rest.iter().all(|v| v.abs() >= 2.0));
            let gross = h.iter().filter(|v| v.abs() >= 2.0).count();
            if gross <= h.len() / 4 && h.len() - gross >= 8 {
                prop_assert_eq!(left_out, gross, "few gross runs among enough quiet ones all go");
            }
        }

        /// No verdict inside the noise floor.
        #[test]
        fn nothing_inside_the_floor(x in -2.0f64..2.0, h in histories(), step in 0.0f64..0.05) {
            let j = judge(x, &h, step, FLOOR);
            if j.shift.abs() <= j.floor {
                prop_assert!(!matches!(j.call, Call::Slower | Call::Faster));
            }
            prop_assert!(j.floor >= FLOOR);
        }
    }
}
