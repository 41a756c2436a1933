//! The latency-bandwidth (alpha-beta) model `t = alpha + bytes / beta`, fitted by ordinary
//! least squares of time on bytes over one algorithm/protocol segment (NCCL's tuner uses the
//! same form). Needs two distinct sizes; otherwise `None`.

/// A fitted segment: `alpha_us` (latency, microseconds), `beta_gbs` (bandwidth, GB/s =
/// bytes/ns, `None` when the slope is not positive: a latency-bound segment has no bandwidth
/// to report) and the residual as the root mean square of (measured - model) / measured.
#[derive(Debug, Clone, Copy, PartialEq, serde::Serialize, serde::Deserialize)]
pub struct AlphaBeta {
    pub alpha_us: f64,
    pub beta_gbs: Option<f64>,
    pub relative_rms_residual: f64,
    pub points: usize,
}

/// Fits `(bytes, time_us)` points, weighting each by `1 / time^2` so that the fit minimizes
/// relative errors: sizes span decades, and plain least squares would let the largest sizes
/// decide the latency. Non-finite or non-positive times are skipped.
pub(crate) fn fit_alpha_beta(points: &[(f64, f64)]) -> Option<AlphaBeta> {
    let points: Vec<(f64, f64, f64)> = points
        .iter()
        .filter(|(b, t)| b.is_finite() && t.is_finite() && *t > 0.0)
        .map(|&(b, t)| (b, t, 1.0 / (t * t)))
        .collect();
    let weight: f64 = points.iter().map(|p| p.2).sum();
    let mean_b = points.iter().map(|p| p.2 * p.0).sum::<f64>() / weight;
    let mean_t = points.iter().map(|p| p.2 * p.1).sum::<f64>() / weight;
    let sxx: f64 = points.iter().map(|p| p.2 * (p.0 - mean_b).powi(2)).sum();
    if points.len() < 2 || sxx.is_nan() || sxx <= 0.0 {
        return None;
    }
    let sxy: f64 = points.iter().map(|p| p.2 * (p.0 - mean_b) * (p.1 - mean_t)).sum();
    let slope = sxy / sxx; // us per byte
    let alpha_us = mean_t - slope * mean_b;
    let square_sum: f64 = points.iter().map(|(b, t, _)| ((t - (alpha_us + slope * b)) / t).powi(2)).sum();
    Some(AlphaBeta {
        alpha_us,
        beta_gbs: (slope > 0.0).then(|| 1e-3 / slope),
        relative_rms_residual: (square_sum / points.len() as f64).sqrt(),
        points: points.len(),
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Generated data with known alpha = 12 us and beta = 370 GB/s, a deterministic +-1 %
    /// ripple on the times: both are recovered within 2 %, and the residual shows the ripple.
    #[test]
    fn recovers_known_alpha_and_beta() {
        let (alpha, beta) = (12.0, 370.0);
        let points: Vec<(f64, f64)> = (13..=33)
            .map(|k| {
                let bytes = f64::from(1u32 << (k - 10)) * 1024.0;
                let ripple = if k % 2 == 0 { 1.01 } else { 0.99 };
                (bytes, (alpha + bytes / (beta * 1e3)) * ripple)
            })
            .collect();
        let fit = fit_alpha_beta(&points).unwrap();
        assert!((fit.beta_gbs.unwrap() - beta).abs() / beta < 0.02, "{fit:?}");
        assert!((fit.alpha_us - alpha).abs() / alpha < 0.02, "{fit:?}");
        let exact: Vec<(f64, f64)> = points.iter().map(|(b, _)| (*b, alpha + b / (beta * 1e3))).collect();
        let exact_fit = fit_alpha_beta(&exact).unwrap();
        assert!((exact_fit.alpha_us - alpha).abs() / alpha < 0.02, "{exact_fit:?}");
        assert!(exact_fit.relative_rms_residual < 1e-9);
        assert!(fit.relative_rms_residual > 0.005 && fit.relative_rms_residual < 0.05, "{fit:?}");
    }

    #[test]
    fn small_sizes_recover_alpha() {
        let points: Vec<(f64, f64)> =
            (0..8).map(|k| (8192.0 * f64::from(k + 1), 25.0 + 8192.0 * f64::from(k + 1) / 50e3)).collect();
        let fit = fit_alpha_beta(&points).unwrap();
        assert!((fit.alpha_us - 25.0).abs() < 0.5 && (fit.beta_gbs.unwrap() - 50.0).abs() < 1.0, "{fit:?}");
    }

    #[test]
    fn degenerate_segments() {
        assert_eq!(fit_alpha_beta(&[]), None);
        assert_eq!(fit_alpha_beta(&[(1.0, 2.0)]), None);
        assert_eq!(fit_alpha_beta(&[(8.0, 2.0), (8.0, 3.0)]), None);
        let flat = fit_alpha_beta(&[(8.0, 5.0), (16.0, 5.0), (32.0, 4.0)]).unwrap();
        assert_eq!(flat.beta_gbs, None);
    }
}
