//! The per-cycle samples a comparison judges, one set per case, taken from the seed's
//! summaries (the critical path, slowest rank per cycle, as `summarize` computes it: nothing
//! is recomputed here). Case texts are exactly the seed's `summary.csv` ones.

use crate::model::summary::SectionSummaries;

/// nccl-tests sizes from this many bytes up are judged on bus bandwidth (when ranks > 1);
/// smaller ones are latency-bound and judged on time.
pub const BANDWIDTH_FROM_BYTES: u64 = 1 << 20;

#[derive(Debug, Clone, PartialEq)]
pub struct CaseSamples {
    pub section: &'static str,
    pub world_size: i64,
    pub case: String,
    pub metric: &'static str,
    /// True for bandwidth: a larger value is better.
    pub higher_is_better: bool,
    /// One value per cycle, in cycle order.
    pub values: Vec<f64>,
}

impl CaseSamples {
    /// The identity of a case across runs: `section|world size|case|metric`.
    pub fn key(&self) -> String {
        case_key(self.section, self.world_size, &self.case, self.metric)
    }
}

/// `section|world size|case|metric`: how a case is matched across runs.
pub fn case_key(section: &str, world_size: i64, case: &str, metric: &str) -> String {
    format!("{section}|{world_size}|{case}|{metric}")
}

/// Every timed case of the run, in the seed's section order.
pub fn of(sections: &SectionSummaries) -> Vec<CaseSamples> {
    let mut out = Vec::new();
    let mut push = |section, world_size, case: String, metric, values: &[f64]| {
        out.push(CaseSamples { section, world_size, case, metric, higher_is_better: false, values: values.to_vec() })
    };
    for r in sections.async_rows.iter().flatten() {
        push("async", r.world_size, format!("bytes={}", r.size_bytes), "gpu_dependency_us", &r.gpu_cycles);
    }
    for r in sections.decomposition.iter().flatten() {
        let case = format!("bytes={};mode={}", r.size_bytes, r.mode);
        push("decomposition", r.world_size, case, "duration_us", &r.cycle_values);
    }
    for r in sections.fragmentation.iter().flatten() {
        let case = format!("count={};fragment_bytes={}", r.fragment_count, r.fragment_bytes);
        push("fragmentation", r.world_size, case, "duration_us_for_80MiB", &r.cycle_values);
    }
    for r in sections.decode.iter().flatten() {
        let case = format!("tokens={};bytes={};calls={}", r.tokens, r.message_bytes, r.collectives);
        push("decode", r.world_size, case, "replay_total_us", &r.cycle_values);
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
                higher_is_better: true,
                values: busbw,
            });
        } else {
            out.push(CaseSamples {
                section: "nccl_tests_decode_sizes",
                world_size: r.world_size as i64,
                case,
                metric: "time_us",
                higher_is_better: false,
                values: r.cycle_values.clone(),
            });
        }
    }
    out
}
