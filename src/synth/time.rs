//! UTC timestamps without a clock: a synthetic run's times, printed the ways the seed
//! (`%Y%m%dT%H%M%SZ` run ids, `isoformat()`) and torchrun's glog lines print them.

/// Microseconds since the Unix epoch.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
pub struct Timestamp(pub u64);

struct Civil {
    year: i64,
    month: u32,
    day: u32,
    hour: u64,
    minute: u64,
    second: u64,
    micro: u64,
}

impl Timestamp {
    pub fn plus_micros(self, micros: u64) -> Self {
        Timestamp(self.0 + micros)
    }

    /// The seed's default run id, e.g. `20260105T102345Z`.
    pub fn run_id(self) -> String {
        let c = self.civil();
        format!("{:04}{:02}{:02}T{:02}{:02}{:02}Z", c.year, c.month, c.day, c.hour, c.minute, c.second)
    }

    /// Python's `datetime.now(timezone.utc).isoformat()` (microseconds only when non-zero).
    pub fn iso(self) -> String {
        let c = self.civil();
        let fraction = if c.micro == 0 { String::new() } else { format!(".{:06}", c.micro) };
        format!(
            "{:04}-{:02}-{:02}T{:02}:{:02}:{:02}{fraction}+00:00",
            c.year, c.month, c.day, c.hour, c.minute, c.second
        )
    }

    /// glog's `MMDD hh:mm:ss.uuuuuu`, as in torchrun's warnings.
    pub fn glog(self) -> String {
        let c = self.civil();
        format!("{:02}{:02} {:02}:{:02}:{:02}.{:06}", c.month, c.day, c.hour, c.minute, c.second, c.micro)
    }

    fn civil(self) -> Civil {
        let seconds = self.0 / 1_000_000;
        let (year, month, day) = civil_from_days((seconds / 86_400) as i64);
        let of_day = seconds % 86_400;
        Civil {
            year,
            month,
            day,
            hour: of_day / 3600,
            minute: of_day / 60 % 60,
            second: of_day % 60,
            micro: self.0 % 1_000_000,
        }
    }
}

/// Days since 1970-01-01 to (year, month, day) in the proleptic Gregorian calendar
/// (Howard Hinnant's algorithm).
fn civil_from_days(days: i64) -> (i64, u32, u32) {
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

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn formats() {
        let t = Timestamp(1_767_571_200_000_000 + 37_425_000_123);
        assert_eq!(t.run_id(), "20260105T102345Z");
        assert_eq!(t.iso(), "2026-01-05T10:23:45.000123+00:00");
        assert_eq!(t.glog(), "0105 10:23:45.000123");
        assert_eq!(Timestamp(951_782_400_000_000).iso(), "2000-02-29T00:00:00+00:00");
    }
}
