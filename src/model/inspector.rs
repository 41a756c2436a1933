//! Records of the NCCL Inspector profiler plugin (NCCL 2.28+): one per completed collective
//! (`coll_perf`) or point-to-point operation (`p2p_perf`) per rank, as its writer
//! `ext-profiler/inspector/inspector_json.cc` prints them.

use serde::Serialize;

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
