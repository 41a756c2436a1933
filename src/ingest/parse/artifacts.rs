//! nvidia-smi artifacts -> `GpuInfo` list and `TopologyMatrix`.

use crate::core::model::artifacts::{GpuInfo, TopologyMatrix};
use std::collections::BTreeSet;

/// `nvidia-smi --query-gpu=index,name,uuid,driver_version,memory.total,pci.bus_id
/// --format=csv,noheader`. Lines that do not have six fields are skipped (e.g. an error
/// message from a machine without the tool).
pub(crate) fn parse_gpu_query(text: &str) -> Vec<GpuInfo> {
    text.lines()
        .filter_map(|line| {
            let fields: Vec<&str> = line.split(',').map(str::trim).collect();
            if fields.len() != 6 || fields[0].parse::<u64>().is_err() {
                return None;
            }
            Some(GpuInfo {
                index: fields[0].to_string(),
                name: fields[1].to_string(),
                uuid: fields[2].to_string(),
                driver_version: fields[3].to_string(),
                memory_total: fields[4].to_string(),
                pci_bus_id: fields[5].to_string(),
            })
        })
        .collect()
}

/// `nvidia-smi topo -m`: the tab-separated matrix up to the first blank line; ANSI escapes
/// (the underlined header) are removed.
pub(crate) fn parse_topology(text: &str) -> TopologyMatrix {
    let clean = strip_ansi(text);
    let mut lines = clean.lines().skip_while(|l| l.trim().is_empty());
    let Some(header_line) = lines.next() else {
        return TopologyMatrix::default();
    };
    if !header_line.starts_with('\t') && !header_line.trim_start().starts_with("GPU0") {
        return TopologyMatrix::default();
    }
    let header: Vec<String> =
        header_line.split('\t').map(str::trim).filter(|c| !c.is_empty()).map(String::from).collect();
    let mut rows = Vec::new();
    let mut links = BTreeSet::new();
    for line in lines {
        if line.trim().is_empty() {
            break;
        }
        let cells: Vec<String> = line.split('\t').map(str::trim).filter(|c| !c.is_empty()).map(String::from).collect();
        if cells.is_empty() {
            continue;
        }
        if cells[0].starts_with("GPU") {
            for (column, cell) in header.iter().zip(cells.iter().skip(1)) {
                if column.starts_with("GPU") && !column.contains(' ') && cell != "X" {
                    links.insert(cell.clone());
                }
            }
        }
        rows.push(cells);
    }
    TopologyMatrix { header, rows, gpu_links: links.into_iter().collect() }
}

fn strip_ansi(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    let mut chars = text.chars().peekable();
    while let Some(c) = chars.next() {
        if c == '\u{1b}' && chars.peek() == Some(&'[') {
            chars.next();
            for d in chars.by_ref() {
                if d.is_ascii_alphabetic() {
                    break;
                }
            }
        } else {
            out.push(c);
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn gpu_query_line() {
        let gpus = parse_gpu_query("0, NVIDIA H200, GPU-c4, 580.159.04, 143771 MiB, 00000000:00:06.0\n");
        assert_eq!(gpus.len(), 1);
        assert_eq!(gpus[0].name, "NVIDIA H200");
        assert!(parse_gpu_query("nvidia-smi: command not found\n").is_empty());
    }

    #[test]
    fn topology_matrix() {
        let text = "\t\u{1b}[4mGPU0\tGPU1\tCPU Affinity\tNUMA Affinity\tGPU NUMA ID\u{1b}[0m\nGPU0\t X \tNV18\t0-15\t0\t\tN/A\nGPU1\tNV18\t X \t0-15\t0\t\tN/A\n\nLegend:\n";
        let topo = parse_topology(text);
        assert_eq!(topo.header, vec!["GPU0", "GPU1", "CPU Affinity", "NUMA Affinity", "GPU NUMA ID"]);
        assert_eq!(topo.rows.len(), 2);
        assert_eq!(topo.rows[0], vec!["GPU0", "X", "NV18", "0-15", "0", "N/A"]);
        assert_eq!(topo.gpu_links, vec!["NV18"]);
    }
}
