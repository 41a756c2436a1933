//! Seeded simulations of the verdict rule on log-normal cycle times: false alarms between
//! runs of one distribution (with and without a shared run-wide shift), power against one
//! planted change, and a change of every case reported as drift. Rates are printed
//! (`cargo test --lib comparison:: -- --nocapture`).

use super::engine::{compare, Context, Verdict};
use super::samples::CaseSamples;

const PAIRS: usize = 200;
const CASES: usize = 20;
const CYCLES: usize = 10;

/// SplitMix64 with Box-Muller normals (test-only: rates, not bits, are asserted).
struct Rng(u64);

impl Rng {
    fn uniform(&mut self) -> f64 {
        self.0 = self.0.wrapping_add(0x9E37_79B9_7F4A_7C15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        (((z ^ (z >> 31)) >> 11) as f64 + 0.5) / (1u64 << 53) as f64
    }

    fn normal(&mut self) -> f64 {
        (-2.0 * self.uniform().ln()).sqrt() * (std::f64::consts::TAU * self.uniform()).cos()
    }
}

/// One run: `CASES` cases, case i at level 10 * (i + 1) times `factor(i)`, log-normal cv.
fn run(rng: &mut Rng, cv: f64, factor: impl Fn(usize) -> f64) -> Vec<CaseSamples> {
    let sigma = (1.0 + cv * cv).ln().sqrt();
    (0..CASES)
        .map(|i| CaseSamples {
            section: "decode",
            world_size: 4,
            case: format!("tokens={i}"),
            metric: "replay_total_us",
            folder: None,
            higher_is_better: false,
            values: (0..CYCLES).map(|_| 10.0 * (i + 1) as f64 * factor(i) * (sigma * rng.normal()).exp()).collect(),
        })
        .collect()
}

/// Share of pairs in which `flagged` holds, over `PAIRS` seeded pairs.
fn rate(seed: u64, cv: f64, shift: f64, change: impl Fn(usize) -> f64, flagged: impl Fn(&[Verdict]) -> bool) -> f64 {
    let mut rng = Rng(seed);
    let hits = (0..PAIRS)
        .filter(|_| {
            let base = run(&mut rng, cv, |_| 1.0);
            let run_shift = 1.0 + shift * (2.0 * rng.uniform() - 1.0);
            let cand = run(&mut rng, cv, |i| run_shift * change(i));
            let outcome = compare(&base, &cand, &Context::default());
            flagged(&outcome.cases.iter().map(|c| c.verdict).collect::<Vec<_>>())
        })
        .count();
    hits as f64 / PAIRS as f64
}

fn any_change(verdicts: &[Verdict]) -> bool {
    verdicts.iter().any(|v| matches!(v, Verdict::Slower | Verdict::Faster))
}

#[test]
fn same_distribution_rarely_reports_a_change() {
    for (seed, cv) in [(1, 0.02), (2, 0.05), (3, 0.10)] {
        for shift in [0.0, 0.05] {
            let observed = rate(seed, cv, shift, |_| 1.0, any_change);
            println!("A/A cv {cv} shared shift up to {shift}: {:.1} % of pairs report a change", observed * 100.0);
            assert!(observed <= 0.05, "cv {cv} shift {shift}: {observed}");
        }
    }
}

#[test]
fn one_planted_ten_percent_change_is_found() {
    let observed = rate(4, 0.02, 0.0, |i| if i == 7 { 1.10 } else { 1.0 }, |v| v[7] == Verdict::Slower);
    println!("power, one case +10 % at cv 2 %, {CYCLES} cycles: flagged in {:.1} % of pairs", observed * 100.0);
    assert!(observed >= 0.90, "{observed}");
}

#[test]
fn a_change_of_every_case_is_drift_not_regressions() {
    let mut rng = Rng(5);
    let mut flagged = 0;
    for _ in 0..PAIRS {
        let base = run(&mut rng, 0.02, |_| 1.0);
        let cand = run(&mut rng, 0.02, |_| 1.10);
        let outcome = compare(&base, &cand, &Context::default());
        let drift = outcome.drift.expect("comparable cases");
        assert!(drift.applied && (drift.ratio - 1.10).abs() < 0.02, "{drift:?}");
        flagged += usize::from(any_change(&outcome.cases.iter().map(|c| c.verdict).collect::<Vec<_>>()));
    }
    let observed = flagged as f64 / PAIRS as f64;
    println!(
        "every case +10 %: drift found in every pair; {:.1} % of pairs report a per-case change",
        observed * 100.0
    );
    assert!(observed <= 0.05, "{observed}");
}

#[test]
fn too_few_cycles_states_what_is_needed() {
    let mut rng = Rng(6);
    let mut base = run(&mut rng, 0.02, |_| 1.0);
    let mut cand = run(&mut rng, 0.02, |_| 1.5);
    for case in base.iter_mut().chain(cand.iter_mut()) {
        case.values.truncate(4);
    }
    // 20 cases: q/m = 2.5e-3; 4 vs 4 reaches 0.029 at best, 6 vs 6 reaches 2.2e-3.
    let outcome = compare(&base, &cand, &Context::default());
    assert!(outcome.cases.iter().all(|c| c.verdict == Verdict::TooFewCycles));
    let reason = outcome.cases[0].reason.as_deref().unwrap_or("");
    assert!(reason.contains("needs at least 6 cycles per run"), "{reason}");
}

#[test]
fn differing_configurations_and_missing_cases_are_not_comparable() {
    let mut rng = Rng(7);
    let base = run(&mut rng, 0.02, |_| 1.0);
    let mut cand = run(&mut rng, 0.02, |_| 1.0);
    cand.pop();
    let outcome = compare(&base, &cand, &Context::default());
    let last = outcome.cases.iter().find(|c| c.case == format!("tokens={}", CASES - 1)).expect("listed");
    assert_eq!((last.verdict, last.reason.as_deref()), (Verdict::NotComparable, Some("only in the base run")));
    let context = Context { key_differences: vec!["cycles".to_string()], ..Context::default() };
    let outcome = compare(&base, &cand, &context);
    assert!(outcome.cases.iter().all(|c| c.verdict == Verdict::NotComparable && c.p.is_none()));
    assert!(outcome.drift.is_none());
}
