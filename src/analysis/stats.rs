//! The seed's statistics, exactly: Python's `statistics.median`, `fmean` (over `math.fsum`),
//! `pstdev`, nearest-rank percentile, `max`/`min` and the critical path.
//! Uses std (and a fast hash map) only. Submodule: `bootstrap` (seeded intervals of a
//! ratio of medians), for cross-run comparison. No function panics on an empty slice: those
//! without a value for it return `None` (where Python raises), `median` returns NaN (the
//! comparison engine calls it, on cases that have values).

pub(crate) mod bootstrap;

use rustc_hash::FxHashMap;
use std::collections::hash_map::Entry;
use std::hash::Hash;

/// Python's `sorted()` for floats (NaN, which Python cannot order, goes last).
pub(crate) fn sorted(values: &[f64]) -> Vec<f64> {
    let mut ordered = values.to_vec();
    ordered.sort_by(|a, b| a.total_cmp(b));
    ordered
}

/// The smallest number of cycles a spread statistic (P95, CV, min-max, "in every cycle")
/// needs; with fewer the site shows it as not available.
pub(crate) const MIN_SPREAD_CYCLES: usize = 2;

/// A case's coefficient of variation when its `cycles` can give one (`None` below
/// `MIN_SPREAD_CYCLES`: the seed's CV of one value is 0 %, which looks measured).
pub(crate) fn known_cv(cycles: usize, cv_percent: f64) -> Option<f64> {
    (cycles >= MIN_SPREAD_CYCLES).then_some(cv_percent)
}

/// The spread of a case's per-cycle values, as the seed reports it: built once per case by
/// `Spread::of`, so no summarizer writes the median/P95/min/max/CV block out again.
#[derive(Debug, Clone, Copy, PartialEq)]
pub(crate) struct Spread {
    pub n: usize,
    pub median: f64,
    /// Nearest-rank 95th percentile.
    pub p95: f64,
    /// Python's `min()`/`max()` over the values in their order (not over the sorted copy:
    /// they differ for NaN and for signed zeros).
    pub min: f64,
    pub max: f64,
    pub cv_percent: f64,
}

impl Spread {
    /// The spread of `values`; `None` when there are none.
    pub(crate) fn of(values: &[f64]) -> Option<Spread> {
        let ordered = sorted(values);
        Some(Spread {
            n: values.len(),
            median: median_of_sorted(&ordered)?,
            p95: percentile_of_sorted(&ordered, 0.95)?,
            min: py_min(values)?,
            max: py_max(values)?,
            cv_percent: cv_percent(values)?,
        })
    }
}

/// `statistics.median`: the middle value, or the mean of the two middle values; NaN for no
/// values (where Python raises `StatisticsError`).
pub(crate) fn median(values: &[f64]) -> f64 {
    median_of_sorted(&sorted(values)).unwrap_or(f64::NAN)
}

fn median_of_sorted(ordered: &[f64]) -> Option<f64> {
    let n = ordered.len();
    if n == 0 {
        None
    } else if n % 2 == 1 {
        Some(ordered[n / 2])
    } else {
        Some((ordered[n / 2 - 1] + ordered[n / 2]) / 2.0)
    }
}

/// Nearest-rank percentile of sorted values: `sorted[max(0, ceil(q * n) - 1)]`, with `q * n`
/// in f64 as Python; `None` for no values.
fn percentile_of_sorted(ordered: &[f64], quantile: f64) -> Option<f64> {
    let rank = (quantile * ordered.len() as f64).ceil() as i64 - 1;
    ordered.get(rank.max(0) as usize).copied()
}

/// Python's `max()`: the first value that no later value is strictly greater than; `None`
/// for no values.
pub(crate) fn py_max(values: &[f64]) -> Option<f64> {
    let (first, rest) = values.split_first()?;
    Some(rest.iter().fold(*first, |m, &x| if x > m { x } else { m }))
}

/// Python's `min()`; `None` for no values.
pub(crate) fn py_min(values: &[f64]) -> Option<f64> {
    let (first, rest) = values.split_first()?;
    Some(rest.iter().fold(*first, |m, &x| if x < m { x } else { m }))
}

/// `math.fsum`: the correctly rounded sum (Shewchuk's exact partials, as CPython).
pub(crate) fn fsum(values: impl IntoIterator<Item = f64>) -> f64 {
    let mut partials: Vec<f64> = Vec::new();
    let mut special = 0.0;
    for mut x in values {
        if !x.is_finite() {
            special += x;
            continue;
        }
        let mut i = 0;
        for j in 0..partials.len() {
            let mut y = partials[j];
            if x.abs() < y.abs() {
                std::mem::swap(&mut x, &mut y);
            }
            let hi = x + y;
            let lo = y - (hi - x);
            if lo != 0.0 {
                partials[i] = lo;
                i += 1;
            }
            x = hi;
        }
        partials.truncate(i);
        // As CPython, never a zero partial: the half-way correction below reads the sign of
        // the partial under the one that made the sum inexact.
        if x != 0.0 {
            partials.push(x);
        }
    }
    if special != 0.0 || special.is_nan() {
        return special;
    }
    // Sum the partials from the top, with CPython's half-way correction.
    let mut n = partials.len();
    if n == 0 {
        return 0.0;
    }
    n -= 1;
    let mut hi = partials[n];
    let mut lo = 0.0;
    while n > 0 {
        let x = hi;
        n -= 1;
        let y = partials[n];
        hi = x + y;
        let yr = hi - x;
        lo = y - yr;
        if lo != 0.0 {
            break;
        }
    }
    if n > 0 && ((lo < 0.0 && partials[n - 1] < 0.0) || (lo > 0.0 && partials[n - 1] > 0.0)) {
        let y = lo * 2.0;
        let x = hi + y;
        let yr = x - hi;
        if y == yr {
            hi = x;
        }
    }
    hi
}

/// `statistics.fmean`: `fsum(values) / n`; `None` for no values.
pub(crate) fn fmean(values: &[f64]) -> Option<f64> {
    (!values.is_empty()).then(|| fsum(values.iter().copied()) / values.len() as f64)
}

/// `statistics.pstdev` (population standard deviation). Two-pass over an exactly rounded
/// mean; agrees with CPython's exact-rational result far inside 1e-9 relative. `None` for no
/// values.
pub(crate) fn pstdev(values: &[f64]) -> Option<f64> {
    let mean = fmean(values)?;
    let squares = fsum(values.iter().map(|&x| (x - mean) * (x - mean)));
    let correction = fsum(values.iter().map(|&x| x - mean));
    let n = values.len() as f64;
    Some(((squares - correction * correction / n) / n).max(0.0).sqrt())
}

/// The seed's `cv_percent`: `pstdev / mean * 100`, and 0 for a single value; `None` for no
/// values.
pub(crate) fn cv_percent(values: &[f64]) -> Option<f64> {
    if values.len() > 1 {
        Some(pstdev(values)? / fmean(values)? * 100.0)
    } else {
        (values.len() == 1).then_some(0.0)
    }
}

/// The seed's `critical_cycles`: group rows by (case key, cycle), take the max over ranks of
/// each group, then collect those per case key. Keys keep the order in which they first
/// appear in `rows` (as Python dicts do), and so do the per-cycle values.
pub(crate) fn critical_cycles<K, C, R>(
    rows: &[R],
    key: impl Fn(&R) -> K,
    cycle: impl Fn(&R) -> C,
    metric: impl Fn(&R) -> f64,
) -> Vec<(K, Vec<f64>)>
where
    K: Eq + Hash + Clone,
    C: Eq + Hash,
{
    // The running `max()` of each (key, cycle) over its ranks, in first-seen order.
    let mut cycle_index: FxHashMap<(K, C), usize> = FxHashMap::default();
    let mut per_cycle: Vec<(K, f64)> = Vec::new();
    for row in rows {
        let (k, value) = (key(row), metric(row));
        match cycle_index.entry((k, cycle(row))) {
            Entry::Occupied(slot) => {
                let critical = &mut per_cycle[*slot.get()].1;
                if value > *critical {
                    *critical = value;
                }
            }
            Entry::Vacant(slot) => {
                per_cycle.push((slot.key().0.clone(), value));
                slot.insert(per_cycle.len() - 1);
            }
        }
    }
    let mut group_index: FxHashMap<K, usize> = FxHashMap::default();
    let mut grouped: Vec<(K, Vec<f64>)> = Vec::new();
    for (k, critical) in per_cycle {
        match group_index.entry(k) {
            Entry::Occupied(slot) => grouped[*slot.get()].1.push(critical),
            Entry::Vacant(slot) => {
                grouped.push((slot.key().clone(), vec![critical]));
                slot.insert(grouped.len() - 1);
            }
        }
    }
    grouped
}

#[cfg(test)]
mod tests {
    #[test]
    fn spread_is_the_seeds_block() {
        // Values from Python: statistics.median, nearest-rank P95, min, max, pstdev/fmean*100.
        let spread = Spread::of(&[3.0, 1.0, 2.0, 10.0]).unwrap();
        assert_eq!(spread, Spread { n: 4, median: 2.5, p95: 10.0, min: 1.0, max: 10.0, cv_percent: 88.38834764831844 });
        // min/max keep Python's first-wins order for signed zeros; the median sorts.
        let zeros = Spread::of(&[0.0, -0.0]).unwrap();
        assert!(zeros.min.is_sign_positive() && zeros.max.is_sign_positive());
    }

    use super::*;

    #[test]
    fn median_odd_even() {
        assert_eq!(median(&[3.0, 1.0, 2.0]), 2.0);
        assert_eq!(median(&[4.0, 1.0, 3.0, 2.0]), 2.5);
        assert_eq!(median(&[7.0]), 7.0);
    }

    #[test]
    fn nearest_rank_p95() {
        let values: Vec<f64> = (1..=10).map(f64::from).collect();
        assert_eq!(percentile_of_sorted(&sorted(&values), 0.95), Some(10.0));
        let values: Vec<f64> = (1..=20).map(f64::from).collect();
        // ceil(0.95 * 20) = 19 in f64 -> index 18
        assert_eq!(percentile_of_sorted(&sorted(&values), 0.95), Some(19.0));
        assert_eq!(percentile_of_sorted(&[5.0], 0.95), Some(5.0));
        // Nearest rank, not the next one: 0.5 of 4 values is the 2nd.
        assert_eq!(percentile_of_sorted(&[1.0, 2.0, 3.0, 4.0], 0.5), Some(2.0));
        assert_eq!(percentile_of_sorted(&[1.0, 2.0, 3.0, 4.0], 0.0), Some(1.0));
    }

    #[test]
    fn fsum_is_exact() {
        assert_eq!(fsum([0.1; 10]), 1.0);
        assert_eq!(fsum([1e100, 1.0, -1e100, 1e-100]), 1.0);
        assert_eq!(fsum([]), 0.0);
        // CPython's half-way correction over three partials: math.fsum([1e16, 1., 1e-16]).
        assert_eq!(fsum([1e16, 1.0, 1e-16]), 10000000000000002.0);
        // Infinities are summed apart from the partials: math.fsum([inf, 1.]) is inf.
        assert_eq!(fsum([f64::INFINITY, 1.0]), f64::INFINITY);
        assert_eq!(fsum([1.0, f64::NEG_INFINITY]), f64::NEG_INFINITY);
        assert!(fsum([f64::INFINITY, f64::NEG_INFINITY]).is_nan());
    }

    /// CPython's own `math.fsum` cases (Lib/test/test_math.py), each expected value printed by
    /// `python3 -c "import math; print(math.fsum([...]).hex())"`: the half-way correction both
    /// ways, partials that cancel, and long sums.
    #[test]
    fn fsum_agrees_with_cpython_on_its_own_test_cases() {
        let p53 = 2.0f64.powi(53);
        let cases: [(&[f64], f64); 13] = [
            (&[1.0, 1e100, 1.0, -1e100], 2.0),
            (&[1e16, 1.0, 1e-16], 1.0000000000000002e16),
            (&[-1e16, -1.0, -1e-16], -1.0000000000000002e16),
            (&[1e-16, 1.0, 1e16], 1.0000000000000002e16),
            (&[p53, -0.5, -(2.0f64.powi(-54))], p53 - 1.0),
            (&[p53, 1.0, 2.0f64.powi(-100)], p53 + 2.0),
            (&[p53 + 10.0, 1.0, 2.0f64.powi(-100)], p53 + 12.0),
            (&[p53 - 4.0, 0.5, 2.0f64.powi(-54)], p53 - 3.0),
            (&[1.0, 1e-100, 1e-300, -1.0], 1e-100),
            // Found by a search for inputs that tell a mutant apart: a sum that passes through
            // an exact zero (a zero partial once hid the half-way correction here: ...994).
            (&[p53 / 2.0, -p53, -3.0, -p53, -(2.0f64.powi(-54)), p53 / 2.0], -9007199254740996.0),
            (&[-3.0, -1e16, 1.1102230246251565e-16, -1e-16], -1.0000000000000002e16),
            (&[-0.5, -7.0, 1e-32, 0.25, 1e16, -p53, -1e16], -9007199254741000.0),
            // The error term of the top-down sum (y - yr): y + yr gives ...1054.
            (
                &[-49587456.0, -2.077236160857865e-10, -0.0004789736121892929, -45283776.0, 151825408.0],
                56954175.999521025,
            ),
        ];
        for (values, expected) in cases {
            assert_eq!(fsum(values.iter().copied()), expected, "{values:?}");
        }
        // 0x1.df11f45f4e61ap+2 and -0x1.62a2af1bd3624p-1.
        let harmonic = fsum((1..=1000).map(|n| 1.0 / f64::from(n)));
        assert_eq!(harmonic.to_bits(), 0x401d_f11f_45f4_e61a, "{harmonic}");
        let alternating = fsum((1..=1000).map(|n| (-1.0f64).powi(n) / f64::from(n)));
        assert_eq!(alternating.to_bits(), 0xbfe6_2a2a_f1bd_3624, "{alternating}");
        // math.fsum([-0.0]) is 0.0: a zero is never a partial.
        assert!(fsum([-0.0]).is_sign_positive());
    }

    /// Where the mean is not representable, the correction term of the two-pass formula
    /// matters: `statistics.pstdev([1e16, 1e16 + 2, 1e16 + 2])` is 0.9428090415820634 (the
    /// mean rounds to 1e16 + 2, one ulp from the exact 1e16 + 4/3).
    #[test]
    fn pstdev_corrects_a_mean_that_is_not_representable() {
        let got = pstdev(&[1e16, 1e16 + 2.0, 1e16 + 2.0]).unwrap();
        assert!((got - 0.9428090415820634).abs() < 1e-15, "{got}");
        // One value, zero: the seed's 0 %, never 0 / 0.
        assert_eq!(cv_percent(&[0.0]), Some(0.0));
    }

    #[test]
    fn cv_matches_python() {
        // python3 -c "import statistics as s; v=[10.0,12.0,11.5,30.25]; print(s.pstdev(v)/s.fmean(v)*100)"
        let v = [10.0, 12.0, 11.5, 30.25];
        let expected = 52.05356127164722;
        let cv = cv_percent(&v).unwrap();
        assert!((cv - expected).abs() / expected < 1e-12, "{cv}");
        assert_eq!(cv_percent(&[3.0]), Some(0.0));
        assert_eq!(cv_percent(&[2.0, 2.0, 2.0]), Some(0.0));
        // pstdev([1, 3]) = 1, fmean = 2: 50 %.
        assert_eq!(cv_percent(&[1.0, 3.0]), Some(50.0));
        assert_eq!(pstdev(&[1.0, 3.0]), Some(1.0));
    }

    #[test]
    fn critical_path_is_max_over_ranks_per_cycle_in_first_seen_order() {
        // (case, cycle, rank value)
        let rows = [("b", 0, 1.0), ("a", 0, 5.0), ("b", 0, 3.0), ("b", 1, 2.0), ("a", 0, 4.0), ("b", 1, 9.0)];
        let grouped = critical_cycles(&rows, |r| r.0, |r| r.1, |r| r.2);
        assert_eq!(grouped, vec![("b", vec![3.0, 9.0]), ("a", vec![5.0])]);
        // Python's max keeps the first of equals: max(-0.0, 0.0) is -0.0.
        let zeros = critical_cycles(&[("a", 0, -0.0), ("a", 0, 0.0)], |r| r.0, |r| r.1, |r| r.2);
        assert!(zeros[0].1[0].is_sign_negative(), "{zeros:?}");
    }

    #[test]
    fn empty_input_has_no_statistic_and_never_panics() {
        assert_eq!(Spread::of(&[]), None);
        assert!(median(&[]).is_nan());
        assert_eq!(median_of_sorted(&[]), None);
        assert_eq!(percentile_of_sorted(&[], 0.95), None);
        assert_eq!(py_max(&[]), None);
        assert_eq!(py_min(&[]), None);
        assert_eq!(fmean(&[]), None);
        assert_eq!(pstdev(&[]), None);
        assert_eq!(cv_percent(&[]), None);
        assert_eq!(fsum([]), 0.0);
        let none: [(u8, u8, f64); 0] = [];
        assert!(critical_cycles(&none, |r| r.0, |r| r.1, |r| r.2).is_empty());
    }

    #[test]
    fn python_max_and_min_keep_the_first_of_equals() {
        // Python: max(0.0, -0.0) is 0.0 and max(-0.0, 0.0) is -0.0 (no later value is greater).
        assert!(py_max(&[-0.0, 0.0]).unwrap().is_sign_negative());
        assert!(py_min(&[0.0, -0.0]).unwrap().is_sign_positive());
        assert_eq!(py_max(&[1.0, 5.0, 2.0]), Some(5.0));
        assert_eq!(py_min(&[4.0, 1.0, 2.0]), Some(1.0));
        assert_eq!(fmean(&[1.0, 2.0, 6.0]), Some(3.0));
    }

    #[test]
    fn a_cv_is_known_from_two_cycles() {
        assert_eq!(known_cv(0, 12.5), None);
        assert_eq!(known_cv(1, 12.5), None);
        assert_eq!(known_cv(MIN_SPREAD_CYCLES, 12.5), Some(12.5));
        assert_eq!(known_cv(10, 3.0), Some(3.0));
    }
}
