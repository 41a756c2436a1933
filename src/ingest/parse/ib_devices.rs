//! `ibv_devinfo` (plain or `-v`) or `ibstat` output -> the InfiniBand/RoCE ports of a host,
//! with state, link layer and rate where the tool prints them (`ibstat`'s `Rate: 400`;
//! `ibv_devinfo -v`'s `active_width: 4X` times `active_speed: 100.0 Gbps`; plain
//! `ibv_devinfo` prints no rate). Anything else (an error text, no device) gives no ports.
//! Pure; knows `model` only.

use crate::core::model::hosts::IbPort;

pub(crate) fn parse_ib_devices(text: &str) -> Vec<IbPort> {
    let mut ports: Vec<IbPort> = Vec::new();
    let mut device = String::new();
    let mut width: Option<f64> = None;
    let mut speed: Option<f64> = None;
    for line in text.lines().map(str::trim) {
        let (key, value) = match line.split_once(':') {
            Some((k, v)) => (k.trim(), v.trim()),
            None => (line, ""),
        };
        if key == "hca_id" {
            device = value.to_string();
        } else if let Some(name) = line.strip_prefix("CA '").and_then(|n| n.strip_suffix('\'')) {
            device = name.to_string();
        } else if let Some(port) = port_number(key, value) {
            finish_rate(ports.last_mut(), width.take(), speed.take());
            ports.push(IbPort { device: device.clone(), port, active: false, link_layer: None, rate_gbps: None });
        } else if let Some(current) = ports.last_mut() {
            match key {
                "state" | "State" => current.active = value.starts_with("PORT_ACTIVE") || value == "Active",
                "link_layer" | "Link layer" => current.link_layer = Some(value.to_string()),
                "Rate" => current.rate_gbps = value.parse().ok(),
                "active_width" => width = value.split('X').next().and_then(|w| w.trim().parse().ok()),
                "active_speed" => speed = value.split_whitespace().next().and_then(|s| s.parse().ok()),
                _ => {}
            }
        }
    }
    finish_rate(ports.last_mut(), width, speed);
    ports
}

/// `port: 1` (ibv_devinfo) or `Port 1:` (ibstat).
fn port_number(key: &str, value: &str) -> Option<u64> {
    match key {
        "port" => value.parse().ok(),
        _ => key.strip_prefix("Port ").filter(|_| value.is_empty()).and_then(|n| n.parse().ok()),
    }
}

fn finish_rate(port: Option<&mut IbPort>, width: Option<f64>, speed: Option<f64>) {
    if let (Some(port), Some(width), Some(speed)) = (port, width, speed) {
        port.rate_gbps.get_or_insert(width * speed);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const IBSTAT: &str = "CA 'mlx5_0'\n\tCA type: MT4129\n\tNumber of ports: 1\n\tFirmware version: 28.39.1002\n\
        \tPort 1:\n\t\tState: Active\n\t\tPhysical state: LinkUp\n\t\tRate: 400\n\t\tBase lid: 7\n\
        \t\tLink layer: InfiniBand\nCA 'mlx5_1'\n\tCA type: MT4129\n\tPort 1:\n\t\tState: Down\n\
        \t\tRate: 10\n\t\tLink layer: Ethernet\n";

    const IBV_DEVINFO_V: &str = "hca_id:\tmlx5_0\n\ttransport:\t\t\tInfiniBand (0)\n\tfw_ver:\t\t\t\t28.39.1002\n\
        \tphys_port_cnt:\t\t\t1\n\t\tport:\t1\n\t\t\tstate:\t\t\tPORT_ACTIVE (4)\n\t\t\tmax_mtu:\t\t4096 (5)\n\
        \t\t\tactive_width:\t\t4X (2)\n\t\t\tactive_speed:\t\t100.0 Gbps (128)\n\t\t\tlink_layer:\t\tInfiniBand\n\
        hca_id:\tmlx5_1\n\t\tport:\t1\n\t\t\tstate:\t\t\tPORT_DOWN (1)\n\t\t\tlink_layer:\t\tEthernet\n";

    #[test]
    fn ibstat_ports_with_rate() {
        let ports = parse_ib_devices(IBSTAT);
        let seen: Vec<_> = ports.iter().map(|p| (p.device.as_str(), p.port, p.active, p.rate_gbps)).collect();
        assert_eq!(seen, [("mlx5_0", 1, true, Some(400.0)), ("mlx5_1", 1, false, Some(10.0))]);
        assert_eq!(ports[0].link_layer.as_deref(), Some("InfiniBand"));
    }

    #[test]
    fn ibv_devinfo_verbose_rate_is_width_times_speed_plain_has_none() {
        let ports = parse_ib_devices(IBV_DEVINFO_V);
        let seen: Vec<_> = ports.iter().map(|p| (p.device.as_str(), p.active, p.rate_gbps)).collect();
        assert_eq!(seen, [("mlx5_0", true, Some(400.0)), ("mlx5_1", false, None)]);
        assert_eq!(ports[1].link_layer.as_deref(), Some("Ethernet"));
        assert!(parse_ib_devices("bash: ibv_devinfo: command not found\n").is_empty());
        assert!(parse_ib_devices("No IB devices found\n").is_empty());
    }
}
