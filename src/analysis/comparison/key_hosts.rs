//! The multi-node parts of the comparison key: nodes and GPUs per node from the hosts of a run
//! (`artifacts/<host>/`), and the NICs of a node, so that a 2x8 run is never compared with a
//! 1x16 one nor a 4x400 Gb/s cluster with a 1x100 Gb/s one.
//!
//! NICs: the active InfiniBand/RoCE ports of each host's `ibv_devinfo.txt` (`8x 400 Gb/s
//! InfiniBand`; `rate not logged` where plain `ibv_devinfo` printed none), else the devices of
//! NCCL's `NET/<net> : Using` lines per host (`2x IB (NCCL log)`); hosts that differ give every
//! distinct value joined with ` | `. A single-node run's NICs carry no collective traffic, so
//! its part is `not used (one node)` whatever the artifacts say: single-node runs stay
//! comparable with one another. Knows `model` and `summarize` only.

use crate::analysis::summarize::RunSummary;
use crate::core::model::hosts::IbPort;
use std::collections::{BTreeMap, BTreeSet};

/// Value of the `nics` part for a single-node run.
pub const ONE_NODE: &str = "not used (one node)";

/// Node count from the hosts of the run (`None` without per-host artifacts).
pub fn nodes(run: &RunSummary) -> Option<String> {
    (!run.raw.hosts.is_empty()).then(|| run.raw.hosts.len().to_string())
}

/// GPUs per node from the hosts' nvidia-smi lists (distinct counts joined with `+`).
pub fn gpus_per_node(run: &RunSummary) -> Option<String> {
    let counts: BTreeSet<usize> = run.raw.hosts.iter().filter(|h| !h.gpus.is_empty()).map(|h| h.gpus.len()).collect();
    (!counts.is_empty()).then(|| counts.iter().map(usize::to_string).collect::<Vec<_>>().join("+"))
}

/// The `nics` part, given the run's `nodes` part.
pub fn nics(run: &RunSummary, nodes: Option<&str>) -> Option<String> {
    if nodes == Some("1") {
        return Some(ONE_NODE.to_string());
    }
    let from_artifacts: BTreeSet<String> =
        run.raw.hosts.iter().filter(|h| !h.nics.is_empty()).map(|h| ports_summary(&h.nics)).collect();
    if !from_artifacts.is_empty() {
        return Some(from_artifacts.into_iter().collect::<Vec<_>>().join(" | "));
    }
    let log = run.raw.nccl_log.as_ref()?;
    let mut per_host: BTreeMap<&str, BTreeMap<&str, usize>> = BTreeMap::new();
    for nic in &log.nics {
        *per_host.entry(nic.host.as_str()).or_default().entry(nic.net.as_str()).or_default() += 1;
    }
    let summaries: BTreeSet<String> = per_host
        .values()
        .map(|nets| nets.iter().map(|(net, n)| format!("{n}x {net}")).collect::<Vec<_>>().join(", ") + " (NCCL log)")
        .collect();
    (!summaries.is_empty()).then(|| summaries.into_iter().collect::<Vec<_>>().join(" | "))
}

/// Active ports grouped by rate and link layer: `8x 400 Gb/s InfiniBand`; `no active port`.
fn ports_summary(ports: &[IbPort]) -> String {
    let mut groups: BTreeMap<(String, &str), usize> = BTreeMap::new();
    for port in ports.iter().filter(|p| p.active) {
        let rate = port.rate_gbps.map_or_else(|| "rate not logged".to_string(), |r| format!("{r} Gb/s"));
        *groups.entry((rate, port.link_layer.as_deref().unwrap_or("unknown link"))).or_default() += 1;
    }
    if groups.is_empty() {
        return "no active port".to_string();
    }
    groups.iter().map(|((rate, link), n)| format!("{n}x {rate} {link}")).collect::<Vec<_>>().join(", ")
}

#[cfg(test)]
mod tests {
    use super::*;

    fn port(device: &str, active: bool, rate: Option<f64>) -> IbPort {
        IbPort { device: device.into(), port: 1, active, link_layer: Some("InfiniBand".into()), rate_gbps: rate }
    }

    #[test]
    fn ports_grouped_by_rate_inactive_left_out() {
        let ports = [port("a", true, Some(400.0)), port("b", true, Some(400.0)), port("c", false, None)];
        assert_eq!(ports_summary(&ports), "2x 400 Gb/s InfiniBand");
        assert_eq!(ports_summary(&[port("a", true, None)]), "1x rate not logged InfiniBand");
        assert_eq!(ports_summary(&[port("a", false, None)]), "no active port");
    }
}
