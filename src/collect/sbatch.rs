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
    let json = probe::nccl_tests_supports_json(&binary);
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
