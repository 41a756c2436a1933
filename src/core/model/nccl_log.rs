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
    /// World sizes, distinct: Init lines (`nranks 8`), `comm .. rank R nRanks 16 nNodes 2
    /// localRanks 8 ..` lines, COLL lines' `[nranks=16]`, RCCL's `.. comm 0x.. nRanks 08`.
    pub nranks: Vec<u64>,
    /// `nNodes N` of the `nRanks .. nNodes .. localRanks ..` lines (2.12+), distinct.
    pub nnodes: Vec<u64>,
    /// `localRanks N` of the same lines: ranks per node, distinct.
    pub local_ranks: Vec<u64>,
    /// The network: `Using network Socket|IB|IBext_v8|AWS Libfabric` (2.3's `Using internal
    /// Network IB`), and the net of `via NET/<net>/..` connections (distinct values).
    pub networks: Vec<String>,
    /// The net plugin: `internal` where NCCL found none, `aws-ofi-nccl`, or the name a
    /// `Loaded net plugin X (vN)` / `P2P plugin X` line gives (distinct values).
    pub net_plugins: Vec<String>,
    /// NVLink SHARP: `true` from `NVLS multicast support is available`, `NVLS Head`, `NVLS
    /// comm`, `Connected NVLS` or `N nvls channels` with N > 0; `false` from `.. is not
    /// available` or `0 nvls channels` alone; `None` when the log does not say.
    pub nvls: Option<bool>,
    /// CollNet (SHARP in the switch): `true` when a connection goes `via COLLNET/..`.
    pub collnet: Option<bool>,
    /// PXN: `true` when a send goes through another GPU's NIC (`via NET/IB/0(3)/..`, the
    /// proxy rank in parentheses), `false` from `NCCL_PXN_DISABLE set by environment to 1`.
    pub pxn: Option<bool>,
    /// Network devices NCCL said it uses (`NET/IB : Using [0]mlx5_0:1/IB ...`), per host, with
    /// GPU Direct RDMA where logged; sorted, distinct (see `parse::nccl_net`).
    pub nics: Vec<NicInfo>,
    /// Log files by the hosts their INFO and WARN lines name (each line's `host:pid:tid` prefix,
    /// so a merged mpirun/srun log lists every host), host -> files (sorted); a file whose lines
    /// name no host is not listed.
    pub files_by_host: BTreeMap<String, Vec<String>>,
    /// `Channel 00/64 :` -> the total channel counts seen (distinct), e.g. `[64]`.
    pub channel_counts: Vec<u64>,
    /// `64 coll channels, 64 collnet channels, 0 nvls channels, 64 p2p channels, ...` lines.
    pub channel_summaries: Vec<String>,
    /// Distinct ring orders from `Ring NN : a -> b -> c` (the part after the colon), sorted;
    /// the connection lines old NCCL printed as `Ring 00 : 3[3] -> 2[2] via P2P/IPC` are
    /// transports, not rings.
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
    /// Transport of each connection line (`Channel .. : a[x] -> b[y] [send] via NET/IB/0/GDRDMA`,
    /// 2.3-2.6's `Ring 00 : a[x] -> b[y] via P2P/IPC`, `CollNet .. via COLLNET/..`): count per
    /// text after `via`, whole, as printed (`P2P/direct pointer`, `NET/AWS Libfabric/0`,
    /// `direct shared memory`), less a ` comm 0x..` tail.
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
    /// Lines that state a fact only partly (cut mid-line: a ring ending in `->`, a connection
    /// without its transport, a last line with no newline that would have stated a fact): not
    /// read as facts; the first 20 in (file, line) order, and their total.
    pub partial_lines: Vec<LogLine>,
    pub partial_line_count: u64,
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
