//! What nccl-tests prints (text tables of every era, or `-J` JSON), as typed data.
//! Produced by `parse::nccl_tests` / `parse::nccl_tests_json`; the `inspect` command prints it
//! as JSON, so every field here is part of that output.

use serde::Serialize;

/// Where an nccl-tests output came from.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum NcclTestsFormat {
    Text,
    Json,
}

/// One whole nccl-tests output (one stdout file may hold several tests run one after another).
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct NcclTestsOutput {
    pub format: NcclTestsFormat,
    /// `2.19.6` from `# nccl-tests version 2.19.6 ...` (absent before 2.17.4).
    pub version: Option<String>,
    /// `22809` from the version line's `nccl-library=22809`, or the JSON `nccl_version`.
    pub nccl_library: Option<String>,
    /// One entry per `# Rank N Group G Pid P on HOST device D [PCI] NAME` line of the first test
    /// whose table has rows (of the first test that printed any, when no table has rows).
    pub devices: Vec<DeviceLine>,
    /// One table per test found (`# Collective test starting: X` starts a new one).
    pub tables: Vec<NcclTestsTable>,
    /// Lines that looked like table rows but could not be read, and other oddities.
    pub warnings: Vec<LineWarning>,
}

impl NcclTestsOutput {
    /// Number of ranks: the distinct ranks of the device lines if any, else nThread x nGpus
    /// from the config line.
    pub fn ranks(&self) -> Option<u64> {
        if !self.devices.is_empty() {
            // Distinct ranks: two single-rank jobs in one output both print `Rank 0`.
            let ranks: std::collections::BTreeSet<u64> = self.devices.iter().map(|d| d.rank).collect();
            return Some(ranks.len() as u64);
        }
        self.tables.iter().find_map(|t| t.config.as_ref().and_then(|c| c.n_thread?.checked_mul(c.n_gpus?)))
    }

    /// All rows of all tables, in file order.
    pub fn rows(&self) -> impl Iterator<Item = &NcclTestsRow> {
        self.tables.iter().flat_map(|t| t.rows.iter())
    }
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct DeviceLine {
    pub rank: u64,
    pub group: Option<u64>,
    pub pid: Option<u64>,
    pub host: String,
    pub device: Option<u64>,
    pub pci: Option<String>,
    pub name: String,
}

/// The `# nThread 1 nGpus 1 minBytes ... ` line.
#[derive(Debug, Clone, Default, PartialEq, Serialize)]
pub struct TestConfig {
    pub n_thread: Option<u64>,
    pub n_gpus: Option<u64>,
    pub min_bytes: Option<u64>,
    pub max_bytes: Option<u64>,
    /// `2(factor)` or `1048576(bytes)` as printed.
    pub step: Option<String>,
    pub warmup_iters: Option<u64>,
    pub iters: Option<u64>,
    pub agg_iters: Option<u64>,
    pub validation: Option<u64>,
    pub graph: Option<u64>,
    pub unalign: Option<u64>,
}

/// Time unit of the table's time columns as printed (v1 printed milliseconds).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum TimeUnit {
    Us,
    Ms,
}

#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct NcclTestsTable {
    /// `all_reduce_perf` etc. from `# Collective test starting:` (None when absent).
    pub collective: Option<String>,
    pub config: Option<TestConfig>,
    /// Column names as found in the header, left to right (for JSON: the names nccl-tests
    /// prints for the same data).
    pub columns: Vec<String>,
    pub time_unit: TimeUnit,
    pub rows: Vec<NcclTestsRow>,
    /// `# Out of bounds values : N OK|FAILED`.
    pub out_of_bounds: Option<u64>,
    /// `# Avg bus bandwidth : X`.
    pub avg_bus_bandwidth: Option<f64>,
    /// True when the table ended without its footer (cut output; for JSON: no
    /// `out_of_bounds` nor average bus bandwidth).
    pub truncated: bool,
}

/// One size row. `cycle` counts how many times the same (size, type, redop, root) was seen
/// before in this table (`-N k` repeats the sweep with no cycle index).
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct NcclTestsRow {
    /// 1-based line in the file (0 for JSON).
    pub line: u64,
    pub cycle: u64,
    pub size_bytes: u64,
    pub count: Option<u64>,
    #[serde(rename = "type")]
    pub dtype: Option<String>,
    pub redop: Option<String>,
    pub root: Option<i64>,
    pub out_of_place: Placement,
    pub in_place: Option<Placement>,
    /// `-S 1` timestamp (`YYYY-MM-DD HH:MM:SS`).
    pub timestamp: Option<String>,
}

/// Time and bandwidths of one placement (out-of-place or in-place) of one row.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Placement {
    /// Always microseconds (v1 milliseconds are converted).
    pub time_us: f64,
    pub algbw_gbs: f64,
    pub busbw_gbs: f64,
    /// `#wrong` count; `None` when unchecked (`N/A`) or when the era printed `error`.
    pub wrong: Option<u64>,
    /// The `error` column of v2.0-2.12 (max abs delta); `None` when not printed or `N/A`.
    pub error: Option<f64>,
    /// `-I 1`: per-iteration statistics after `#wrong`.
    pub iter_stats: Option<IterStats>,
}

#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct IterStats {
    pub min_us: f64,
    pub max_us: f64,
    pub p99_us: f64,
    pub cv_percent: f64,
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct LineWarning {
    /// 1-based line (0 when not line-based, e.g. JSON).
    pub line: u64,
    pub message: String,
}
