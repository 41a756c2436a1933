//! Facts read from NCCL_DEBUG=INFO logs (INIT, GRAPH, COLL and TUNING lines).
//! Produced by `parse::nccl_log`, merged over all the log files of a run.

use serde::{Deserialize, Serialize};
use std::collections::BTreeMap;

#[derive(Debug, Clone, Default, PartialEq, Serialize)]
pub struct NcclLogFacts {
    /// `NCCL version 2.28.9+cuda13.0` -> `2.28.9+cuda13.0` (every distinct value seen).
    pub nccl_versions: Vec<String>,
    /// `cudaDriverVersion 13000`.
    pub cuda_driver_versions: Vec<String>,
    /// Communicators from `Init START` / `Init COMPLETE` lines, sorted by (comm id, rank).
    /// A START with no COMPLETE in the same process stays `init_complete: false`.
    pub communicators: Vec<CommunicatorInfo>,
    /// `Using network Socket|IB` (distinct values).
    pub networks: Vec<String>,
    /// Network devices NCCL said it uses (`NET/IB : Using [0]mlx5_0:1/IB ...`), per host, with
    /// GPU Direct RDMA where logged; sorted, distinct (see `parse::nccl_net`).
    pub nics: Vec<NicInfo>,
    /// Log files by the host their INFO lines name (the `host:pid:tid` prefix), host -> files
    /// (sorted); a file whose lines name no host is not listed.
    pub files_by_host: BTreeMap<String, Vec<String>>,
    /// `Channel 00/64 :` -> the total channel counts seen (distinct), e.g. `[64]`.
    pub channel_counts: Vec<u64>,
    /// `64 coll channels, 64 collnet channels, 0 nvls channels, 64 p2p channels, ...` lines.
    pub channel_summaries: Vec<String>,
    /// Distinct ring orders from `Ring NN : a -> b -> c` (the part after the colon), sorted.
    /// Like every list and map here, capped at `parse::nccl_log::MAX_DISTINCT` (256) values:
    /// lists keep the smallest in sort order, maps stop taking new keys.
    pub rings: Vec<String>,
    /// Distinct trees as `children->rank->parent` (`1/-1/-1->0->-1`): per channel of `Trees [0]
    /// ...` as printed (the last item cut by NCCL's 1024-byte line buffer is dropped), and from
    /// `Tree N : parent -> rank -> children` reordered, so one tree is one entry.
    pub trees: Vec<String>,
    /// Graph search results (`Pattern P, crossNic C, nChannels N, bw X/Y, type T/U, sameChannels S`;
    /// `speed` for `bw` before 2.12), distinct, sorted by pattern then the other fields.
    pub graph_patterns: Vec<GraphPattern>,
    /// Transport of each connection line (`Channel .. : a[x] -> b[y] [send] via NET/IB/0/GDRDMA`):
    /// count per word after `via`, as printed (`P2P/CUMEM/read`, `SHM/direct/direct`, ...).
    pub transports: BTreeMap<String, u64>,
    /// Collective calls logged with SUBSYS=COLL: count per kind (`AllReduce`, `AllGather`...).
    pub collective_calls: BTreeMap<String, u64>,
    /// Algorithm counts where the log says which (SUBSYS=TUNING), in NCCL's `ncclAlgoStr` names
    /// (`Tree`, `Ring`, `CollNetDirect`, `CollNetChain`, `NVLS`, `NVLSTree`, `PAT`). Counted
    /// from `Best tuning, algorithm, X, protocol, Y` lines (every rank, one per decision) when a
    /// file has them, else from `[Func: ]N Bytes -> Algo X proto Y` lines (rank 0 only, one
    /// per planned task; numeric codes before 2.21).
    pub algorithms: BTreeMap<String, u64>,
    /// Protocol counts from the same lines, in `ncclProtoStr` names (`LL`, `LL128`, `Simple`).
    pub protocols: BTreeMap<String, u64>,
    /// NCCL's planned choices per (collective, bytes) from the `Bytes -> Algo` TUNING lines
    /// (rank 0 only, one line per planned task), sorted by key; every format of 2.19-2.28.
    pub tuning: Vec<TuningChoice>,
    /// `NCCL WARN` lines (the first 20 in (file, line) order, 1-based line numbers), and their
    /// total.
    pub warnings: Vec<LogLine>,
    pub warning_count: u64,
    /// Lines and bytes read.
    pub lines: u64,
    pub bytes: u64,
}

#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord, Serialize)]
pub struct CommunicatorInfo {
    /// `commId 0x..` (2.17+); empty when the log does not print it.
    pub comm_id: String,
    pub rank: u64,
    pub nranks: u64,
    pub cuda_dev: Option<u64>,
    /// `busId` as printed (hex without `0x`, e.g. `60`, `18000`).
    pub bus_id: Option<String>,
    /// From the line prefix `host:pid:tid [dev]`.
    pub host: Option<String>,
    pub init_complete: bool,
}

/// A network device NCCL used on one host.
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord, Serialize)]
pub struct NicInfo {
    pub host: String,
    /// The net NCCL named: `IB`, `Socket`, or a plugin's name.
    pub net: String,
    /// NCCL's device index (`[0]`).
    pub index: u64,
    /// As printed, less a socket's address: `mlx5_0:1/IB` (device:port/link layer), `eth0`.
    pub device: String,
    /// `NET/IB : GPU Direct RDMA Enabled|Disabled for HCA 0 'mlx5_0'`; `None` when not logged.
    pub gdr: Option<bool>,
}

/// One row of the tuning table: how often NCCL planned `collective` of `bytes` with this
/// algorithm, protocol and channel count.
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord, Serialize, Deserialize)]
pub struct TuningChoice {
    /// `AllReduce`, ... (2.23+); `None` for the lines of <= 2.22, which do not name it.
    pub collective: Option<String>,
    pub bytes: u64,
    /// NCCL's `ncclAlgoStr` name (`Ring`, `Tree`, `NVLS`, ...; numeric codes of <= 2.23 mapped).
    pub algorithm: String,
    /// NCCL's `ncclProtoStr` name (`LL`, `LL128`, `Simple`).
    pub protocol: String,
    /// `channel{Lo..Hi}={lo..hi}` -> `hi - lo + 1` (2.24+); `None` when the line does not say.
    pub channels: Option<u64>,
    pub count: u64,
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
