//! `collect --launcher slurm`: plans the multi-node run, writes `job.sbatch` and the plan
//! `--finish` completes the manifest from into `<runs>/.collect-<id>/`, and submits it with
//! `sbatch --parsable` when asked. Starts no process but `sbatch` (and `all_reduce_perf -h`).
//!
//! Decisions:
//! - One case: every section at world size nodes x GPUs per node (`world16_full` for 2x8);
//!   `--world-sizes` is for the local launcher and ignored here (said on stderr).
//! - The run folder must be on a filesystem every node sees (the usual home or project
//!   space): every node writes its artifacts, results and NCCL logs into it.
//! - `#SBATCH` lines are not shell-quoted by Slurm: the run id and the run folder path must
//!   be plain (letters, digits, `_-+=:,./%@`), or the command refuses before writing.
//! - `--gpus-per-node` also sets the default CPU affinity (`0,2,...`, one per local rank).

use crate::collect::clock::UtcTime;
use crate::collect::launch::{absolute, existing_worker, Folders, CRITICAL_PATH, DTYPE};
use crate::collect::plan::{self, shell_quote, Step, WorkerSettings, DEBUG_ENV, SAFETY_ENV};
use crate::collect::probe;
use crate::collect::slurm::{self, ScriptInputs, SlurmSettings};
use crate::collect::CollectOptions;
use crate::core::run_id;
use crate::core::stdout::{out, outln};
use anyhow::{anyhow, bail, Context, Result};
use serde::{Deserialize, Serialize};
use sha2::Digest;
use std::fs;
use std::path::{Path, PathBuf};
use std::process::Stdio;

/// The plan file `--finish` reads (and removes) in the assembly folder.
pub const PLAN_FILE: &str = "collect_plan.json";
/// The batch script's name in the run folder.
pub const SCRIPT_FILE: &str = "job.sbatch";

/// What was decided at submit time: manifest entries, the commands and the files they must
/// leave (relative to the run).
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct MultiNodePlan {
    pub entries: Vec<(String, String)>,
    pub commands: Vec<String>,
    pub outputs: Vec<PathBuf>,
}

/// Writes (or, with `dry_run`, prints) the batch script; submits it when `submit`.
pub fn prepare(options: &CollectOptions, slurm: &SlurmSettings, submit: bool) -> Result<()> {
    let expanded = match &slurm.nodelist {
        Some(list) => Some(expand_hostlist(list).map_err(|why| anyhow!("--nodelist {list:?}: {why}"))?.join(",")),
        None => None,
    };
    let slurm = &SlurmSettings { nodelist: expanded, ..slurm.clone() };
    let started = UtcTime::now();
    let id = options.run_id.clone().unwrap_or_else(|| started.run_id());
    run_id::validate(&id).map_err(|e| anyhow!("run id {id:?}: {e}"))?;
    if slurm.nodes == 0 || slurm.gpus_per_node == 0 {
        bail!("--nodes and --gpus-per-node must be at least 1");
    }
    if options.world_sizes != [4, 2] {
        eprintln!("note: --world-sizes is ignored with --launcher slurm: the world is --nodes x --gpus-per-node");
    }
    let runs = if options.dry_run {
        absolute(&options.runs)
    } else {
        fs::create_dir_all(&options.runs).with_context(|| format!("cannot create {}", options.runs.display()))?;
        fs::canonicalize(&options.runs).with_context(|| format!("cannot resolve {}", options.runs.display()))?
    };
    let folders = Folders::new(&runs, &id);
    plain_for_sbatch("the run id", &id)?;
    plain_for_sbatch("--time", &slurm.time)?;
    for (what, value) in
        [("--partition", &slurm.partition), ("--account", &slurm.account), ("--nodelist", &slurm.nodelist)]
    {
        if let Some(value) = value {
            plain_for_sbatch(what, value)?;
        }
    }
    if let Some(arg) = slurm.extra.iter().find(|a| a.chars().any(char::is_control)) {
        bail!("--sbatch-arg {arg:?} holds a control character (a newline would start a script line)");
    }
    plain_for_sbatch("the run folder", &folders.assembly.display().to_string())?;
    folders.check_free()?;
    let worker = existing_worker(options)?;
    let settings = worker_settings(options, slurm, worker)?;
    let cases = plan::cases(&[slurm.nodes * slurm.gpus_per_node]);
    let torch: Vec<Step> = cases.iter().map(|case| plan::torch_step(case, &settings)).collect();
    let nccl_tests = nccl_tests_step(options, slurm)?;
    let nccl_report = std::env::current_exe().context("cannot find the nccl-report binary")?;
    let inputs = ScriptInputs {
        id: &id,
        run_dir: &folders.assembly,
        runs: &runs,
        nccl_report: &nccl_report,
        slurm,
        torch: &torch,
        nccl_tests: nccl_tests.as_ref(),
    };
    let script = slurm::script(&inputs);
    if options.dry_run {
        out!("{script}");
        return Ok(());
    }
    // The control's JSON is not required: the per-node fallback of a non-MPI build writes none.
    let outputs = torch.iter().flat_map(|s| s.outputs.clone()).collect();
    let plan = MultiNodePlan {
        entries: manifest_entries(&id, started, slurm, &settings, nccl_tests.as_ref()),
        commands: slurm::commands(&inputs),
        outputs,
    };
    let script_path = write_assembly(&folders.assembly, &script, &plan)?;
    if submit {
        let job = sbatch(&folders.assembly, &script_path)?;
        outln!("submitted job {job}: {}", script_path.display());
        outln!("follow it:   squeue -j {job}");
        outln!("its output:  {}", folders.assembly.join(format!("slurm-{job}.out")).display());
        outln!(
            "the job lands the run itself; if it was killed: nccl-report collect --runs {} --finish {}",
            shell_quote(&runs.display().to_string()),
            shell_quote(&id)
        );
    } else {
        outln!("wrote {}", script_path.display());
        outln!("submit it with: sbatch --parsable {}", shell_quote(&script_path.display().to_string()));
    }
    Ok(())
}

/// The most hosts one `--nodelist` may name once expanded.
const MAX_HOSTS: usize = 4096;

/// A Slurm hostlist expanded to its host names: `node[1-3,7],gpu[01-02]` is `node1`, `node2`,
/// `node3`, `node7`, `gpu01`, `gpu02` (a range keeps the width of its first bound, so `01-02`
/// pads with zeros; several bracket groups in one name multiply). Commas inside brackets
/// separate ranges, outside them hosts. Anything else that would need quoting is refused
/// later by `plain_for_sbatch`.
pub(crate) fn expand_hostlist(text: &str) -> Result<Vec<String>, String> {
    let mut hosts = Vec::new();
    let (mut depth, mut start) = (0usize, 0usize);
    for (i, c) in text.char_indices() {
        match c {
            '[' if depth == 0 => depth = 1,
            '[' => return Err("nested '['".into()),
            ']' if depth == 1 => depth = 0,
            ']' => return Err("a ']' without its '['".into()),
            ',' if depth == 0 => {
                hosts.extend(expand_host(&text[start..i])?);
                start = i + 1;
            }
            _ => {}
        }
        if hosts.len() > MAX_HOSTS {
            return Err(format!("more than {MAX_HOSTS} hosts"));
        }
    }
    if depth != 0 {
        return Err("a '[' without its ']'".into());
    }
    hosts.extend(expand_host(&text[start..])?);
    if hosts.len() > MAX_HOSTS {
        return Err(format!("more than {MAX_HOSTS} hosts"));
    }
    Ok(hosts)
}

/// One host pattern: a name with any number of `[ranges]` groups.
fn expand_host(pattern: &str) -> Result<Vec<String>, String> {
    if pattern.is_empty() {
        return Err("an empty host name".into());
    }
    let Some(open) = pattern.find('[') else { return Ok(vec![pattern.to_string()]) };
    let close = open + pattern[open..].find(']').ok_or("a '[' without its ']'")?;
    let (prefix, ranges, rest) = (&pattern[..open], &pattern[open + 1..close], &pattern[close + 1..]);
    let tails = expand_host_tail(rest)?;
    let mut hosts = Vec::new();
    for range in ranges.split(',') {
        let (low, high) = range.split_once('-').unwrap_or((range, range));
        let parse = |n: &str| {
            (!n.is_empty() && n.bytes().all(|b| b.is_ascii_digit()))
                .then(|| n.parse::<u64>().ok())
                .flatten()
                .ok_or(format!("{range:?} is not a number or a range of numbers"))
        };
        let (from, to) = (parse(low)?, parse(high)?);
        if from > to || to - from >= MAX_HOSTS as u64 {
            return Err(format!("the range {range:?} is empty or names more than {MAX_HOSTS} hosts"));
        }
        for n in from..=to {
            for tail in &tails {
                hosts.push(format!("{prefix}{n:0width$}{tail}", width = low.len()));
            }
            if hosts.len() > MAX_HOSTS {
                return Err(format!("more than {MAX_HOSTS} hosts"));
            }
        }
    }
    Ok(hosts)
}

/// The rest of a host pattern after its first group (empty: one empty tail).
fn expand_host_tail(rest: &str) -> Result<Vec<String>, String> {
    if rest.is_empty() {
        Ok(vec![String::new()])
    } else {
        expand_host(rest)
    }
}

fn plain_for_sbatch(what: &str, text: &str) -> Result<()> {
    if shell_quote(text) != text {
        bail!("{what} {text:?} holds characters an #SBATCH line cannot carry; use letters, digits and _-+=:,./%@");
    }
    Ok(())
}

fn worker_settings(options: &CollectOptions, slurm: &SlurmSettings, worker: PathBuf) -> Result<WorkerSettings> {
    let cpu_affinity = match &options.cpu_affinity {
        Some(list) => {
            plan::check_cpu_affinity(list, slurm.gpus_per_node).map_err(|e| anyhow!(e))?;
            list.clone()
        }
        None => {
            // The compute nodes' topology is not known when the script is written.
            let (list, note) = plan::default_cpu_affinity(slurm.gpus_per_node, &[]);
            if let Some(note) = note {
                eprintln!("note: {note} (the compute nodes' topology is unknown when the script is written)");
            }
            list
        }
    };
    Ok(WorkerSettings::of(options, worker, cpu_affinity))
}

/// The control over the whole world; the binary must exist here (a path every node sees).
fn nccl_tests_step(options: &CollectOptions, slurm: &SlurmSettings) -> Result<Option<Step>> {
    let Some(path) = &options.nccl_tests else {
        eprintln!("note: nccl-tests control skipped: no --nccl-tests given");
        return Ok(None);
    };
    let binary = fs::canonicalize(path)
        .with_context(|| format!("--nccl-tests {}: not found (give a path every node sees)", path.display()))?;
    // A dry run runs nothing, not even `-h`: it shows the command as with JSON support.
    let json = options.dry_run || probe::nccl_tests_supports_json(&binary);
    let world = slurm.nodes * slurm.gpus_per_node;
    Ok(Some(plan::nccl_tests_step(&binary.display().to_string(), world, options.cycles, json)))
}

fn manifest_entries(
    id: &str,
    started: UtcTime,
    slurm: &SlurmSettings,
    settings: &WorkerSettings,
    nccl_tests: Option<&Step>,
) -> Vec<(String, String)> {
    let worker_sha = fs::read(&settings.worker)
        .map(|b| format!("{:x}", sha2::Sha256::digest(&b)))
        .unwrap_or_else(|e| format!("unavailable ({e})"));
    let world = (slurm.nodes * slurm.gpus_per_node).to_string();
    let mut entries: Vec<(&str, String)> = vec![
        ("experiment", "interview_details".into()),
        ("run_id", id.to_string()),
        ("timestamp_utc", started.iso8601()),
        ("launcher", "slurm".into()),
        ("nodes", slurm.nodes.to_string()),
        ("gpus_per_node", slurm.gpus_per_node.to_string()),
        ("worker_sha256", worker_sha),
        ("cycles", settings.cycles.to_string()),
        ("warmups", settings.warmups.to_string()),
        ("decode_collectives", settings.decode_collectives.to_string()),
        ("cpu_affinity", format!("{} (local rank i uses entry i)", settings.cpu_affinity)),
        ("nccl_tests", nccl_tests.map_or_else(|| "not run: no --nccl-tests given".into(), |s| s.program.clone())),
        ("dtype", DTYPE.into()),
        ("critical_path_summary", CRITICAL_PATH.into()),
    ];
    entries.extend(DEBUG_ENV.iter().map(|(k, v)| (*k, v.to_string())));
    entries.extend(SAFETY_ENV.iter().map(|(k, v)| (*k, v.to_string())));
    entries.extend([
        ("world_sizes", world.clone()),
        ("requested_world_sizes", world),
        ("collected_by", format!("nccl-report {}", env!("CARGO_PKG_VERSION"))),
    ]);
    entries.into_iter().map(|(k, v)| (k.to_string(), v)).collect()
}

fn write_assembly(dir: &Path, script: &str, plan: &MultiNodePlan) -> Result<PathBuf> {
    fs::create_dir_all(dir).with_context(|| format!("cannot create {}", dir.display()))?;
    let script_path = dir.join(SCRIPT_FILE);
    fs::write(&script_path, script).with_context(|| format!("cannot write {}", script_path.display()))?;
    let plan_path = dir.join(PLAN_FILE);
    let text = serde_json::to_vec_pretty(plan)?;
    fs::write(&plan_path, text).with_context(|| format!("cannot write {}", plan_path.display()))?;
    Ok(script_path)
}

/// `sbatch --parsable SCRIPT`; returns the job id (`1234` of `1234;cluster`).
fn sbatch(dir: &Path, script: &Path) -> Result<String> {
    let output = probe::child("sbatch")
        .arg("--parsable")
        .arg(script)
        .current_dir(dir)
        .stdin(Stdio::null())
        .output()
        .context("cannot run sbatch (is this a Slurm login node?)")?;
    let stdout = String::from_utf8_lossy(&output.stdout);
    let job = stdout.trim().split(';').next().unwrap_or("").to_string();
    if !output.status.success() || job.is_empty() {
        bail!(
            "sbatch refused {} ({}): {}{}; the script stays there for a retry",
            script.display(),
            output.status,
            stdout.trim(),
            String::from_utf8_lossy(&output.stderr).trim()
        );
    }
    Ok(job)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn slurm_hostlists_are_expanded() {
        let hosts = |text: &str| expand_hostlist(text).map(|h| h.join(","));
        assert_eq!(hosts("node[1-2]").as_deref(), Ok("node1,node2"));
        assert_eq!(hosts("node[1-3,7],gpu[01-02]").as_deref(), Ok("node1,node2,node3,node7,gpu01,gpu02"));
        assert_eq!(hosts("a,b").as_deref(), Ok("a,b"));
        assert_eq!(hosts("r[1-2]n[1-2]").as_deref(), Ok("r1n1,r1n2,r2n1,r2n2"));
        assert_eq!(hosts("n[8-10]").as_deref(), Ok("n8,n9,n10"));
        for bad in ["node[1-2", "node]1", "node[[1]]", "node[2-1]", "node[a-b]", "node[1-99999]", "", "a,,b", "n[]"] {
            assert!(expand_hostlist(bad).is_err(), "{bad:?}");
        }
    }
}
