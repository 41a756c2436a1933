//! Manifest text and the one-line hardware facts it records (`gpu=`, `topology=`), from the
//! real `nvidia-smi` artifacts.

use crate::core::model::artifacts::GpuInfo;
use crate::ingest::parse::artifacts::{parse_gpu_query, parse_topology};
use std::collections::BTreeMap;

/// `1x NVIDIA H200`; mixed machines list each model: `2x NVIDIA A100, 1x NVIDIA H200`.
/// `None` when the query text holds no GPU line.
pub fn gpu_summary(query: &str) -> Option<String> {
    let gpus = parse_gpu_query(query);
    if gpus.is_empty() {
        return None;
    }
    let mut counts: BTreeMap<&str, usize> = BTreeMap::new();
    for GpuInfo { name, .. } in &gpus {
        *counts.entry(name.as_str()).or_default() += 1;
    }
    let parts: Vec<String> = counts.iter().map(|(name, n)| format!("{n}x {name}")).collect();
    Some(parts.join(", "))
}

/// Each GPU's `CPU Affinity` cell of the `nvidia-smi topo -m` matrix, in GPU order (empty
/// when the matrix has no such column).
pub fn local_cpus(topo: &str) -> Vec<String> {
    let matrix = parse_topology(topo);
    let Some(column) = matrix.header.iter().position(|h| h == "CPU Affinity") else {
        return Vec::new();
    };
    let gpu_rows = matrix.rows.iter().filter(|row| row.first().is_some_and(|c| is_gpu_label(c)));
    gpu_rows.map(|row| row.get(column + 1).cloned().unwrap_or_default()).collect()
}

/// The CPUs each rank ran on, from the worker's start lines in a case's stdout
/// (`worker rank=1/4 ... cpus=48-95 ...`): `0=0-47 1=48-95`, in rank order. Empty when the
/// worker printed none (a worker before it recorded its CPUs, or one that failed first).
pub fn worker_cpus(stdout: &str) -> String {
    let mut ranks: Vec<(u32, String)> = stdout
        .lines()
        .filter_map(|line| {
            let rest = line.strip_prefix("worker rank=")?;
            let (rank, _) = rest.split_once('/')?;
            let words: Vec<&str> = rest.split_whitespace().collect();
            let at = words.iter().position(|w| w.starts_with("cpus="))?;
            let unpinned = if words.get(at + 1) == Some(&"(unpinned)") { " (unpinned)" } else { "" };
            Some((rank.parse().ok()?, format!("{}{unpinned}", &words[at][5..])))
        })
        .collect();
    ranks.sort_unstable();
    ranks.iter().map(|(rank, cpus)| format!("{rank}={cpus}")).collect::<Vec<_>>().join(" ")
}

/// `single GPU`, `all GPU pairs NV18`, or `GPU pairs: 4x NV18, 2x SYS` from the
/// `nvidia-smi topo -m` matrix; `None` when the text holds no GPU matrix.
pub fn topology_summary(topo: &str) -> Option<String> {
    let matrix = parse_topology(topo);
    let gpu_columns = matrix.header.iter().take_while(|h| is_gpu_label(h)).count();
    let gpu_rows: Vec<&Vec<String>> =
        matrix.rows.iter().filter(|row| row.first().is_some_and(|c| is_gpu_label(c))).collect();
    match gpu_rows.len() {
        0 => None,
        1 => Some("single GPU".to_string()),
        _ => Some(describe_pairs(&pair_links(&gpu_rows, gpu_columns))),
    }
}

fn is_gpu_label(cell: &str) -> bool {
    cell.strip_prefix("GPU").is_some_and(|n| !n.is_empty() && n.bytes().all(|b| b.is_ascii_digit()))
}

/// Link kind of every GPU pair (i < j), counted.
fn pair_links(rows: &[&Vec<String>], gpu_columns: usize) -> BTreeMap<String, usize> {
    let mut counts = BTreeMap::new();
    for (i, row) in rows.iter().enumerate() {
        for cell in row.iter().skip(1).take(gpu_columns).skip(i + 1) {
            *counts.entry(cell.clone()).or_default() += 1;
        }
    }
    counts
}

fn describe_pairs(counts: &BTreeMap<String, usize>) -> String {
    match counts.len() {
        0 => "unknown".to_string(),
        1 => format!("all GPU pairs {}", counts.keys().next().map_or("", String::as_str)),
        _ => {
            let parts: Vec<String> = counts.iter().map(|(kind, n)| format!("{n}x {kind}")).collect();
            format!("GPU pairs: {}", parts.join(", "))
        }
    }
}

/// `manifest.txt` in the seed's format: `key=value` lines, then `commands:` and one
/// space-indented line per command.
pub fn manifest_text(entries: &[(String, String)], commands: &[String]) -> String {
    let mut text = String::new();
    for (key, value) in entries {
        text.push_str(&format!("{key}={value}\n"));
    }
    text.push_str("commands:\n");
    for line in commands {
        text.push_str(&format!(" {line}\n"));
    }
    text
}

#[cfg(test)]
mod tests {
    use super::*;

    const H200_QUERY: &str = "0, NVIDIA H200, GPU-c471cf4d, 580.159.04, 143771 MiB, 00000000:00:06.0\n";
    const H200_TOPO: &str = "\t\u{1b}[4mGPU0\tCPU Affinity\tNUMA Affinity\tGPU NUMA ID\u{1b}[0m\nGPU0\t X \t0-15\t0\t\tN/A\n\nLegend:\n\n  X    = Self\n";

    #[test]
    fn gpu_from_real_query() {
        assert_eq!(gpu_summary(H200_QUERY).as_deref(), Some("1x NVIDIA H200"));
        let four = (0..4).map(|i| format!("{i}, Tesla V100-SXM2-32GB, u, d, m, p\n")).collect::<String>();
        assert_eq!(gpu_summary(&four).as_deref(), Some("4x Tesla V100-SXM2-32GB"));
        assert_eq!(gpu_summary("nvidia-smi: command not found\n"), None);
    }

    #[test]
    fn worker_cpus_from_start_lines() {
        let stdout = "worker rank=1/2 local_rank=1 device=NVIDIA H200 cpus=48-95 torch=2.11\n\
                      worker env NCCL_ALGO=Ring\n\
                      worker rank=0/2 local_rank=0 device=NVIDIA H200 cpus=0-15 (unpinned) torch=2.11\n\
                      worker section=decode rows=240 seconds=3.9 correct=True\n";
        assert_eq!(worker_cpus(stdout), "0=0-15 (unpinned) 1=48-95");
        assert_eq!(worker_cpus("worker rank=0/1 local_rank=0 device=H200 cpu=0 torch=2.11\n"), "");
    }

    #[test]
    fn local_cpus_from_real_matrix() {
        assert_eq!(local_cpus(H200_TOPO), vec!["0-15".to_string()]);
        let two =
            "\tGPU0\tGPU1\tCPU Affinity\tNUMA Affinity\nGPU0\t X \tNV18\t0-47,96-143\t0\nGPU1\tNV18\t X \t48-95\t1\n";
        assert_eq!(local_cpus(two), vec!["0-47,96-143".to_string(), "48-95".to_string()]);
        assert!(local_cpus("nvidia-smi: command not found\n").is_empty());
    }

    #[test]
    fn topology_from_real_matrix() {
        assert_eq!(topology_summary(H200_TOPO).as_deref(), Some("single GPU"));
        let uniform = "\tGPU0\tGPU1\tGPU2\tCPU Affinity\nGPU0\t X \tNV18\tNV18\t0-15\nGPU1\tNV18\t X \tNV18\t0-15\nGPU2\tNV18\tNV18\t X \t0-15\n";
        assert_eq!(topology_summary(uniform).as_deref(), Some("all GPU pairs NV18"));
        let mixed = "\tGPU0\tGPU1\tGPU2\tNIC0\tCPU Affinity\nGPU0\t X \tNV2\tSYS\tPIX\t0-15\nGPU1\tNV2\t X \tSYS\tPIX\t0-15\nGPU2\tSYS\tSYS\t X \tPIX\t0-15\nNIC0\tPIX\tPIX\tPIX\t X \n";
        assert_eq!(topology_summary(mixed).as_deref(), Some("GPU pairs: 1x NV2, 2x SYS"));
        assert_eq!(topology_summary("nvidia-smi: command not found\n"), None);
    }

    #[test]
    fn manifest_layout() {
        let text = manifest_text(&[("a".into(), "1".into())], &["X=1 cmd".into()]);
        assert_eq!(text, "a=1\ncommands:\n X=1 cmd\n");
    }
}
