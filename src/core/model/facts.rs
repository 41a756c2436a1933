//! The facts a run states about itself (hardware, versions, world sizes, sections), shown
//! on the index and in `runs.json`; `summarize::facts` derives them from a `RawRun`.

use crate::core::model::inspector::InspectorSummary;
use serde::{Deserialize, Serialize};

/// What a run says about itself; a fact the run does not state is `None` (or empty).
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct RunFacts {
    pub timestamp_utc: Option<String>,
    pub hostname: Option<String>,
    /// `4x NVIDIA H200` from nvidia-smi, else the manifest's `gpu`.
    pub gpu: Option<String>,
    pub gpu_count: Option<u64>,
    pub driver_version: Option<String>,
    /// Links between GPUs from `nvidia-smi topo -m` (e.g. `NV18`), else the manifest's `topology`.
    pub topology: Option<String>,
    /// World sizes of the suite's cases (from the rows) and of the nccl-tests outputs.
    pub world_sizes: Vec<i64>,
    pub nccl_tests_world_sizes: Vec<u64>,
    pub nccl_version: Option<String>,
    pub torch_version: Option<String>,
    pub cuda_version: Option<String>,
    pub nccl_tests_version: Option<String>,
    /// Timed cycles per case, from the manifest (`None` when absent or not a whole number).
    pub cycles: Option<u64>,
    /// Which parts of the suite the run holds.
    pub sections: Vec<String>,
    /// NCCL's own records (Inspector plugin) per case folder and (operation, size); absent
    /// from `runs.json` when the run has none.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub inspector: Vec<InspectorSummary>,
    /// The hosts of a multi-node run (`artifacts/<host>/`), each with its GPU count; empty
    /// (and absent from `runs.json`) for a single-node run.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub hosts: Vec<HostGpus>,
    /// Nodes the run spans: the most that its artifacts (`artifacts/<host>/` folders, or one
    /// machine's `artifacts/`) and its NCCL logs (`nNodes`, the hosts their lines name) say;
    /// absent when nothing says.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub nodes: Option<u64>,
    /// The CUDA driver NCCL logged (`cudaDriverVersion 13000` -> `13.0`); absent when not logged.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub cuda_driver: Option<String>,
}

/// A host of a multi-node run and how many GPUs its nvidia-smi artifact lists.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct HostGpus {
    pub host: String,
    pub gpus: u64,
}
