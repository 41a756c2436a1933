//! Cases whose statistics the seed cannot compute. Its `cv_percent` raises on a NaN or an
//! infinity, where `math.fsum` overflows (values near 1e308: OverflowError) and where the mean
//! is zero (all-zero durations: ZeroDivisionError); its overhead, slowdown and per-call ratios
//! raise on a zero divisor. Rust's arithmetic would print `inf` or `NaN` there instead, so each
//! such case is an error (the run is invalid), naming the section and the case. A NaN that
//! reaches the async host medians (no CV there) is an error too: Python's `sorted` leaves it
//! where the input order puts it, a result nccl-report refuses to imitate. A NaN or infinite
//! duration that the critical path's `max()` over ranks drops (any rank but the first) leaves
//! the seed's numbers finite, and nccl-report prints the same.
//! Knows `model`, `stats` and `diag`.

use crate::analysis::stats::fsum;
use crate::analysis::summarize::RunSummary;
use crate::core::diag::{Code, Diagnostic};

/// Why the seed's `cv_percent(values)` raises, if it does.
pub fn cv_raises(values: &[f64]) -> Option<&'static str> {
    if values.len() < 2 {
        return None;
    }
    if values.iter().any(|v| !v.is_finite()) {
        return Some("a value is not finite (Python's pstdev raises)");
    }
    let sum = fsum(values.iter().copied());
    if !sum.is_finite() {
        Some("the values overflow a float when summed (Python's fsum raises OverflowError)")
    } else if sum == 0.0 {
        Some("their mean is zero, as with all-zero durations (Python raises ZeroDivisionError)")
    } else {
        None
    }
}

/// One error per case whose CV or ratio the seed could not compute.
pub fn check(summary: &RunSummary) -> Vec<Diagnostic> {
    let mut errors = Vec::new();
    let mut report = |file: &str, case: String, why: &str| {
        errors.push(Diagnostic::error(
            Code::SeedCannotSummarize,
            file,
            None,
            format!("{case}: the seed cannot summarize it: {why}"),
        ))
    };
    let ratio = |value: Option<f64>| value.is_some_and(|v| !v.is_finite());
    const DIVISOR: &str = "a ratio divides by zero (Python raises ZeroDivisionError)";
    const NAN_MEDIAN: &str = "a NaN reaches a median, which Python computes in an order-dependent way";
    for row in summary.sections.async_rows.iter().flatten() {
        let case = format!("async world_size={} size_bytes={}", row.world_size, row.size_bytes);
        let nan_median = [&row.enqueue_cycles, &row.wait_cycles].iter().any(|v| v.iter().any(|x| x.is_nan()));
        let median_raises = nan_median.then_some(NAN_MEDIAN);
        if let Some(why) = cv_raises(&row.gpu_cycles).or(median_raises) {
            report("raw/results", case, why);
        }
    }
    for row in summary.sections.decomposition.iter().flatten() {
        let case =
            format!("decomposition world_size={} size_bytes={} mode={}", row.world_size, row.size_bytes, row.mode);
        let ratio_raises = ratio(row.overhead_vs_allreduce_percent).then_some(DIVISOR);
        if let Some(why) = cv_raises(&row.cycle_values).or(ratio_raises) {
            report("raw/results", case, why);
        }
    }
    for row in summary.sections.fragmentation.iter().flatten() {
        let case = format!("fragmentation world_size={} fragment_count={}", row.world_size, row.fragment_count);
        let ratios = [row.slowdown_vs_one_collective, Some(row.median_per_collective_us)];
        let ratio_raises = ratios.into_iter().any(ratio).then_some(DIVISOR);
        if let Some(why) = cv_raises(&row.cycle_values).or(ratio_raises) {
            report("raw/results", case, why);
        }
    }
    for row in summary.sections.decode.iter().flatten() {
        let case = format!("decode world_size={} tokens={}", row.world_size, row.tokens);
        let ratio_raises = ratio(Some(row.median_per_collective_us)).then_some(DIVISOR);
        if let Some(why) = cv_raises(&row.cycle_values).or(ratio_raises) {
            report("raw/results", case, why);
        }
    }
    for row in summary.sections.nccl_tests.iter().flatten() {
        let file = summary.raw.nccl_tests.iter().find(|f| f.world_size == Some(row.world_size));
        let case = format!("nccl-tests world_size={} size_bytes={}", row.world_size, row.size_bytes);
        if let Some(why) = cv_raises(&row.cycle_values) {
            report(file.map_or("raw", |f| f.file.as_str()), case, why);
        }
    }
    errors
}

#[cfg(test)]
mod tests {
    use super::cv_raises;

    #[test]
    fn cv_raises_where_python_does() {
        // Python 3.11: cv_percent([0.0]*3) ZeroDivisionError, [1e308]*3 OverflowError in fsum,
        // [1.0, nan, 2.0] and [1.0, inf, 2.0] raise in pstdev; [nan] and [1e308, -1e308, 5.0]
        // print (nan median / 0.0 CV, inf CV).
        assert!(cv_raises(&[0.0, 0.0, 0.0]).unwrap().contains("mean is zero"));
        assert!(cv_raises(&[1e308, 1e308, 1e308]).unwrap().contains("overflow"));
        assert!(cv_raises(&[1.0, f64::NAN, 2.0]).unwrap().contains("not finite"));
        assert!(cv_raises(&[1.0, f64::INFINITY, 2.0]).unwrap().contains("not finite"));
        assert_eq!(cv_raises(&[f64::NAN]), None);
        assert_eq!(cv_raises(&[1e308, -1e308, 5.0]), None);
        assert_eq!(cv_raises(&[1.0, 2.0]), None);
    }
}
