//! Evidence-boundary statements, generated from what each run says: hardware, topology, the
//! nodes (from its facts: single node only when something says so), NCCL and CUDA versions
//! (the logged CUDA driver when the runtime is not recorded), cycles (what each section measures lives with the section, `site::sections`).

use crate::core::model::facts::RunFacts;

/// Statements about the conditions of one run, from its facts.
pub(crate) fn run_statements(facts: &RunFacts) -> Vec<String> {
    let mut out = Vec::new();
    let gpu = facts.gpu.as_deref().unwrap_or("an unrecorded GPU");
    let topology = facts.topology.as_deref().unwrap_or("topology not recorded");
    let nodes = match facts.nodes {
        Some(1) => "single node".to_string(),
        Some(nodes) => format!("{nodes} nodes"),
        None => "node count not recorded".to_string(),
    };
    out.push(format!("Measured on {gpu} ({topology}), {nodes}."));
    let cuda = match (&facts.cuda_version, &facts.cuda_driver) {
        (Some(runtime), _) => runtime.clone(),
        (None, Some(driver)) => format!("driver {driver} (runtime not recorded)"),
        (None, None) => "not recorded".to_string(),
    };
    out.push(format!(
        "NCCL {}, PyTorch {}, CUDA {cuda}.",
        facts.nccl_version.as_deref().unwrap_or("version not recorded"),
        facts.torch_version.as_deref().unwrap_or("not recorded"),
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

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn nodes_and_cuda_from_the_facts() {
        let mut facts = RunFacts { gpu: Some("2x Tesla T4".into()), ..RunFacts::default() };
        let first_two = |facts: &RunFacts| run_statements(facts)[..2].to_vec();
        assert_eq!(
            first_two(&facts),
            [
                "Measured on 2x Tesla T4 (topology not recorded), node count not recorded.",
                "NCCL version not recorded, PyTorch not recorded, CUDA not recorded."
            ]
        );
        facts.nodes = Some(1);
        facts.cuda_driver = Some("13.0".into());
        let lines = first_two(&facts);
        assert!(lines[0].ends_with(", single node."), "{lines:?}");
        assert!(lines[1].ends_with("CUDA driver 13.0 (runtime not recorded)."), "{lines:?}");
        facts.nodes = Some(2);
        facts.cuda_version = Some("12.8".into());
        let lines = first_two(&facts);
        assert!(lines[0].ends_with(", 2 nodes.") && lines[1].ends_with("CUDA 12.8."), "{lines:?}");
    }
}
