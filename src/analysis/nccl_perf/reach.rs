//! Where a busbw curve gets close to its best: the smallest size at which 50 % and 90 % of the
//! best busbw are reached, and each size's busbw as a share of an expected peak.

/// The smallest `bytes` whose busbw is at least `share` (0..1) of the best busbw over `points`
/// (`(bytes, busbw)`, any order). `None` when there are no points or the best is not positive.
pub(crate) fn size_reaching(points: &[(u64, f64)], share: f64) -> Option<u64> {
    let best = points.iter().map(|p| p.1).filter(|b| b.is_finite()).fold(0.0, f64::max);
    if best <= 0.0 {
        return None;
    }
    points.iter().filter(|p| p.1 >= share * best).map(|p| p.0).min()
}

/// busbw as a percentage of `expected_gbs`; `None` when no peak is known.
pub(crate) fn percent_of_expected(busbw_gbs: f64, expected_gbs: Option<f64>) -> Option<f64> {
    expected_gbs.filter(|e| *e > 0.0).map(|e| 100.0 * busbw_gbs / e)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn half_and_ninety_percent_sizes() {
        let points = [(1 << 20, 100.0), (1 << 10, 2.0), (1 << 16, 50.0), (1 << 18, 91.0), (1 << 22, 99.0)];
        assert_eq!(size_reaching(&points, 0.5), Some(1 << 16));
        assert_eq!(size_reaching(&points, 0.9), Some(1 << 18));
        assert_eq!(size_reaching(&points, 1.0), Some(1 << 20));
        assert_eq!(size_reaching(&[], 0.5), None);
        assert_eq!(size_reaching(&[(8, 0.0)], 0.5), None);
        assert_eq!(percent_of_expected(185.0, Some(370.0)), Some(50.0));
        assert_eq!(percent_of_expected(185.0, None), None);
    }
}
