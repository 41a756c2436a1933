//! Significance for comparing two runs: the two-sided Mann-Whitney U test, Benjamini-Hochberg
//! q-values, and the smallest p-value a sample size can reach. Uses std only.
//!
//! Mann-Whitney: exact (the null distribution of U counted as the coefficients of the
//! Gaussian binomial) when neither sample has ties and n1 + n2 <= 50; otherwise the normal
//! approximation with tie correction and continuity correction, as scipy's
//! `mannwhitneyu(..., method="asymptotic")`. Two-sided p = min(1, 2 * the smaller tail).

/// Largest n1 + n2 for which U's exact distribution is counted (C(50, 25) < 2^53: exact in f64).
const EXACT_LIMIT: usize = 50;

/// Two-sided Mann-Whitney U p-value of `a` against `b` (both non-empty).
pub(crate) fn mann_whitney_p(a: &[f64], b: &[f64]) -> f64 {
    let (n1, n2) = (a.len(), b.len());
    let (ranks, tie_sum) = ranks_with_ties(a, b);
    let rank_sum_a: f64 = ranks[..n1].iter().sum();
    let u = rank_sum_a - (n1 * (n1 + 1)) as f64 / 2.0;
    if tie_sum == 0.0 && n1 + n2 <= EXACT_LIMIT {
        exact_p(u, n1, n2)
    } else {
        normal_p(u, n1, n2, tie_sum)
    }
}

/// Mid-ranks (1-based) of `a` then `b` in the pooled sample, and the tie term sum(t^3 - t).
fn ranks_with_ties(a: &[f64], b: &[f64]) -> (Vec<f64>, f64) {
    let pooled: Vec<f64> = a.iter().chain(b).copied().collect();
    let mut order: Vec<usize> = (0..pooled.len()).collect();
    order.sort_by(|&i, &j| pooled[i].total_cmp(&pooled[j]));
    let mut ranks = vec![0.0; pooled.len()];
    let mut tie_sum = 0.0;
    let mut start = 0;
    while start < order.len() {
        let mut end = start + 1;
        while end < order.len() && pooled[order[end]] == pooled[order[start]] {
            end += 1;
        }
        let mid_rank = (start + end + 1) as f64 / 2.0;
        for &i in &order[start..end] {
            ranks[i] = mid_rank;
        }
        let t = (end - start) as f64;
        tie_sum += t * t * t - t;
        start = end;
    }
    (ranks, tie_sum)
}

/// Counts of each U value 0..=n1*n2 under the null (no ties): the Gaussian binomial
/// [n1 + n2 choose n1] = prod_{i=1..n1} (1 - q^(n2+i)) / (1 - q^i).
fn u_distribution(n1: usize, n2: usize) -> Vec<f64> {
    let top = n1 * n2;
    let mut counts = vec![0.0; top + 1];
    counts[0] = 1.0;
    for i in 1..=n1 {
        for k in (n2 + i..=top).rev() {
            counts[k] -= counts[k - n2 - i];
        }
        for k in i..=top {
            counts[k] += counts[k - i];
        }
    }
    counts
}

fn exact_p(u: f64, n1: usize, n2: usize) -> f64 {
    let counts = u_distribution(n1, n2);
    let total: f64 = counts.iter().sum();
    let u = u.round() as usize;
    let lower: f64 = counts[..=u].iter().sum();
    let upper: f64 = counts[u..].iter().sum();
    (2.0 * lower.min(upper) / total).min(1.0)
}

fn normal_p(u: f64, n1: usize, n2: usize, tie_sum: f64) -> f64 {
    let (m1, m2) = (n1 as f64, n2 as f64);
    let n = m1 + m2;
    let mean = m1 * m2 / 2.0;
    let variance = m1 * m2 / 12.0 * ((n + 1.0) - tie_sum / (n * (n - 1.0)));
    if variance <= 0.0 {
        return 1.0;
    }
    let z = ((u - mean).abs() - 0.5).max(0.0) / variance.sqrt();
    erfc(z / std::f64::consts::SQRT_2).min(1.0)
}

/// The complementary error function for x >= 0 (Numerical Recipes' Chebyshev fit,
/// fractional error below 1.2e-7 everywhere: ample for p-values).
fn erfc(x: f64) -> f64 {
    let t = 1.0 / (1.0 + 0.5 * x);
    let poly = -x * x - 1.265_512_23
        + t * (1.000_023_68
            + t * (0.374_091_96
                + t * (0.096_784_18
                    + t * (-0.186_288_06
                        + t * (0.278_868_07
                            + t * (-1.135_203_98 + t * (1.488_515_87 + t * (-0.822_152_23 + t * 0.170_872_77))))))));
    t * poly.exp()
}

/// The smallest two-sided p-value Mann-Whitney can give for samples of these sizes
/// (no ties, total separation): 2 / C(n1 + n2, n1), at most 1.
pub(crate) fn min_two_sided_p(n1: usize, n2: usize) -> f64 {
    let (small, n) = (n1.min(n2), n1 + n2);
    let ways = (0..small).fold(1.0, |acc, i| acc * (n - i) as f64 / (i + 1) as f64);
    (2.0 / ways).min(1.0)
}

/// The fewest cycles per run (n vs n) whose smallest p passes `threshold`.
pub(crate) fn cycles_needed(threshold: f64) -> usize {
    (1..).find(|&n| min_two_sided_p(n, n) <= threshold).unwrap_or(usize::MAX)
}

/// Benjamini-Hochberg q-values (step-up adjusted p-values), in the input order.
pub(crate) fn benjamini_hochberg(p_values: &[f64]) -> Vec<f64> {
    let m = p_values.len();
    let mut order: Vec<usize> = (0..m).collect();
    order.sort_by(|&i, &j| p_values[i].total_cmp(&p_values[j]));
    let mut q = vec![1.0; m];
    let mut running = 1.0_f64;
    for (position, &i) in order.iter().enumerate().rev() {
        running = running.min(p_values[i] * m as f64 / (position + 1) as f64);
        q[i] = running.min(1.0);
    }
    q
}

#[cfg(test)]
mod tests {
    use super::*;

    fn close(actual: f64, expected: f64, tolerance: f64) {
        assert!((actual - expected).abs() <= tolerance * expected.abs(), "{actual} vs {expected}");
    }

    #[test]
    fn exact_u_distribution_counts_all_arrangements() {
        // C(5, 2) = 10 arrangements; U of 2 vs 3 takes 0..=6 with counts 1 1 2 2 2 1 1.
        assert_eq!(u_distribution(2, 3), vec![1.0, 1.0, 2.0, 2.0, 2.0, 1.0, 1.0]);
        let total: f64 = u_distribution(10, 10).iter().sum();
        assert_eq!(total, 184_756.0);
    }

    #[test]
    fn exact_p_values_match_the_hand_counted_distribution() {
        // 3 vs 3 fully separated: 2 / C(6, 3) = 0.1; 5 vs 5: 2 / 252.
        close(mann_whitney_p(&[1.0, 2.0, 3.0], &[4.0, 5.0, 6.0]), 0.1, 1e-12);
        close(mann_whitney_p(&[6.0, 7.0, 8.0, 9.0, 10.0], &[1.0, 2.0, 3.0, 4.0, 5.0]), 2.0 / 252.0, 1e-12);
        // U = 1 for 3 vs 3: P(U <= 1) = 2 / 20, two-sided 0.2.
        close(mann_whitney_p(&[1.0, 2.0, 4.0], &[3.0, 5.0, 6.0]), 0.2, 1e-12);
        assert_eq!(mann_whitney_p(&[1.0, 4.0], &[2.0, 3.0]), 1.0);
    }

    #[test]
    fn tied_samples_use_the_tie_corrected_normal_approximation() {
        // Computed with python3's math.erfc from the textbook formula (scipy's asymptotic
        // method with continuity correction): U = 4.5 -> 0.06601543152123106.
        close(mann_whitney_p(&[1.0, 1.0, 2.0, 3.0, 5.0], &[2.0, 4.0, 4.0, 6.0, 7.0, 8.0]), 0.06601543152123106, 1e-6);
        let a = [1.0, 1.0, 1.0, 2.0, 2.0, 2.0, 2.0];
        let b = [2.0, 2.0, 3.0, 3.0, 3.0, 3.0, 3.0];
        close(mann_whitney_p(&a, &b), 0.0061575529848448465, 1e-6);
        assert_eq!(mann_whitney_p(&[2.0, 2.0], &[2.0, 2.0]), 1.0);
    }

    #[test]
    fn smallest_reachable_p_and_cycles_needed() {
        close(min_two_sided_p(10, 10), 2.0 / 184_756.0, 1e-12);
        close(min_two_sided_p(3, 3), 0.1, 1e-12);
        assert_eq!(min_two_sided_p(1, 1), 1.0);
        // q / m = 0.05 with one case: 4 vs 4 reaches 2/70 = 0.029, 3 vs 3 only 0.1.
        assert_eq!(cycles_needed(0.05), 4);
        // 100 cases: 5e-4; 7 vs 7 reaches 2 / 3432 = 5.8e-4, 8 vs 8 reaches 1.6e-4.
        assert_eq!(cycles_needed(0.05 / 100.0), 8);
    }

    #[test]
    fn benjamini_hochberg_matches_the_step_up_rule() {
        // R: p.adjust(c(0.01, 0.04, 0.03, 0.005), "BH") = 0.02 0.04 0.04 0.02
        let q = benjamini_hochberg(&[0.01, 0.04, 0.03, 0.005]);
        for (actual, expected) in q.iter().zip([0.02, 0.04, 0.04, 0.02]) {
            close(*actual, expected, 1e-12);
        }
        assert_eq!(benjamini_hochberg(&[0.9, 0.8]), vec![0.9, 0.9]);
        assert!(benjamini_hochberg(&[]).is_empty());
    }
}
