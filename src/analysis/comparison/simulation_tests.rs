//! Seeded simulations of the verdicts with the noise real runs have: every run lands at its
//! own level. A run's value of a case is `level x exp(run-wide shift + the case's own run
//! effect + the cycle's noise)`, with a between-run spread of 5 % (half shared by the run's
//! cases, half the case's own), 1 % within a run, and device-side cases quantized to CUDA's
//! 32 ns event step (`heavy_tailed_cases_rarely_report_a_change`: the case's own effect drawn
//! with t3 tails instead, as real runs have heavier tails than the normal). A candidate is
//! judged against the history of the runs before it, as the site and `compare` do. Rates are
//! printed (`cargo test --lib simulation -- --nocapture`).

use super::engine::{compare, Context, Verdict};
use super::history::medians;
use super::samples::{CaseSamples, Family};
use super::test_rng::Rng;
use std::collections::BTreeMap;

const TRIALS: usize = 200;
const CASES: usize = 20;
const CYCLES: usize = 10;
const HISTORY: usize = 10;
const BETWEEN: f64 = 0.05;
const WITHIN: f64 = 0.01;
const EVENT_STEP_US: f64 = 0.032;

/// One run: case i at level `3.1 us x (i + 1)` times `factor(i)`; even cases device-side
/// (quantized), odd ones host-side.
fn run(rng: &mut Rng, factor: impl Fn(usize) -> f64) -> Vec<CaseSamples> {
    run_with(rng, factor, Rng::normal)
}

/// `run` with each case's own run effect drawn by `own` (unit variance; scaled here).
fn run_with(rng: &mut Rng, factor: impl Fn(usize) -> f64, own: fn(&mut Rng) -> f64) -> Vec<CaseSamples> {
    let shared = BETWEEN / 2f64.sqrt() * rng.normal();
    (0..CASES)
        .map(|i| {
            let own = BETWEEN / 2f64.sqrt() * own(rng);
            let level = 3.1 * (i + 1) as f64 * factor(i) * (shared + own).exp();
            let device = i % 2 == 0;
            let values = (0..CYCLES)
                .map(|_| {
                    let v = level * (WITHIN * rng.normal()).exp();
                    if device {
                        (v / EVENT_STEP_US).round() * EVENT_STEP_US
                    } else {
                        v
                    }
                })
                .collect();
            CaseSamples {
                section: "decode",
                world_size: 4,
                case: format!("tokens={i}"),
                metric: "replay_total_us",
                folder: None,
                higher_is_better: false,
                family: if device { Family::Device } else { Family::Host },
                values,
            }
        })
        .collect()
}

/// `HISTORY` runs, the last of them the base, then the candidate: (base, candidate, context).
fn trial(rng: &mut Rng, change: impl Fn(usize) -> f64) -> (Vec<CaseSamples>, Vec<CaseSamples>, Context) {
    trial_after(rng, |_, _| 1.0, change)
}

/// `trial` with earlier run `r`'s case `i` multiplied by `earlier(r, i)`.
fn trial_after(
    rng: &mut Rng,
    earlier: impl Fn(usize, usize) -> f64,
    change: impl Fn(usize) -> f64,
) -> (Vec<CaseSamples>, Vec<CaseSamples>, Context) {
    let runs: Vec<Vec<CaseSamples>> = (0..HISTORY).map(|r| run(rng, |i| earlier(r, i))).collect();
    let history: Vec<BTreeMap<String, f64>> = runs.iter().map(|r| medians(r)).collect();
    let cand = run(rng, change);
    (runs[HISTORY - 1].clone(), cand, Context { key_differences: Vec::new(), history })
}

/// Share of trials in which `flagged` holds.
fn rate(seed: u64, change: impl Fn(usize) -> f64 + Copy, flagged: impl Fn(&super::engine::Outcome) -> bool) -> f64 {
    rate_after(seed, |_, _| 1.0, change, flagged)
}

/// `rate` with the earlier runs' cases multiplied by `earlier(run, case)`.
fn rate_after(
    seed: u64,
    earlier: impl Fn(usize, usize) -> f64 + Copy,
    change: impl Fn(usize) -> f64 + Copy,
    flagged: impl Fn(&super::engine::Outcome) -> bool,
) -> f64 {
    let mut rng = Rng(seed);
    let hits = (0..TRIALS)
        .filter(|_| {
            let (base, cand, context) = trial_after(&mut rng, earlier, change);
            flagged(&compare(&base, &cand, &context))
        })
        .count();
    hits as f64 / TRIALS as f64
}

fn any_change(outcome: &super::engine::Outcome) -> bool {
    let changed = |v: Verdict| matches!(v, Verdict::Slower | Verdict::Faster);
    outcome.cases.iter().any(|c| changed(c.verdict)) || outcome.shifts.iter().any(|s| changed(s.verdict))
}

#[test]
fn runs_of_one_configuration_rarely_report_a_change() {
    for seed in [1, 2, 3] {
        let observed = rate(seed, |_| 1.0, any_change);
        println!(
            "A/A, between-run 5 %, within-run 1 %, {HISTORY} earlier runs: {:.1} % of candidates report a change",
            observed * 100.0
        );
        assert!(observed <= 0.05, "seed {seed}: {observed}");
    }
}

/// The old rule's failure, kept as a guard: the cycles of two runs look "significantly"
/// different in almost every pair, so no verdict may rest on them alone.
#[test]
fn cycles_alone_would_flag_most_pairs() {
    let mut rng = Rng(9);
    let (base, cand, _) = trial(&mut rng, |_| 1.0);
    let apart = base
        .iter()
        .zip(&cand)
        .filter(|(b, c)| {
            let (lo_b, hi_b) = min_max(&b.values);
            let (lo_c, hi_c) = min_max(&c.values);
            hi_b < lo_c || hi_c < lo_b
        })
        .count();
    assert!(apart >= CASES / 2, "{apart} of {CASES} cases have disjoint cycle ranges");
    let outcome = compare(&base, &cand, &Context { history: Vec::new(), ..Context::default() });
    assert!(outcome.cases.iter().all(|c| c.verdict == Verdict::InsufficientHistory));
}

fn min_max(values: &[f64]) -> (f64, f64) {
    values.iter().fold((f64::INFINITY, f64::NEG_INFINITY), |(lo, hi), v| (lo.min(*v), hi.max(*v)))
}

#[test]
fn a_planted_change_of_one_case_is_found() {
    for (factor, at_least) in [(1.3, 0.05), (1.5, 0.25), (2.0, 0.85)] {
        let observed = rate(4, |i| if i == 6 { factor } else { 1.0 }, |o| o.cases[6].verdict == Verdict::Slower);
        let others = rate(
            4,
            |i| if i == 6 { factor } else { 1.0 },
            |o| {
                o.cases
                    .iter()
                    .enumerate()
                    .any(|(i, c)| i != 6 && matches!(c.verdict, Verdict::Slower | Verdict::Faster))
            },
        );
        println!(
            "power, one case x{factor}: found in {:.1} % of candidates; another case flagged in {:.1} %",
            observed * 100.0,
            others * 100.0
        );
        assert!(observed >= at_least, "x{factor}: {observed}");
        assert!(others <= 0.05, "x{factor}: {others}");
    }
}

/// A real regression among the earlier runs (as `CUDA_LAUNCH_BLOCKING=1` made every GPU
/// dependency 16-40x slower in one bundled run) is a change, not noise: it is left out of the
/// history, so the next regression is found about as often as with a clean history (one run
/// fewer), and an unchanged run is no more often flagged.
#[test]
fn a_regression_among_the_earlier_runs_does_not_hide_the_next() {
    let blocking = |r: usize, i: usize| if r == 4 && i % 2 == 0 { 40.0 } else { 1.0 };
    let planted = |i: usize| if i == 6 { 1.5 } else { 1.0 };
    let found = |o: &super::engine::Outcome| o.cases[6].verdict == Verdict::Slower;
    let clean = rate(11, planted, found);
    let after = rate_after(11, blocking, planted, found);
    let left_out = rate_after(11, blocking, planted, |o| o.cases[6].history_left_out == 1);
    let aa = rate_after(12, blocking, |_| 1.0, any_change);
    println!(
        "one device case x1.5 after a run with every device case x40: found in {:.1} % (a clean history: {:.1} %); \
         that run left out in {:.1} %; A/A after it: {:.1} % report a change",
        after * 100.0,
        clean * 100.0,
        left_out * 100.0,
        aa * 100.0
    );
    // Nine runs left instead of ten: a slightly wider floor.
    assert!(after >= 0.15 && after <= clean, "{after} against {clean}");
    assert!(left_out >= 0.99, "{left_out}");
    assert!(aa <= 0.05, "{aa}");
}

/// The newest earlier run is the first of a 5x host-side level (a gross change, as a
/// `CUDA_LAUNCH_BLOCKING` run is on the device side), and the candidate the second.
/// Judged against the first (the default base: the newest earlier run), nothing is news: the
/// change was the first run's; against an earlier run of the old level, the host-side shift is
/// `slower` (the newest run is left out of the history, and the base decides). Kept in, the
/// 5x run widened the shift's floor past the step, and a persisting regression was `no_change`
/// against a run before it, as a real second `CUDA_LAUNCH_BLOCKING` run was. (A 2x level is
/// not gross against nine runs of this noise: it stays in, and the second run is `slower`
/// against the old level in 23 % of trials.)
#[test]
fn the_second_run_of_a_new_level_is_news_against_the_old_level_only() {
    let mut rng = Rng(16);
    let host = |i: usize| if i % 2 == 1 { 5.0 } else { 1.0 };
    let (mut against_first, mut against_old, mut left_out) = (0, 0, 0);
    for _ in 0..TRIALS {
        let runs: Vec<Vec<CaseSamples>> =
            (0..HISTORY).map(|r| if r == HISTORY - 1 { run(&mut rng, host) } else { run(&mut rng, |_| 1.0) }).collect();
        let context = Context { key_differences: Vec::new(), history: runs.iter().map(|r| medians(r)).collect() };
        let cand = run(&mut rng, host);
        let first = compare(&runs[HISTORY - 1], &cand, &context);
        against_first += usize::from(any_change(&first));
        let old = compare(&runs[HISTORY - 2], &cand, &context);
        let shift = old.shifts.iter().find(|s| s.family == Family::Host).expect("host cases");
        against_old += usize::from(shift.verdict == Verdict::Slower);
        left_out += usize::from(shift.history_left_out == 1);
        assert!(old.cases.iter().all(|c| c.verdict != Verdict::Faster), "{old:?}");
    }
    println!(
        "the second run of a 5x host-side level: a change against the first in {against_first} of {TRIALS}; \
         the host-side shift slower against the run before the first in {against_old} (the first left out in {left_out})"
    );
    assert!(against_first * 40 <= TRIALS, "{against_first}");
    assert!(against_old * 100 >= TRIALS * 95, "{against_old}");
    assert!(left_out * 100 >= TRIALS * 95, "{left_out}");
}

/// Real runs have heavy tails (a host-bound run at 0.6x of its neighbours in every host-side
/// case): one earlier run in ten lands 0.6x or 1.7x off in its host-side cases. Such runs
/// are noise, and the floor must keep them: unchanged runs are rarely flagged.
#[test]
fn heavy_tailed_runs_rarely_report_a_change() {
    for seed in [13, 14, 15] {
        let mut rng = Rng(seed);
        let hits = (0..TRIALS)
            .filter(|_| {
                let tails: Vec<f64> = (0..=HISTORY)
                    .map(|_| match rng.uniform() {
                        u if u < 0.05 => 0.6,
                        u if u < 0.1 => 1.7,
                        _ => 1.0,
                    })
                    .collect();
                let host = |r: usize, i: usize| if i % 2 == 1 { tails[r] } else { 1.0 };
                let (base, cand, context) = trial_after(&mut rng, host, |i| host(HISTORY, i));
                any_change(&compare(&base, &cand, &context))
            })
            .count();
        let observed = hits as f64 / TRIALS as f64;
        println!("A/A, one run in ten 0.6x or 1.7x host-side: {:.1} % of candidates report a change", observed * 100.0);
        // Leaving out at a verdict's own 1 in 10,000 gave 7.5 / 8.0 / 9.0 % over these seeds.
        assert!(observed <= 0.05, "seed {seed}: {observed}");
    }
}

/// Student's t with 3 degrees of freedom, scaled to unit variance: a case's own run effect
/// with heavy tails (real runs: `rule::TAIL`).
fn student_t3(rng: &mut Rng) -> f64 {
    let chi2: f64 = (0..3).map(|_| rng.normal().powi(2)).sum();
    rng.normal() / (chi2 / 3.0).sqrt() / 3f64.sqrt()
}

/// Each case's own run effect heavy-tailed (t3), nothing changed, 1,000 trials a seed: the
/// floor's allowance for real tails (`rule::TAIL`) keeps unchanged candidates quiet. These
/// seeds give 0.6 / 1.3 / 0.9 % (28 of 3,000); without the allowance (`TAIL` = 1) 1.4 / 1.9 /
/// 1.7 % (50 of 3,000); with normal case effects, 0-0.5 % (above).
#[test]
fn heavy_tailed_cases_rarely_report_a_change() {
    let mut total = 0;
    for seed in [21, 22, 23] {
        let mut rng = Rng(seed);
        let hits = (0..5 * TRIALS)
            .filter(|_| {
                let runs: Vec<Vec<CaseSamples>> =
                    (0..=HISTORY).map(|_| run_with(&mut rng, |_| 1.0, student_t3)).collect();
                let history: Vec<BTreeMap<String, f64>> = runs[..HISTORY].iter().map(|r| medians(r)).collect();
                let context = Context { key_differences: Vec::new(), history };
                any_change(&compare(&runs[HISTORY - 1], &runs[HISTORY], &context))
            })
            .count();
        println!(
            "A/A, each case's own run effect t3-tailed: {:.1} % of candidates report a change",
            hits as f64 / (5 * TRIALS) as f64 * 100.0
        );
        total += hits;
    }
    // At most 1.3 %: between the 0.9 % seen with the allowance and the 1.7 % without it.
    let trials = 3 * 5 * TRIALS;
    assert!(total * 1000 <= trials * 13, "{total} of {trials}");
}

#[test]
fn a_shift_of_one_family_is_its_own_finding() {
    let mut rng = Rng(5);
    let (mut found, mut device_flagged) = (0, 0);
    for _ in 0..TRIALS {
        let (base, cand, context) = trial(&mut rng, |i| if i % 2 == 1 { 1.9 } else { 1.0 });
        let outcome = compare(&base, &cand, &context);
        let host = outcome.shifts.iter().find(|s| s.family == Family::Host).expect("host cases");
        let device = outcome.shifts.iter().find(|s| s.family == Family::Device).expect("device cases");
        assert!((host.ratio / 1.9 - 1.0).abs() < 0.15, "{host:?}");
        assert_ne!(device.verdict, Verdict::Slower, "{device:?}");
        found += usize::from(host.verdict == Verdict::Slower);
        device_flagged += usize::from(
            outcome
                .cases
                .iter()
                .any(|c| c.family == Family::Device && matches!(c.verdict, Verdict::Slower | Verdict::Faster)),
        );
    }
    println!(
        "every host-side case x1.9: the host-side shift found in {found} of {TRIALS}; a device-side case flagged in {device_flagged}"
    );
    // Two trials in 200 are no verdict: their shifts, 1.85x and 1.87x, are within the floors
    // their histories set (84 and 105 %: histories wide by chance, and a floor 1.25x the t
    // factor's, `rule::TAIL`).
    assert!(found >= TRIALS - 2, "{found}");
    assert!(device_flagged * 20 <= TRIALS, "the device side does not move with the host: {device_flagged}");
}

#[test]
fn too_little_history_says_how_many_runs_would_decide() {
    let mut rng = Rng(6);
    let (base, cand, mut context) = trial(&mut rng, |_| 1.5);
    context.history.truncate(2);
    let outcome = compare(&base, &cand, &context);
    assert!(outcome.cases.iter().all(|c| c.verdict == Verdict::InsufficientHistory));
    let reason = outcome.cases[0].reason.as_deref().unwrap_or("");
    assert_eq!(reason, "2 earlier ok runs of the configuration; 1 more would decide");
}

#[test]
fn differing_configurations_and_missing_cases_are_not_comparable() {
    let mut rng = Rng(7);
    let (base, mut cand, context) = trial(&mut rng, |_| 1.0);
    cand.pop();
    let outcome = compare(&base, &cand, &context);
    let last = outcome.cases.iter().find(|c| c.case == format!("tokens={}", CASES - 1)).expect("listed");
    assert_eq!((last.verdict, last.reason.as_deref()), (Verdict::NotComparable, Some("only in the base run")));
    let context = Context { key_differences: vec!["nccl".to_string()], ..context };
    let outcome = compare(&base, &cand, &context);
    assert!(outcome.cases.iter().all(|c| c.verdict == Verdict::NotComparable && c.history_ratio.is_none()));
    assert!(outcome.shifts.is_empty());
}

#[test]
fn non_finite_or_zero_samples_get_no_verdict() {
    let mut rng = Rng(8);
    let (base, mut cand, context) = trial(&mut rng, |_| 1.0);
    cand[0].values = vec![f64::INFINITY; CYCLES];
    cand[1].values = vec![0.0; CYCLES];
    cand[2].values = vec![f64::NEG_INFINITY; CYCLES];
    let outcome = compare(&base, &cand, &context);
    for c in &outcome.cases[..3] {
        assert_eq!(c.verdict, Verdict::NotComparable, "{c:?}");
        assert!(c.ratio.is_none());
    }
}

#[test]
fn timer_steps_are_seen_in_quantized_values_only() {
    let quantized = [3.104, 3.136, 3.168, 3.2, 3.136].map(|v: f64| v * (1.0 - 1e-8));
    let step = super::engine::timer_step(quantized.into_iter()).expect("quantized");
    assert!((step - 0.032).abs() < 1e-6, "{step}");
    assert_eq!(super::engine::timer_step([3.1, 3.1713, 3.3002, 3.2511].into_iter()), None);
    assert_eq!(super::engine::timer_step([3.1, 3.1].into_iter()), None, "one distinct value tells nothing");
}

#[test]
fn the_history_starts_after_its_last_change_point() {
    let mut rng = Rng(10);
    let level = |factor: f64, rng: &mut Rng| run(rng, |_| factor);
    let runs: Vec<Vec<CaseSamples>> = (0..12).map(|i| level(if i < 6 { 1.0 } else { 2.0 }, &mut rng)).collect();
    let history: Vec<BTreeMap<String, f64>> = runs.iter().map(|r| medians(r)).collect();
    let cand = level(2.0, &mut rng);
    let outcome = compare(&runs[11], &cand, &Context { key_differences: Vec::new(), history });
    let judged: Vec<_> = outcome.cases.iter().filter(|c| c.verdict != Verdict::InsufficientHistory).collect();
    assert!(!judged.is_empty());
    // Mixing both regimes would put the floor near 8x (a spread of half a 2x step, times the
    // t factor of 11 runs); six runs of one regime with a 5 % spread keep it under 3x.
    let mixed_floor = judged.iter().filter(|c| c.effect_floor > 2.0).count();
    assert_eq!(mixed_floor, 0, "no case keeps the runs before its 2x step as noise");
    assert!(judged.iter().all(|c| c.history_runs <= 6), "only the runs after the step");
}
