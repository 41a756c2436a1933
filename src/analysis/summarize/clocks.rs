//! The worker's second and third clocks per case (`host_issue_us`, `device_us`,
//! `device_queued`; see suite/README.md), summarized beside the seed's span. Not part of any
//! seed CSV: only for the pages. Uses only the section rows.

use crate::analysis::stats::median;
use crate::core::model::summary::Clocks;
use std::collections::BTreeMap;

/// One row's clock fields: (cycle, host issue µs, device µs, queued).
pub type ClockFields = (i64, Option<f64>, Option<f64>, Option<bool>);

/// Medians over cycles of the slowest rank's host issue time and of the device-only time
/// (cycles whose queue held). `None` when any row lacks the columns (a run before them).
pub fn summarize(rows: impl Iterator<Item = ClockFields>) -> Option<Clocks> {
    let mut cycles: BTreeMap<i64, (f64, f64, bool)> = BTreeMap::new();
    for (cycle, host, device, queued) in rows {
        let (host, device, queued) = (host?, device?, queued?);
        let entry = cycles.entry(cycle).or_insert((host, device, queued));
        *entry = (entry.0.max(host), entry.1.min(device), entry.2 && queued);
    }
    if cycles.is_empty() {
        return None;
    }
    let host: Vec<f64> = cycles.values().map(|c| c.0).collect();
    let device: Vec<f64> = cycles.values().filter(|c| c.2).map(|c| c.1).collect();
    Some(Clocks {
        median_host_issue_us: median(&host),
        median_device_us: (!device.is_empty()).then(|| median(&device)),
        queued_cycles: device.len(),
        cycles: cycles.len(),
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn slowest_host_and_queued_device_cycles() {
        let rows = [
            (0, Some(10.0), Some(1.0), Some(true)),
            (0, Some(12.0), Some(1.0), Some(true)),
            (1, Some(20.0), Some(9.0), Some(false)),
            (1, Some(30.0), Some(9.0), Some(true)),
            (2, Some(14.0), Some(3.0), Some(true)),
        ];
        let clocks = summarize(rows.into_iter()).unwrap();
        assert_eq!(clocks.median_host_issue_us, 14.0);
        assert_eq!(clocks.median_device_us, Some(2.0));
        assert_eq!((clocks.queued_cycles, clocks.cycles), (2, 3));
        assert!(clocks.host_bound(15.0) && !clocks.host_bound(16.0));
    }

    #[test]
    fn older_runs_have_none() {
        assert_eq!(summarize([(0, None, None, None)].into_iter()), None);
        assert_eq!(summarize([(0, Some(1.0), Some(1.0), Some(true)), (0, Some(1.0), None, None)].into_iter()), None);
        assert_eq!(summarize(std::iter::empty()), None);
    }
}
