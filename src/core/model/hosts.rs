//! The hosts of a run: each host's GPUs and topology (from `artifacts/<host>/`, written by a
//! multi-node collect; NICs from its ibv_devinfo), and where each rank ran (from the NCCL logs' init lines). Plain data.

use crate::core::model::artifacts::{GpuInfo, TopologyMatrix};
use crate::core::model::nccl_log::CommunicatorInfo;
use serde::Serialize;
use std::collections::BTreeMap;

/// One host of a multi-node run, as its `artifacts/<host>/` describes it.
#[derive(Debug, Clone, Default, PartialEq, Serialize)]
pub struct HostFacts {
    pub host: String,
    pub gpus: Vec<GpuInfo>,
    pub topology: Option<TopologyMatrix>,
    /// InfiniBand/RoCE ports from `artifacts/<host>/ibv_devinfo.txt` (ibv_devinfo or ibstat).
    pub nics: Vec<IbPort>,
}

/// One port of an InfiniBand/RoCE device.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct IbPort {
    pub device: String,
    pub port: u64,
    pub active: bool,
    /// `InfiniBand`, `Ethernet` (RoCE).
    pub link_layer: Option<String>,
    /// Gb/s, where the tool printed it.
    pub rate_gbps: Option<f64>,
}

/// Rank -> host -> GPU, as NCCL logged it at init.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct RankPlacement {
    pub rank: u64,
    pub host: Option<String>,
    pub cuda_dev: Option<u64>,
    pub bus_id: Option<String>,
}

/// Where each rank of the largest communicator ran, by rank (the first init line of a rank
/// wins; ranks of smaller communicators, such as a split's, are not mixed in).
pub fn rank_map(communicators: &[CommunicatorInfo]) -> Vec<RankPlacement> {
    let Some(nranks) = communicators.iter().map(|c| c.nranks).max() else {
        return Vec::new();
    };
    let mut by_rank: BTreeMap<u64, RankPlacement> = BTreeMap::new();
    for comm in communicators.iter().filter(|c| c.nranks == nranks) {
        by_rank.entry(comm.rank).or_insert_with(|| RankPlacement {
            rank: comm.rank,
            host: comm.host.clone(),
            cuda_dev: comm.cuda_dev,
            bus_id: comm.bus_id.clone(),
        });
    }
    by_rank.into_values().collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn comm(rank: u64, nranks: u64, host: &str, dev: u64) -> CommunicatorInfo {
        CommunicatorInfo {
            comm_id: String::new(),
            rank,
            nranks,
            cuda_dev: Some(dev),
            bus_id: Some(format!("{dev}000")),
            host: Some(host.to_string()),
            init_complete: true,
        }
    }

    #[test]
    fn ranks_of_the_largest_communicator_by_rank() {
        let comms = [comm(3, 4, "node2", 1), comm(0, 4, "node1", 0), comm(0, 2, "node9", 7), comm(3, 4, "x", 5)];
        let map = rank_map(&comms);
        let placed: Vec<(u64, &str, u64)> =
            map.iter().map(|p| (p.rank, p.host.as_deref().unwrap(), p.cuda_dev.unwrap())).collect();
        assert_eq!(placed, [(0, "node1", 0), (3, "node2", 1)]);
        assert!(rank_map(&[]).is_empty());
    }
}
