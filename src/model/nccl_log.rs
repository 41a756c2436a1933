//! Facts read from NCCL_DEBUG=INFO logs (INIT, GRAPH, COLL and TUNING lines).
//! Produced by `parse::nccl_log`, merged over all the log files of a run.

use serde::Serialize;
use std::collections::BTreeMap;

#[derive(Debug, Clone, Default, PartialEq, Serialize)]
pub struct NcclLogFacts {
    /// `NCCL version 2.28.9+cuda13.0` -> `2.28.9+cuda13.0` (every distinct value seen).
    pub nccl_versions: Vec<String>,
    /// `cudaDriverVersion 13000`.
    pub cuda_driver_versions: Vec<String>,
    /// Communicators from `Init START` / `Init COMPLETE` lines, sorted by (comm id, rank).
    pub communicators: Vec<CommunicatorInfo>,
    /// `Using network Socket|IB` (distinct values).
    pub networks: Vec<String>,
    /// `Channel 00/64 :` -> the total channel counts seen (distinct), e.g. `[64]`.
    pub channel_counts: Vec<u64>,
    /// `64 coll channels, 64 collnet channels, 0 nvls channels, 64 p2p channels, ...` lines.
    pub channel_summaries: Vec<String>,
    /// Distinct ring orders from `Ring NN : a -> b -> c` (the part after the colon).
    pub rings: Vec<String>,
    /// Distinct `Tree NN : ...` / `Trees [0] ...` descriptions (capped).
    pub trees: Vec<String>,
    /// Graph search results (`Pattern P, crossNic C, nChannels N, bw X/Y, type T/U, sameChannels S`).
    pub graph_patterns: Vec<GraphPattern>,
    /// Transport of each connection (`via P2P/CUMEM/read`, `via SHM`, `via NET/IB/0`): count per kind.
    pub transports: BTreeMap<String, u64>,
    /// Collective calls logged with SUBSYS=COLL: count per kind (`AllReduce`, `AllGather`...).
    pub collective_calls: BTreeMap<String, u64>,
    /// Algorithm counts where the log says which (TUNING lines), e.g. `Ring`, `Tree`, `NVLS`.
    pub algorithms: BTreeMap<String, u64>,
    /// Protocol counts where the log says which, e.g. `LL`, `LL128`, `Simple`.
    pub protocols: BTreeMap<String, u64>,
    /// `NCCL WARN` lines (first few, with file-relative line numbers), and their total.
    pub warnings: Vec<LogLine>,
    pub warning_count: u64,
    /// Lines and bytes read.
    pub lines: u64,
    pub bytes: u64,
}

#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord, Serialize)]
pub struct CommunicatorInfo {
    pub comm_id: String,
    pub rank: u64,
    pub nranks: u64,
    pub cuda_dev: Option<u64>,
    pub bus_id: Option<String>,
    pub host: Option<String>,
    pub init_complete: bool,
}

#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct GraphPattern {
    pub pattern: u64,
    pub cross_nic: u64,
    pub n_channels: u64,
    pub bw_intra: f64,
    pub bw_inter: f64,
    pub type_intra: String,
    pub type_inter: String,
    pub same_channels: u64,
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct LogLine {
    pub file: String,
    pub line: u64,
    pub text: String,
}
