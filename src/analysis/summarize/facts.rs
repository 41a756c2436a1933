//! Derives the facts a run states about itself (`model::facts::RunFacts`), for the index and
//! `runs.json`: hardware from the nvidia-smi artifacts (the seed's manifest hard-codes its
//! `gpu=` line), software versions from the NCCL logs and the manifest, world sizes from the
//! rows, the nodes from the artifacts and the logs. Disagreements become warnings; a fact the run does not state stays `None`.

use crate::analysis::nccl_perf::log_facts::cuda_driver;
use crate::core::diag::{Code, Diagnostic};
use crate::core::model::facts::{HostGpus, RunFacts};
use crate::core::model::run::RawRun;
use std::collections::BTreeSet;

/// The facts of `raw`; a disagreement between the manifest and what the run shows is a
/// warning in `diagnostics`.
pub fn collect(raw: &RawRun, diagnostics: &mut Vec<Diagnostic>) -> RunFacts {
    let manifest = |key: &str| raw.manifest.as_ref().and_then(|m| m.get(key)).map(str::to_string);
    let mut facts = RunFacts {
        timestamp_utc: manifest("timestamp_utc"),
        hostname: manifest("hostname"),
        torch_version: manifest("torch"),
        cuda_version: manifest("cuda_runtime"),
        cycles: manifest("cycles").and_then(|text| whole_number(&text, "cycles", diagnostics)),
        ..RunFacts::default()
    };
    if let Some(first) = raw.gpus.first() {
        let names: BTreeSet<&str> = raw.gpus.iter().map(|g| g.name.as_str()).collect();
        let names: Vec<&str> = names.into_iter().collect();
        facts.gpu = Some(format!("{}x {}", raw.gpus.len(), names.join(" + ")));
        facts.gpu_count = Some(raw.gpus.len() as u64);
        facts.driver_version = Some(first.driver_version.clone());
        if let Some(claimed) = manifest("gpu") {
            if !claimed.contains(names[0]) {
                diagnostics.push(Diagnostic::warning(
                    Code::ManifestGpu,
                    "manifest.txt",
                    None,
                    format!(
                        "manifest says gpu={claimed:?} but nvidia-smi lists {:?}; the site shows nvidia-smi",
                        facts.gpu.as_deref().unwrap_or("")
                    ),
                ));
            }
        }
    } else {
        facts.gpu = manifest("gpu");
    }
    facts.topology = match &raw.topology {
        Some(topo) if !topo.gpu_links.is_empty() => Some(format!("GPU links: {}", topo.gpu_links.join(", "))),
        Some(topo) if topo.rows.iter().filter(|r| r.first().is_some_and(|c| c.starts_with("GPU"))).count() == 1 => {
            Some("single GPU".to_string())
        }
        _ => manifest("topology"),
    };
    let log_version = raw.nccl_log.as_ref().and_then(|l| l.nccl_versions.first().cloned());
    let manifest_version = manifest("nccl_runtime");
    if let (Some(log), Some(claimed)) = (&log_version, &manifest_version) {
        if !log.starts_with(claimed.as_str()) {
            diagnostics.push(Diagnostic::warning(
                Code::ManifestNcclVersion,
                "manifest.txt",
                None,
                format!("manifest says nccl_runtime={claimed} but the NCCL logs say {log}"),
            ));
        }
    }
    facts.nccl_version = log_version.or(manifest_version);
    facts.nccl_tests_version = raw.nccl_tests.iter().find_map(|f| f.output.version.clone());

    let mut world_sizes = BTreeSet::new();
    let mut sections = BTreeSet::new();
    for data in &raw.sections {
        sections.insert(data.section());
        world_sizes.extend(super::consistency::row_world_sizes(&data.rows));
    }
    facts.world_sizes = world_sizes.into_iter().collect();
    facts.sections = sections.into_iter().map(|s| s.name().to_string()).collect();
    if !raw.nccl_tests.is_empty() {
        facts.sections.push("nccl-tests".to_string());
    }
    let nccl_ws: BTreeSet<u64> = raw.nccl_tests.iter().filter_map(|f| f.world_size).collect();
    facts.nccl_tests_world_sizes = nccl_ws.into_iter().collect();
    let tuning = raw.nccl_log.as_ref().map_or(&[][..], |l| &l.tuning[..]);
    facts.inspector = super::inspector::summarize(&raw.inspector, tuning);
    if !raw.hosts.is_empty() {
        facts.hosts = raw.hosts.iter().map(|h| HostGpus { host: h.host.clone(), gpus: h.gpus.len() as u64 }).collect();
        facts.gpu_count = Some(raw.hosts.iter().map(|h| h.gpus.len() as u64).sum());
    }
    facts.nodes = nodes(raw);
    facts.cuda_driver = raw.nccl_log.as_ref().and_then(|l| l.cuda_driver_versions.first()).map(|v| cuda_driver(v));
    facts
}

/// The most nodes any source names: the artifacts' hosts (one machine's `artifacts/` is one
/// node), the NCCL logs' `nNodes`, the hosts their lines name.
fn nodes(raw: &RawRun) -> Option<u64> {
    let artifacts = match (raw.hosts.len(), raw.gpus.is_empty()) {
        (0, true) => None,
        (0, false) => Some(1),
        (hosts, _) => Some(hosts as u64),
    };
    let log = raw.nccl_log.as_ref();
    let log_nodes = log.and_then(|l| l.nnodes.iter().max().copied());
    let log_hosts = log.map(|l| l.files_by_host.len() as u64).filter(|&n| n > 0);
    [artifacts, log_nodes, log_hosts].into_iter().flatten().max()
}

/// The manifest's `key` as a whole number; otherwise a warning and `None` (the fact is not
/// stated).
fn whole_number(text: &str, key: &str, diagnostics: &mut Vec<Diagnostic>) -> Option<u64> {
    let number = text.parse().ok();
    if number.is_none() {
        diagnostics.push(Diagnostic::warning(
            Code::ManifestNotNumber,
            "manifest.txt",
            None,
            format!("manifest says {key}={text:?}, not a whole number; the run's {key} are not stated"),
        ));
    }
    number
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::core::diag::Severity;
    use crate::core::model::artifacts::{GpuInfo, TopologyMatrix};
    use crate::core::model::hosts::HostFacts;
    use crate::core::model::manifest::Manifest;
    use crate::core::model::nccl_log::NcclLogFacts;
    use crate::core::model::nccl_tests::{NcclTestsFormat, NcclTestsOutput};
    use crate::core::model::run::{NcclTestsFile, SectionData};
    use crate::core::model::sections::WorkerSection;

    fn manifest(entries: &[(&str, &str)]) -> Option<Manifest> {
        let entries = entries.iter().map(|(k, v)| (k.to_string(), v.to_string())).collect();
        Some(Manifest { entries, commands: Vec::new() })
    }

    fn gpu(name: &str) -> GpuInfo {
        GpuInfo {
            index: "0".into(),
            name: name.into(),
            uuid: "GPU-0".into(),
            driver_version: "580.95.05".into(),
            memory_total: "143771 MiB".into(),
            pci_bus_id: "00000000:18:00.0".into(),
        }
    }

    fn section(case: &str, section: WorkerSection, csv: &str) -> SectionData {
        let rows = crate::ingest::parse::section_csv::parse_section(section, csv.as_bytes()).unwrap();
        SectionData { case: case.into(), rank: 0, file: format!("raw/results/{case}/rank0_x.csv"), rows }
    }

    fn nccl_tests(name: &str, world_size: Option<u64>, version: Option<&str>) -> NcclTestsFile {
        let output = NcclTestsOutput {
            format: NcclTestsFormat::Text,
            version: version.map(str::to_string),
            nccl_library: None,
            devices: Vec::new(),
            tables: Vec::new(),
            warnings: Vec::new(),
        };
        NcclTestsFile { name: name.into(), file: format!("raw/nccl_tests_{name}.stdout"), world_size, output }
    }

    fn warnings(diagnostics: &[Diagnostic]) -> Vec<&str> {
        assert!(diagnostics.iter().all(|d| d.severity == Severity::Warning && d.file == "manifest.txt"));
        diagnostics.iter().map(|d| d.message.as_str()).collect()
    }

    #[test]
    fn a_run_that_states_nothing_has_no_facts() {
        let mut diagnostics = Vec::new();
        assert_eq!(collect(&RawRun::default(), &mut diagnostics), RunFacts::default());
        assert!(diagnostics.is_empty());
    }

    #[test]
    fn cycles_that_are_not_a_whole_number_are_not_stated() {
        for text in ["ten", "-1", "1.5", ""] {
            let raw = RawRun { manifest: manifest(&[("cycles", text)]), ..RawRun::default() };
            let mut diagnostics = Vec::new();
            assert_eq!(collect(&raw, &mut diagnostics).cycles, None, "{text:?}");
            assert_eq!(warnings(&diagnostics).len(), 1, "{text:?}");
            assert!(warnings(&diagnostics)[0].contains("not a whole number"), "{diagnostics:?}");
        }
    }

    #[test]
    fn the_manifest_alone_gives_its_facts() {
        let raw = RawRun {
            manifest: manifest(&[
                ("timestamp_utc", "2026-12-03T08:11:06Z"),
                ("hostname", "vm"),
                ("gpu", "4x H100"),
                ("topology", "NV18"),
                ("torch", "2.11.0"),
                ("cuda_runtime", "13.0"),
                ("nccl_runtime", "2.28.9"),
                ("cycles", "10"),
            ]),
            ..RawRun::default()
        };
        let mut diagnostics = Vec::new();
        let facts = collect(&raw, &mut diagnostics);
        let expected = RunFacts {
            timestamp_utc: Some("2026-12-03T08:11:06Z".into()),
            hostname: Some("vm".into()),
            gpu: Some("4x H100".into()),
            topology: Some("NV18".into()),
            torch_version: Some("2.11.0".into()),
            cuda_version: Some("13.0".into()),
            nccl_version: Some("2.28.9".into()),
            cycles: Some(10),
            ..RunFacts::default()
        };
        assert_eq!(facts, expected);
        assert!(diagnostics.is_empty());
    }

    #[test]
    fn nvidia_smi_and_the_logs_win_over_the_manifest_with_a_warning() {
        let raw = RawRun {
            manifest: manifest(&[("gpu", "8x NVIDIA A100"), ("topology", "NV12"), ("nccl_runtime", "2.27.3")]),
            gpus: vec![gpu("NVIDIA H200"), gpu("NVIDIA H200"), gpu("NVIDIA H100")],
            topology: Some(TopologyMatrix {
                gpu_links: vec!["NV18".into(), "SYS".into()],
                ..TopologyMatrix::default()
            }),
            nccl_log: Some(NcclLogFacts {
                nccl_versions: vec!["2.28.9+cuda13.0".into(), "2.27.3+cuda12.8".into()],
                ..NcclLogFacts::default()
            }),
            ..RawRun::default()
        };
        let mut diagnostics = Vec::new();
        let facts = collect(&raw, &mut diagnostics);
        assert_eq!(facts.gpu.as_deref(), Some("3x NVIDIA H100 + NVIDIA H200"), "distinct names, sorted");
        assert_eq!((facts.gpu_count, facts.driver_version.as_deref()), (Some(3), Some("580.95.05")));
        assert_eq!(facts.topology.as_deref(), Some("GPU links: NV18, SYS"));
        assert_eq!(facts.nccl_version.as_deref(), Some("2.28.9+cuda13.0"), "the first version the logs name");
        assert_eq!(warnings(&diagnostics), [
            "manifest says gpu=\"8x NVIDIA A100\" but nvidia-smi lists \"3x NVIDIA H100 + NVIDIA H200\"; the site shows nvidia-smi",
            "manifest says nccl_runtime=2.27.3 but the NCCL logs say 2.28.9+cuda13.0",
        ]);
    }

    #[test]
    fn agreeing_sources_give_no_warning() {
        let raw = RawRun {
            manifest: manifest(&[("gpu", "1x NVIDIA H200 (141 GB)"), ("nccl_runtime", "2.28.9")]),
            gpus: vec![gpu("NVIDIA H200")],
            nccl_log: Some(NcclLogFacts { nccl_versions: vec!["2.28.9+cuda13.0".into()], ..NcclLogFacts::default() }),
            ..RawRun::default()
        };
        let mut diagnostics = Vec::new();
        let facts = collect(&raw, &mut diagnostics);
        assert_eq!(facts.gpu.as_deref(), Some("1x NVIDIA H200"));
        assert!(diagnostics.is_empty(), "{diagnostics:?}");
    }

    #[test]
    fn topology_single_gpu_else_the_manifest() {
        let one_gpu = TopologyMatrix {
            header: vec![String::new(), "GPU0".into(), "CPU Affinity".into()],
            rows: vec![vec!["GPU0".into(), "X".into(), "0-95".into()]],
            gpu_links: Vec::new(),
        };
        let raw = RawRun { topology: Some(one_gpu.clone()), ..RawRun::default() };
        assert_eq!(collect(&raw, &mut Vec::new()).topology.as_deref(), Some("single GPU"));

        let mut two_rows = one_gpu;
        two_rows.rows.push(vec!["GPU1".into(), "X".into(), "0-95".into()]);
        let raw = RawRun { topology: Some(two_rows), manifest: manifest(&[("topology", "PIX")]), ..RawRun::default() };
        assert_eq!(collect(&raw, &mut Vec::new()).topology.as_deref(), Some("PIX"), "no links read: the manifest's");
    }

    #[test]
    fn world_sizes_sections_and_nccl_tests_from_the_rows() {
        let decode =
            "world_size,tokens,message_bytes,collectives,cycle,duration_us\n4,1,8192,160,0,1.5\n2,1,8192,160,0,1.5\n";
        let contracts = "world_size,rank,section,check,correct,detail\n8,0,setup,world_size,True,x\n";
        let raw = RawRun {
            sections: vec![
                section("world4_full", WorkerSection::Decode, decode),
                section("world2_decode", WorkerSection::Decode, &decode.replace("\n4,", "\n2,")),
                section("world8_full", WorkerSection::Contracts, contracts),
            ],
            nccl_tests: vec![
                nccl_tests("g4", Some(4), None),
                nccl_tests("g2", Some(2), Some("2.19.6")),
                nccl_tests("g2b", Some(2), Some("2.17.4")),
                nccl_tests("odd", None, None),
            ],
            ..RawRun::default()
        };
        let facts = collect(&raw, &mut Vec::new());
        assert_eq!(facts.world_sizes, [2, 4], "contract rows give no world size");
        assert_eq!(facts.sections, ["contracts", "decode", "nccl-tests"]);
        assert_eq!(facts.nccl_tests_world_sizes, [2, 4]);
        assert_eq!(facts.nccl_tests_version.as_deref(), Some("2.19.6"), "the first output that names one");
    }

    #[test]
    fn hosts_of_a_multi_node_run_count_all_gpus() {
        let host = |name: &str, gpus: usize| HostFacts {
            host: name.into(),
            gpus: vec![gpu("NVIDIA H200"); gpus],
            ..HostFacts::default()
        };
        let raw = RawRun {
            gpus: vec![gpu("NVIDIA H200")],
            hosts: vec![host("node1", 8), host("node2", 4)],
            ..RawRun::default()
        };
        let facts = collect(&raw, &mut Vec::new());
        let hosts: Vec<(&str, u64)> = facts.hosts.iter().map(|h| (h.host.as_str(), h.gpus)).collect();
        assert_eq!(hosts, [("node1", 8), ("node2", 4)]);
        assert_eq!(facts.gpu_count, Some(12), "the hosts' GPUs, not the first host's artifact");
        assert_eq!(facts.gpu.as_deref(), Some("1x NVIDIA H200"));
    }
}
