//! Cross-checks of what a run says about its size: the rank CSVs of each case folder, the
//! world sizes in their rows, the nvidia-smi GPU count, the manifest's commands
//! (`--nproc_per_node`/`--nproc-per-node` [x `--nnodes`], nccl-tests `-g` x `-t`), the nccl-tests
//! outputs' device lines and the NCCL logs' `nranks`. Each disagreement is one warning naming
//! both sources. Knows `model` only.
//!
//! What is not a disagreement: a case smaller than the machine (`world2` on 4 GPUs), NCCL
//! communicators smaller than the largest world size (PyTorch makes 2-rank communicators for
//! point-to-point), multi-node launches (`--nnodes` > 1, nccl-tests over several hosts) against
//! one node's GPU count, and a source that is absent.

use crate::core::diag::{Code, Diagnostic};
use crate::core::format::count as counted;
use crate::core::model::run::RawRun;
use crate::core::model::sections::{SectionRows, WorkerSection};
use std::collections::{BTreeMap, BTreeSet};

/// The world sizes written in a section's rows.
pub fn row_world_sizes(rows: &SectionRows) -> Vec<i64> {
    match rows {
        SectionRows::Async(r) => r.iter().map(|x| x.world_size).collect(),
        SectionRows::Decomposition(r) => r.iter().map(|x| x.world_size).collect(),
        SectionRows::Fragmentation(r) => r.iter().map(|x| x.world_size).collect(),
        SectionRows::Decode(r) => r.iter().map(|x| x.world_size).collect(),
        SectionRows::Numerics(r) => r.iter().filter_map(|x| x.world_size).collect(),
        SectionRows::Contracts(_) => Vec::new(),
    }
}

/// One case folder: the ranks that have CSVs, and the world sizes their rows say.
#[derive(Default)]
struct CaseRanks {
    ranks: BTreeSet<u64>,
    world_sizes: BTreeSet<i64>,
}

/// A command of the manifest that says how many ranks it starts.
struct LaunchCommand {
    /// 1-based position among the manifest's commands.
    number: usize,
    /// The case folder of its `--output-dir` (torchrun), `None` for nccl-tests.
    case: Option<String>,
    ranks: u64,
    /// `--nnodes` > 1 or an MPI/Slurm launcher: ranks may exceed one node's GPUs.
    multi_node: bool,
    what: String,
}

pub fn check(raw: &RawRun, diagnostics: &mut Vec<Diagnostic>) {
    let mut cases: BTreeMap<&str, CaseRanks> = BTreeMap::new();
    // Async, decomposition and fragmentation are keyed by world size, as the seed keys them
    // (decode is summarized per folder): two folders with rows of one world size are merged.
    let mut folders_of: BTreeMap<(&str, i64), BTreeSet<&str>> = BTreeMap::new();
    for data in &raw.sections {
        let case = cases.entry(data.case.as_str()).or_default();
        case.ranks.insert(data.rank);
        let world_sizes = row_world_sizes(&data.rows);
        if matches!(data.section(), WorkerSection::Async | WorkerSection::Decomposition | WorkerSection::Fragmentation)
        {
            for &world_size in &world_sizes {
                folders_of.entry((data.section().name(), world_size)).or_default().insert(data.case.as_str());
            }
        }
        case.world_sizes.extend(world_sizes);
    }
    let commands: Vec<LaunchCommand> = raw
        .manifest
        .iter()
        .flat_map(|m| m.commands.iter().enumerate())
        .filter_map(|(index, line)| launch_command(index + 1, line))
        .collect();
    let gpus = gpu_count(raw);
    let mut warn =
        |code: Code, file: &str, message: String| diagnostics.push(Diagnostic::warning(code, file, None, message));

    for ((section, world_size), folders) in folders_of.iter().filter(|(_, f)| f.len() > 1) {
        let list: Vec<String> = folders.iter().map(|f| format!("raw/results/{f}")).collect();
        warn(
            Code::FoldersMerged,
            &list[0],
            format!(
                "{section} rows of world size {world_size} come from {}: keyed by world size as the seed keys them, their cycles are merged into one case (one row, one line); collect one folder per world size to keep them apart",
                list.join(" and ")
            ),
        );
    }

    for (name, case) in &cases {
        let folder = format!("raw/results/{name}");
        let count = case.ranks.len() as u64;
        let sets = rank_sets(&case.ranks);
        let other: Vec<String> = case.world_sizes.iter().filter(|&&w| w != count as i64).map(i64::to_string).collect();
        if !other.is_empty() {
            warn(Code::RowsWorldSize, &folder, format!("{sets} but the rows' world_size says {}", other.join(", ")));
        }
        for command in commands.iter().filter(|c| c.case.as_deref() == Some(*name)) {
            if command.ranks != count {
                warn(
                    Code::CommandRanks,
                    "manifest.txt",
                    format!("command {} launches {} for {name} but {folder} has {sets}", command.number, command.what),
                );
            }
        }
        let multi_node = commands.iter().any(|c| c.case.as_deref() == Some(*name) && c.multi_node);
        if let Some((gpus, source)) = gpus.as_ref().filter(|(gpus, _)| count > *gpus && !multi_node) {
            warn(
                Code::MoreRanksThanGpus,
                source,
                format!("nvidia-smi lists {} but {folder} has {sets}", counted(*gpus, "GPU")),
            );
        }
    }

    let tests_commands: Vec<&LaunchCommand> = commands.iter().filter(|c| c.case.is_none()).collect();
    for file in &raw.nccl_tests {
        let devices = file.output.ranks().filter(|_| !file.output.devices.is_empty());
        let named = file.name.strip_prefix('g').and_then(|n| n.parse::<u64>().ok());
        if let (Some(named), Some(devices)) = (named, devices) {
            if named != devices {
                warn(
                    Code::NcclTestsDevices,
                    &file.file,
                    format!("named for {} but lists {}", counted(named, "rank"), counted(devices, "device line")),
                );
            }
        }
        let Some(ranks) = file.world_size else { continue };
        let launched: BTreeSet<u64> = tests_commands.iter().map(|c| c.ranks).collect();
        let mpi = tests_commands.iter().any(|c| c.multi_node);
        if !launched.is_empty() && !mpi && !launched.contains(&ranks) {
            let list: Vec<String> =
                tests_commands.iter().map(|c| format!("command {}: {}", c.number, c.what)).collect();
            warn(
                Code::NcclTestsCommand,
                &file.file,
                format!("{} but the manifest's nccl-tests commands run {}", counted(ranks, "rank"), list.join("; ")),
            );
        }
        let hosts: BTreeSet<&str> = file.output.devices.iter().map(|d| d.host.as_str()).collect();
        if let Some((gpus, source)) = gpus.as_ref().filter(|(gpus, _)| ranks > *gpus && hosts.len() <= 1 && !mpi) {
            warn(
                Code::MoreRanksThanGpus,
                source,
                format!("nvidia-smi lists {} but {} ran {}", counted(*gpus, "GPU"), file.file, counted(ranks, "rank")),
            );
        }
    }

    let largest_log = raw.nccl_log.as_ref().and_then(|l| l.communicators.iter().map(|c| c.nranks).max());
    let known = cases
        .values()
        .flat_map(|c| c.world_sizes.iter().map(|&w| w.max(0) as u64).chain([c.ranks.len() as u64]))
        .chain(raw.nccl_tests.iter().filter_map(|f| f.world_size))
        .chain(commands.iter().map(|c| c.ranks))
        .max();
    if let (Some(log), Some(known), Some(first)) = (largest_log, known, raw.nccl_log_files.first()) {
        if log > known {
            // The logs are merged: the folder is named, not one file.
            let folder = first.rsplit_once('/').map_or(first.as_str(), |(folder, _)| folder);
            warn(
                Code::LogCommunicator,
                folder,
                format!("the NCCL logs show a communicator of nranks {log} but the run's largest world size (rank CSVs, rows, nccl-tests, manifest) is {known}"),
            );
        }
    }
}

/// The GPUs nvidia-smi listed, with the file that says so: every host's together for a
/// multi-node run (`artifacts/<host>/`), else `artifacts/nvidia_smi_query.txt`.
fn gpu_count(raw: &RawRun) -> Option<(u64, String)> {
    if !raw.hosts.is_empty() {
        let gpus: usize = raw.hosts.iter().map(|h| h.gpus.len()).sum();
        return (gpus > 0).then(|| (gpus as u64, "artifacts/<host>/nvidia_smi_query.txt".to_string()));
    }
    (!raw.gpus.is_empty()).then(|| (raw.gpus.len() as u64, "artifacts/nvidia_smi_query.txt".to_string()))
}

/// `4 rank CSV sets (rank0..rank3)`.
fn rank_sets(ranks: &BTreeSet<u64>) -> String {
    let first = ranks.first().copied().unwrap_or_default();
    let last = ranks.last().copied().unwrap_or_default();
    let plural = if ranks.len() == 1 { "" } else { "s" };
    format!("{} rank CSV set{plural} (rank{first}..rank{last})", ranks.len())
}

/// A torchrun command with `--nproc_per_node` and `--output-dir .../<case>`, or an nccl-tests
/// binary (`*_perf`, `*_perf_mpi`) with its `-g` x `-t` ranks per process.
fn launch_command(number: usize, line: &str) -> Option<LaunchCommand> {
    let tokens: Vec<&str> = line.split_whitespace().collect();
    let value = |names: &[&str]| -> Option<&str> {
        tokens.iter().enumerate().find_map(|(i, token)| {
            names.iter().find_map(|name| {
                token
                    .strip_prefix(name)
                    .and_then(|rest| rest.strip_prefix('='))
                    .or_else(|| (token == name).then(|| tokens.get(i + 1).copied()).flatten())
            })
        })
    };
    let launcher = tokens.iter().any(|t| ["mpirun", "mpiexec", "srun"].contains(&program_name(t)));
    if let Some(nproc) = value(&["--nproc_per_node", "--nproc-per-node"]) {
        let nproc: u64 = nproc.parse().ok()?;
        let nnodes = value(&["--nnodes"]).map_or(Some(1), |n| n.parse::<u64>().ok());
        let case = value(&["--output-dir"])?.trim_end_matches('/').rsplit('/').next()?.to_string();
        let what = format!("--nproc_per_node={nproc}");
        return Some(LaunchCommand {
            number,
            case: Some(case),
            ranks: nproc * nnodes.unwrap_or(1),
            multi_node: nnodes != Some(1) || launcher,
            what,
        });
    }
    tokens.iter().position(|t| program_name(t).ends_with("_perf") || program_name(t).ends_with("_perf_mpi"))?;
    let count = |flag: &str| value(&[flag]).map_or(Some(1), |v| v.parse::<u64>().ok());
    let (gpus, threads) = (count("-g")?, count("-t")?);
    let what = format!("-g {gpus} -t {threads}");
    Some(LaunchCommand { number, case: None, ranks: gpus * threads, multi_node: launcher, what })
}

/// The file name of a program token (`/opt/bin/all_reduce_perf` -> `all_reduce_perf`).
fn program_name(token: &str) -> &str {
    token.rsplit('/').next().unwrap_or(token)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn launch_commands_of_every_spelling() {
        let seed = launch_command(1, "NCCL_DEBUG=INFO torchrun --standalone --nproc_per_node=4 w.py --output-dir /x/raw/results/world4_full --cycles 10").unwrap();
        assert_eq!((seed.case.as_deref(), seed.ranks, seed.multi_node), (Some("world4_full"), 4, false));
        let dashed =
            launch_command(2, "torchrun --nnodes 2 --nproc-per-node 8 w.py --output-dir=raw/results/big/").unwrap();
        assert_eq!((dashed.case.as_deref(), dashed.ranks, dashed.multi_node), (Some("big"), 16, true));
        let tests = launch_command(3, "X=1 /opt/nccl-tests/build/all_reduce_perf -b 8K -g 2 -t 2 -c 1").unwrap();
        assert_eq!((tests.case, tests.ranks, tests.what.as_str()), (None, 4, "-g 2 -t 2"));
        let mpi = launch_command(4, "mpirun -np 16 all_gather_perf_mpi -b 8").unwrap();
        assert_eq!((mpi.ranks, mpi.multi_node), (1, true));
        assert!(launch_command(5, "python3 -c 'print(1)'").is_none());
        assert!(launch_command(6, "torchrun --nproc_per_node=gpu w.py --output-dir raw/results/a").is_none());
    }
}
