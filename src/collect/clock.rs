//! UTC calendar time from `SystemTime`, std only: the default run id (`%Y%m%dT%H%M%SZ`, as
//! the seed names runs) and the manifest's `timestamp_utc` (Python's `isoformat()` shape).

use crate::core::calendar::civil_from_days;
use std::time::{SystemTime, UNIX_EPOCH};

/// A UTC instant broken into calendar fields.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct UtcTime {
    pub year: i64,
    pub month: u32,
    pub day: u32,
    pub hour: u32,
    pub minute: u32,
    pub second: u32,
    pub micros: u32,
}

impl UtcTime {
    pub fn now() -> Self {
        Self::from_system(SystemTime::now())
    }

    /// Times before 1970 (a badly set clock) count as the epoch.
    pub fn from_system(time: SystemTime) -> Self {
        let since = time.duration_since(UNIX_EPOCH).unwrap_or_default();
        let secs = since.as_secs();
        let (year, month, day) = civil_from_days((secs / 86_400) as i64);
        let of_day = (secs % 86_400) as u32;
        UtcTime {
            year,
            month,
            day,
            hour: of_day / 3600,
            minute: of_day / 60 % 60,
            second: of_day % 60,
            micros: since.subsec_micros(),
        }
    }

    /// `20250101T120000Z`.
    pub fn run_id(&self) -> String {
        format!(
            "{:04}{:02}{:02}T{:02}{:02}{:02}Z",
            self.year, self.month, self.day, self.hour, self.minute, self.second
        )
    }

    /// `2025-01-01T12:00:00.123456+00:00`, as Python's `datetime.now(timezone.utc).isoformat()`
    /// (which leaves the microseconds out when they are zero).
    pub fn iso8601(&self) -> String {
        let fraction = if self.micros == 0 { String::new() } else { format!(".{:06}", self.micros) };
        format!(
            "{:04}-{:02}-{:02}T{:02}:{:02}:{:02}{fraction}+00:00",
            self.year, self.month, self.day, self.hour, self.minute, self.second
        )
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::time::Duration;

    fn at(secs: u64, micros: u32) -> UtcTime {
        UtcTime::from_system(UNIX_EPOCH + Duration::from_secs(secs) + Duration::from_micros(micros.into()))
    }

    #[test]
    fn known_instants() {
        assert_eq!(at(0, 0).run_id(), "19700101T000000Z");
        assert_eq!(at(951_782_400, 0).run_id(), "20000229T000000Z");
        assert_eq!(at(1_735_689_599, 0).run_id(), "20241231T235959Z");
        assert_eq!(at(1_767_225_600, 5).iso8601(), "2026-01-01T00:00:00.000005+00:00");
        assert_eq!(at(4_107_542_400, 0).run_id(), "21000301T000000Z");
    }
}
