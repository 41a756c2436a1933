//! What kind of input a file is, told by its logical name: the one place that decides which
//! parser reads a file. The logical name is the file's `/`-separated path with a trailing
//! `.gz` stripped (run-relative for `find`, as given for `inspect`); the kind comes from the
//! file name, and from the folder above it only for NCCL Inspector dumps and NCCL logs.
//! Names are case-sensitive, as the suite writes them. `find` places the kinds in a run's
//! layout; `load` and `inspect` read each kind with its parser. Uses `model` only.

use crate::core::model::nccl_tests::NcclTestsFormat;
use crate::core::model::sections::WorkerSection;
use crate::core::model::seed_outputs::SEED_OUTPUTS;

/// The kind of one input file.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum InputKind {
    /// `manifest.txt`: `key=value` lines, then `commands:` and indented lines.
    Manifest,
    /// `NOTES.md`: what the run is, in markdown.
    Notes,
    /// One of the seed's own outputs (`summary.md`, `*_summary.csv`...), as a run may archive it.
    SeedOutput(&'static str),
    /// A machine artifact that nccl-report parses.
    Artifact(Artifact),
    /// `rank<N>_<section>.csv`: one rank's rows of a known section.
    WorkerSection { rank: u64, section: WorkerSection },
    /// `nccl_tests_<test>.stdout` / `.json`: nccl-tests output, with `<test>` (never empty).
    NcclTests { test: String, format: NcclTestsFormat },
    /// Another `*.json`: read as nccl-tests `-J` output by `inspect`; no place in a run.
    Json,
    /// Another `*.stdout`: a case's torchrun output in a run; read as nccl-tests output by `inspect`.
    Stdout,
    /// An NCCL Inspector dump: any file in a case folder of an `inspector` folder
    /// (`raw/inspector/<case>/`, as `collect` stores them), a `*.log` right in an `inspector`
    /// folder, or a `*.log` named as the plugin names its files, `<host>-pid<pid>.log`.
    InspectorDump,
    /// Another `*.log` (and every `*.log` right in an `nccl` folder): NCCL_DEBUG output.
    NcclLog,
    /// Anything else.
    Other,
}

/// The machine artifacts nccl-report parses (others are shown as text).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Artifact {
    /// `nvidia_smi_query.txt`: the GPUs.
    GpuQuery,
    /// `nvidia_smi_topo.txt`: the links between GPUs (`nvidia-smi topo -m`).
    GpuTopology,
    /// `ibv_devinfo.txt`: the InfiniBand devices and ports.
    IbDevices,
}

impl InputKind {
    /// The kind of the file with this logical name (`/`-separated, `.gz` already stripped).
    pub fn of(logical_name: &str) -> InputKind {
        let mut parts = logical_name.rsplit('/');
        let name = parts.next().unwrap_or_default();
        let parent = parts.next();
        let grandparent = parts.next();
        let log_stem = name.strip_suffix(".log");
        if grandparent == Some("inspector") || (parent == Some("inspector") && log_stem.is_some()) {
            return InputKind::InspectorDump;
        }
        match name {
            "manifest.txt" => return InputKind::Manifest,
            "NOTES.md" => return InputKind::Notes,
            "nvidia_smi_query.txt" => return InputKind::Artifact(Artifact::GpuQuery),
            "nvidia_smi_topo.txt" => return InputKind::Artifact(Artifact::GpuTopology),
            "ibv_devinfo.txt" => return InputKind::Artifact(Artifact::IbDevices),
            _ => {}
        }
        if let Some(seed_output) = SEED_OUTPUTS.into_iter().find(|output| *output == name) {
            return InputKind::SeedOutput(seed_output);
        }
        if let Some((rank, section)) = section_file(name) {
            return InputKind::WorkerSection { rank, section };
        }
        if let Some((test, format)) = nccl_tests_file(name) {
            return InputKind::NcclTests { test: test.to_string(), format };
        }
        if let Some(stem) = log_stem {
            return if parent != Some("nccl") && is_plugin_dump_name(stem) {
                InputKind::InspectorDump
            } else {
                InputKind::NcclLog
            };
        }
        if name.ends_with(".json") {
            InputKind::Json
        } else if name.ends_with(".stdout") {
            InputKind::Stdout
        } else {
            InputKind::Other
        }
    }
}

/// `rank<N>_<section>.csv` -> (N, section), for the known sections.
fn section_file(name: &str) -> Option<(u64, WorkerSection)> {
    let stem = name.strip_prefix("rank")?.strip_suffix(".csv")?;
    let (rank, section) = stem.split_once('_')?;
    Some((rank.parse().ok()?, WorkerSection::from_name(section)?))
}

/// `nccl_tests_<test>.stdout` / `.json` -> (`<test>`, format); `<test>` is never empty.
fn nccl_tests_file(name: &str) -> Option<(&str, NcclTestsFormat)> {
    let stem = name.strip_prefix("nccl_tests_")?;
    let (test, format) = match stem.strip_suffix(".stdout") {
        Some(test) => (test, NcclTestsFormat::Text),
        None => (stem.strip_suffix(".json")?, NcclTestsFormat::Json),
    };
    (!test.is_empty()).then_some((test, format))
}

/// `<host>-pid<digits>`: the NCCL Inspector plugin's file name (without `.log`).
fn is_plugin_dump_name(stem: &str) -> bool {
    stem.rsplit_once("-pid").is_some_and(|(_, pid)| !pid.is_empty() && pid.bytes().all(|b| b.is_ascii_digit()))
}

#[cfg(test)]
mod tests {
    use super::{Artifact, InputKind as Kind};
    use crate::core::model::nccl_tests::NcclTestsFormat;
    use crate::core::model::sections::WorkerSection;

    fn nccl_tests(test: &str, format: NcclTestsFormat) -> Kind {
        Kind::NcclTests { test: test.to_string(), format }
    }

    fn section(rank: u64, section: WorkerSection) -> Kind {
        Kind::WorkerSection { rank, section }
    }

    #[test]
    fn the_classification_table() {
        let table = [
            ("manifest.txt", Kind::Manifest),
            ("NOTES.md", Kind::Notes),
            ("summary.md", Kind::SeedOutput("summary.md")),
            ("async_summary.csv", Kind::SeedOutput("async_summary.csv")),
            ("nccl_tests_raw.csv", Kind::SeedOutput("nccl_tests_raw.csv")),
            ("artifacts/nvidia_smi_query.txt", Kind::Artifact(Artifact::GpuQuery)),
            ("artifacts/node1/nvidia_smi_topo.txt", Kind::Artifact(Artifact::GpuTopology)),
            ("artifacts/node1/ibv_devinfo.txt", Kind::Artifact(Artifact::IbDevices)),
            ("artifacts/versions.txt", Kind::Other),
            ("raw/results/world4_full/rank0_contracts.csv", section(0, WorkerSection::Contracts)),
            ("raw/results/world4_full/rank10_async.csv", section(10, WorkerSection::Async)),
            ("rank3_decomposition.csv", section(3, WorkerSection::Decomposition)),
            ("rank1_fragmentation.csv", section(1, WorkerSection::Fragmentation)),
            ("rank2_decode.csv", section(2, WorkerSection::Decode)),
            ("rank7_numerics.csv", section(7, WorkerSection::Numerics)),
            ("raw/nccl_tests_g4.stdout", nccl_tests("g4", NcclTestsFormat::Text)),
            ("raw/nccl_tests_g4.json", nccl_tests("g4", NcclTestsFormat::Json)),
            ("raw/nccl_tests_.stdout", Kind::Stdout),
            ("raw/nccl_tests_.json", Kind::Json),
            ("json_2196.json", Kind::Json),
            ("raw/world4_full.stdout", Kind::Stdout),
            ("raw/nccl/world4_full_node1_1234.log", Kind::NcclLog),
            ("raw/nccl/node1-pid1234.log", Kind::NcclLog),
            ("nccl_debug_all_reduce_perf.log", Kind::NcclLog),
            ("raw/inspector/world4_full/node1-pid1234.log", Kind::InspectorDump),
            ("raw/inspector/world4_full/anything.json", Kind::InspectorDump),
            ("inspector/node1-pid1234.log", Kind::InspectorDump),
            ("inspector/dump.log", Kind::InspectorDump),
            ("node-pid12.log", Kind::InspectorDump),
            ("node-pid.log", Kind::NcclLog),
            ("node-pidx.log", Kind::NcclLog),
            ("raw/results/inspector/rank0_async.csv", section(0, WorkerSection::Async)),
            ("inspector/notes.txt", Kind::Other),
            ("raw/inspector/world4_full/manifest.txt", Kind::InspectorDump),
        ];
        for (name, kind) in table {
            assert_eq!(Kind::of(name), kind, "{name}");
        }
    }

    #[test]
    fn unknown_names_are_other() {
        for name in [
            "",
            "raw/",
            "rank0_other.csv",
            "rankx_async.csv",
            "rank_async.csv",
            "rank-1_async.csv",
            "rank0_async.tsv",
            "rank0async.csv",
            "summary.txt",
            "nccl_tests_g4.txt",
            "raw/results/world4_full/notes.txt",
        ] {
            assert_eq!(Kind::of(name), Kind::Other, "{name:?}");
        }
    }

    #[test]
    fn names_are_case_sensitive() {
        for name in [
            "MANIFEST.txt",
            "notes.md",
            "Summary.md",
            "NVIDIA_SMI_QUERY.txt",
            "Rank0_async.csv",
            "rank0_Async.csv",
            "rank0_async.CSV",
            "raw/nccl/x.LOG",
            "out.JSON",
            "out.STDOUT",
        ] {
            assert_eq!(Kind::of(name), Kind::Other, "{name}");
        }
        assert_eq!(Kind::of("NCCL_TESTS_g4.stdout"), Kind::Stdout, "another stdout, not nccl-tests of a test");
        assert_eq!(Kind::of("Inspector/node-pid1.log"), Kind::InspectorDump, "the plugin's file name decides");
        assert_eq!(Kind::of("Inspector/dump.log"), Kind::NcclLog, "only an `inspector` folder makes any log a dump");
    }

    /// Callers strip one `.gz` (`find`, `input::logical_name`); what is left decides.
    #[test]
    fn gzip_names_are_classified_without_gz() {
        let strip = |name: &'static str| name.strip_suffix(".gz").unwrap_or(name);
        assert_eq!(Kind::of(strip("manifest.txt.gz")), Kind::Manifest);
        assert_eq!(Kind::of(strip("raw/nccl/case_host_1.log.gz")), Kind::NcclLog);
        assert_eq!(Kind::of(strip("raw/nccl_tests_g2.json.gz")), nccl_tests("g2", NcclTestsFormat::Json));
        assert_eq!(Kind::of(strip("rank0_numerics.csv.gz")), section(0, WorkerSection::Numerics));
        assert_eq!(Kind::of(strip("raw/inspector/c/h-pid9.log.gz")), Kind::InspectorDump);
        assert_eq!(Kind::of(strip("summary.md.gz")), Kind::SeedOutput("summary.md"));
        assert_eq!(Kind::of(strip("rank0_async.csv.gz.gz")), Kind::Other, "only one .gz is stripped");
        assert_eq!(Kind::of("manifest.txt.gz"), Kind::Other, "the name must be given without .gz");
    }
}
