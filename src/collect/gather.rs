//! `collect --launcher torchrun --nnodes N` (N > 1): every node collects into its own
//! staging folder, `<runs>/.nodes-<id>/node<R>/` (a complete local collect, landed there
//! atomically), and node 0 then waits for every node's folder and assembles the run:
//! its own folder, every node's `artifacts/*` as `artifacts/<host>/*`, every node's worker
//! CSVs and NCCL logs in `raw/results/` and `raw/nccl/`, and the rest of node R's files
//! (its torchrun output, its node-local nccl-tests control, its manifest) under
//! `nodes/node<R>/`. The runs folder must be a path every node sees (a shared filesystem).
//! Moves files by renaming them (one filesystem); writes only under the runs folder.

use crate::collect::launch::{fail, land, Folders};
use crate::collect::multinode::Rendezvous;
use crate::collect::{CollectOptions, Launcher};
use crate::core::format::noun;
use crate::core::run_id;
use anyhow::{anyhow, bail, Context, Result};
use std::collections::BTreeSet;
use std::fs;
use std::path::{Path, PathBuf};
use std::thread;
use std::time::{Duration, Instant};
use walkdir::WalkDir;

/// Collects this node's part; node 0 then assembles and lands the run.
pub fn collect_node(options: &CollectOptions, rendezvous: &Rendezvous) -> Result<()> {
    let Some(id) = options.run_id.clone() else {
        bail!("--launcher torchrun with --nnodes above 1 needs --run-id, the same on every node");
    };
    run_id::validate(&id).map_err(|e| anyhow!("run id {id:?}: {e}"))?;
    let staging = options.runs.join(format!(".nodes-{id}"));
    let folders = Folders::new(&options.runs, &id);
    if rendezvous.node_rank == 0 && !options.dry_run {
        folders.check_free()?;
    }
    let node = CollectOptions {
        runs: staging.clone(),
        run_id: Some(node_name(rendezvous.node_rank)),
        launcher: Launcher::Torchrun(Rendezvous { rdzv_id: Some(id.clone()), ..rendezvous.clone() }),
        ..options.clone()
    };
    super::collect(&node)?;
    if options.dry_run {
        return Ok(());
    }
    if rendezvous.node_rank > 0 {
        eprintln!("node {} staged in {}; node 0 assembles the run", rendezvous.node_rank, staging.display());
        return Ok(());
    }
    let waited = wait_for_nodes(&staging, rendezvous.nnodes, rendezvous.node_timeout);
    fs::rename(staging.join(node_name(0)), &folders.assembly)
        .with_context(|| format!("cannot move node 0's folder to {}", folders.assembly.display()))?;
    match waited.and_then(|()| assemble(&folders.assembly, &staging, rendezvous.nnodes, &id)) {
        Ok(()) => {
            land(&folders)?;
            fs::remove_dir_all(&staging).with_context(|| format!("cannot remove {}", staging.display()))
        }
        Err(error) => fail(&folders, error),
    }
}

fn node_name(rank: u32) -> String {
    format!("node{rank}")
}

/// Waits until every node's folder has landed in `staging`; a node that failed stops it.
fn wait_for_nodes(staging: &Path, nnodes: u32, limit: Duration) -> Result<()> {
    let deadline = Instant::now() + limit;
    let mut announced = false;
    loop {
        let mut missing = Vec::new();
        for rank in 1..nnodes {
            let name = node_name(rank);
            if staging.join(".failed").join(&name).exists() {
                bail!("node {rank} failed: see {}", staging.join(".failed").join(&name).display());
            }
            if !staging.join(&name).is_dir() {
                missing.push(rank.to_string());
            }
        }
        if missing.is_empty() {
            return Ok(());
        }
        if Instant::now() > deadline {
            bail!(
                "{} {} did not finish within {} s; their folders are not in {}",
                noun(missing.len(), "node"),
                missing.join(", "),
                limit.as_secs(),
                staging.display()
            );
        }
        if !announced {
            eprintln!(
                "waiting for {} {} to finish (folders in {})",
                noun(missing.len(), "node"),
                missing.join(", "),
                staging.display()
            );
            announced = true;
        }
        thread::sleep(Duration::from_millis(200));
    }
}

/// Moves every other node's files into `dir` (node 0's folder) and completes the manifest.
fn assemble(dir: &Path, staging: &Path, nnodes: u32, id: &str) -> Result<()> {
    let mut hosts = Vec::new();
    let mut seen = BTreeSet::new();
    let mut gpu_count = 0u64;
    for rank in 0..nnodes {
        let node_dir = if rank == 0 { dir.to_path_buf() } else { staging.join(node_name(rank)) };
        let manifest = fs::read_to_string(node_dir.join("manifest.txt"))
            .with_context(|| format!("cannot read node {rank}'s manifest"))?;
        let host = manifest_value(&manifest, "hostname").unwrap_or("unknown").to_string();
        let host = if run_id::validate(&host).is_ok() && seen.insert(host.clone()) {
            host
        } else {
            format!("{host}-node{rank}")
        };
        seen.insert(host.clone());
        gpu_count += manifest_value(&manifest, "gpu_count").and_then(|n| n.parse().ok()).unwrap_or(0);
        if rank == 0 {
            copy_artifacts(dir, &host)?;
        } else {
            move_node_files(&node_dir, dir, rank, &host)?;
        }
        hosts.push(host);
    }
    let path = dir.join("manifest.txt");
    let manifest = fs::read_to_string(&path).with_context(|| format!("cannot read {}", path.display()))?;
    let text = complete_manifest(&manifest, id, &hosts, gpu_count);
    fs::write(&path, text).with_context(|| format!("cannot write {}", path.display()))
}

fn manifest_value<'a>(manifest: &'a str, key: &str) -> Option<&'a str> {
    manifest.lines().find_map(|l| l.strip_prefix(key)?.strip_prefix('='))
}

/// Node 0's `artifacts/*` also as `artifacts/<host>/*`.
fn copy_artifacts(dir: &Path, host: &str) -> Result<()> {
    let artifacts = dir.join("artifacts");
    let target = artifacts.join(host);
    fs::create_dir_all(&target).with_context(|| format!("cannot create {}", target.display()))?;
    for entry in fs::read_dir(&artifacts).with_context(|| format!("cannot read {}", artifacts.display()))? {
        let path = entry?.path();
        if path.is_file() {
            let name = path.file_name().expect("a listed file has a name");
            fs::copy(&path, target.join(name)).with_context(|| format!("cannot copy {}", path.display()))?;
        }
    }
    Ok(())
}

fn move_node_files(node_dir: &Path, dir: &Path, rank: u32, host: &str) -> Result<()> {
    for entry in WalkDir::new(node_dir).min_depth(1).sort_by_file_name() {
        let entry = entry.with_context(|| format!("cannot walk {}", node_dir.display()))?;
        if !entry.file_type().is_file() {
            continue;
        }
        let rel = entry.path().strip_prefix(node_dir)?;
        let target = dir.join(merged_path(rel, rank, host));
        if target.exists() {
            bail!("node {rank}'s {} would replace {}", rel.display(), target.display());
        }
        fs::create_dir_all(target.parent().expect("a joined path has a parent"))?;
        fs::rename(entry.path(), &target)
            .with_context(|| format!("cannot move {} to {}", entry.path().display(), target.display()))?;
    }
    Ok(())
}

/// Where node `rank`'s file `rel` goes in the run.
fn merged_path(rel: &Path, rank: u32, host: &str) -> PathBuf {
    let parts: Vec<String> = rel.components().map(|c| c.as_os_str().to_string_lossy().into_owned()).collect();
    match parts.iter().map(String::as_str).collect::<Vec<_>>().as_slice() {
        ["artifacts", name] => PathBuf::from("artifacts").join(host).join(name),
        ["raw", "results", ..] | ["raw", "nccl", _] => rel.to_path_buf(),
        _ => PathBuf::from("nodes").join(node_name(rank)).join(rel),
    }
}

/// Node 0's manifest as the run's: its id, `hosts=`, and the GPUs of every node.
fn complete_manifest(manifest: &str, id: &str, hosts: &[String], gpu_count: u64) -> String {
    let mut out = String::new();
    for line in manifest.lines() {
        if line == "commands:" {
            out.push_str(&format!("hosts={}\n", hosts.join(",")));
        }
        if line.starts_with("run_id=") {
            out.push_str(&format!("run_id={id}\n"));
        } else if line.starts_with("gpu_count=") {
            out.push_str(&format!("gpu_count={gpu_count}\n"));
        } else {
            out.push_str(line);
            out.push('\n');
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn where_node_files_go() {
        assert_eq!(merged_path(Path::new("artifacts/versions.txt"), 1, "b"), PathBuf::from("artifacts/b/versions.txt"));
        assert_eq!(
            merged_path(Path::new("raw/results/w/rank2_a.csv"), 1, "b"),
            PathBuf::from("raw/results/w/rank2_a.csv")
        );
        assert_eq!(merged_path(Path::new("raw/nccl/x.log.gz"), 1, "b"), PathBuf::from("raw/nccl/x.log.gz"));
        assert_eq!(merged_path(Path::new("raw/w.stdout"), 1, "b"), PathBuf::from("nodes/node1/raw/w.stdout"));
        assert_eq!(merged_path(Path::new("manifest.txt"), 2, "b"), PathBuf::from("nodes/node2/manifest.txt"));
    }

    #[test]
    fn manifest_of_the_run() {
        let text =
            complete_manifest("run_id=node0\ngpu_count=2\ncommands:\n torchrun x\n", "r", &["a".into(), "b".into()], 4);
        assert_eq!(text, "run_id=r\ngpu_count=4\nhosts=a,b\ncommands:\n torchrun x\n");
    }
}
