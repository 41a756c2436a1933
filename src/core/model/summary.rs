//! Section summaries as the seed computes them (one struct per seed CSV row, fields in the
//! seed's column order), plus the per-cycle critical-path values behind each row for charts.

use serde::{Deserialize, Serialize};

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct AsyncSummary {
    pub world_size: i64,
    pub size_bytes: i64,
    pub cycles: usize,
    pub median_host_enqueue_us: f64,
    pub median_host_wait_us: f64,
    pub median_gpu_dependency_us: f64,
    pub p95_gpu_dependency_us: f64,
    pub gpu_cv_percent: f64,
    pub work_completed_after_return_rate: f64,
    pub event_ready_after_wait_rate: f64,
    pub correct: bool,
    /// Critical-path values per cycle (GPU dependency, enqueue, wait).
    pub gpu_cycles: Vec<f64>,
    pub enqueue_cycles: Vec<f64>,
    pub wait_cycles: Vec<f64>,
}

/// A case's host issue and device-only times beside its span (`summarize::clocks`).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Clocks {
    /// Median over cycles of the slowest rank's host time to issue the calls.
    pub median_host_issue_us: f64,
    /// Median over the queued cycles of the device-only time; `None` if no cycle was queued.
    pub median_device_us: Option<f64>,
    pub queued_cycles: usize,
    pub cycles: usize,
}

impl Clocks {
    /// The span is within 10 % of the host issue time: it measures Python/PyTorch's launch
    /// rate, not NCCL.
    pub fn host_bound(&self, median_span_us: f64) -> bool {
        (median_span_us - self.median_host_issue_us).abs() <= 0.1 * self.median_host_issue_us
    }
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct DecompositionSummary {
    pub world_size: i64,
    pub size_bytes: i64,
    pub mode: String,
    pub cycles: usize,
    pub median_duration_us: f64,
    pub p95_duration_us: f64,
    pub cv_percent: f64,
    /// `None` when the size has no `direct` baseline (the seed would stop with a KeyError).
    pub overhead_vs_allreduce_percent: Option<f64>,
    pub correct: bool,
    pub cycle_values: Vec<f64>,
    /// The worker's host-issue and device-only clocks (absent in runs before them).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub clocks: Option<Clocks>,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct FragmentationSummary {
    pub world_size: i64,
    pub total_bytes: i64,
    pub fragment_count: i64,
    pub fragment_bytes: i64,
    pub cycles: usize,
    pub median_duration_us: f64,
    pub p95_duration_us: f64,
    pub min_duration_us: f64,
    pub max_duration_us: f64,
    pub cv_percent: f64,
    /// `None` when there is no one-call case to compare with.
    pub slowdown_vs_one_collective: Option<f64>,
    pub median_per_collective_us: f64,
    pub strictly_slower_than_one_in_all_cycles: Option<bool>,
    pub correct: bool,
    pub cycle_values: Vec<f64>,
    /// The worker's host-issue and device-only clocks (absent in runs before them).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub clocks: Option<Clocks>,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct DecodeSummary {
    /// The case folder the rows came from (`world4_full`): decode is summarized per folder,
    /// so two folders of one world size are two groups. Not part of the seed's CSV.
    #[serde(default, skip_serializing_if = "String::is_empty")]
    pub case_folder: String,
    pub world_size: i64,
    pub tokens: i64,
    pub hidden_size: i64,
    pub message_bytes: i64,
    pub collectives: i64,
    pub cycles: usize,
    pub median_total_us: f64,
    pub p95_total_us: f64,
    pub min_total_us: f64,
    pub max_total_us: f64,
    pub cv_percent: f64,
    pub median_per_collective_us: f64,
    pub correct: bool,
    pub cycle_values: Vec<f64>,
    /// The worker's host-issue and device-only clocks (absent in runs before them).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub clocks: Option<Clocks>,
}

/// One row of the seed's `nccl_tests_raw.csv`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct NcclTestsRawRow {
    pub cycle: u64,
    pub size_bytes: u64,
    pub time_us: f64,
    #[serde(rename = "algbw_GBs")]
    pub algbw_gbs: f64,
    #[serde(rename = "busbw_GBs")]
    pub busbw_gbs: f64,
    /// `None`: unchecked (`N/A`).
    pub wrong: Option<u64>,
    pub inplace_time_us: f64,
    #[serde(rename = "inplace_algbw_GBs")]
    pub inplace_algbw_gbs: f64,
    #[serde(rename = "inplace_busbw_GBs")]
    pub inplace_busbw_gbs: f64,
    pub inplace_wrong: Option<u64>,
    pub world_size: u64,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct NcclTestsSummary {
    pub world_size: u64,
    pub size_bytes: u64,
    pub cycles: usize,
    pub median_time_us: f64,
    pub p95_time_us: f64,
    pub min_time_us: f64,
    pub max_time_us: f64,
    pub cv_percent: f64,
    #[serde(rename = "median_algbw_GBs")]
    pub median_algbw_gbs: f64,
    #[serde(rename = "median_busbw_GBs")]
    pub median_busbw_gbs: f64,
    pub wrong_total: u64,
    /// True when some `#wrong` was `N/A`: `wrong_total` then counts only checked values.
    pub unchecked: bool,
    pub cycle_values: Vec<f64>,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct NumericSummary {
    pub scenario: String,
    pub cases: usize,
    pub fp16_mismatch_count: usize,
    pub fp16_nonfinite_count: usize,
    pub fp32_mismatch_count: usize,
    pub unique_fp16_results: String,
    pub correct_replication_and_fp32_reference: bool,
    pub world_size: Option<i64>,
}

/// One row of the seed's `summary.csv`.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct UnifiedRow {
    pub section: &'static str,
    pub world_size: Option<i64>,
    pub case: String,
    pub metric: &'static str,
    /// Numerics put an integer count here, every other section a float.
    pub median: Number,
    pub p95: Option<f64>,
    pub cv_percent: Option<f64>,
    pub samples: usize,
    pub correct: bool,
}

#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
#[serde(untagged)]
pub enum Number {
    Int(i64),
    Float(f64),
}

/// A contract row with `correct=False`, kept whole for the report.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ContractFailure {
    pub file: String,
    pub line: u64,
    pub fields: Vec<(String, String)>,
}

#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct ContractsSummary {
    pub total: usize,
    pub failures: Vec<ContractFailure>,
}

/// Every section's summary rows of one run (`None`: the run has no data for the section). The
/// run's summary (`summarize::RunSummary`) and what the site keeps of it (`site::card::
/// RunOverview`) both hold this one value, so the two never list the sections twice.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct SectionSummaries {
    pub async_rows: Option<Vec<AsyncSummary>>,
    pub decomposition: Option<Vec<DecompositionSummary>>,
    pub fragmentation: Option<Vec<FragmentationSummary>>,
    pub decode: Option<Vec<DecodeSummary>>,
    pub nccl_tests_raw: Option<Vec<NcclTestsRawRow>>,
    pub nccl_tests: Option<Vec<NcclTestsSummary>>,
    pub numerics: Option<Vec<NumericSummary>>,
}
