//! The `nvidia-smi topo -m` matrix as a link-class graph between GPUs (and NICs), and the
//! bottleneck of a communicator: its worst GPU pair (NVLink with the fewest bonded links, else
//! the farthest PCIe class: PIX < PXB < PHB < NODE < SYS), and the NICs a multi-node
//! communicator crosses. Uses `model::artifacts` (parsed by `parse::artifacts`).

use crate::core::model::artifacts::TopologyMatrix;
use std::fmt;

/// One link class of the matrix legend, best first.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum LinkClass {
    /// `NV#`: a bonded set of # NVLinks (more is better).
    Nvlink(u32),
    /// `PIX`: at most one PCIe bridge.
    Pix,
    /// `PXB`: several PCIe bridges, no host bridge.
    Pxb,
    /// `PHB`: through a PCIe host bridge (the CPU).
    Phb,
    /// `NODE`: between PCIe host bridges of one NUMA node.
    Node,
    /// `SYS`: across the SMP interconnect between NUMA nodes.
    Sys,
}

impl LinkClass {
    /// `NV18`, `PIX`, ...; `None` for `X`, empty or unknown cells.
    pub(crate) fn parse(cell: &str) -> Option<LinkClass> {
        match cell.trim() {
            "PIX" => Some(LinkClass::Pix),
            "PXB" => Some(LinkClass::Pxb),
            "PHB" => Some(LinkClass::Phb),
            "NODE" => Some(LinkClass::Node),
            "SYS" => Some(LinkClass::Sys),
            other => other.strip_prefix("NV")?.parse::<u32>().ok().filter(|n| *n > 0).map(LinkClass::Nvlink),
        }
    }

    /// Larger is worse: NVLink by fewer links, then the PCIe classes.
    fn badness(self) -> (u8, u32) {
        match self {
            LinkClass::Nvlink(n) => (0, u32::MAX - n),
            LinkClass::Pix => (1, 0),
            LinkClass::Pxb => (2, 0),
            LinkClass::Phb => (3, 0),
            LinkClass::Node => (4, 0),
            LinkClass::Sys => (5, 0),
        }
    }
}

impl fmt::Display for LinkClass {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            LinkClass::Nvlink(n) => write!(f, "NVLink x{n} (NV{n})"),
            LinkClass::Pix => f.write_str("PCIe, one bridge (PIX)"),
            LinkClass::Pxb => f.write_str("PCIe, several bridges (PXB)"),
            LinkClass::Phb => f.write_str("PCIe through the host bridge (PHB)"),
            LinkClass::Node => f.write_str("PCIe between host bridges of a NUMA node (NODE)"),
            LinkClass::Sys => f.write_str("PCIe across NUMA nodes (SYS)"),
        }
    }
}

/// GPUs, NICs and the class of every GPU pair.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub(crate) struct LinkGraph {
    pub gpus: usize,
    pub nics: usize,
    /// `(a, b, class)` with `a < b`, GPU indices as in the matrix.
    pub gpu_links: Vec<(usize, usize, LinkClass)>,
}

/// Reads the graph from the parsed matrix; rows and columns named `GPU<i>` and `NIC<i>`.
pub(crate) fn link_graph(matrix: &TopologyMatrix) -> LinkGraph {
    let gpu_index = |name: &str| name.strip_prefix("GPU").and_then(|i| i.parse::<usize>().ok());
    let columns: Vec<Option<usize>> = matrix.header.iter().map(|h| gpu_index(h)).collect();
    let mut graph = LinkGraph {
        gpus: columns.iter().flatten().count(),
        nics: matrix.header.iter().filter(|h| h.strip_prefix("NIC").is_some_and(|i| i.parse::<u32>().is_ok())).count(),
        gpu_links: Vec::new(),
    };
    for row in &matrix.rows {
        let Some(a) = row.first().and_then(|name| gpu_index(name)) else { continue };
        for (column, cell) in columns.iter().zip(row.iter().skip(1)) {
            if let (Some(b), Some(class)) = (column, LinkClass::parse(cell)) {
                if a < *b {
                    graph.gpu_links.push((a, *b, class));
                }
            }
        }
    }
    graph
}

/// The worst link between any two GPUs `in_use` picks (one node); `None` for fewer than two
/// GPUs or when the matrix does not say (then the bottleneck is "unknown", never a guess).
pub(crate) fn intra_node_bottleneck(graph: &LinkGraph, in_use: impl Fn(usize) -> bool) -> Option<LinkClass> {
    graph
        .gpu_links
        .iter()
        .filter(|&&(a, b, _)| in_use(a) && in_use(b))
        .map(|link| link.2)
        .max_by_key(|class| class.badness())
}

/// The bottleneck as a sentence: within a node the worst GPU link; across `nodes` > 1 the NICs
/// (count x per-NIC Gb/s from `ibv_devinfo` when known).
pub(crate) fn bottleneck_text(
    graph: &LinkGraph,
    in_use: impl Fn(usize) -> bool,
    nodes: u64,
    nic_rate_gbit: Option<u32>,
) -> String {
    if nodes > 1 {
        return match (graph.nics, nic_rate_gbit) {
            (0, _) => "across nodes: network, NICs unknown".to_string(),
            (n, Some(rate)) => format!("across nodes: {n} NIC x {rate} Gb/s"),
            (n, None) => format!("across nodes: {n} NIC, rate unknown"),
        };
    }
    intra_node_bottleneck(graph, in_use).map_or_else(|| "unknown".to_string(), |c| c.to_string())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::ingest::parse::artifacts::parse_topology;

    fn graph(text: &str) -> LinkGraph {
        link_graph(&parse_topology(text))
    }

    #[test]
    fn real_one_gpu_h200() {
        let g = graph(include_str!("../../../tests/data/topology/h200_1gpu.txt"));
        assert_eq!((g.gpus, g.nics, g.gpu_links.len()), (1, 0, 0));
        assert_eq!(bottleneck_text(&g, |i| [0].contains(&i), 1, None), "unknown");
    }

    /// DGX H100 layout: 8 GPUs all NV18, NICs PIX to their half and SYS to the other.
    #[test]
    fn dgx_h100_nv18_with_nics() {
        let g = graph(include_str!("../../../tests/data/topology/dgx_h100_nv18_nics.txt"));
        assert_eq!((g.gpus, g.nics, g.gpu_links.len()), (8, 2, 28));
        let all: Vec<usize> = (0..8).collect();
        assert_eq!(intra_node_bottleneck(&g, |i| all.contains(&i)), Some(LinkClass::Nvlink(18)));
        assert_eq!(bottleneck_text(&g, |i| all.contains(&i), 1, None), "NVLink x18 (NV18)");
        assert_eq!(bottleneck_text(&g, |i| all.contains(&i), 2, Some(400)), "across nodes: 2 NIC x 400 Gb/s");
        assert_eq!(bottleneck_text(&g, |i| all.contains(&i), 2, None), "across nodes: 2 NIC, rate unknown");
    }

    #[test]
    fn pcie_box_worst_pair() {
        let g = graph(include_str!("../../../tests/data/topology/pcie_pix_pxb_sys.txt"));
        assert_eq!(intra_node_bottleneck(&g, |i| [0, 1].contains(&i)), Some(LinkClass::Pix));
        assert_eq!(intra_node_bottleneck(&g, |i| [0, 1, 2].contains(&i)), Some(LinkClass::Pxb));
        assert_eq!(intra_node_bottleneck(&g, |i| [0, 1, 2, 3].contains(&i)), Some(LinkClass::Sys));
        assert_eq!(bottleneck_text(&g, |i| [0, 3].contains(&i), 1, None), "PCIe across NUMA nodes (SYS)");
    }

    #[test]
    fn classes_and_order() {
        assert_eq!(LinkClass::parse("NV4"), Some(LinkClass::Nvlink(4)));
        assert_eq!(LinkClass::parse(" X "), None);
        assert_eq!(LinkClass::parse("NV0"), None);
        let worst = [LinkClass::Nvlink(18), LinkClass::Nvlink(2)].into_iter().max_by_key(|c| c.badness());
        assert_eq!(worst, Some(LinkClass::Nvlink(2)));
        assert_eq!(graph("not a matrix"), LinkGraph::default());
    }
}
