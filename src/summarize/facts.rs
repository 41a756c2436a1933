//! The facts a run states about itself, for the index and `runs.json`: hardware from the
//! nvidia-smi artifacts (the seed's manifest hard-codes its `gpu=` line), software versions
//! from the NCCL logs and the manifest, ranks from the rows. Disagreements become warnings.

use crate::diag::Diagnostic;
use crate::model::inspector::InspectorSummary;
use crate::model::run::RawRun;
use serde::{Deserialize, Serialize};
use std::collections::BTreeSet;

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
    pub cycles: Option<String>,
    /// Which parts of the suite the run holds.
    pub sections: Vec<String>,
    /// NCCL's own records (Inspector plugin) per case folder and (operation, size); absent
    /// from `runs.json` when the run has none.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub inspector: Vec<InspectorSummary>,
    /// The hosts of a multi-node run (`artifacts/<host>/`), each with its GPU count:
    /// `node1 (8 GPUs)`; empty (and absent from `runs.json`) for a single-node run.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub hosts: Vec<String>,
}

pub fn collect(raw: &RawRun, diagnostics: &mut Vec<Diagnostic>) -> RunFacts {
    let manifest = |key: &str| raw.manifest.as_ref().and_then(|m| m.get(key)).map(str::to_string);
    let mut facts = RunFacts {
        timestamp_utc: manifest("timestamp_utc"),
        hostname: manifest("hostname"),
        torch_version: manifest("torch"),
        cuda_version: manifest("cuda_runtime"),
        cycles: manifest("cycles"),
        ..RunFacts::default()
    };
    if let Some(first) = raw.gpus.first() {
        let names: BTreeSet<&str> = raw.gpus.iter().map(|g| g.name.as_str()).collect();
        let names: Vec<&str> = names.into_iter().collect();
        facts.gpu = Some(format!("{}x {}", raw.gpus.len(), names.join(" + ")));
        facts.gpu_count = Some(raw.gpus.len() as u64);
        facts.driver_version = Some(first.driver_version.clone());
        if let Some(claimed) = manifest("gpu") {
            if !claimed.contains(names[0]) {
                diagnostics.push(Diagnostic::warning(
                    "manifest.txt",
                    None,
                    format!(
                        "manifest says gpu={claimed:?} but nvidia-smi lists {:?}; the site shows nvidia-smi",
                        facts.gpu.as_deref().unwrap_or("")
                    ),
                ));
            }
        }
    } else {
        facts.gpu = manifest("gpu");
    }
    facts.topology = match &raw.topology {
        Some(topo) if !topo.gpu_links.is_empty() => Some(format!("GPU links: {}", topo.gpu_links.join(", "))),
        Some(topo) if topo.rows.iter().filter(|r| r.first().is_some_and(|c| c.starts_with("GPU"))).count() == 1 => {
            Some("single GPU".to_string())
        }
        _ => manifest("topology"),
    };
    let log_version = raw.nccl_log.as_ref().and_then(|l| l.nccl_versions.first().cloned());
    let manifest_version = manifest("nccl_runtime");
    if let (Some(log), Some(claimed)) = (&log_version, &manifest_version) {
        if !log.starts_with(claimed.as_str()) {
            diagnostics.push(Diagnostic::warning(
                "manifest.txt",
                None,
                format!("manifest says nccl_runtime={claimed} but the NCCL logs say {log}"),
            ));
        }
    }
    facts.nccl_version = log_version.or(manifest_version);
    facts.nccl_tests_version = raw.nccl_tests.iter().find_map(|f| f.output.version.clone());

    let mut world_sizes = BTreeSet::new();
    let mut sections = BTreeSet::new();
    for data in &raw.sections {
        sections.insert(data.section());
        world_sizes.extend(super::consistency::row_world_sizes(&data.rows));
    }
    facts.world_sizes = world_sizes.into_iter().collect();
    facts.sections = sections.into_iter().map(|s| s.name().to_string()).collect();
    if !raw.nccl_tests.is_empty() {
        facts.sections.push("nccl-tests".to_string());
    }
    let nccl_ws: BTreeSet<u64> = raw.nccl_tests.iter().filter_map(|f| f.world_size).collect();
    facts.nccl_tests_world_sizes = nccl_ws.into_iter().collect();
    let tuning = raw.nccl_log.as_ref().map_or(&[][..], |l| &l.tuning[..]);
    facts.inspector = super::inspector::summarize(&raw.inspector, tuning);
    if !raw.hosts.is_empty() {
        facts.hosts = raw.hosts.iter().map(|h| format!("{} ({} GPUs)", h.host, h.gpus.len())).collect();
        facts.gpu_count = Some(raw.hosts.iter().map(|h| h.gpus.len() as u64).sum());
    }
    facts
}
