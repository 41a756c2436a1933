//! `collect --finish <id>`: lands a multi-node run assembled by its batch job.
//!
//! Reads `<runs>/.collect-<id>/`: the plan written at submit time, the job's `job.txt` and
//! every `step_status/<step>`; writes the manifest (the plan's entries, the job's facts, the
//! first host's GPU / topology / versions, every command) and lands the folder as
//! `runs/<id>` exactly like a single-node run. `artifacts/` holds the first host's files, as
//! in a single-node run, and `artifacts/<host>/` every host's. A failed step, a missing
//! `job.txt` (job cancelled or timed out) or a missing output moves the folder to
//! `runs/.failed/<id>/` with `failure.txt` naming the step.

use crate::collect::launch::{fail, land, Folders};
use crate::collect::record::{gpu_summary, manifest_text, topology_summary};
use crate::collect::sbatch::{MultiNodePlan, PLAN_FILE};
use crate::collect::steps::{filter_json_env, gzip_logs};
use crate::core::run_id;
use anyhow::{anyhow, bail, Context, Result};
use std::fs;
use std::path::{Path, PathBuf};

/// The per-host files copied to `artifacts/` from the first host.
const HOST_ARTIFACTS: [&str; 7] = [
    "nvidia_smi_query.txt",
    "nvidia_smi_topo.txt",
    "ibv_devinfo.txt",
    "versions.txt",
    "machine.txt",
    "nvidia_smi_q.txt",
    "lscpu.txt",
];

pub fn finish(runs: &Path, id: &str) -> Result<()> {
    run_id::validate(id).map_err(|e| anyhow!("run id {id:?}: {e}"))?;
    let folders = Folders::new(runs, id);
    let dir = &folders.assembly;
    if !dir.is_dir() {
        bail!("{} does not exist: no multi-node collect of id {id:?} is waiting to finish", dir.display());
    }
    if folders.landed.symlink_metadata().is_ok() {
        bail!("{} already exists: the run has landed", folders.landed.display());
    }
    let plan_path = dir.join(PLAN_FILE);
    let plan: MultiNodePlan =
        serde_json::from_slice(&fs::read(&plan_path).with_context(|| format!("cannot read {}", plan_path.display()))?)
            .with_context(|| format!("{} is not a collect plan", plan_path.display()))?;
    let job = read_job(dir);
    let status = check(dir, &plan, &job);
    let mut entries = plan.entries.clone();
    entries.extend(job.iter().filter(|(k, _)| k != "failed_step").cloned());
    // A host name names a folder under artifacts/: one plain path component, or it is dropped.
    let hosts: Vec<String> = value(&job, "hosts")
        .map(|h| h.split(',').filter(|h| run_id::validate(h).is_ok()).map(str::to_string).collect())
        .unwrap_or_default();
    entries.extend(host_facts(dir, &hosts));
    entries.push(("nccl_logs".to_string(), if status.is_ok() { "gzip" } else { "plain" }.to_string()));
    if let Err(why) = &status {
        entries.push(("status".to_string(), format!("failed: {}", why.lines().next().unwrap_or(""))));
    }
    let result = status.map_err(|why| anyhow!(why)).and_then(|()| {
        for json in nccl_tests_json(dir) {
            filter_json_env(&json)?;
        }
        gzip_logs(dir)?;
        Ok(())
    });
    let manifest = dir.join("manifest.txt");
    let written = fs::write(&manifest, manifest_text(&entries, &plan.commands))
        .with_context(|| format!("cannot write {}", manifest.display()))
        .and_then(|()| fs::remove_file(&plan_path).with_context(|| format!("cannot remove {}", plan_path.display())));
    match result.and(written) {
        Ok(()) => land(&folders),
        Err(error) => fail(&folders, error),
    }
}

/// Every `raw/*.json` (the nccl-tests control's `-J` output, whatever the build wrote).
fn nccl_tests_json(dir: &Path) -> Vec<PathBuf> {
    let mut found: Vec<PathBuf> = fs::read_dir(dir.join("raw"))
        .map(|entries| entries.filter_map(|e| e.ok().map(|e| e.path())).collect())
        .unwrap_or_default();
    found.retain(|p| p.is_file() && p.extension().is_some_and(|x| x == "json"));
    found.sort();
    found
}

/// `job.txt`'s `key=value` lines; empty when the job never reached its end.
fn read_job(dir: &Path) -> Vec<(String, String)> {
    let text = fs::read_to_string(dir.join("job.txt")).unwrap_or_default();
    text.lines().filter_map(|l| l.split_once('=')).map(|(k, v)| (k.to_string(), v.to_string())).collect()
}

fn value<'a>(entries: &'a [(String, String)], key: &str) -> Option<&'a str> {
    entries.iter().find(|(k, _)| k == key).map(|(_, v)| v.as_str())
}

/// `Err` names what failed: the step (with its status), the end never reached, or a file
/// a step did not write.
fn check(dir: &Path, plan: &MultiNodePlan, job: &[(String, String)]) -> Result<(), String> {
    let mut statuses: Vec<(String, String)> = fs::read_dir(dir.join("step_status"))
        .map(|entries| {
            entries
                .filter_map(|e| e.ok())
                .map(|e| {
                    let status = fs::read_to_string(e.path()).unwrap_or_default().trim().to_string();
                    (e.file_name().to_string_lossy().into_owned(), status)
                })
                .collect()
        })
        .unwrap_or_default();
    statuses.sort();
    if let Some(step) = value(job, "failed_step").filter(|s| !s.is_empty()) {
        let status = statuses.iter().find(|(name, _)| name == step).map_or("unknown", |(_, s)| s.as_str());
        return Err(format!("step {step} failed with exit status {status}; see slurm-*.out and raw/"));
    }
    if job.is_empty() {
        let done: Vec<String> = statuses.iter().map(|(n, s)| format!("{n}={s}")).collect();
        return Err(format!(
            "the job did not reach its end (no job.txt: cancelled, timed out or a node failed); steps recorded: {}",
            if done.is_empty() { "none".to_string() } else { done.join(", ") }
        ));
    }
    let missing: Vec<String> =
        plan.outputs.iter().filter(|p| !dir.join(p).is_file()).map(|p| p.display().to_string()).collect();
    if !missing.is_empty() {
        return Err(format!("every step exited 0 but these files are missing: {}", missing.join(", ")));
    }
    Ok(())
}

/// `hostname`, `gpu`, `topology`, versions and `gpu_count` from the hosts' artifacts (the
/// first host's copied to `artifacts/`).
fn host_facts(dir: &Path, hosts: &[String]) -> Vec<(String, String)> {
    let read = |host: &str, name: &str| fs::read_to_string(dir.join("artifacts").join(host).join(name)).ok();
    let first = hosts.first().map(String::as_str).unwrap_or("");
    for name in HOST_ARTIFACTS {
        if let Some(text) = read(first, name) {
            let _ = fs::write(dir.join("artifacts").join(name), text);
        }
    }
    let queries: String = hosts.iter().filter_map(|h| read(h, "nvidia_smi_query.txt")).collect();
    let gpu_count = crate::ingest::parse::artifacts::parse_gpu_query(&queries).len();
    let versions = read(first, "versions.txt").unwrap_or_default();
    let version = |key: &str| {
        versions
            .lines()
            .find_map(|l| l.strip_prefix(key)?.strip_prefix('='))
            .map_or_else(|| "unknown".to_string(), |v| v.trim().to_string())
    };
    let topology = read(first, "nvidia_smi_topo.txt").and_then(|t| topology_summary(&t));
    vec![
        ("hostname".to_string(), first.to_string()),
        ("gpu".to_string(), gpu_summary(&queries).unwrap_or_else(|| "unknown".into())),
        ("topology".to_string(), topology.unwrap_or_else(|| "unknown".into())),
        ("torch".to_string(), version("torch")),
        ("cuda_runtime".to_string(), version("cuda_runtime")),
        ("nccl_runtime".to_string(), version("nccl_runtime")),
        ("nccl_source_commit".to_string(), "unavailable".to_string()),
        ("gpu_count".to_string(), gpu_count.to_string()),
    ]
}
