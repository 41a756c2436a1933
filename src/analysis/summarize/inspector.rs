//! NCCL Inspector records -> per case folder and (operation, message size): how many records,
//! the median kernel time and busbw (`statistics.median`, over every rank's records), and the
//! algorithm/protocol of the TUNING table for that size. Knows `model` and `stats` only.
//!
//! The TUNING table is the run's (all its logs merged; the logs are not split by case), joined
//! on equal bytes and operation (or any operation for the <= 2.22 lines that do not name it),
//! taking the most frequent choice (the first in the table's order on a tie).

use crate::analysis::stats::median;
use crate::core::model::inspector::{InspectorCase, InspectorSummary};
use crate::core::model::nccl_log::TuningChoice;
use std::collections::BTreeMap;

/// Execution times and busbw of one (operation, size).
type Samples = (Vec<f64>, Vec<f64>);

pub fn summarize(cases: &[InspectorCase], tuning: &[TuningChoice]) -> Vec<InspectorSummary> {
    let mut out = Vec::new();
    for case in cases {
        let mut groups: BTreeMap<(&str, u64), Samples> = BTreeMap::new();
        for record in &case.records {
            let (times, busbw) = groups.entry((record.operation.as_str(), record.msg_size_bytes)).or_default();
            times.push(record.exec_time_us);
            busbw.push(record.busbw_gbs);
        }
        for ((operation, bytes), (times, busbw)) in groups {
            let choice = tuning_choice(tuning, operation, bytes);
            out.push(InspectorSummary {
                case: case.case.clone(),
                operation: operation.to_string(),
                bytes,
                count: times.len() as u64,
                median_exec_time_us: median(&times),
                median_busbw_gbs: median(&busbw),
                algorithm: choice.map(|c| c.algorithm.clone()),
                protocol: choice.map(|c| c.protocol.clone()),
            });
        }
    }
    out
}

fn tuning_choice<'a>(tuning: &'a [TuningChoice], operation: &str, bytes: u64) -> Option<&'a TuningChoice> {
    let matching = tuning.iter().filter(|c| c.bytes == bytes && c.collective.as_deref().is_none_or(|n| n == operation));
    matching.fold(None, |best: Option<&TuningChoice>, c| match best {
        Some(b) if b.count >= c.count => Some(b),
        _ => Some(c),
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::core::model::inspector::InspectorRecord;

    fn record(operation: &str, rank: u64, bytes: u64, time: f64, busbw: f64) -> InspectorRecord {
        InspectorRecord {
            comm_id: "0x1".into(),
            rank,
            n_ranks: 2,
            nnodes: 1,
            hostname: "h".into(),
            pid: 7,
            operation: operation.into(),
            p2p: false,
            peer: None,
            sequence: 0,
            msg_size_bytes: bytes,
            exec_time_us: time,
            timing_source: "kernel_gpu".into(),
            algbw_gbs: busbw,
            busbw_gbs: busbw,
        }
    }

    fn choice(collective: Option<&str>, bytes: u64, algorithm: &str, count: u64) -> TuningChoice {
        TuningChoice {
            collective: collective.map(str::to_string),
            bytes,
            algorithm: algorithm.into(),
            protocol: "Simple".into(),
            channels: None,
            count,
        }
    }

    #[test]
    fn medians_per_operation_and_size_joined_with_tuning() {
        let cases = [
            InspectorCase {
                case: "world2_full".into(),
                files: vec![],
                records: vec![
                    record("AllReduce", 0, 1024, 10.0, 1.0),
                    record("AllReduce", 1, 1024, 30.0, 3.0),
                    record("AllReduce", 0, 1024, 14.0, 2.0),
                    record("AllGather", 0, 4096, 5.0, 9.0),
                    record("AllReduce", 1, 1048576, 100.0, 50.0),
                ],
            },
            InspectorCase {
                case: "world4_full".into(),
                files: vec![],
                records: vec![record("AllReduce", 0, 1024, 1.0, 1.0)],
            },
        ];
        let tuning = [
            choice(Some("AllReduce"), 1024, "Tree", 1),
            choice(Some("AllReduce"), 1024, "Ring", 5),
            choice(Some("AllGather"), 1024, "NVLS", 9),
            choice(None, 1048576, "Ring", 2),
        ];
        let rows = summarize(&cases, &tuning);
        let keys: Vec<_> = rows.iter().map(|r| (r.case.as_str(), r.operation.as_str(), r.bytes, r.count)).collect();
        assert_eq!(
            keys,
            [
                ("world2_full", "AllGather", 4096, 1),
                ("world2_full", "AllReduce", 1024, 3),
                ("world2_full", "AllReduce", 1048576, 1),
                ("world4_full", "AllReduce", 1024, 1)
            ]
        );
        assert_eq!((rows[1].median_exec_time_us, rows[1].median_busbw_gbs), (14.0, 2.0));
        assert_eq!((rows[1].algorithm.as_deref(), rows[1].protocol.as_deref()), (Some("Ring"), Some("Simple")));
        assert_eq!(rows[0].algorithm, None, "no TUNING line of that size");
        assert_eq!(rows[2].algorithm.as_deref(), Some("Ring"), "unnamed <= 2.22 lines match any operation");
    }
}
