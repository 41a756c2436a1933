//! FP16 reduction counterexamples: each rank holds one value, the ranks' values are summed
//! in rank order in FP16 (rounding after every add) and in FP32, for every permutation of
//! which rank holds which value, and compared with the exact sum.

/// One scenario: its name and the values handed out to the ranks.
pub(super) struct Scenario {
    pub name: &'static str,
    pub values: Vec<f64>,
}

/// One permutation's outcome (the same on every rank: the result is replicated).
pub(super) struct Outcome {
    pub permutation: Vec<usize>,
    pub values: Vec<f64>,
    pub real_sum: f64,
    pub fp16_result: f64,
    pub fp32_result: f64,
}

/// At most this many permutations per scenario (all of them up to 4 ranks).
const MAX_PERMUTATIONS: usize = 24;

/// The scenarios for `ranks` ranks: large values that overflow FP16 in some orders, a
/// large value that absorbs small ones, and a control that is exact in every order.
pub(super) fn scenarios(ranks: usize) -> Vec<Scenario> {
    let take = |pool: &[f64]| pool.iter().cycle().take(ranks).copied().collect();
    vec![
        Scenario { name: "absorption", values: take(&[2048.0, 1.0, 0.75, 0.25, 0.5, 0.5, 0.125, 0.125]) },
        Scenario { name: "control", values: take(&[1.0, 2.0, 3.0, 4.0, 5.0, 6.0, 7.0, 8.0]) },
        Scenario {
            name: "overflow",
            values: take(&[60000.0, 30000.0, -60000.0, -30000.0, 20000.0, -20000.0, 10000.0, -10000.0]),
        },
    ]
}

/// Every permutation (lexicographic, capped) of `scenario`'s values over the ranks.
pub(super) fn outcomes(scenario: &Scenario) -> Vec<Outcome> {
    permutations(scenario.values.len(), MAX_PERMUTATIONS)
        .into_iter()
        .map(|permutation| {
            let values: Vec<f64> = permutation.iter().map(|&i| scenario.values[i]).collect();
            Outcome {
                real_sum: values.iter().sum(),
                fp16_result: values.iter().fold(0.0, |acc, &v| round_f16(acc + v)),
                fp32_result: f64::from(values.iter().fold(0.0_f32, |acc, &v| acc + v as f32)),
                permutation,
                values,
            }
        })
        .collect()
}

/// The first `limit` permutations of `0..n` in lexicographic order.
fn permutations(n: usize, limit: usize) -> Vec<Vec<usize>> {
    let mut current: Vec<usize> = (0..n).collect();
    let mut all = vec![current.clone()];
    while all.len() < limit && next_permutation(&mut current) {
        all.push(current.clone());
    }
    all
}

fn next_permutation(items: &mut [usize]) -> bool {
    let Some(pivot) = (1..items.len()).rev().find(|&i| items[i - 1] < items[i]).map(|i| i - 1) else {
        return false;
    };
    let successor = (pivot + 1..items.len()).rev().find(|&i| items[i] > items[pivot]).unwrap_or(pivot);
    items.swap(pivot, successor);
    items[pivot + 1..].reverse();
    true
}

/// Smallest normal half-precision magnitude, 2^-14.
const F16_MIN_NORMAL: f64 = 1.0 / 16384.0;

/// Rounds to the nearest IEEE half-precision value (ties to even); beyond 65504 is infinite.
pub(super) fn round_f16(value: f64) -> f64 {
    if !value.is_finite() || value == 0.0 {
        return value;
    }
    let magnitude = value.abs();
    let mut binade = F16_MIN_NORMAL;
    while magnitude >= binade * 2.0 {
        binade *= 2.0;
    }
    let ulp = binade / 1024.0;
    let rounded = (magnitude / ulp).round_ties_even() * ulp;
    let rounded = if rounded > 65504.0 { f64::INFINITY } else { rounded };
    rounded.copysign(value)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn half_precision_rounding() {
        assert_eq!(round_f16(2049.0), 2048.0);
        assert_eq!(round_f16(2051.0), 2052.0);
        assert_eq!(round_f16(65504.0), 65504.0);
        assert_eq!(round_f16(65519.0), 65504.0);
        assert_eq!(round_f16(90000.0), f64::INFINITY);
        assert_eq!(round_f16(-90000.0), f64::NEG_INFINITY);
        assert_eq!(round_f16(1.0 + 1.0 / 4096.0), 1.0);
        assert_eq!(round_f16(F16_MIN_NORMAL / 1024.0), F16_MIN_NORMAL / 1024.0);
        assert_eq!(round_f16(F16_MIN_NORMAL / 3000.0), 0.0);
    }

    #[test]
    fn permutations_are_lexicographic_and_capped() {
        let all = permutations(3, 24);
        assert_eq!(all.len(), 6);
        assert_eq!(all[1], vec![0, 2, 1]);
        assert_eq!(all[5], vec![2, 1, 0]);
        assert_eq!(permutations(8, 24).len(), 24);
    }

    #[test]
    fn overflow_depends_on_order_and_fp32_is_exact() {
        let overflow = &scenarios(4)[2];
        let results = outcomes(overflow);
        assert!(results.iter().any(|o| o.fp16_result.is_infinite()));
        assert!(results.iter().any(|o| o.fp16_result == 0.0));
        assert!(results.iter().all(|o| o.fp32_result == o.real_sum && !o.fp16_result.is_nan()));
    }
}
