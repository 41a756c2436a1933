//! The per-cycle samples a comparison judges, one set per case, taken from the seed's
//! summaries (the critical path, slowest rank per cycle, as `summarize` computes it: nothing
//! is recomputed here). Case texts are exactly the seed's `summary.csv` ones.

use crate::core::model::summary::{Clocks, SectionSummaries};
use serde::Serialize;

/// nccl-tests sizes from this many bytes up are judged on bus bandwidth (when ranks > 1);
/// smaller ones are latency-bound and judged on time.
pub const BANDWIDTH_FROM_BYTES: u64 = 1 << 20;

/// What a case's time depends on, for the run-wide shifts (`engine`): the host's issue rate
/// (Python, PyTorch, the CPU, its frequency policy) or the GPUs and NCCL.
///
/// `host`: the async host enqueue and wait times; every timed loop at one rank (NCCL launches
/// no collective kernel there: decomposition, fragmentation, decode and nccl-tests time the
/// launches); and decomposition, fragmentation and decode cases whose span is within 10 % of
/// the host's issue time (`Clocks::host_bound`) or whose device-only time is less than half
/// the span (the rest is the host issuing and waiting). `device`: the async GPU dependency
/// (an event pair queued behind a GPU sleep), nccl-tests above one rank, and every other case.
///
/// Decided from the base run's clocks. On 14 back-to-back H200 runs at one rank, the old rule
/// (host-bound only when the span is within 10 % of the issue time) put a 42 us decomposition
/// loop with 1.3 us on the GPU among the device-side cases, and one host-slow run then read
/// as "device-side 0.69x faster".
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Family {
    Host,
    Device,
}

impl Family {
    pub fn as_str(self) -> &'static str {
        match self {
            Family::Host => "host-side",
            Family::Device => "device-side",
        }
    }

    /// A loop of collectives timed from the host: host-side when its clocks say so.
    fn of_loop(clocks: Option<&Clocks>, median_span_us: f64, world_size: i64) -> Family {
        if world_size == 1 {
            return Family::Host;
        }
        match clocks {
            Some(c) if c.host_bound(median_span_us) => Family::Host,
            Some(Clocks { median_device_us: Some(device), .. }) if *device < 0.5 * median_span_us => Family::Host,
            _ => Family::Device,
        }
    }
}

#[derive(Debug, Clone, PartialEq)]
pub struct CaseSamples {
    pub section: &'static str,
    pub world_size: i64,
    pub case: String,
    pub metric: &'static str,
    /// The case folder of a decode case (decode is summarized per folder: one TP size can be
    /// in `world2_decode` and in a 2-rank `world2_full`), in the key and in every output, so
    /// a case is matched folder to folder whatever the other run holds. `None` for the other
    /// sections, keyed by world size as the seed keys them.
    pub folder: Option<String>,
    /// True for bandwidth: a larger value is better.
    pub higher_is_better: bool,
    pub family: Family,
    /// One value per cycle, in cycle order.
    pub values: Vec<f64>,
}

impl CaseSamples {
    /// The identity of a case across runs (`case_key`).
    pub fn key(&self) -> String {
        case_key(self.section, self.world_size, self.folder.as_deref(), &self.case, self.metric)
    }
}

/// `section|world size|case|metric`, or `section|world size|folder/case|metric` for a decode
/// case: how a case is matched across runs.
///
/// Built by hand, not by `format!`: a comparison makes every case's key several times.
pub fn case_key(section: &str, world_size: i64, folder: Option<&str>, case: &str, metric: &str) -> String {
    let mut digits = itoa::Buffer::new();
    let world_size = digits.format(world_size);
    let folder_len = folder.map_or(0, |f| f.len() + 1);
    let mut key = String::with_capacity(section.len() + world_size.len() + folder_len + case.len() + metric.len() + 3);
    for part in [
        section,
        "|",
        world_size,
        "|",
        folder.unwrap_or(""),
        if folder.is_some() { "/" } else { "" },
        case,
        "|",
        metric,
    ] {
        key.push_str(part);
    }
    key
}

/// The largest sample value taken as a measurement (µs or GB/s): above it (`1e308`, a value
/// whose sums and ratios overflow) a value is not a measurement.
pub const MAX_SAMPLE: f64 = 1e15;

/// The smallest sample value taken as a measurement (µs or GB/s): below it (a femtosecond; a
/// subnormal such as `5e-324`, whose ratios and timer steps overflow) a value is not a
/// measurement. Every ratio of two measurements is then within `MAX_SAMPLE / MIN_SAMPLE`.
pub const MIN_SAMPLE: f64 = 1e-9;

/// Whether a value is a measurement: finite and in [`MIN_SAMPLE`, `MAX_SAMPLE`] (a zero or
/// negative time or bandwidth makes a ratio 0 or infinite).
pub fn is_measurement(value: f64) -> bool {
    (MIN_SAMPLE..=MAX_SAMPLE).contains(&value)
}

/// Why two sample sets of one case cannot be compared (a `compare --allow-failed` run can
/// hold anything): a value that is not a measurement (`is_measurement`: `inf`, `-inf`, NaN,
/// zero, negative, below `MIN_SAMPLE` or above `MAX_SAMPLE`). Such a case is
/// `not_comparable` with this reason, never a verdict. The value's place is counted in the
/// order its run's files hold the case's values, from 1.
pub fn unusable(base: &[f64], cand: &[f64]) -> Option<String> {
    let bad = |values: &[f64]| values.iter().position(|v| !is_measurement(*v));
    let (run, values, at) = match (bad(base), bad(cand)) {
        (Some(at), _) => ("base", base, at),
        (None, Some(at)) => ("candidate", cand, at),
        (None, None) => return None,
    };
    Some(format!(
        "the {run}'s value {} of {} ({:e}) is not a measurement (not a finite number in [{MIN_SAMPLE:e}, {MAX_SAMPLE:e}])",
        at + 1,
        values.len(),
        values[at]
    ))
}

/// Every timed case of the run, in the seed's section order.
pub fn of(sections: &SectionSummaries) -> Vec<CaseSamples> {
    let mut out = Vec::new();
    let mut push =
        |section, world_size, case: String, metric, values: &[f64], folder: Option<String>, family: Family| {
            out.push(CaseSamples {
                section,
                world_size,
                case,
                metric,
                folder,
                higher_is_better: false,
                family,
                values: values.to_vec(),
            })
        };
    for r in sections.async_rows.iter().flatten() {
        let case = || format!("bytes={}", r.size_bytes);
        push("async", r.world_size, case(), "gpu_dependency_us", &r.gpu_cycles, None, Family::Device);
        push("async", r.world_size, case(), "host_enqueue_us", &r.enqueue_cycles, None, Family::Host);
        push("async", r.world_size, case(), "host_wait_us", &r.wait_cycles, None, Family::Host);
    }
    for r in sections.decomposition.iter().flatten() {
        let case = format!("bytes={};mode={}", r.size_bytes, r.mode);
        let family = Family::of_loop(r.clocks.as_ref(), r.median_duration_us, r.world_size);
        push("decomposition", r.world_size, case, "duration_us", &r.cycle_values, None, family);
    }
    for r in sections.fragmentation.iter().flatten() {
        let case = format!("count={};fragment_bytes={}", r.fragment_count, r.fragment_bytes);
        let family = Family::of_loop(r.clocks.as_ref(), r.median_duration_us, r.world_size);
        push("fragmentation", r.world_size, case, "duration_us_for_80MiB", &r.cycle_values, None, family);
    }
    for r in sections.decode.iter().flatten() {
        let case = format!("tokens={};bytes={};calls={}", r.tokens, r.message_bytes, r.collectives);
        let folder = (!r.case_folder.is_empty()).then(|| r.case_folder.clone());
        let family = Family::of_loop(r.clocks.as_ref(), r.median_total_us, r.world_size);
        push("decode", r.world_size, case, "replay_total_us", &r.cycle_values, folder, family);
    }
    for r in sections.nccl_tests.iter().flatten() {
        let case = format!("bytes={}", r.size_bytes);
        if r.world_size > 1 && r.size_bytes >= BANDWIDTH_FROM_BYTES {
            let busbw: Vec<f64> = sections
                .nccl_tests_raw
                .iter()
                .flatten()
                .filter(|row| row.world_size == r.world_size && row.size_bytes == r.size_bytes)
                .map(|row| row.busbw_gbs)
                .collect();
            out.push(CaseSamples {
                section: "nccl_tests_decode_sizes",
                world_size: r.world_size as i64,
                case,
                metric: "busbw_GBs",
                folder: None,
                higher_is_better: true,
                family: Family::Device,
                values: busbw,
            });
        } else {
            out.push(CaseSamples {
                section: "nccl_tests_decode_sizes",
                world_size: r.world_size as i64,
                case,
                metric: "time_us",
                folder: None,
                higher_is_better: false,
                family: if r.world_size == 1 { Family::Host } else { Family::Device },
                values: r.cycle_values.clone(),
            });
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::analysis::comparison::engine::{compare, Context};
    use crate::core::model::summary::{DecodeSummary, NcclTestsRawRow, NcclTestsSummary};

    fn decode(folder: &str, tokens: i64, level: f64) -> DecodeSummary {
        DecodeSummary {
            case_folder: folder.into(),
            world_size: 2,
            tokens,
            hidden_size: 4096,
            message_bytes: tokens * 8192,
            collectives: 160,
            cycles: 10,
            median_total_us: level,
            p95_total_us: level,
            min_total_us: level,
            max_total_us: level,
            cv_percent: 0.0,
            median_per_collective_us: level / 160.0,
            correct: true,
            cycle_values: (0..10).map(|c| level + c as f64 * 0.01 * level).collect(),
            clocks: None,
        }
    }

    fn run(scale_decode_folder: f64) -> SectionSummaries {
        // TP=2 decode in two folders (a 2-rank `world2_full` and `world2_decode`), the same
        // tokens in both, plus one token count only `world2_decode` has.
        SectionSummaries {
            decode: Some(vec![
                decode("world2_decode", 1, 100.0 * scale_decode_folder),
                decode("world2_decode", 8, 120.0),
                decode("world2_full", 1, 300.0),
            ]),
            ..SectionSummaries::default()
        }
    }

    /// Two folders holding the same decode case are two cases, matched folder to folder,
    /// also against a run that has only one of the folders.
    #[test]
    fn inf_huge_negative_and_zero_samples_give_no_verdict() {
        let case = |values: Vec<f64>| CaseSamples {
            section: "async",
            world_size: 1,
            case: "bytes=8192".into(),
            metric: "gpu_dependency_us",
            folder: None,
            higher_is_better: false,
            family: Family::Device,
            values,
        };
        let good: Vec<f64> = (0..10).map(|i| 10.0 + f64::from(i) * 0.01).collect();
        let context = super::super::engine::Context { key_differences: Vec::new(), history: Vec::new() };
        for bad in [f64::INFINITY, 1e308, 1.000_001e15, f64::NEG_INFINITY, 0.0, -0.0, -1.0, f64::NAN, 5e-324, 9.99e-10]
        {
            let mut values = good.iter().map(|v| v * 2.0).collect::<Vec<_>>();
            values[3] = bad;
            for (base, cand) in [(case(good.clone()), case(values.clone())), (case(values.clone()), case(good.clone()))]
            {
                let outcome = super::super::engine::compare(&[base], &[cand], &context);
                let result = &outcome.cases[0];
                assert_eq!(result.verdict.as_str(), "not_comparable", "{bad}");
                let reason = result.reason.as_deref().unwrap_or_default();
                assert!(reason.contains("value 4 of 10 (") && reason.contains("not a measurement"), "{reason}");
            }
        }
        assert_eq!(unusable(&good, &good), None);
        assert_eq!(unusable(&[MIN_SAMPLE, MAX_SAMPLE], &[MAX_SAMPLE, MIN_SAMPLE]), None);
    }

    #[test]
    fn two_folders_of_one_size_are_two_cases_never_one() {
        let samples = of(&run(1.0));
        let keys: Vec<String> = samples.iter().map(CaseSamples::key).collect();
        assert_eq!(
            keys,
            [
                "decode|2|world2_decode/tokens=1;bytes=8192;calls=160|replay_total_us",
                "decode|2|world2_decode/tokens=8;bytes=65536;calls=160|replay_total_us",
                "decode|2|world2_full/tokens=1;bytes=8192;calls=160|replay_total_us",
            ]
        );
        let outcome = compare(&samples, &of(&run(1.5)), &Context::default());
        let ratio = |label: &str| outcome.cases.iter().find(|c| c.case_label() == label).and_then(|c| c.ratio).unwrap();
        assert!((ratio("world2_decode: tokens=1;bytes=8192;calls=160") - 1.5).abs() < 1e-12);
        assert!((ratio("world2_full: tokens=1;bytes=8192;calls=160") - 1.0).abs() < 1e-12);
        assert_eq!(ratio("world2_decode: tokens=8;bytes=65536;calls=160"), 1.0);
        assert_eq!(outcome.cases.len(), 3);
        // The candidate lost its world2_full folder: world2_decode still meets world2_decode.
        let mut partial = run(1.5);
        partial.decode.as_mut().unwrap().retain(|r| r.case_folder == "world2_decode");
        let outcome = compare(&samples, &of(&partial), &Context::default());
        let verdicts: Vec<(String, Option<f64>)> = outcome.cases.iter().map(|c| (c.case_label(), c.ratio)).collect();
        assert_eq!(
            verdicts,
            [
                ("world2_decode: tokens=1;bytes=8192;calls=160".to_string(), Some(1.5)),
                ("world2_decode: tokens=8;bytes=65536;calls=160".to_string(), Some(1.0)),
                ("world2_full: tokens=1;bytes=8192;calls=160".to_string(), None),
            ]
        );
    }

    #[test]
    fn a_loop_is_host_side_at_one_rank_when_host_bound_or_mostly_off_the_gpu() {
        let clocks = |host: f64, device: Option<f64>| Clocks {
            median_host_issue_us: host,
            median_device_us: device,
            queued_cycles: 10,
            cycles: 10,
        };
        let gpu_bound = clocks(20.0, Some(90.0));
        assert_eq!(Family::of_loop(Some(&gpu_bound), 100.0, 1), Family::Host, "one rank: no collective kernel");
        assert_eq!(Family::of_loop(Some(&gpu_bound), 100.0, 2), Family::Device);
        assert_eq!(Family::of_loop(None, 100.0, 2), Family::Device, "no clocks: device-side");
        assert_eq!(Family::of_loop(Some(&clocks(95.0, Some(90.0))), 100.0, 2), Family::Host, "within 10 % of issue");
        assert_eq!(Family::of_loop(Some(&clocks(20.0, Some(49.0))), 100.0, 2), Family::Host, "under half on the GPU");
        assert_eq!(
            Family::of_loop(Some(&clocks(20.0, Some(50.0))), 100.0, 2),
            Family::Device,
            "half is not under half"
        );
        assert_eq!(Family::of_loop(Some(&clocks(20.0, Some(51.0))), 100.0, 2), Family::Device);
        assert_eq!(Family::of_loop(Some(&clocks(20.0, None)), 100.0, 2), Family::Device, "no queued cycle");
    }

    #[test]
    fn nccl_tests_bandwidth_from_one_mib_above_one_rank_else_time() {
        let summary = |world_size: u64, size_bytes: u64| NcclTestsSummary {
            world_size,
            size_bytes,
            cycles: 2,
            median_time_us: 10.0,
            p95_time_us: 10.0,
            min_time_us: 10.0,
            max_time_us: 10.0,
            cv_percent: 0.0,
            median_algbw_gbs: 1.0,
            median_busbw_gbs: 1.0,
            wrong_total: 0,
            unchecked: false,
            cycle_values: vec![10.0, 11.0],
        };
        let raw = |cycle: u64, world_size: u64, size_bytes: u64, busbw_gbs: f64| NcclTestsRawRow {
            cycle,
            size_bytes,
            time_us: 10.0,
            algbw_gbs: 1.0,
            busbw_gbs,
            wrong: Some(0),
            inplace_time_us: 10.0,
            inplace_algbw_gbs: 1.0,
            inplace_busbw_gbs: 1.0,
            inplace_wrong: Some(0),
            world_size,
        };
        let mib = BANDWIDTH_FROM_BYTES;
        assert_eq!(mib, 1 << 20);
        let sections = SectionSummaries {
            nccl_tests: Some(vec![summary(2, mib / 2), summary(2, mib), summary(1, mib), summary(4, mib)]),
            nccl_tests_raw: Some(vec![
                raw(0, 2, mib, 100.0),
                raw(1, 2, mib, 101.0),
                raw(0, 4, mib, 50.0),
                raw(0, 2, mib / 2, 7.0),
                raw(0, 1, mib, 0.0),
            ]),
            ..SectionSummaries::default()
        };
        let cases = of(&sections);
        let seen: Vec<(String, bool, Family, Vec<f64>)> =
            cases.iter().map(|c| (c.key(), c.higher_is_better, c.family, c.values.clone())).collect();
        assert_eq!(
            seen,
            [
                ("nccl_tests_decode_sizes|2|bytes=524288|time_us".to_string(), false, Family::Device, vec![10.0, 11.0]),
                (
                    "nccl_tests_decode_sizes|2|bytes=1048576|busbw_GBs".to_string(),
                    true,
                    Family::Device,
                    vec![100.0, 101.0]
                ),
                ("nccl_tests_decode_sizes|1|bytes=1048576|time_us".to_string(), false, Family::Host, vec![10.0, 11.0]),
                ("nccl_tests_decode_sizes|4|bytes=1048576|busbw_GBs".to_string(), true, Family::Device, vec![50.0]),
            ]
        );
    }
}
