//! A run's nccl-tests tables measured against the hardware: the expected peak (NCCL's
//! per-NVLink constant x the links of the topology's bottleneck; "unknown" otherwise, never a
//! guess), every table of every nccl-tests binary analysed with its own busbw factor, what
//! NCCL chose per (collective, bytes) from its TUNING lines (or why nothing was logged), and
//! the index headline. Uses `model` and the sibling modules.

use super::busbw::busbw_factor;
use super::link_peaks::nvlink_peak;
use super::table::{analyse, headline, TableAnalysis};
use super::topology::{bottleneck_text, intra_node_bottleneck, link_graph, LinkClass};
use crate::core::model::nccl_log::TuningChoice;
use crate::core::model::run::RawRun;
use serde::{Deserialize, Serialize};

/// The busbw a run should reach at large sizes, and where that number comes from.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ExpectedPeak {
    /// The communicator's bottleneck as a sentence (`NVLink x18 (NV18)`, `unknown`).
    pub bottleneck: String,
    /// GB/s of busbw; `None`: peak unknown.
    pub gbs: Option<f64>,
    /// Where `gbs` comes from, or why it is unknown.
    pub source: String,
}

/// Whether the run's NCCL logs hold TUNING lines.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub enum TuningState {
    Logged,
    /// No TUNING lines (NCCL_DEBUG_SUBSYS without TUNING, or no log at all).
    NotLogged,
    /// One rank: NCCL launches no collective kernels and plans nothing to log.
    NotLoggedOneRank,
}

impl TuningState {
    /// `not logged` with its reason, or `None` when logged.
    pub fn note(self) -> Option<&'static str> {
        match self {
            TuningState::Logged => None,
            TuningState::NotLogged => Some("not logged (the NCCL logs hold no TUNING lines)"),
            TuningState::NotLoggedOneRank => Some("not logged at one rank: NCCL launches no collective kernels"),
        }
    }
}

/// One nccl-tests table of the run, analysed.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct TablePerf {
    /// The run-relative output file.
    pub file: String,
    /// `all_gather_perf`, or `unknown binary`.
    pub binary: String,
    pub ranks: u64,
    /// busbw = algbw x this factor; `None` for a binary not in nccl-tests' list.
    pub busbw_factor: Option<f64>,
    pub analysis: TableAnalysis,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct RunNcclPerf {
    pub expected: ExpectedPeak,
    pub tuning: TuningState,
    /// NCCL's choices per (collective, bytes) as logged (empty when not logged).
    pub choices: Vec<TuningChoice>,
    pub tables: Vec<TablePerf>,
}

/// The analysis of `raw`'s nccl-tests outputs and NCCL's choices; `None` when the run has
/// neither nccl-tests outputs nor NCCL logs.
pub(crate) fn analyse_run(raw: &RawRun) -> Option<RunNcclPerf> {
    if raw.nccl_tests.is_empty() && raw.nccl_log.is_none() {
        return None;
    }
    let test_ranks = raw.nccl_tests.iter().filter_map(|f| f.world_size);
    let log_ranks = raw.nccl_log.iter().flat_map(|l| l.communicators.iter().map(|c| c.nranks));
    let max_ranks = test_ranks.chain(log_ranks).max().unwrap_or(0);
    let choices = raw.nccl_log.as_ref().map(|l| l.tuning.clone()).unwrap_or_default();
    let tuning = match (choices.is_empty(), max_ranks) {
        (false, _) => TuningState::Logged,
        (true, 1) => TuningState::NotLoggedOneRank,
        (true, _) => TuningState::NotLogged,
    };
    let expected = expected_peak(raw, max_ranks);
    let named = manifest_binary(raw);
    let tables = raw
        .nccl_tests
        .iter()
        .flat_map(|file| {
            let ranks = file.world_size.unwrap_or(0);
            file.output.tables.iter().map(move |table| (file, ranks, table))
        })
        .map(|(file, ranks, table)| {
            let binary = table.collective.clone().or_else(|| named.clone()).unwrap_or_else(|| "unknown binary".into());
            TablePerf {
                file: file.file.clone(),
                busbw_factor: busbw_factor(&binary, ranks),
                analysis: analyse(table, expected.gbs.filter(|_| ranks > 1), &choices),
                binary,
                ranks,
            }
        })
        .collect();
    Some(RunNcclPerf { expected, tuning, choices, tables })
}

/// The nccl-tests binary the manifest names, for outputs that do not name it (before
/// nccl-tests printed `# Collective test starting`): its `nccl_tests=` path, else the one
/// distinct `*_perf` program its commands run; `None` when it names none or several.
fn manifest_binary(raw: &RawRun) -> Option<String> {
    let manifest = raw.manifest.as_ref()?;
    let program =
        |word: &str| word.rsplit('/').next().filter(|w| w.ends_with("_perf") && w.len() > 5).map(str::to_string);
    if let Some(binary) = manifest.get("nccl_tests").and_then(program) {
        return Some(binary);
    }
    let named: std::collections::BTreeSet<String> =
        manifest.commands.iter().flat_map(|c| c.split_whitespace()).filter_map(program).collect();
    match named.len() {
        1 => named.into_iter().next(),
        _ => None,
    }
}

/// NCCL's own expected ring busbw over the bottleneck's NVLinks for a known GPU; anything
/// else (PCIe, several nodes, an unknown GPU or topology) is unknown.
fn expected_peak(raw: &RawRun, ranks: u64) -> ExpectedPeak {
    let nodes = raw.hosts.len().max(1) as u64;
    let graph = raw.topology.as_ref().map(link_graph).unwrap_or_default();
    // GPU i for rank i; the rank count (a log's `nranks`, a `g<N>` name) is never a length.
    let in_use = |gpu: usize| (gpu as u64) < ranks;
    let bottleneck = bottleneck_text(&graph, in_use, nodes, None);
    let unknown = |why: &str| ExpectedPeak { bottleneck: bottleneck.clone(), gbs: None, source: why.to_string() };
    if ranks < 2 {
        return unknown("peak unknown: one rank moves no data between GPUs");
    }
    if nodes > 1 {
        return unknown("peak unknown: the NIC rate is not recorded");
    }
    let gpu = raw.gpus.first().map(|g| g.name.as_str()).unwrap_or_default();
    match (intra_node_bottleneck(&graph, in_use), nvlink_peak(gpu)) {
        (Some(LinkClass::Nvlink(links)), Some(peak)) => ExpectedPeak {
            gbs: Some(peak.nccl_expected_gbs(links)),
            source: format!(
                "NCCL's effective NVLink {} bandwidth ({} GB/s per link, src/graph/topo.h) x {links} links",
                peak.generation, peak.nccl_per_link_gbs
            ),
            bottleneck,
        },
        (Some(LinkClass::Nvlink(_)), None) => unknown("peak unknown: the GPU is not in the table of link peaks"),
        (Some(_), _) => unknown("peak unknown: the PCIe generation and width are not recorded"),
        (None, _) => unknown("peak unknown: the topology matrix does not say"),
    }
}

/// The index headline: busbw at the largest size with the size named, per rank count of the
/// all_reduce tables (`4r 362.1 GB/s busbw at 8 GiB`); for a run whose tables all have one
/// rank, `decode` (the decode latency) or a plain statement, never a busbw of 0.
pub(crate) fn run_headline(perf: Option<&RunNcclPerf>, decode: Option<String>) -> String {
    let Some(perf) = perf else { return String::new() };
    let mut parts: Vec<String> = Vec::new();
    for table in perf.tables.iter().filter(|t| t.binary.starts_with("all_reduce")) {
        if let Some(text) = headline(&table.analysis, table.ranks) {
            let text = format!("{}r {text}", table.ranks);
            if !parts.contains(&text) {
                parts.push(text);
            }
        }
    }
    if parts.is_empty() && perf.tables.iter().all(|t| t.ranks <= 1) {
        return match decode {
            Some(latency) => format!("one rank, no busbw; decode {latency} µs per call"),
            None => "one rank, no busbw".to_string(),
        };
    }
    parts.join(" · ")
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::core::model::run::NcclTestsFile;
    use crate::ingest::parse::nccl_tests::parse_text;

    fn one_rank_run() -> RawRun {
        let mut text = include_bytes!("../../../tests/data/nccl/all_reduce_perf_seed_args.stdout").to_vec();
        text.extend_from_slice(include_bytes!("../../../tests/data/nccl/h200_other_collectives.stdout"));
        let output = parse_text(&text);
        let file =
            NcclTestsFile { name: "g1".into(), file: "raw/nccl_tests_g1.stdout".into(), world_size: Some(1), output };
        RawRun { nccl_tests: vec![file], ..RawRun::default() }
    }

    /// The real H200 one-rank captures: every binary with its own factor (0 for AllReduce at
    /// one rank), TUNING not logged at one rank, peak unknown, and a headline without a busbw.
    #[test]
    fn one_rank_h200_run() {
        let perf = analyse_run(&one_rank_run()).unwrap();
        assert_eq!(perf.tuning, TuningState::NotLoggedOneRank);
        assert_eq!(perf.expected.gbs, None);
        let binaries: Vec<(&str, Option<f64>)> =
            perf.tables.iter().map(|t| (t.binary.as_str(), t.busbw_factor)).collect();
        assert!(binaries.contains(&("all_reduce_perf", Some(0.0))), "{binaries:?}");
        assert!(binaries.contains(&("broadcast_perf", Some(1.0))), "{binaries:?}");
        assert!(binaries.iter().any(|(b, _)| *b == "all_gather_perf"), "{binaries:?}");
        assert_eq!(run_headline(Some(&perf), Some("12.345".into())), "one rank, no busbw; decode 12.345 µs per call");
        assert_eq!(run_headline(Some(&perf), None), "one rank, no busbw");
        assert_eq!(run_headline(None, None), "");
        assert_eq!(analyse_run(&RawRun::default()), None);
    }

    /// A rank count from the run is never a length: a log's `nranks 18446744073709551615`
    /// or a `g99999999999999` output (the fuzzer's), even beside a matrix naming
    /// `GPU3000000000` (the second reader's), gives the peak of the GPUs the matrix links.
    #[test]
    fn an_absurd_rank_count_or_gpu_index_is_never_a_length() {
        use crate::ingest::parse::artifacts::parse_topology;
        let mut raw = one_rank_run();
        raw.topology = Some(parse_topology(include_str!("../../../tests/data/topology/dgx_h100_nv18_nics.txt")));
        raw.nccl_tests[0].world_size = Some(u64::MAX);
        let huge = analyse_run(&raw).unwrap().expected;
        raw.nccl_tests[0].world_size = Some(8);
        assert_eq!(huge, analyse_run(&raw).unwrap().expected);
        assert_eq!(huge.bottleneck, "NVLink x18 (NV18)");
        raw.topology = Some(parse_topology("\tGPU0\tGPU3000000000\tGPU18446744073709551615\nGPU0\tX\tNV4\tNV4\n"));
        raw.nccl_tests[0].world_size = Some(u64::MAX);
        assert_eq!(analyse_run(&raw).unwrap().expected.bottleneck, "NVLink x4 (NV4)");
    }

    /// An output that does not name its binary (before `# Collective test starting`): the
    /// manifest's `nccl_tests=` path names it, or the one `*_perf` program its commands run.
    #[test]
    fn the_manifest_names_an_unnamed_binary() {
        use crate::core::model::manifest::Manifest;
        let text = b"#  size  count  type  redop  root  time  algbw  busbw  #wrong  time  algbw  busbw  #wrong\n\
1048576 262144 float sum -1 100.0 10.49 15.73 0 100.0 10.49 15.73 0\n";
        let file = NcclTestsFile {
            name: "g4".into(),
            file: "raw/x.stdout".into(),
            world_size: Some(4),
            output: parse_text(text),
        };
        let mut raw = RawRun { nccl_tests: vec![file], ..RawRun::default() };
        let binary = |raw: &RawRun| analyse_run(raw).unwrap().tables[0].clone();
        assert_eq!((binary(&raw).binary.as_str(), binary(&raw).busbw_factor), ("unknown binary", None));
        let entries = vec![("nccl_tests".to_string(), "/opt/nccl-tests/build/all_reduce_perf".to_string())];
        raw.manifest = Some(Manifest { entries, commands: Vec::new() });
        assert_eq!((binary(&raw).binary.as_str(), binary(&raw).busbw_factor), ("all_reduce_perf", Some(1.5)));
        let commands = vec!["mpirun -np 4 ./build/all_gather_perf -b 8 -e 1G".to_string()];
        raw.manifest = Some(Manifest { entries: Vec::new(), commands });
        assert_eq!(binary(&raw).binary, "all_gather_perf");
        let two = vec!["./all_gather_perf".to_string(), "./broadcast_perf".to_string()];
        raw.manifest = Some(Manifest { entries: Vec::new(), commands: two });
        assert_eq!(binary(&raw).binary, "unknown binary", "two programs: no guess");
    }
}
