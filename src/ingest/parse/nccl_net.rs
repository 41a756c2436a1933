//! The network lines of an NCCL_DEBUG=INFO log: the devices a net uses
//! (`NET/IB : Using [0]mlx5_0:1/IB [1]mlx5_1:1/RoCE [RO]; OOB ib0:10.0.0.1<0>`, from
//! `transport/net_ib/init.cc`; `NET/Socket : Using [0]eth0:10.0.0.1<0>`, from
//! `transport/net_socket.cc`) and GPU Direct RDMA per device
//! (`NET/IB : GPU Direct RDMA Enabled for HCA 0 'mlx5_0'`, from `graph/topo.cc`).
//! Pure text functions; knows `model` only.

use crate::core::model::nccl_log::NicInfo;

/// Most devices kept per run (a log has one line per net per process).
const MAX_NICS: usize = 256;

/// What one `NET/<net> : ...` message says.
#[derive(Debug, PartialEq)]
pub(crate) enum NetLine {
    /// (index, device) of every device in a `Using` line.
    Using(Vec<(u64, String)>),
    Gdr {
        index: u64,
        name: String,
        enabled: bool,
    },
}

/// `NET/IB : Using ...` or `NET/IB : GPU Direct RDMA ...` -> (net, what it says); `None` for
/// any other line.
pub(crate) fn parse(message: &str) -> Option<(String, NetLine)> {
    let (net, body) = message.strip_prefix("NET/")?.split_once(" : ")?;
    let net = net.trim();
    if let Some(devices) = body.strip_prefix("Using") {
        let devices = devices.split(';').next().unwrap_or_default();
        let list: Vec<(u64, String)> = devices
            .split_whitespace()
            .filter_map(|word| {
                let (index, name) = word.strip_prefix('[')?.split_once(']')?;
                let index = index.parse::<u64>().ok()?;
                let name = if net == "Socket" { name.split(':').next().unwrap_or(name) } else { name };
                (!name.is_empty()).then(|| (index, name.to_string()))
            })
            .collect();
        return (!list.is_empty()).then(|| (net.to_string(), NetLine::Using(list)));
    }
    let rest = body.strip_prefix("GPU Direct RDMA ")?;
    let (state, rest) = rest.split_once(" for HCA ")?;
    let enabled = match state {
        "Enabled" => true,
        "Disabled" => false,
        _ => return None,
    };
    let (index, name) = rest.split_once(' ')?;
    let name = name.trim().trim_matches('\'').to_string();
    Some((net.to_string(), NetLine::Gdr { index: index.parse().ok()?, name, enabled }))
}

/// Adds what a line of `host` says to `nics` (kept sorted and distinct).
pub(crate) fn apply(nics: &mut Vec<NicInfo>, host: &str, net: String, line: NetLine) {
    match line {
        NetLine::Using(devices) => {
            let found = devices.into_iter().map(|(index, device)| NicInfo {
                host: host.to_string(),
                net: net.clone(),
                index,
                device,
                gdr: None,
            });
            merge(nics, found.collect());
        }
        NetLine::Gdr { index, name, enabled } => {
            let same = |n: &&mut NicInfo| n.host == host && n.net == net && n.index == index;
            match nics.iter_mut().find(same) {
                Some(nic) => nic.gdr = Some(enabled),
                None => {
                    merge(nics, vec![NicInfo { host: host.to_string(), net, index, device: name, gdr: Some(enabled) }])
                }
            }
        }
    }
}

/// Folds `other` into `into`: one entry per (host, net, index, device), a logged GDR state
/// winning over none; sorted, at most `MAX_NICS`.
pub(crate) fn merge(into: &mut Vec<NicInfo>, other: Vec<NicInfo>) {
    into.extend(other);
    into.sort_by(|a, b| {
        (&a.host, &a.net, a.index, &a.device, b.gdr).cmp(&(&b.host, &b.net, b.index, &b.device, a.gdr))
    });
    into.dedup_by(|a, b| (&a.host, &a.net, a.index, &a.device) == (&b.host, &b.net, b.index, &b.device));
    into.truncate(MAX_NICS);
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ib_and_socket_using_lines_as_nccl_prints_them() {
        let ib = parse("NET/IB : Using [0]mlx5_0:1/IB [1]mlx5_1:1/RoCE [2]mlx5_4:1:0/IB [RO]; OOB ib0:10.0.0.1<0>");
        let expected = vec![(0, "mlx5_0:1/IB".to_string()), (1, "mlx5_1:1/RoCE".into()), (2, "mlx5_4:1:0/IB".into())];
        assert_eq!(ib, Some(("IB".to_string(), NetLine::Using(expected))));
        let socket = parse("NET/Socket : Using [0]eth0:10.0.0.1<0> [1]eth1:fe80::1%eth1<0>");
        assert_eq!(socket, Some(("Socket".to_string(), NetLine::Using(vec![(0, "eth0".into()), (1, "eth1".into())]))));
        assert_eq!(parse("NET/IB : No device found."), None);
        assert_eq!(parse("NET/Plugin : Plugin load (libnccl-net.so) returned 2"), None);
    }

    #[test]
    fn gdr_line_sets_the_device_state() {
        let gdr = parse("NET/IB : GPU Direct RDMA Enabled for HCA 0 'mlx5_0'").unwrap();
        assert_eq!(gdr.1, NetLine::Gdr { index: 0, name: "mlx5_0".into(), enabled: true });
        let mut nics = Vec::new();
        let (net, using) = parse("NET/IB : Using [0]mlx5_0:1/IB ; OOB ib0:10.0.0.1<0>").unwrap();
        apply(&mut nics, "node1", net, using);
        apply(&mut nics, "node1", gdr.0.clone(), gdr.1);
        let (net, off) = parse("NET/IB : GPU Direct RDMA Disabled for HCA 1 'mlx5_1'").unwrap();
        apply(&mut nics, "node2", net, off);
        let seen: Vec<(&str, &str, Option<bool>)> =
            nics.iter().map(|n| (n.host.as_str(), n.device.as_str(), n.gdr)).collect();
        assert_eq!(seen, [("node1", "mlx5_0:1/IB", Some(true)), ("node2", "mlx5_1", Some(false))]);
        let mut again = nics.clone();
        merge(&mut again, vec![NicInfo { gdr: None, ..nics[0].clone() }]);
        assert_eq!(again, nics, "a logged GDR state wins over none");
    }

    /// A GDR line sets the state of its own HCA only: the one of its host, its net and its
    /// index, not another that shares one or two of them.
    #[test]
    fn a_gdr_line_sets_only_the_device_of_its_host_net_and_index() {
        let mut nics = Vec::new();
        for (host, line) in [
            ("node1", "NET/IB : Using [0]mlx5_0:1/IB [1]mlx5_1:1/IB ; OOB ib0:10.0.0.1<0>"),
            ("node2", "NET/IB : Using [0]mlx5_0:1/IB ; OOB ib0:10.0.0.2<0>"),
            ("node1", "NET/Socket : Using [0]eth0:10.0.0.1<0>"),
        ] {
            let (net, using) = parse(line).unwrap();
            apply(&mut nics, host, net, using);
        }
        // Neither is the first device of the list, which a looser match would take.
        for (host, line) in [
            ("node1", "NET/IB : GPU Direct RDMA Enabled for HCA 1 'mlx5_1'"),
            ("node2", "NET/IB : GPU Direct RDMA Enabled for HCA 0 'mlx5_0'"),
        ] {
            let (net, gdr) = parse(line).unwrap();
            apply(&mut nics, host, net, gdr);
        }
        let set: Vec<(&str, &str, u64)> =
            nics.iter().filter(|n| n.gdr.is_some()).map(|n| (n.host.as_str(), n.net.as_str(), n.index)).collect();
        assert_eq!(set, [("node1", "IB", 1), ("node2", "IB", 0)]);
    }
}
