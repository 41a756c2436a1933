//! The run page's "Hosts" block, for a multi-node run (per-host artifacts, or NCCL logs from
//! two or more hosts): each host's GPUs, topology matrix and NICs, the network NCCL logged
//! (net, NICs, GPU Direct RDMA, NET versus intra-node connections), the rank -> host -> GPU
//! map, the NCCL log files grouped by host, and per case each host's share of the slowest rank
//! (`host_views`). Knows the summaries and the site's view types only.

use crate::analysis::summarize::RunSummary;
use crate::core::model::artifacts::GpuInfo;
use crate::core::model::hosts::{rank_map, HostFacts};
use crate::core::model::nccl_log::NcclLogFacts;
use crate::site::host_views;
use crate::site::view::{Block, Cell, Table};

/// The block, or `None` for a single-node run.
pub(crate) fn build(run: &RunSummary) -> Option<Block> {
    let log = run.raw.nccl_log.as_ref();
    let log_hosts = log.map_or(0, |l| l.files_by_host.len());
    if run.raw.hosts.is_empty() && log_hosts < 2 {
        return None;
    }
    let hosts = &run.raw.hosts;
    let mut intro = vec![format!(
        "{} hosts: {}.",
        hosts.len().max(log_hosts),
        if hosts.is_empty() {
            log.map(|l| l.files_by_host.keys().cloned().collect::<Vec<_>>().join(", ")).unwrap_or_default()
        } else {
            hosts
                .iter()
                .map(|h| format!("{} ({})", h.host, crate::core::format::count(h.gpus.len(), "GPU")))
                .collect::<Vec<_>>()
                .join(", ")
        }
    )];
    if let Some(log) = log {
        intro.extend(network_lines(log));
    }
    let mut tables = vec![rank_table(run)];
    tables.extend(hosts.iter().map(gpu_table));
    tables.extend(hosts.iter().filter_map(topology_table));
    tables.push(nic_table(hosts, log));
    if let Some(log) = log {
        tables.push(logs_table(log));
    }
    tables.push(host_views::table(run));
    tables.retain(|t| !t.rows.is_empty());
    Some(Block { id: "hosts".into(), title: "Hosts".into(), intro, tables, ..Block::default() })
}

/// The net NCCL chose and how its connections went: `NET/...` between hosts, the rest
/// (`P2P`, `SHM`, ...) inside one.
fn network_lines(log: &NcclLogFacts) -> Vec<String> {
    let mut lines = Vec::new();
    if !log.networks.is_empty() {
        lines.push(format!("NCCL network: {}.", log.networks.join(", ")));
    }
    let net: u64 = log.transports.iter().filter(|(k, _)| k.starts_with("NET/")).map(|(_, n)| n).sum();
    let total: u64 = log.transports.values().sum();
    if total > 0 {
        lines.push(format!(
            "Connections logged: {net} through the network (NET/...), {} inside a host (P2P, SHM, ...).",
            total - net
        ));
    }
    let gdr: Vec<String> = log
        .nics
        .iter()
        .filter_map(|n| n.gdr.map(|on| format!("{} {} {}", n.host, n.device, if on { "on" } else { "off" })))
        .collect();
    if !gdr.is_empty() {
        lines.push(format!("GPU Direct RDMA: {}.", gdr.join(", ")));
    }
    lines
}

fn rank_table(run: &RunSummary) -> Table {
    let mut table = Table::new(
        "Rank -> host -> GPU (NCCL Init lines of the largest communicator)",
        &[
            ("rank", true),
            ("host", false),
            ("cudaDev", true),
            ("busId", false),
            ("GPU (nvidia-smi of that host)", false),
        ],
    );
    let communicators = run.raw.nccl_log.as_ref().map_or(&[][..], |l| l.communicators.as_slice());
    for placed in rank_map(communicators) {
        let host = run.raw.hosts.iter().find(|h| Some(&h.host) == placed.host.as_ref());
        let gpu = host.zip(placed.bus_id.as_deref()).and_then(|(h, bus)| gpu_on_bus(&h.gpus, bus));
        table.push(vec![
            Cell::text(placed.rank.to_string()),
            Cell::text(placed.host.unwrap_or_default()),
            Cell::text(placed.cuda_dev.map(|d| d.to_string()).unwrap_or_default()),
            Cell::text(placed.bus_id.unwrap_or_default()),
            Cell::text(gpu.map(|g| format!("GPU{} {} ({})", g.index, g.name, g.uuid)).unwrap_or_default()),
        ]);
    }
    table
}

/// The GPU whose PCI bus id is NCCL's `busId`: NCCL prints the id's hex digits as one number
/// (`00000000:18:00.0` -> `18000`).
fn gpu_on_bus<'a>(gpus: &'a [GpuInfo], bus_id: &str) -> Option<&'a GpuInfo> {
    let number = |text: &str| {
        let digits: String = text.chars().filter(char::is_ascii_hexdigit).collect();
        u64::from_str_radix(&digits, 16).ok()
    };
    let wanted = number(bus_id)?;
    gpus.iter().find(|g| number(&g.pci_bus_id) == Some(wanted))
}

fn gpu_table(host: &HostFacts) -> Table {
    let mut table = Table::new(
        format!("{}: nvidia-smi --query-gpu", host.host),
        &[("index", true), ("name", false), ("UUID", false), ("driver", false), ("memory", true), ("PCI bus", false)],
    );
    for g in &host.gpus {
        table.push(
            [&g.index, &g.name, &g.uuid, &g.driver_version, &g.memory_total, &g.pci_bus_id]
                .map(|v| Cell::text(v.clone()))
                .to_vec(),
        );
    }
    table
}

fn topology_table(host: &HostFacts) -> Option<Table> {
    let topo = host.topology.as_ref()?;
    let mut columns: Vec<(&str, bool)> = vec![("", false)];
    columns.extend(topo.header.iter().map(|h| (h.as_str(), false)));
    let mut table = Table::new(format!("{}: nvidia-smi topo -m", host.host), &columns);
    for row in &topo.rows {
        table.push(row.iter().map(|c| Cell::text(c.clone())).collect());
    }
    Some(table)
}

/// Every NIC: the ports of each host's ibv_devinfo, then the devices NCCL said it used.
fn nic_table(hosts: &[HostFacts], log: Option<&NcclLogFacts>) -> Table {
    let mut table = Table::new(
        "NICs (artifacts/<host>/ibv_devinfo.txt, and the NET lines of the NCCL logs)",
        &[
            ("host", false),
            ("source", false),
            ("device", false),
            ("state", false),
            ("link", false),
            ("rate (Gb/s)", true),
            ("GPU Direct RDMA", false),
        ],
    );
    for host in hosts {
        for port in &host.nics {
            table.push(vec![
                Cell::text(host.host.clone()),
                Cell::text("ibv_devinfo"),
                Cell::text(format!("{} port {}", port.device, port.port)),
                Cell::text(if port.active { "active" } else { "not active" }),
                Cell::text(port.link_layer.clone().unwrap_or_default()),
                Cell::text(port.rate_gbps.map(|r| r.to_string()).unwrap_or_default()),
                Cell::text(""),
            ]);
        }
    }
    for nic in log.map_or(&[][..], |l| l.nics.as_slice()) {
        table.push(vec![
            Cell::text(nic.host.clone()),
            Cell::text(format!("NCCL NET/{}", nic.net)),
            Cell::text(format!("[{}] {}", nic.index, nic.device)),
            Cell::text("used"),
            Cell::text(""),
            Cell::text(""),
            Cell::text(match nic.gdr {
                Some(true) => "enabled",
                Some(false) => "disabled",
                None => "",
            }),
        ]);
    }
    table
}

fn logs_table(log: &NcclLogFacts) -> Table {
    let mut table = Table::new("NCCL log files by host", &[("host", false), ("files", true), ("file", false)]);
    for (host, files) in &log.files_by_host {
        for (i, file) in files.iter().enumerate() {
            let count = if i == 0 { files.len().to_string() } else { String::new() };
            table.push(vec![Cell::text(host.clone()), Cell::text(count), Cell::text(file.clone())]);
        }
    }
    table
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::analysis::comparison::ranks::tests::decode;
    use crate::analysis::summarize::summarize;
    use crate::core::model::hosts::IbPort;
    use crate::core::model::run::RawRun;
    use crate::ingest::parse::nccl_log::{merge, scan_log};

    fn host(name: &str, rate: Option<f64>) -> HostFacts {
        let gpu = GpuInfo {
            index: "0".into(),
            name: "NVIDIA H200".into(),
            uuid: format!("GPU-{name}-0"),
            driver_version: "580.1".into(),
            memory_total: "143771 MiB".into(),
            pci_bus_id: "00000000:18:00.0".into(),
        };
        let port = IbPort {
            device: "mlx5_0".into(),
            port: 1,
            active: true,
            link_layer: Some("InfiniBand".into()),
            rate_gbps: rate,
        };
        HostFacts { host: name.into(), gpus: vec![gpu], topology: None, nics: vec![port] }
    }

    /// A 2-host run: the NCCL logs of `tests/data/nccl`, rank 1 (node2) slowest in 2 of 3 cycles.
    fn two_hosts() -> RawRun {
        let logs: [(&[u8], &str); 2] = [
            (include_bytes!("../../tests/data/nccl/rank0_multinode.log"), "raw/nccl/world2_node1_100.log"),
            (include_bytes!("../../tests/data/nccl/rank1_multinode.log"), "raw/nccl/world2_node2_200.log"),
        ];
        let mut facts = NcclLogFacts::default();
        for (bytes, name) in logs {
            merge(&mut facts, scan_log(bytes, name).expect("in memory"));
        }
        RawRun {
            id: "two".into(),
            hosts: vec![host("node1", Some(400.0)), host("node2", None)],
            nccl_log: Some(facts),
            sections: vec![decode(0, &[10.0, 12.0, 10.0]), decode(1, &[11.0, 11.0, 14.0])],
            ..RawRun::default()
        }
    }

    fn text(block: &Block) -> String {
        let mut out = format!("## {}\n", block.title);
        for line in &block.intro {
            out += &format!("{line}\n");
        }
        for table in &block.tables {
            out += &format!("\n### {}\n", table.caption);
            out += &table.columns.iter().map(|c| c.label.as_str()).collect::<Vec<_>>().join(" | ");
            for row in &table.rows {
                out += "\n";
                out += &row.iter().map(|c| c.text.as_str()).collect::<Vec<_>>().join(" | ");
            }
            out += "\n";
        }
        out
    }

    #[test]
    fn two_host_run_block() {
        let block = build(&summarize(two_hosts())).expect("a 2-host run has the block");
        insta::assert_snapshot!(text(&block));
        let views = block.tables.last().expect("per-host table");
        assert_eq!(views.rows[0].last().map(|c| c.text.as_str()), Some("node2"), "node2 is the slow host");
    }

    #[test]
    fn single_node_run_has_no_block() {
        assert_eq!(build(&summarize(RawRun::default())), None);
        let one_log_host = RawRun {
            nccl_log: two_hosts().nccl_log.map(|mut l| {
                l.files_by_host.remove("node2");
                l
            }),
            ..RawRun::default()
        };
        assert_eq!(build(&summarize(one_log_host)), None);
    }

    #[test]
    fn bus_ids_match_as_nccl_prints_them() {
        let gpus = host("n", None).gpus;
        assert!(gpu_on_bus(&gpus, "18000").is_some());
        assert!(gpu_on_bus(&gpus, "18").is_none());
        assert!(gpu_on_bus(&gpus, "zz").is_none());
    }
}
