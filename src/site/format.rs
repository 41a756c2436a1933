//! Number and text formatting for pages: fixed decimals like the seed's `summary.md`,
//! human sizes, and relative URLs.

use crate::export::pyfmt::fixed;

/// Microseconds, GB/s and other measured values: three decimals, as the seed's tables.
pub(crate) fn num3(x: f64) -> String {
    fixed(x, 3)
}

/// Percentages: two decimals and a `%`.
pub(crate) fn pct2(x: f64) -> String {
    format!("{}%", fixed(x, 2))
}

/// A rate in [0, 1] as a percentage with one decimal.
pub(crate) fn rate(x: f64) -> String {
    format!("{}%", fixed(x * 100.0, 1))
}

/// Bytes as a short binary size (`8 KiB`, `80 MiB`, `1.5 GiB`), exact when whole.
pub(crate) fn bytes(n: i64) -> String {
    const UNITS: [&str; 5] = ["B", "KiB", "MiB", "GiB", "TiB"];
    let mut value = n as f64;
    let mut unit = 0;
    while value.abs() >= 1024.0 && unit < UNITS.len() - 1 {
        value /= 1024.0;
        unit += 1;
    }
    if value.fract() == 0.0 {
        format!("{} {}", value as i64, UNITS[unit])
    } else {
        format!("{value:.1} {}", UNITS[unit])
    }
}

pub(crate) fn yes_no(b: bool) -> &'static str {
    if b {
        "yes"
    } else {
        "no"
    }
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
    use super::*;

    #[test]
    fn sizes() {
        assert_eq!(bytes(8192), "8 KiB");
        assert_eq!(bytes(83886080), "80 MiB");
        assert_eq!(bytes(1536), "1.5 KiB");
        assert_eq!(bytes(100), "100 B");
        assert_eq!(url_segment("a b#?<x>"), "a%20b%23%3F%3Cx%3E");
        assert_eq!(url_segment("20260101T000000Z-h200"), "20260101T000000Z-h200");
    }
}
