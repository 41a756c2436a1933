//! Percentile bootstrap intervals, seeded from the data (never the clock): the same inputs
//! give bit-identical intervals on every machine and thread count. Uses std, `xxhash` (for
//! the seed) and the seed's `median`.

use crate::stats::{median_of_sorted, sorted};

/// Resamples per interval.
pub(crate) const RESAMPLES: usize = 2000;

/// Two-sided confidence level of every interval.
pub(crate) const LEVEL: f64 = 0.95;

/// SplitMix64: a tiny generator whose only float operation is one division, so draws are
/// identical everywhere.
struct SplitMix(u64);

impl SplitMix {
    fn below(&mut self, n: usize) -> usize {
        self.0 = self.0.wrapping_add(0x9E37_79B9_7F4A_7C15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        ((z ^ (z >> 31)) % n as u64) as usize
    }
}

/// The generator's seed for a label (e.g. the case key): xxh3-64 of its bytes.
pub(crate) fn seed_of(label: &str) -> u64 {
    xxhash_rust::xxh3::xxh3_64(label.as_bytes())
}

/// The median of one resample, sorted in place in `scratch` (no allocation per draw; the
/// median of a multiset does not depend on how it was sorted, so this is the seed's `median`).
fn resample_median(values: &[f64], rng: &mut SplitMix, scratch: &mut Vec<f64>) -> f64 {
    scratch.clear();
    scratch.extend((0..values.len()).map(|_| values[rng.below(values.len())]));
    scratch.sort_unstable_by(f64::total_cmp);
    median_of_sorted(scratch)
}

/// The (low, high) percentiles of `LEVEL` of the bootstrap distribution.
fn interval(estimates: &[f64]) -> (f64, f64) {
    let ordered = sorted(estimates);
    let tail = (1.0 - LEVEL) / 2.0;
    let at = |q: f64| ordered[((q * (ordered.len() - 1) as f64).round() as usize).min(ordered.len() - 1)];
    (at(tail), at(1.0 - tail))
}

/// Interval of median(cand) / median(base): each sample resampled on its own.
pub(crate) fn ratio_of_medians(base: &[f64], cand: &[f64], seed: u64) -> (f64, f64) {
    let mut rng = SplitMix(seed);
    let mut scratch = Vec::with_capacity(base.len().max(cand.len()));
    let estimates: Vec<f64> = (0..RESAMPLES)
        .map(|_| {
            let b = resample_median(base, &mut rng, &mut scratch);
            resample_median(cand, &mut rng, &mut scratch) / b
        })
        .collect();
    interval(&estimates)
}

/// Interval of the median of `values`.
pub(crate) fn median_interval(values: &[f64], seed: u64) -> (f64, f64) {
    let mut rng = SplitMix(seed);
    let mut scratch = Vec::with_capacity(values.len());
    let estimates: Vec<f64> = (0..RESAMPLES).map(|_| resample_median(values, &mut rng, &mut scratch)).collect();
    interval(&estimates)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn intervals_are_deterministic_and_cover_the_estimate() {
        let base = [10.0, 10.2, 9.9, 10.1, 10.05, 9.95];
        let cand = [11.0, 11.1, 10.9, 11.2, 10.95, 11.05];
        let seed = seed_of("decode|2|tokens=1");
        let first = ratio_of_medians(&base, &cand, seed);
        assert_eq!(first, ratio_of_medians(&base, &cand, seed));
        assert_ne!(first, ratio_of_medians(&base, &cand, seed_of("other")));
        let point = crate::stats::median(&cand) / crate::stats::median(&base);
        assert!(first.0 <= point && point <= first.1, "{first:?} {point}");
        assert!(first.0 > 1.05 && first.1 < 1.15, "{first:?}");
        assert_eq!(median_interval(&[3.0], 1), (3.0, 3.0));
    }
}
