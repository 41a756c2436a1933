//! Change points in a case's history: where the run-level values of a configuration step to
//! another level and stay there. Uses `rule` only.
//!
//! The method: binary segmentation on the log costs in time order (as Apache Otava / MongoDB
//! split a series, with a two-sample test per split). A segment is split at the position that
//! maximizes Welch's t between the runs before and after it (each side at least
//! `MIN_SEGMENT` runs); the split is a change point when both
//! - the medians of the two sides are apart by more than the noise floor of the rule
//!   (`rule::step_floor` of the before-side's runs: a 99.9 % prediction interval of their
//!   spread) divided by the square root of the after-side's runs (a median of m runs, not
//!   one), and by at least `MIN_MAGNITUDE`, and
//! - |t| >= `MIN_T`,
//!
//! and each side is then searched again. A one-off run never makes a change point (both sides
//! need `MIN_SEGMENT` runs), so a change is confirmed by the runs after it. Its false-positive
//! rate on A/A histories is tested (`tests`) on simulated histories with run-level effects and
//! measured on the real H200 histories in the README.

use super::rule;

/// Fewest runs on each side of a change point.
pub const MIN_SEGMENT: usize = 3;
/// Smallest step ever reported (fraction).
pub const MIN_MAGNITUDE: f64 = 0.05;
/// Smallest |Welch t| of a split.
pub const MIN_T: f64 = 5.0;

/// A step in a history of log costs.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct ChangePoint {
    /// Index of the first run after the step.
    pub at: usize,
    /// exp(median after - median before): > 1 when the case got costlier (slower).
    pub ratio: f64,
    /// Welch's t of the split.
    pub t: f64,
}

/// The change points of `values` (log costs, oldest first), in time order.
pub fn detect(values: &[f64]) -> Vec<ChangePoint> {
    let mut found = Vec::new();
    split(values, 0, &mut found);
    found.sort_by_key(|c| c.at);
    found
}

fn split(values: &[f64], offset: usize, found: &mut Vec<ChangePoint>) {
    let n = values.len();
    if n < 2 * MIN_SEGMENT {
        return;
    }
    let best = (MIN_SEGMENT..=n - MIN_SEGMENT)
        .map(|k| (k, welch_t(&values[..k], &values[k..])))
        .max_by(|a, b| a.1.abs().total_cmp(&b.1.abs()).then(b.0.cmp(&a.0)));
    let Some((k, t)) = best else { return };
    let (before, after) = values.split_at(k);
    let step = median(after) - median(before);
    // The floor of one new run, shrunk for a median of `after.len()` runs.
    let floor = rule::step_floor(before, MIN_MAGNITUDE.ln_1p()) / (after.len() as f64).sqrt();
    if t.abs() < MIN_T || step.abs() <= floor.max(MIN_MAGNITUDE.ln_1p()) {
        return;
    }
    found.push(ChangePoint { at: offset + k, ratio: step.exp(), t });
    split(before, offset, found);
    split(after, offset + k, found);
}

/// Welch's t of the difference of means (after - before); 0 when both sides are constant and
/// equal, a large value when they are constant and differ.
fn welch_t(before: &[f64], after: &[f64]) -> f64 {
    let (ma, va) = mean_var(before);
    let (mb, vb) = mean_var(after);
    let se = (va / before.len() as f64 + vb / after.len() as f64).sqrt();
    let diff = mb - ma;
    if se > 0.0 {
        diff / se
    } else if diff == 0.0 {
        0.0
    } else {
        diff.signum() * f64::MAX.sqrt()
    }
}

fn mean_var(values: &[f64]) -> (f64, f64) {
    let n = values.len() as f64;
    let mean = values.iter().sum::<f64>() / n;
    (mean, values.iter().map(|v| (v - mean).powi(2)).sum::<f64>() / (n - 1.0).max(1.0))
}

fn median(values: &[f64]) -> f64 {
    let mut sorted = values.to_vec();
    sorted.sort_by(f64::total_cmp);
    let n = sorted.len();
    if n % 2 == 1 {
        sorted[n / 2]
    } else {
        (sorted[n / 2 - 1] + sorted[n / 2]) / 2.0
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::analysis::comparison::test_rng::Rng;

    #[test]
    fn the_helpers_are_the_textbook_formulas() {
        assert_eq!(median(&[3.0, 1.0, 2.0]), 2.0);
        assert_eq!(median(&[4.0, 1.0, 3.0, 2.0]), 2.5);
        assert_eq!(median(&[5.0, 1.0, 4.0, 2.0, 3.0]), 3.0);
        assert_eq!(median(&[2.0, 1.0]), 1.5);
        assert_eq!(median(&[6.0, 1.0, 5.0, 2.0, 4.0, 3.0]), 3.5);
        let (mean, var) = mean_var(&[1.0, 2.0, 3.0, 4.0]);
        assert_eq!(mean, 2.5);
        assert!((var - 5.0 / 3.0).abs() < 1e-15, "the sample variance (n - 1): {var}");
        // scipy.stats.ttest_ind([1, 2, 3], [4, 5, 7], equal_var=False).statistic = -3.1622...
        // (before - after); this is after - before.
        assert!((welch_t(&[1.0, 2.0, 3.0], &[4.0, 5.0, 7.0]) - 3.1622776601683795).abs() < 1e-12);
        assert_eq!(welch_t(&[1.0; 3], &[1.0; 3]), 0.0);
        assert_eq!(welch_t(&[1.0; 3], &[2.0; 3]), f64::MAX.sqrt());
        assert_eq!(welch_t(&[2.0; 3], &[1.0; 3]), -f64::MAX.sqrt());
    }

    #[test]
    fn the_step_is_the_ratio_of_the_medians_and_six_runs_can_hold_one() {
        let found = detect(&[1.0, 1.01, 0.99, 1.5, 1.51, 1.49]);
        assert_eq!(found.len(), 1, "{found:?}");
        assert_eq!(found[0].at, 3);
        assert!((found[0].ratio - 0.5f64.exp()).abs() < 1e-12, "{found:?}");
    }

    #[test]
    fn a_step_found_inside_the_later_part_is_placed_in_the_whole_history() {
        let mut values = Vec::new();
        for level in [0.0, 1.0, 1.3] {
            values.extend([level, level + 0.01, level - 0.01, level + 0.005, level]);
        }
        let at: Vec<usize> = detect(&values).iter().map(|c| c.at).collect();
        assert_eq!(at, vec![5, 10]);
    }

    #[test]
    fn a_step_is_found_where_it_is() {
        let mut values = vec![0.0, 0.01, -0.01, 0.005, 0.0, -0.005];
        values.extend([0.4, 0.41, 0.39, 0.405]);
        let found = detect(&values);
        assert_eq!(found.len(), 1, "{found:?}");
        assert_eq!(found[0].at, 6);
        assert!((found[0].ratio - 0.4025f64.exp()).abs() < 0.01, "{found:?}");
    }

    #[test]
    fn a_one_off_run_is_not_a_change_point() {
        let values = [0.0, 0.01, -0.01, 0.8, 0.0, 0.005, -0.005, 0.0];
        assert!(detect(&values).is_empty());
    }

    #[test]
    fn two_steps_are_two_change_points() {
        let mut values = vec![0.0; 5];
        values.extend([0.3; 5]);
        values.extend([0.8; 5]);
        let found: Vec<usize> = detect(&values).iter().map(|c| c.at).collect();
        assert_eq!(found, [5, 10]);
    }

    #[test]
    fn steps_below_the_minimum_magnitude_are_not_reported() {
        let mut values = vec![0.0; 6];
        values.extend([0.03; 6]);
        assert!(detect(&values).is_empty());
        assert!(detect(&[0.0, 0.1]).is_empty(), "too short to split");
    }

    /// A/A histories of 30 runs with a 5 % run-level spread: how many report a change point.
    #[test]
    fn a_a_histories_rarely_have_a_change_point() {
        let mut rng = Rng(11);
        let histories = 1000;
        let with_change = (0..histories)
            .filter(|_| {
                let values: Vec<f64> = (0..30).map(|_| 0.05 * rng.normal()).collect();
                !detect(&values).is_empty()
            })
            .count();
        println!("A/A histories of 30 runs (5 % run-level spread): {with_change} of {histories} with a change point");
        assert!(with_change * 100 <= histories, "{with_change}");
        let found = (0..200)
            .filter(|_| {
                let values: Vec<f64> =
                    (0..30).map(|i| 0.05 * rng.normal() + if i >= 20 { 0.3f64.ln_1p() } else { 0.0 }).collect();
                detect(&values).iter().any(|c| (19..=21).contains(&c.at))
            })
            .count();
        println!("a 30 % step after 20 of 30 runs: found in {found} of 200");
        assert!(found >= 180, "{found}");
    }
}
