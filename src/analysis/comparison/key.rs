//! The comparison key of a run: every fact the run states about itself that changes what a
//! measurement means (hardware model and count, topology, NCCL / CUDA / PyTorch versions,
//! dtype, sizes, world size, nccl-tests arguments, the worker, the profiler, NCCL settings,
//! nodes and NICs). Runs whose keys agree form one *configuration*. Missing facts are part of
//! the key as `unknown`.
//!
//! Soft facts (`ConfigKey::soft`) change timings but not what is measured: cycles, warm-ups,
//! nccl-tests repeats (`-N`) and warm-up iterations (`-w`), the host, the GPU driver, the
//! machine `collect` records (`artifacts/machine.txt`: kernel, OS, CPU model, count,
//! frequency governor and limit, boost, SMT; GPU UUIDs, SM clock limit, power limit,
//! persistence, ECC, MIG). They never make runs incomparable; where two runs differ in them,
//! the report and the pages say so as caveats ("the candidate ran on another host"). Knows
//! `model`, `parse` and `summarize` only; never looks at the machine that builds.

use crate::analysis::comparison::key_hosts;
use crate::analysis::summarize::RunSummary;
use crate::core::model::artifacts::{GpuInfo, TopologyMatrix};
use crate::core::model::manifest::Manifest;
use crate::ingest::parse::machine::parse_machine;
use serde::Serialize;
use std::collections::BTreeMap;

/// The value of a fact the run does not state.
pub const UNKNOWN: &str = "unknown";
/// A soft fact one run of a pair does not record.
const NOT_RECORDED: &str = "not recorded";

/// The longest value a key part or soft fact keeps as it is (bytes); a DGX's 8-GPU, 8-NIC
/// topology is about 1.2 KB.
const MAX_PART_BYTES: usize = 4096;

/// `value`, or for one over `MAX_PART_BYTES` (a run's text: a topology of 100,000 columns, a
/// manifest of 100,000 nccl-tests commands) its head, its length and a hash of the whole, so
/// that two values still agree only when they are equal and every page, Parquet row and digest
/// that names the key stays small.
fn bounded(value: String) -> String {
    if value.len() <= MAX_PART_BYTES {
        return value;
    }
    let head = value.char_indices().map(|(at, _)| at).take_while(|&at| at <= 64).last().unwrap_or(0);
    format!("{}... ({} bytes, xxh3 {:016x})", &value[..head], value.len(), xxhash_rust::xxh3::xxh3_64(value.as_bytes()))
}

/// Ordered (part, value) pairs; two runs are comparable when every part agrees. `soft`:
/// the facts shown as caveats where they differ, never part of the key.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct ConfigKey {
    pub parts: Vec<(String, String)>,
    pub soft: Vec<(String, String)>,
}

impl ConfigKey {
    pub fn of(run: &RunSummary) -> ConfigKey {
        let manifest = |key: &str| run.raw.manifest.as_ref().and_then(|m| m.get(key)).map(str::to_string);
        let commands: &[String] = run.raw.manifest.as_ref().map_or(&[], |m| m.commands.as_slice());
        let (gpu_model, gpu_count) = gpu_model_and_count(run);
        let nodes = manifest("nodes")
            .or_else(|| key_hosts::nodes(run))
            .or_else(|| launcher_option(commands, "--nnodes"))
            .or_else(|| standalone(commands));
        let parts = vec![
            ("gpu_model", gpu_model),
            ("gpu_count", gpu_count),
            ("topology", run.raw.topology.as_ref().map(topology_signature).or_else(|| manifest("topology"))),
            ("nccl", run.facts.nccl_version.clone()),
            ("torch", run.facts.torch_version.clone()),
            ("cuda", run.facts.cuda_version.clone()),
            ("dtype", manifest("dtype")),
            ("decode_collectives", manifest("decode_collectives")),
            ("nccl_tests_args", nccl_tests_arguments(commands)),
            ("worker_sha256", manifest("worker_sha256")),
            ("profiler", profiler(run.raw.manifest.as_ref())),
            ("nccl_env", nccl_env(run.raw.manifest.as_ref())),
            ("nodes", nodes.clone()),
            (
                "gpus_per_node",
                manifest("gpus_per_node")
                    .or_else(|| key_hosts::gpus_per_node(run))
                    .or_else(|| launcher_option(commands, "--nproc_per_node")),
            ),
            ("nics", key_hosts::nics(run, nodes.as_deref())),
        ];
        ConfigKey {
            parts: parts
                .into_iter()
                .map(|(k, v)| (k.to_string(), v.map_or_else(|| UNKNOWN.to_string(), bounded)))
                .collect(),
            soft: soft_facts(run).into_iter().map(|(k, v)| (k, bounded(v))).collect(),
        }
    }

    /// The key as a run's digest keeps it.
    pub fn from_parts(parts: &[(String, String)], soft: &[(String, String)]) -> ConfigKey {
        ConfigKey { parts: parts.to_vec(), soft: soft.to_vec() }
    }

    /// The soft facts in which `other` differs from this run (a fact one run does not record
    /// is `not recorded`), in name order.
    pub fn caveats(&self, other: &ConfigKey) -> Vec<KeyDifference> {
        let mine: BTreeMap<&str, &str> = self.soft.iter().map(|(k, v)| (k.as_str(), v.as_str())).collect();
        let theirs: BTreeMap<&str, &str> = other.soft.iter().map(|(k, v)| (k.as_str(), v.as_str())).collect();
        let mut names: Vec<&str> = mine.keys().chain(theirs.keys()).copied().collect();
        names.sort_unstable();
        names.dedup();
        names
            .into_iter()
            .filter(|n| mine.get(n) != theirs.get(n))
            .map(|n| KeyDifference {
                part: n.to_string(),
                base: mine.get(n).unwrap_or(&NOT_RECORDED).to_string(),
                candidate: theirs.get(n).unwrap_or(&NOT_RECORDED).to_string(),
            })
            .collect()
    }

    fn get(&self, part: &str) -> &str {
        self.parts.iter().find(|(k, _)| k == part).map_or(UNKNOWN, |(_, v)| v.as_str())
    }

    /// A short readable label, e.g. `1x H200 · NCCL 2.28.9 · torch 2.11 · key 3f2a91`: the main parts (and the profiler, when one was loaded), then the first hex
    /// digits of the full key's hash, so two configurations never share a label.
    pub fn label(&self) -> String {
        let model = self.get("gpu_model").trim_start_matches("NVIDIA ").to_string();
        let torch: String =
            self.get("torch").split('+').next().unwrap_or(UNKNOWN).splitn(3, '.').take(2).collect::<Vec<_>>().join(".");
        let profiler = match self.get("profiler") {
            "none" | UNKNOWN => String::new(),
            plugin => format!(" · {plugin}"),
        };
        format!(
            "{}x {model} · NCCL {} · torch {torch}{profiler} · key {:06x}",
            self.get("gpu_count"),
            self.get("nccl"),
            xxhash_rust::xxh3::xxh3_64(self.text().as_bytes()) >> 40
        )
    }

    /// The parts that differ, in key order.
    pub fn differences(&self, other: &ConfigKey) -> Vec<KeyDifference> {
        self.parts
            .iter()
            .zip(&other.parts)
            .filter(|(a, b)| a.1 != b.1)
            .map(|(a, b)| KeyDifference { part: a.0.clone(), base: a.1.clone(), candidate: b.1.clone() })
            .collect()
    }

    /// The parts the run does not state.
    pub fn unknown_parts(&self) -> Vec<String> {
        self.parts.iter().filter(|(_, v)| v == UNKNOWN).map(|(k, _)| k.clone()).collect()
    }

    /// One line `part=value;...`, the full key as text: a backslash or `;` inside a value is
    /// escaped with a backslash, so two different keys never have the same text (it groups
    /// runs into configurations and names them in `baselines.json`).
    pub fn text(&self) -> String {
        let escape = |v: &str| v.replace('\\', "\\\\").replace(';', "\\;");
        self.parts.iter().map(|(k, v)| format!("{k}={}", escape(v))).collect::<Vec<_>>().join(";")
    }
}

/// One key part in which two runs differ.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct KeyDifference {
    pub part: String,
    pub base: String,
    pub candidate: String,
}

/// The NCCL profiler plugin the run was timed under (the Inspector changes timings: the
/// bundled Inspector run is about 2.3x slower in every case): `none` when the recorded
/// commands set none, `unknown` without commands.
fn profiler(manifest: Option<&Manifest>) -> Option<String> {
    let manifest = manifest?;
    if manifest.get("nccl_inspector").is_some() {
        return Some("NCCL Inspector".to_string());
    }
    let plugin =
        manifest.commands.iter().flat_map(|c| c.split_whitespace()).find_map(|w| {
            w.strip_prefix("NCCL_PROFILER_PLUGIN=").map(|p| p.rsplit('/').next().unwrap_or(p).to_string())
        });
    match plugin {
        Some(plugin) => Some(plugin),
        None if manifest.commands.is_empty() => None,
        None => Some("none".to_string()),
    }
}

/// NCCL variables that change what NCCL does (`NCCL_ALGO`, `NCCL_PROTO`, `NCCL_NVLS_ENABLE`,
/// ...), from the manifest's own lines and its `timing_env`, sorted: `none` when there are
/// none. Logging, the Inspector's own settings (the `profiler` part) and the container's
/// `NCCL_VERSION` label are left out.
fn nccl_env(manifest: Option<&Manifest>) -> Option<String> {
    let manifest = manifest?;
    const IGNORED: [&str; 6] = [
        "NCCL_DEBUG",
        "NCCL_DEBUG_SUBSYS",
        "NCCL_DEBUG_FILE",
        "NCCL_VERSION",
        "NCCL_PROFILER_PLUGIN",
        "NCCL_INSPECTOR_",
    ];
    let timing_env = manifest.get("timing_env").unwrap_or("");
    let lines = manifest.entries.iter().map(|(k, v)| format!("{k}={v}"));
    let mut settings: Vec<String> = lines
        .chain(timing_env.split_whitespace().map(str::to_string))
        .filter(|s| s.starts_with("NCCL_"))
        .filter(|s| {
            let name = s.split('=').next().unwrap_or("");
            !IGNORED.iter().any(|i| name == *i || (i.ends_with('_') && name.starts_with(i)))
        })
        .collect();
    settings.sort();
    settings.dedup();
    Some(if settings.is_empty() { "none".to_string() } else { settings.join(" ") })
}

/// Machine readings that describe the moment, not the machine (the idle SM clock, why the
/// clocks were held then): shown on the run page, never a caveat.
const MOMENTARY: [&str; 3] = [".sm_mhz", ".mem_mhz", ".clock_event_reasons"];

/// The run's soft facts (module doc), each only where the run records it.
fn soft_facts(run: &RunSummary) -> Vec<(String, String)> {
    let manifest = |key: &str| run.raw.manifest.as_ref().and_then(|m| m.get(key)).map(str::to_string);
    let commands: &[String] = run.raw.manifest.as_ref().map_or(&[], |m| m.commands.as_slice());
    let mut facts: BTreeMap<String, Vec<String>> = BTreeMap::new();
    let mut add = |name: &str, value: Option<String>| {
        if let Some(value) = value.filter(|v| !v.is_empty()) {
            facts.entry(name.to_string()).or_default().push(value);
        }
    };
    add("cycles", manifest("cycles"));
    add("warmups", manifest("warmups"));
    add("nccl_tests_repeats", nccl_tests_option(commands, "-N"));
    add("nccl_tests_warmup_iters", nccl_tests_option(commands, "-w"));
    let hosts: Vec<String> = run.raw.hosts.iter().map(|h| h.host.clone()).collect();
    add("host", manifest("hostname").or_else(|| (!hosts.is_empty()).then(|| hosts.join(" "))));
    let gpus = run.raw.gpus.iter().chain(run.raw.hosts.iter().flat_map(|h| &h.gpus));
    for gpu in gpus {
        add("gpu_driver", Some(gpu.driver_version.clone()));
    }
    for (name, text) in &run.raw.other_artifacts {
        if name.rsplit('/').next() == Some("machine.txt") {
            for (key, value) in
                parse_machine(text).into_iter().filter(|(k, _)| !MOMENTARY.iter().any(|m| k.ends_with(m)))
            {
                // Per-GPU facts (`gpu0.uuid`) are pooled per fact over the GPUs and hosts.
                let fact = key.split_once('.').map_or(key.as_str(), |(_, f)| f).to_string();
                let fact = if key.starts_with("gpu") { format!("gpu_{fact}") } else { fact };
                add(&fact, Some(value));
            }
        }
    }
    facts
        .into_iter()
        .map(|(name, mut values)| {
            values.sort();
            values.dedup();
            (name, values.join(", "))
        })
        .collect()
}

/// GPU model(s) and count from nvidia-smi (every host's of a multi-node run), else parsed from
/// the manifest's `gpu=4x NAME`.
fn gpu_model_and_count(run: &RunSummary) -> (Option<String>, Option<String>) {
    let gpus: Vec<&GpuInfo> = if run.raw.hosts.is_empty() {
        run.raw.gpus.iter().collect()
    } else {
        run.raw.hosts.iter().flat_map(|h| &h.gpus).collect()
    };
    if !gpus.is_empty() {
        let mut names: Vec<&str> = gpus.iter().map(|g| g.name.as_str()).collect();
        names.sort_unstable();
        names.dedup();
        return (Some(names.join(" + ")), Some(gpus.len().to_string()));
    }
    let claimed = run.raw.manifest.as_ref().and_then(|m| m.get("gpu"));
    match claimed.and_then(|g| g.split_once("x ")) {
        Some((count, model)) if count.trim().parse::<u64>().is_ok() => {
            (Some(model.trim().to_string()), Some(count.trim().to_string()))
        }
        _ => (claimed.map(str::to_string), None),
    }
}

/// The topology matrix normalized: GPU rows and GPU columns only (CPU/NUMA affinity dropped),
/// whitespace trimmed, columns and rows sorted by name, as `GPU0:X,NV18|GPU1:NV18,X`.
pub fn topology_signature(topology: &TopologyMatrix) -> String {
    let gpu_columns: Vec<(usize, &String)> = topology.header.iter().enumerate().filter(|(_, h)| is_device(h)).collect();
    let mut order: Vec<usize> = (0..gpu_columns.len()).collect();
    order.sort_by(|&a, &b| gpu_columns[a].1.cmp(gpu_columns[b].1));
    let mut rows: Vec<String> = topology
        .rows
        .iter()
        .filter(|r| r.first().is_some_and(|c| is_device(c)))
        .map(|r| {
            let cells: Vec<&str> =
                order.iter().map(|&i| r.get(gpu_columns[i].0 + 1).map_or("", |c| c.trim())).collect();
            format!("{}:{}", r[0].trim(), cells.join(","))
        })
        .collect();
    rows.sort();
    rows.join("|")
}

/// `GPU3`, `NIC0`, `mlx5_0`: anything but the affinity and NUMA columns.
fn is_device(name: &str) -> bool {
    !name.contains("Affinity") && !name.contains("NUMA")
}

/// The nccl-tests arguments of the manifest's commands, without the output path of `-J`.
fn nccl_tests_arguments(commands: &[String]) -> Option<String> {
    let found: Vec<String> = nccl_tests_commands(commands)
        .map(|(binary, arguments)| {
            let mut kept = Vec::new();
            let mut skip_next = false;
            for word in &arguments {
                if std::mem::take(&mut skip_next) {
                    continue;
                }
                if SOFT_NCCL_TESTS_OPTIONS.contains(word) {
                    skip_next = true;
                    continue;
                }
                kept.push(*word);
            }
            format!("{binary} {}", kept.join(" "))
        })
        .collect();
    (!found.is_empty()).then(|| found.join(" | "))
}

/// nccl-tests options left out of the key: the JSON output path, and the repeats and warm-up
/// iterations (soft facts: more samples are not another measurement).
const SOFT_NCCL_TESTS_OPTIONS: [&str; 3] = ["-J", "-N", "-w"];

/// Each nccl-tests command of the manifest: (binary name, its arguments).
fn nccl_tests_commands(commands: &[String]) -> impl Iterator<Item = (&str, Vec<&str>)> {
    commands.iter().filter_map(|c| {
        let words: Vec<&str> = c.split_whitespace().collect();
        let binary = words.iter().position(|w| w.ends_with("_perf"))?;
        Some((words[binary].rsplit('/').next().unwrap_or(""), words[binary + 1..].to_vec()))
    })
}

/// The values of one nccl-tests option over the manifest's commands (`-N 10`), joined.
fn nccl_tests_option(commands: &[String], option: &str) -> Option<String> {
    let values: Vec<&str> = nccl_tests_commands(commands)
        .filter_map(|(_, words)| Some(*words.get(words.iter().position(|w| *w == option)? + 1)?))
        .collect();
    (!values.is_empty()).then(|| values.join(" "))
}

/// The value of `--opt=V` or `--opt V` in the first launcher command that has it.
fn launcher_option(commands: &[String], option: &str) -> Option<String> {
    commands.iter().find_map(|c| {
        let mut words = c.split_whitespace();
        while let Some(word) = words.next() {
            if let Some(value) = word.strip_prefix(option).and_then(|rest| rest.strip_prefix('=')) {
                return Some(value.to_string());
            }
            if word == option {
                return words.next().map(str::to_string);
            }
        }
        None
    })
}

/// `torchrun --standalone` runs on one node.
fn standalone(commands: &[String]) -> Option<String> {
    commands.iter().any(|c| c.split_whitespace().any(|w| w == "--standalone")).then(|| "1".to_string())
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A key part or soft fact over 4 KB (the fuzzer's topologies and manifests made every
    /// page and Parquet row carry megabytes) keeps its head, its length and a hash: equal
    /// values agree, different ones do not, and the text stays small. A DGX's is kept whole.
    #[test]
    fn long_key_values_are_bounded_and_still_tell_runs_apart() {
        let dgx = crate::ingest::parse::artifacts::parse_topology(include_str!(
            "../../../tests/data/topology/dgx_h100_nv18_nics.txt"
        ));
        let signature = topology_signature(&dgx);
        assert_eq!(bounded(signature.clone()), signature);
        let long = "GPU0:NV18,".repeat(1000);
        let other = format!("{}X", &long[..long.len() - 1]);
        let (a, b) = (bounded(long.clone()), bounded(other));
        assert!(a.len() < 120, "{a}");
        assert!(a.starts_with("GPU0:NV18,GPU0:NV18,") && a.contains("... (10000 bytes, xxh3 "), "{a}");
        assert_ne!(a, b);
        assert_eq!(a, bounded(long));
        assert_eq!(bounded("é".repeat(3000)).chars().take(3).collect::<String>(), "ééé");
    }
    use crate::analysis::summarize::summarize;
    use crate::core::model::run::RawRun;

    #[test]
    fn topology_signature_ignores_whitespace_column_order_and_affinity() {
        let matrix = |header: &[&str], rows: &[&[&str]]| TopologyMatrix {
            header: header.iter().map(|s| s.to_string()).collect(),
            rows: rows.iter().map(|r| r.iter().map(|s| s.to_string()).collect()).collect(),
            gpu_links: Vec::new(),
        };
        let a = matrix(
            &["GPU0", "GPU1", "CPU Affinity", "NUMA Affinity"],
            &[&["GPU0", "X", "NV18", "0-15", "0"], &["GPU1", "NV18", " X ", "16-31", "1"]],
        );
        let b = matrix(
            &["GPU1", "GPU0", "CPU Affinity"],
            &[&["GPU1", "X", "NV18", "0-63"], &["GPU0", "NV18", "X", "0-63"]],
        );
        assert_eq!(topology_signature(&a), "GPU0:X,NV18|GPU1:NV18,X");
        assert_eq!(topology_signature(&a), topology_signature(&b));
    }

    fn gpus(host: &str, n: usize) -> Vec<GpuInfo> {
        (0..n)
            .map(|i| GpuInfo {
                index: i.to_string(),
                name: "NVIDIA H200".into(),
                uuid: format!("GPU-{host}-{i}"),
                driver_version: "580.1".into(),
                memory_total: "143771 MiB".into(),
                pci_bus_id: format!("0000:{i:02}:00.0"),
            })
            .collect()
    }

    #[test]
    fn two_nodes_of_eight_never_compare_with_one_node_of_sixteen() {
        use crate::core::model::hosts::{HostFacts, IbPort};
        let ib = IbPort { device: "mlx5_0".into(), port: 1, active: true, link_layer: None, rate_gbps: Some(400.0) };
        let mut two = RawRun { gpus: gpus("node1", 8), ..RawRun::default() };
        two.hosts = ["node1", "node2"]
            .iter()
            .map(|h| HostFacts { host: h.to_string(), gpus: gpus(h, 8), topology: None, nics: vec![ib.clone(); 4] })
            .collect();
        let one = RawRun { gpus: gpus("big", 16), ..RawRun::default() };
        let (two, one) = (ConfigKey::of(&summarize(two)), ConfigKey::of(&summarize(one)));
        assert_eq!((two.get("gpu_model"), two.get("gpu_count")), (one.get("gpu_model"), one.get("gpu_count")));
        let parts: Vec<String> = two.differences(&one).into_iter().map(|d| d.part).collect();
        assert_eq!(parts, ["nodes", "gpus_per_node", "nics"], "{two:?}");
        assert_eq!((two.get("nodes"), two.get("gpus_per_node")), ("2", "8"));
        assert_eq!(two.get("nics"), "4x 400 Gb/s unknown link");
        assert_eq!(one.get("nodes"), UNKNOWN);
    }

    #[test]
    fn key_texts_are_unambiguous() {
        let key = |parts: &[(&str, &str)]| ConfigKey {
            parts: parts.iter().map(|(k, v)| (k.to_string(), v.to_string())).collect(),
            soft: Vec::new(),
        };
        let crafted = key(&[("dtype", "a;cycles=10")]);
        let honest = key(&[("dtype", "a"), ("cycles", "10")]);
        assert_ne!(crafted.text(), honest.text());
        assert_eq!(crafted.text(), "dtype=a\\;cycles=10");
        assert_ne!(key(&[("dtype", "a\\")]).text(), key(&[("dtype", "a\\;")]).text());
    }

    #[test]
    fn nccl_tests_arguments_drop_the_json_path() {
        let commands = ["NCCL_DEBUG=INFO /x/all_reduce_perf -b 8K -e 1M -N 10 -J raw/nccl_tests_g1.json".to_string()];
        assert_eq!(nccl_tests_arguments(&commands).as_deref(), Some("all_reduce_perf -b 8K -e 1M"));
        assert_eq!(nccl_tests_option(&commands, "-N").as_deref(), Some("10"));
        let launch = ["torchrun --standalone --nproc_per_node=4 w.py".to_string()];
        assert_eq!(launcher_option(&launch, "--nproc_per_node").as_deref(), Some("4"));
        assert_eq!(standalone(&launch).as_deref(), Some("1"));
    }
}
