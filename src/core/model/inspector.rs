//! Records of the NCCL Inspector profiler plugin (NCCL 2.28+): one per completed collective
//! (`coll_perf`) or point-to-point operation (`p2p_perf`) per rank, as its writer
//! `ext-profiler/inspector/inspector_json.cc` prints them.

use serde::{Deserialize, Serialize};

#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct InspectorRecord {
    /// `header.id`: the communicator hash, e.g. `0x7f8c496ae9f661`.
    pub comm_id: String,
    pub rank: u64,
    pub n_ranks: u64,
    pub nnodes: u64,
    /// `metadata.hostname` and `metadata.pid`.
    pub hostname: String,
    pub pid: u64,
    /// `coll` (`AllReduce`, ...) or `p2p` (`Send`, `Recv`).
    pub operation: String,
    /// True for `p2p_perf` records.
    pub p2p: bool,
    /// `p2p_peer` (point-to-point only).
    pub peer: Option<i64>,
    pub sequence: u64,
    pub msg_size_bytes: u64,
    pub exec_time_us: f64,
    /// `kernel_gpu`, `kernel_cpu` or `collective_cpu`.
    pub timing_source: String,
    pub algbw_gbs: f64,
    pub busbw_gbs: f64,
}

/// The records of one case folder (`raw/inspector/<case>/`), every rank's dump together.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct InspectorCase {
    pub case: String,
    /// The dump files read, run-relative.
    pub files: Vec<String>,
    pub records: Vec<InspectorRecord>,
}

/// NCCL's own records of one case folder summarized per (operation, message size), with the
/// algorithm and protocol the TUNING lines give for that size.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct InspectorSummary {
    pub case: String,
    /// `AllReduce`, ..., or `Send`/`Recv` for point-to-point records.
    pub operation: String,
    pub bytes: u64,
    /// Records (every rank's, every call's).
    pub count: u64,
    pub median_exec_time_us: f64,
    pub median_busbw_gbs: f64,
    /// From the run's TUNING table for (operation, bytes): its most frequent choice; `None`
    /// when the logs have no TUNING line of that size.
    pub algorithm: Option<String>,
    pub protocol: Option<String>,
}
