//! The one number and text formatter of the site and of nccl-report's messages: measured
//! values with no more digits than their spread supports, bandwidths as nccl-tests prints
//! them, exact binary sizes, one UTC date format, counted nouns with the right plural, and URL
//! segments. Every page, the index's headline figures, diagnostics and `collect`'s messages go
//! through it; the seed-format files (`export`) keep the seed's own formatting instead. Uses
//! std and `calendar` only.
//!
//! The rules, decided once:
//! - A measured value (µs) gets as many significant figures as its coefficient of variation
//!   supports: one digit below the order of the spread (`sig = ceil(-log10(cv)) + 1`), at
//!   least 2 and at most 6; cv 2 % gives 3 (`123` µs, `12.3` µs), cv 10 % gives 2, cv 0 %
//!   gives 6. Without a spread (one cycle, or a value that is not a statistic over cycles) it
//!   gets 3. Digits before the decimal point are never replaced by zeros (`12345` µs stays
//!   `12345`, not `12300`): a reader would take the zeros as measured.
//! - Bandwidths (GB/s) have 2 decimals, as nccl-tests prints its algbw and busbw columns.
//! - Sizes are exact: the largest binary unit in which the size has at most 3 decimals
//!   (`1.25 MiB`, `1.5 KiB`, `80 MiB`), else the byte count with thousands separators
//!   (`1,000,000 B`). A total (an input's size, a log's bytes) that is not exact in its own
//!   unit is `about 114 KiB`.
//! - Dates are UTC to the second, `2026-12-03 08:11:06 UTC`, converted from the manifest's
//!   offset; text that is not an ISO 8601 time is shown as it is.
//! - Counted nouns agree with their number: `1 rank`, `2 ranks`, `0 runs`.

/// The most significant figures a measured value shows.
const MAX_FIGURES: i32 = 6;
/// The fewest, however noisy the value.
const MIN_FIGURES: i32 = 2;
/// Significant figures of a value with no known spread.
const DEFAULT_FIGURES: i32 = 3;
/// Binary units above a byte: unit `i` is 1024^(i + 1) bytes.
const BINARY_UNITS: [&str; 5] = ["KiB", "MiB", "GiB", "TiB", "PiB"];

/// 1024^power, the size of `BINARY_UNITS[power - 1]`.
fn unit_bytes(power: usize) -> i128 {
    1i128 << (10 * power)
}

/// A measured value, with its coefficient of variation in percent when there is one (see the
/// module's rules).
pub(crate) fn measured(x: f64, cv_percent: Option<f64>) -> String {
    let figures = match cv_percent {
        // In f64 and clamped before the cast: a subnormal cv has an infinite log. The epsilon
        // keeps cv 10 % at exactly one order (log10 may land a hair above it).
        Some(cv) if cv.is_finite() && cv > 0.0 => {
            ((-(cv / 100.0).log10() - 1e-9).ceil() + 1.0).clamp(f64::from(MIN_FIGURES), f64::from(MAX_FIGURES)) as i32
        }
        Some(0.0) => MAX_FIGURES,
        _ => DEFAULT_FIGURES,
    };
    significant(x, figures)
}

/// `x` with `figures` significant figures, never rounding digits before the decimal point.
fn significant(x: f64, figures: i32) -> String {
    if !x.is_finite() {
        return non_finite(x);
    }
    if x == 0.0 {
        return "0".to_string();
    }
    let magnitude = x.abs().log10().floor() as i32;
    let decimals = (figures - 1 - magnitude).max(0) as usize;
    let text = format!("{x:.decimals$}");
    // Rounding can carry into a new digit (9.996 -> 10.00): one decimal fewer keeps the figures.
    let rounded: f64 = text.parse().unwrap_or(x);
    if decimals > 0 && rounded.abs().log10().floor() as i32 > magnitude {
        return format!("{x:.0$}", decimals - 1);
    }
    text
}

fn non_finite(x: f64) -> String {
    if x.is_nan() {
        "n/a".to_string()
    } else if x > 0.0 {
        "inf".to_string()
    } else {
        "-inf".to_string()
    }
}

/// A bandwidth in GB/s: two decimals, as nccl-tests prints algbw and busbw.
pub(crate) fn gbs(x: f64) -> String {
    if x.is_finite() {
        format!("{x:.2}")
    } else {
        non_finite(x)
    }
}

/// A percentage with `decimals` decimals, e.g. `2.35 %`, fewer where it would show more
/// than six significant figures (a noise floor of `20382.8 %`, not `20382.80 %`).
pub(crate) fn percent(x: f64, decimals: usize) -> String {
    if !x.is_finite() {
        return non_finite(x);
    }
    let mut decimals = decimals;
    loop {
        let text = format!("{x:.decimals$}");
        let figures = text.trim_start_matches(['-', '0', '.']).chars().filter(char::is_ascii_digit).count();
        if figures <= 6 || decimals == 0 {
            return format!("{text} %");
        }
        decimals -= 1;
    }
}

/// A coefficient of variation (percent) with two decimals.
pub(crate) fn pct2(x: f64) -> String {
    percent(x, 2)
}

/// A rate in [0, 1] as a percentage with one decimal.
pub(crate) fn rate(x: f64) -> String {
    percent(x * 100.0, 1)
}

/// A ratio (candidate over base, slowdown factors): 3 decimals and an `x`.
pub(crate) fn times(x: f64) -> String {
    if x.is_finite() {
        format!("{x:.3}x")
    } else {
        non_finite(x)
    }
}

/// A value that is computed, not measured (a busbw factor): at most `decimals` decimals,
/// trailing zeros dropped: `1.75`, `2`.
pub(crate) fn trimmed(x: f64, decimals: usize) -> String {
    if !x.is_finite() {
        return non_finite(x);
    }
    let text = format!("{x:.decimals$}");
    if text.contains('.') {
        text.trim_end_matches('0').trim_end_matches('.').to_string()
    } else {
        text
    }
}

/// A byte count exactly (see the module's rules).
pub(crate) fn bytes(n: impl Into<i128>) -> String {
    let n: i128 = n.into();
    for (index, unit) in BINARY_UNITS.iter().enumerate().rev() {
        let scale = unit_bytes(index + 1);
        let thousandths = n * 1000;
        if n.abs() >= scale && thousandths % scale == 0 {
            let value = thousandths / scale;
            let (whole, frac) = (value / 1000, (value % 1000).abs());
            let frac = format!("{frac:03}");
            let frac = frac.trim_end_matches('0');
            let whole = grouped(whole);
            return if frac.is_empty() { format!("{whole} {unit}") } else { format!("{whole}.{frac} {unit}") };
        }
    }
    format!("{} B", grouped(n))
}

/// A total (an input's size, a log's bytes): exact as `bytes` when that is short, else about
/// 3 significant figures of the binary unit: `about 114 KiB`.
pub(crate) fn bytes_about(n: impl Into<i128>) -> String {
    let n: i128 = n.into();
    if n.abs() < 1024 {
        return bytes(n);
    }
    let mut power = ((n.unsigned_abs().ilog2() / 10) as usize).clamp(1, BINARY_UNITS.len());
    if (n * 1000) % unit_bytes(power) == 0 {
        return bytes(n);
    }
    let mut text = significant(n as f64 / unit_bytes(power) as f64, DEFAULT_FIGURES);
    // Rounded up to 1000 of a unit or more (1,048,575 B is 1023.999 KiB): the next unit.
    if text.parse::<f64>().is_ok_and(|v| v.abs() >= 1000.0) && power < BINARY_UNITS.len() {
        power += 1;
        text = significant(n as f64 / unit_bytes(power) as f64, DEFAULT_FIGURES);
    }
    format!("about {text} {}", BINARY_UNITS[power - 1])
}

/// An integer with a comma every three digits: `1,000,000`.
pub(crate) fn grouped(n: impl Into<i128>) -> String {
    let n: i128 = n.into();
    let digits = n.unsigned_abs().to_string();
    let mut out = String::with_capacity(digits.len() + digits.len() / 3 + 1);
    if n < 0 {
        out.push('-');
    }
    for (i, digit) in digits.chars().enumerate() {
        if i > 0 && (digits.len() - i) % 3 == 0 {
            out.push(',');
        }
        out.push(digit);
    }
    out
}

/// `n` and the noun agreeing with it: `1 rank`, `3 ranks`, `-1 ranks` (any integer type: a
/// negative count from an untrusted file is shown as it is, never wrapped).
pub(crate) fn count(n: impl TryInto<i128>, singular: &str) -> String {
    // Every integer type fits in an i128 (usize included, on any target Rust supports).
    let n: i128 = n.try_into().unwrap_or(i128::MAX);
    if n == 1 {
        format!("1 {singular}")
    } else {
        format!("{n} {}", plural_of(singular))
    }
}

/// The noun agreeing with `n`, without the number: `node`, `nodes`.
pub(crate) fn noun(n: usize, singular: &str) -> String {
    if n == 1 {
        singular.to_string()
    } else {
        plural_of(singular)
    }
}

/// The word agreeing with `n` where the plural is not a noun's: `agree(n, "has", "have")`.
pub(crate) fn agree<'a>(n: usize, one: &'a str, many: &'a str) -> &'a str {
    if n == 1 {
        one
    } else {
        many
    }
}

fn plural_of(singular: &str) -> String {
    match singular {
        "series" => "series".to_string(),
        _ if singular.ends_with('s') || singular.ends_with('x') || singular.ends_with("ch") => format!("{singular}es"),
        _ if singular.ends_with('y')
            && !singular.ends_with("ay")
            && !singular.ends_with("ey")
            && !singular.ends_with("oy") =>
        {
            format!("{}ies", &singular[..singular.len() - 1])
        }
        _ => format!("{singular}s"),
    }
}

/// An ISO 8601 time (`2026-12-03T08:11:06.214950+00:00`, `...Z`, or without an offset, taken
/// as UTC) as `2026-12-03 08:11:06 UTC`; any other text as it is.
pub(crate) fn utc_second(text: &str) -> String {
    let Some(seconds) = crate::core::calendar::iso_seconds(text) else { return text.to_string() };
    let (year, month, day) = crate::core::calendar::civil_from_days(seconds.div_euclid(86_400));
    let of_day = seconds.rem_euclid(86_400);
    format!("{year:04}-{month:02}-{day:02} {:02}:{:02}:{:02} UTC", of_day / 3600, of_day / 60 % 60, of_day % 60)
}

/// Natural order of case texts: runs of digits compare as numbers, so `tokens=1` comes before
/// `tokens=16` and `tokens=128`; other text compares as text.
pub(crate) fn natural_cmp(a: &str, b: &str) -> std::cmp::Ordering {
    fn pieces(s: &str) -> Vec<(bool, &str)> {
        let mut out = Vec::new();
        let mut start = 0;
        let bytes = s.as_bytes();
        for i in 1..=bytes.len() {
            if i == bytes.len() || bytes[i].is_ascii_digit() != bytes[start].is_ascii_digit() {
                out.push((bytes[start].is_ascii_digit(), &s[start..i]));
                start = i;
            }
        }
        out
    }
    let number = |d: &str| (d.trim_start_matches('0').len(), d.trim_start_matches('0').to_string());
    for (x, y) in pieces(a).into_iter().zip(pieces(b)) {
        let order = match (x, y) {
            ((true, x), (true, y)) => number(x).cmp(&number(y)),
            ((_, x), (_, y)) => x.cmp(y),
        };
        if order.is_ne() {
            return order;
        }
    }
    a.len().cmp(&b.len()).then_with(|| a.cmp(b))
}

/// `text` cut to `max` characters with an ellipsis (where a page shows a long text in short).
pub(crate) fn ellipsis(text: &str, max: usize) -> String {
    match text.char_indices().nth(max) {
        Some((at, _)) => format!("{}…", &text[..at]),
        None => text.to_string(),
    }
}

pub(crate) fn yes_no(b: bool) -> &'static str {
    if b {
        "yes"
    } else {
        "no"
    }
}

/// `text` with control characters (terminal escape sequences among them) written as Rust
/// escapes (`\u{1b}`), so that names and messages from runs cannot drive the terminal.
pub(crate) fn terminal_safe(text: &str) -> String {
    text.chars().map(|c| if c.is_control() { c.escape_default().to_string() } else { c.to_string() }).collect()
}

/// A run id as one URL path segment: everything but unreserved characters percent-encoded,
/// so an id holding `#`, `?`, `%` or spaces still links to its own folder.
pub(crate) fn url_segment(id: &str) -> String {
    let mut out = String::with_capacity(id.len());
    for byte in id.bytes() {
        if byte.is_ascii_alphanumeric() || matches!(byte, b'-' | b'_' | b'.' | b'~') {
            out.push(byte as char);
        } else {
            out.push_str(&format!("%{byte:02X}"));
        }
    }
    out
}

#[cfg(test)]
mod tests {

    #[test]
    fn cases_sort_naturally() {
        let mut cases = vec!["tokens=128;tp=2", "tokens=16;tp=2", "tokens=1;tp=2", "tokens=1;tp=10", "a"];
        cases.sort_by(|a, b| natural_cmp(a, b));
        assert_eq!(cases, ["a", "tokens=1;tp=2", "tokens=1;tp=10", "tokens=16;tp=2", "tokens=128;tp=2"]);
        assert!(natural_cmp("x007", "x7").is_ne() && natural_cmp("", "").is_eq());
    }
    use super::*;

    #[test]
    fn measured_values_keep_the_figures_their_spread_supports() {
        // cv 2 %: 3 significant figures, at every magnitude.
        assert_eq!(measured(123.456, Some(2.0)), "123");
        assert_eq!(measured(12.3456, Some(2.0)), "12.3");
        assert_eq!(measured(0.0123456, Some(2.0)), "0.0123");
        // cv 10 % or worse: 2 figures, never fewer (cv 385 % as seen on real runs).
        assert_eq!(measured(12.3456, Some(10.0)), "12");
        assert_eq!(measured(1.23456, Some(385.0)), "1.2");
        // Tiny spreads: more figures, at most 6; cv 0 (identical cycles) gives 6.
        assert_eq!(measured(1.234567891, Some(0.05)), "1.2346");
        assert_eq!(measured(1.234567891, Some(1e-9)), "1.23457");
        assert_eq!(measured(1.234567891, Some(0.0)), "1.23457");
        assert_eq!(measured(1.234567891, Some(5e-324)), "1.23457");
        assert_eq!(measured(1.234567891, Some(f64::MAX)), "1.2");
        // No spread known (one cycle, NaN cv): 3 figures.
        assert_eq!(measured(4.56789, None), "4.57");
        assert_eq!(measured(4.56789, Some(f64::NAN)), "4.57");
        // Digits before the point are never rounded to zeros.
        assert_eq!(measured(12345.6, Some(10.0)), "12346");
        assert_eq!(measured(-12.3456, Some(2.0)), "-12.3");
        // Rounding that carries into a new digit keeps the figure count.
        assert_eq!(measured(9.996, Some(2.0)), "10.0");
        assert_eq!(measured(0.09996, None), "0.100");
        assert_eq!(measured(0.0, Some(2.0)), "0");
        assert_eq!(measured(f64::NAN, None), "n/a");
        assert_eq!(measured(f64::INFINITY, None), "inf");
    }

    #[test]
    fn bandwidths_percentages_and_ratios() {
        assert_eq!(gbs(371.2049), "371.20");
        assert_eq!(gbs(0.0), "0.00");
        assert_eq!(gbs(f64::NAN), "n/a");
        assert_eq!(pct2(2.345), "2.35 %");
        assert_eq!(
            (pct2(20382.8), pct2(-1234.5678), pct2(99999.996)),
            ("20382.8 %".into(), "-1234.57 %".into(), "100000 %".into())
        );
        assert_eq!(rate(0.5), "50.0 %");
        assert_eq!(times(1.23456), "1.235x");
        assert_eq!(trimmed(1.75, 3), "1.75");
        assert_eq!(trimmed(2.0, 3), "2");
        assert_eq!(trimmed(4.0 / 3.0, 3), "1.333");
        assert_eq!(trimmed(120.0, 3), "120");
    }

    #[test]
    fn sizes_are_exact() {
        assert_eq!(bytes(0), "0 B");
        assert_eq!(bytes(100), "100 B");
        assert_eq!(bytes(1023), "1,023 B");
        assert_eq!(bytes(1024), "1 KiB");
        assert_eq!(bytes(1536), "1.5 KiB");
        assert_eq!(bytes(8192), "8 KiB");
        assert_eq!(bytes(1_310_720), "1.25 MiB");
        assert_eq!(bytes(83_886_080), "80 MiB");
        assert_eq!(bytes(3i64 << 30), "3 GiB");
        // 976.5625 KiB needs 4 decimals: the byte count is exact.
        assert_eq!(bytes(1_000_000), "1,000,000 B");
        assert_eq!(bytes(3073), "3,073 B");
        assert_eq!(bytes(-2048), "-2 KiB");
        assert_eq!(bytes(2_000_000_000), "1,953,125 KiB");
        assert_eq!(bytes(i64::MAX), "9,223,372,036,854,775,807 B");
        assert_eq!(bytes(u64::MAX), "18,446,744,073,709,551,615 B");
        assert_eq!(grouped(-1_234_567), "-1,234,567");
        assert_eq!(bytes_about(116_900), "about 114 KiB");
        assert_eq!(bytes_about(1_310_720), "1.25 MiB");
        assert_eq!(bytes_about(1000), "1,000 B");
        assert_eq!(bytes_about(1_000_000), "about 977 KiB");
        assert_eq!(bytes_about(2_000_000_000), "about 1.86 GiB");
        assert_eq!(bytes_about(1_048_575), "about 1.00 MiB");
        assert_eq!(bytes_about(1_023_999), "about 0.977 MiB");
    }

    #[test]
    fn counted_nouns_agree() {
        assert_eq!(count(1, "rank"), "1 rank");
        assert_eq!(count(0, "run"), "0 runs");
        assert_eq!(count(2, "timed cycle"), "2 timed cycles");
        assert_eq!(count(3, "series"), "3 series");
        assert_eq!(count(2, "case"), "2 cases");
        assert_eq!(count(-1i64, "rank"), "-1 ranks");
        assert_eq!(count(u64::MAX, "byte"), "18446744073709551615 bytes");
        assert_eq!(count(2usize, "entry"), "2 entries");
        assert_eq!(count(2usize, "key"), "2 keys");
        assert_eq!(noun(1, "node"), "node");
        assert_eq!(noun(2, "node"), "nodes");
        assert_eq!((agree(1, "has", "have"), agree(0, "is", "are")), ("has", "are"));
    }

    #[test]
    fn dates_are_utc_to_the_second() {
        assert_eq!(utc_second("2026-12-03T08:11:06.214950+00:00"), "2026-12-03 08:11:06 UTC");
        assert_eq!(utc_second("2026-12-03T08:11:06Z"), "2026-12-03 08:11:06 UTC");
        assert_eq!(utc_second("2026-12-03 08:11:06"), "2026-12-03 08:11:06 UTC");
        // Other offsets are converted, across a day and a year boundary.
        assert_eq!(utc_second("2026-12-31T23:30:00-01:00"), "2027-01-01 00:30:00 UTC");
        assert_eq!(utc_second("2024-03-01T01:00:00+02:00"), "2024-02-29 23:00:00 UTC");
        // Anything else is shown as it is.
        assert_eq!(utc_second("yesterday"), "yesterday");
        assert_eq!(utc_second("2026-13-03T08:11:06Z"), "2026-13-03T08:11:06Z");
        assert_eq!(utc_second("2026-12-03T08:11:06+0x:00"), "2026-12-03T08:11:06+0x:00");
        assert_eq!(utc_second("2026-12-03T08:11:06."), "2026-12-03T08:11:06.");
        assert_eq!(utc_second("2026-12-03T08:11:0é"), "2026-12-03T08:11:0é");
    }

    #[test]
    fn run_ids_are_one_url_segment() {
        assert_eq!(url_segment("a b#?<x>"), "a%20b%23%3F%3Cx%3E");
        assert_eq!(url_segment("20260101T000000Z-h200"), "20260101T000000Z-h200");
    }
}
