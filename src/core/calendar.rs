//! Proleptic Gregorian calendar arithmetic on day counts since 1970-01-01 (Howard Hinnant's
//! algorithms) and ISO 8601 times read as seconds since the epoch, std only: the collector's
//! clock, the site's UTC dates and the order of runs in time share it.

/// (year, month, day) of a day count since 1970-01-01.
pub(crate) fn civil_from_days(days: i64) -> (i64, u32, u32) {
    let z = days + 719_468;
    let era = z.div_euclid(146_097);
    let doe = z.rem_euclid(146_097);
    let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let day = (doy - (153 * mp + 2) / 5 + 1) as u32;
    let month = if mp < 10 { mp + 3 } else { mp - 9 } as u32;
    let year = yoe + era * 400 + i64::from(month <= 2);
    (year, month, day)
}

/// The day count since 1970-01-01 of a (year, month, day); the inverse of `civil_from_days`.
pub(crate) fn days_from_civil(year: i64, month: u32, day: u32) -> i64 {
    let year = if month <= 2 { year - 1 } else { year };
    let era = year.div_euclid(400);
    let yoe = year.rem_euclid(400);
    let month = i64::from(month);
    let doy = (153 * (if month > 2 { month - 3 } else { month + 9 }) + 2) / 5 + i64::from(day) - 1;
    let doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
    era * 146_097 + doe - 719_468
}

/// Days in `month` of `year`.
fn days_in_month(year: i64, month: u32) -> u32 {
    match month {
        2 if year % 4 == 0 && (year % 100 != 0 || year % 400 == 0) => 29,
        2 => 28,
        4 | 6 | 9 | 11 => 30,
        _ => 31,
    }
}

/// Seconds since 1970-01-01 UTC of an ISO 8601 time: `YYYY-MM-DD[T ]HH:MM:SS`, an optional
/// fraction (dropped), then `Z`, `+HH:MM`, `-HH:MM`, `+HHMM` (hours at most 14) or nothing
/// (taken as UTC). `None` for anything else, an impossible date (`02-30`) included.
pub(crate) fn iso_seconds(text: &str) -> Option<i64> {
    let text = text.trim();
    let b = text.as_bytes();
    let digits = |range: std::ops::Range<usize>| -> Option<i64> {
        let part = text.get(range)?;
        part.bytes().all(|c| c.is_ascii_digit()).then(|| part.parse().ok())?
    };
    if b.len() < 19 || b[4] != b'-' || b[7] != b'-' || !matches!(b[10], b'T' | b' ') || b[13] != b':' || b[16] != b':' {
        return None;
    }
    let (year, month, day) = (digits(0..4)?, digits(5..7)?, digits(8..10)?);
    let (hour, minute, second) = (digits(11..13)?, digits(14..16)?, digits(17..19)?);
    if !(1..=12).contains(&month) || hour > 23 || minute > 59 || second > 60 {
        return None;
    }
    if !(1..=i64::from(days_in_month(year, month as u32))).contains(&day) {
        return None;
    }
    // Byte 18 is an ASCII digit, so 19 is a character boundary.
    let mut rest = &text[19..];
    if let Some(fraction) = rest.strip_prefix('.') {
        let end = fraction.find(|c: char| !c.is_ascii_digit()).unwrap_or(fraction.len());
        if end == 0 {
            return None;
        }
        rest = &fraction[end..];
    }
    let offset_minutes = match rest.as_bytes() {
        [] | [b'Z' | b'z'] => 0,
        [sign @ (b'+' | b'-'), h1, h2, b':', m1, m2] | [sign @ (b'+' | b'-'), h1, h2, m1, m2] => {
            let all = [*h1, *h2, *m1, *m2];
            if !all.iter().all(u8::is_ascii_digit) {
                return None;
            }
            let value = |a: u8, b: u8| i64::from(a - b'0') * 10 + i64::from(b - b'0');
            let (h, m) = (value(*h1, *h2), value(*m1, *m2));
            if h > 14 || m > 59 {
                return None;
            }
            (if *sign == b'-' { -1 } else { 1 }) * (h * 60 + m)
        }
        _ => return None,
    };
    let days = days_from_civil(year, month as u32, day as u32);
    Some(days * 86_400 + hour * 3600 + minute * 60 + second - offset_minutes * 60)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn iso_times_read_as_epoch_seconds() {
        assert_eq!(iso_seconds("1970-01-01T00:00:00Z"), Some(0));
        assert_eq!(iso_seconds("1970-01-01T01:00:00+01:00"), Some(0));
        assert_eq!(iso_seconds("1970-01-01T01:00:00.5+0100"), Some(0));
        assert_eq!(iso_seconds("1969-12-31 23:00:00-01:00"), Some(0));
        assert_eq!(iso_seconds("2024-02-29T00:00:00"), Some(1_709_164_800));
        for bad in [
            "2026-02-30T00:00:00Z",
            "2025-02-29T00:00:00Z",
            "2026-04-31T00:00:00Z",
            "2026-01-01T00:00:00+99:99",
            "2026-01-01T00:00:00+15:00",
            "2026-01-01T00:00:00+0:530",
            "2026-01-01T00:00:00+05",
            "2026-01-01T24:00:00Z",
            "2026-01-01",
        ] {
            assert_eq!(iso_seconds(bad), None, "{bad}");
        }
        // Later in UTC is larger, whatever the offsets say on their face.
        assert!(iso_seconds("2026-01-01T10:00:00+05:00") < iso_seconds("2026-01-01T06:00:00Z"));
    }

    #[test]
    fn round_trips_across_leap_days_and_eras() {
        assert_eq!(days_from_civil(1970, 1, 1), 0);
        assert_eq!(days_from_civil(2000, 2, 29), 11_016);
        assert_eq!(civil_from_days(11_016), (2000, 2, 29));
        assert_eq!(civil_from_days(-1), (1969, 12, 31));
        for days in (-800_000..800_000).step_by(997) {
            let (y, m, d) = civil_from_days(days);
            assert_eq!(days_from_civil(y, m, d), days, "{y}-{m}-{d}");
        }
    }
}
