//! Percentile bootstrap intervals, seeded from the data (never the clock): the same inputs
//! give bit-identical intervals on every machine and thread count. Uses std, `xxhash` (for
//! the seed) and the seed's `median`.

use crate::stats::sorted;

/// Resamples per interval.
pub(crate) const RESAMPLES: usize = 2000;

/// Two-sided confidence level of every interval.
pub(crate) const LEVEL: f64 = 0.95;

/// SplitMix64, integer-only, so draws are identical everywhere. An index below `n` is a
/// 16-bit lane of an output scaled by `n` (multiply and shift, four lanes per output: no
/// division); an index is off from uniform by at most `n / 65536` relative (0.02 % for 10
/// cycles). Samples of more than 65536 values take a whole output per index.
struct SplitMix {
    state: u64,
    lanes: u64,
    left: u32,
}

impl SplitMix {
    fn new(seed: u64) -> SplitMix {
        SplitMix { state: seed, lanes: 0, left: 0 }
    }

    fn next(&mut self) -> u64 {
        self.state = self.state.wrapping_add(0x9E37_79B9_7F4A_7C15);
        let mut z = self.state;
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        z ^ (z >> 31)
    }

    fn below(&mut self, n: usize) -> usize {
        if n > 1 << 16 {
            return ((u128::from(self.next()) * n as u128) >> 64) as usize;
        }
        if self.left == 0 {
            (self.lanes, self.left) = (self.next(), 4);
        }
        let lane = self.lanes & 0xFFFF;
        (self.lanes, self.left) = (self.lanes >> 16, self.left - 1);
        ((lane * n as u64) >> 16) as usize
    }
}

/// The generator's seed for a label (e.g. the case key): xxh3-64 of its bytes.
pub(crate) fn seed_of(label: &str) -> u64 {
    xxhash_rust::xxh3::xxh3_64(label.as_bytes())
}

/// The median of one resample of `ordered` (sorted): `n` indices are drawn, counted, and the
/// middle order statistic(s) read off the counts. The resample's median is the median of the
/// same multiset a sort would give, so this is the seed's `median` without sorting each draw.
fn resample_median(ordered: &[f64], rng: &mut SplitMix, counts: &mut [u32]) -> f64 {
    let n = ordered.len();
    counts.fill(0);
    for _ in 0..n {
        counts[rng.below(n)] += 1;
    }
    // 0-based ranks of the middle: n/2 for odd n; n/2 - 1 and n/2 for even n.
    let upper = n / 2;
    let lower = if n % 2 == 1 { upper } else { upper - 1 };
    let (mut seen, mut low, mut high) = (0usize, None, None);
    for (index, &count) in counts.iter().enumerate() {
        seen += count as usize;
        if low.is_none() && seen > lower {
            low = Some(index);
        }
        if seen > upper {
            high = Some(index);
            break;
        }
    }
    let (low, high) = (ordered[low.unwrap_or(n - 1)], ordered[high.unwrap_or(n - 1)]);
    if n % 2 == 1 {
        high
    } else {
        (low + high) / 2.0
    }
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
    let mut rng = SplitMix::new(seed);
    let (base, cand) = (sorted(base), sorted(cand));
    let (mut base_counts, mut cand_counts) = (vec![0; base.len()], vec![0; cand.len()]);
    let estimates: Vec<f64> = (0..RESAMPLES)
        .map(|_| {
            let b = resample_median(&base, &mut rng, &mut base_counts);
            resample_median(&cand, &mut rng, &mut cand_counts) / b
        })
        .collect();
    interval(&estimates)
}

/// Interval of the median of `values`.
pub(crate) fn median_interval(values: &[f64], seed: u64) -> (f64, f64) {
    let mut rng = SplitMix::new(seed);
    let ordered = sorted(values);
    let mut counts = vec![0; ordered.len()];
    let estimates: Vec<f64> = (0..RESAMPLES).map(|_| resample_median(&ordered, &mut rng, &mut counts)).collect();
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

    /// The counted median is the median of the drawn multiset, as sorting each draw gives:
    /// compared draw by draw with the straightforward resampler (drawing from the sorted
    /// values), odd and even sizes, ties.
    #[test]
    fn counted_resample_medians_are_the_sorted_ones() {
        for values in [vec![5.0, 1.0, 3.0], vec![4.0, 2.0, 2.0, 9.0], (0..10).map(|i| (i * 7 % 10) as f64).collect()] {
            let ordered = sorted(&values);
            let (mut counted, mut direct) = (SplitMix::new(42), SplitMix::new(42));
            let mut counts = vec![0; values.len()];
            for _ in 0..500 {
                let drawn: Vec<f64> = (0..values.len()).map(|_| ordered[direct.below(values.len())]).collect();
                let expected = crate::stats::median(&drawn);
                let got = resample_median(&ordered, &mut counted, &mut counts);
                assert_eq!(got.to_bits(), expected.to_bits(), "{values:?}");
            }
        }
    }

    /// Every index below n is drawn about equally often (small n, lanes; large n, whole outputs).
    #[test]
    fn indices_are_uniform() {
        for n in [2usize, 7, 10, 100_000] {
            let mut rng = SplitMix::new(7);
            let draws = 200_000;
            let mut counts = vec![0u32; n.min(10)];
            for _ in 0..draws {
                let i = rng.below(n);
                assert!(i < n);
                if i < counts.len() {
                    counts[i] += 1;
                }
            }
            let expected = draws as f64 / n as f64;
            for c in counts {
                assert!((c as f64 - expected).abs() < 6.0 * expected.sqrt() + 1.0, "n {n}: {c} vs {expected}");
            }
        }
    }
}
