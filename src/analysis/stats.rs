//! The seed's statistics, exactly: Python's `statistics.median`, `fmean` (over `math.fsum`),
//! `pstdev`, nearest-rank percentile, `max`/`min` and the critical path.
//! Uses std (and a fast hash map) only. Submodule: `bootstrap` (seeded intervals of a
//! ratio of medians), for cross-run comparison. Every function takes a non-empty slice unless it says otherwise.

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
    /// The spread of a non-empty slice.
    pub(crate) fn of(values: &[f64]) -> Spread {
        let ordered = sorted(values);
        Spread {
            n: values.len(),
            median: median_of_sorted(&ordered),
            p95: percentile_of_sorted(&ordered, 0.95),
            min: py_min(values),
            max: py_max(values),
            cv_percent: cv_percent(values),
        }
    }
}

/// `statistics.median`: the middle value, or the mean of the two middle values.
pub(crate) fn median(values: &[f64]) -> f64 {
    median_of_sorted(&sorted(values))
}

fn median_of_sorted(ordered: &[f64]) -> f64 {
    let n = ordered.len();
    if n % 2 == 1 {
        ordered[n / 2]
    } else {
        (ordered[n / 2 - 1] + ordered[n / 2]) / 2.0
    }
}

/// Nearest-rank percentile of sorted values: `sorted[max(0, ceil(q * n) - 1)]`, with `q * n`
/// in f64 as Python.
fn percentile_of_sorted(ordered: &[f64], quantile: f64) -> f64 {
    let rank = (quantile * ordered.len() as f64).ceil() as i64 - 1;
    ordered[rank.max(0) as usize]
}

/// Python's `max()`: the first value that no later value is strictly greater than.
pub(crate) fn py_max(values: &[f64]) -> f64 {
    values[1..].iter().fold(values[0], |m, &x| if x > m { x } else { m })
}

/// Python's `min()`.
pub(crate) fn py_min(values: &[f64]) -> f64 {
    values[1..].iter().fold(values[0], |m, &x| if x < m { x } else { m })
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
        partials.push(x);
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

/// `statistics.fmean`: `fsum(values) / n`.
pub(crate) fn fmean(values: &[f64]) -> f64 {
    fsum(values.iter().copied()) / values.len() as f64
}

/// `statistics.pstdev` (population standard deviation). Two-pass over an exactly rounded
/// mean; agrees with CPython's exact-rational result far inside 1e-9 relative.
pub(crate) fn pstdev(values: &[f64]) -> f64 {
    let mean = fmean(values);
    let squares = fsum(values.iter().map(|&x| (x - mean) * (x - mean)));
    let correction = fsum(values.iter().map(|&x| x - mean));
    let n = values.len() as f64;
    ((squares - correction * correction / n) / n).max(0.0).sqrt()
}

/// The seed's `cv_percent`: `pstdev / mean * 100`, and 0 for a single value.
pub(crate) fn cv_percent(values: &[f64]) -> f64 {
    if values.len() > 1 {
        pstdev(values) / fmean(values) * 100.0
    } else {
        0.0
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
        let spread = Spread::of(&[3.0, 1.0, 2.0, 10.0]);
        assert_eq!(spread, Spread { n: 4, median: 2.5, p95: 10.0, min: 1.0, max: 10.0, cv_percent: 88.38834764831844 });
        // min/max keep Python's first-wins order for signed zeros; the median sorts.
        let zeros = Spread::of(&[0.0, -0.0]);
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
        assert_eq!(percentile_of_sorted(&sorted(&values), 0.95), 10.0);
        let values: Vec<f64> = (1..=20).map(f64::from).collect();
        // ceil(0.95 * 20) = 19 in f64 -> index 18
        assert_eq!(percentile_of_sorted(&sorted(&values), 0.95), 19.0);
        assert_eq!(percentile_of_sorted(&[5.0], 0.95), 5.0);
    }

    #[test]
    fn fsum_is_exact() {
        assert_eq!(fsum([0.1; 10]), 1.0);
        assert_eq!(fsum([1e100, 1.0, -1e100, 1e-100]), 1.0);
        assert_eq!(fsum([]), 0.0);
    }

    #[test]
    fn cv_matches_python() {
        // python3 -c "import statistics as s; v=[10.0,12.0,11.5,30.25]; print(s.pstdev(v)/s.fmean(v)*100)"
        let v = [10.0, 12.0, 11.5, 30.25];
        let expected = 52.05356127164722;
        assert!((cv_percent(&v) - expected).abs() / expected < 1e-12, "{}", cv_percent(&v));
        assert_eq!(cv_percent(&[3.0]), 0.0);
        assert_eq!(cv_percent(&[2.0, 2.0, 2.0]), 0.0);
    }

    #[test]
    fn critical_path_is_max_over_ranks_per_cycle_in_first_seen_order() {
        // (case, cycle, rank value)
        let rows = [("b", 0, 1.0), ("a", 0, 5.0), ("b", 0, 3.0), ("b", 1, 2.0), ("a", 0, 4.0), ("b", 1, 9.0)];
        let grouped = critical_cycles(&rows, |r| r.0, |r| r.1, |r| r.2);
        assert_eq!(grouped, vec![("b", vec![3.0, 9.0]), ("a", vec![5.0])]);
    }
}
