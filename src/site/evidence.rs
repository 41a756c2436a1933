//! Evidence-boundary statements, generated from what each run says: hardware, topology,
//! NCCL version, cycles (what each section measures lives with the section, `site::sections`).

use crate::analysis::overview::RunOverview;

/// Statements about the conditions of one run.
pub(crate) fn run_statements(run: &RunOverview) -> Vec<String> {
    let facts = &run.facts;
    let mut out = Vec::new();
    let gpu = facts.gpu.as_deref().unwrap_or("an unrecorded GPU");
    let topology = facts.topology.as_deref().unwrap_or("topology not recorded");
    out.push(format!("Measured on {gpu} ({topology}), single node."));
    out.push(format!(
        "NCCL {}, PyTorch {}, CUDA {}.",
        facts.nccl_version.as_deref().unwrap_or("version not recorded"),
        facts.torch_version.as_deref().unwrap_or("not recorded"),
        facts.cuda_version.as_deref().unwrap_or("not recorded"),
    ));
    if !facts.world_sizes.is_empty() {
        let sizes: Vec<String> = facts.world_sizes.iter().map(|w| w.to_string()).collect();
        out.push(format!("World sizes run: {}.", sizes.join(", ")));
    }
    if facts.world_sizes.iter().all(|&w| w <= 1) && !facts.world_sizes.is_empty() {
        out.push("Only one rank took part: collectives move no data between GPUs, so these numbers are launch and synchronization overheads, not communication.".to_string());
    }
    match facts.cycles {
        Some(cycles) => out.push(format!(
            "{} per case; each cycle's value is the slowest rank's (critical path).",
            crate::core::format::count(cycles, "timed cycle")
        )),
        None => out.push("Each cycle's value is the slowest rank's (critical path).".to_string()),
    }
    out.push("Exact percentages hold only for the recorded hardware, software and message sizes.".to_string());
    out
}
