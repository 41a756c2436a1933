//! UTC timestamps without a clock (calendar arithmetic from `collect::clock`): a synthetic run's times, printed the ways the seed
//! (`%Y%m%dT%H%M%SZ` run ids, `isoformat()`) and torchrun's glog lines print them.

use crate::collect::clock::UtcTime;
use std::time::{Duration, UNIX_EPOCH};

/// Microseconds since the Unix epoch.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
pub(super) struct Timestamp(pub u64);

impl Timestamp {
    pub(super) fn plus_micros(self, micros: u64) -> Self {
        Timestamp(self.0 + micros)
    }

    /// The seed's default run id, e.g. `20260105T102345Z`.
    pub(super) fn run_id(self) -> String {
        self.utc().run_id()
    }

    /// Python's `datetime.now(timezone.utc).isoformat()` (microseconds only when non-zero).
    pub(super) fn iso(self) -> String {
        self.utc().iso8601()
    }

    /// glog's `MMDD hh:mm:ss.uuuuuu`, as in torchrun's warnings.
    pub(super) fn glog(self) -> String {
        let c = self.utc();
        format!("{:02}{:02} {:02}:{:02}:{:02}.{:06}", c.month, c.day, c.hour, c.minute, c.second, c.micros)
    }

    fn utc(self) -> UtcTime {
        UtcTime::from_system(UNIX_EPOCH + Duration::from_micros(self.0))
    }
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
