//! `nccl-report publish`: commits the built site as the whole content of a branch (default
//! `gh-pages`) with git plumbing — a temporary index, `write-tree`, `commit-tree` on top of
//! the branch's last commit, `update-ref` — so the user's working tree and index are never
//! touched; then pushes the branch. Needs `git` on PATH and a site written by nccl-report.

use crate::write::MARKER;
use anyhow::{bail, Context};
use std::path::{Path, PathBuf};
use std::process::Command;

pub struct PublishOptions {
    pub out: PathBuf,
    pub branch: String,
    pub remote: String,
    pub push: bool,
}

fn git(repo: &Path, args: &[&str], envs: &[(&str, &Path)]) -> anyhow::Result<String> {
    let mut command = Command::new("git");
    command.current_dir(repo).args(args);
    for (key, value) in envs {
        command.env(key, value);
    }
    let output = command.output().context("cannot run git (is it installed?)")?;
    if !output.status.success() {
        bail!("git {} failed: {}", args.join(" "), String::from_utf8_lossy(&output.stderr).trim());
    }
    Ok(String::from_utf8_lossy(&output.stdout).trim().to_string())
}

/// Commits `out` as the content of `branch` and pushes it; returns the new commit id.
pub fn publish(options: &PublishOptions) -> anyhow::Result<String> {
    if !options.out.join(MARKER).is_file() {
        bail!("{} is not a site built by nccl-report: run `nccl-report build` first", options.out.display());
    }
    if options.branch.is_empty() || options.branch.starts_with('-') || options.branch.contains("..") {
        bail!("invalid branch name {:?}", options.branch);
    }
    let site = options.out.canonicalize().with_context(|| format!("cannot resolve {}", options.out.display()))?;
    let cwd = std::env::current_dir()?;
    let top = PathBuf::from(
        git(&cwd, &["rev-parse", "--show-toplevel"], &[]).context("publish must run inside a git repository")?,
    );
    let index_dir = tempfile::tempdir()?;
    let index = index_dir.path().join("index");
    let env = [("GIT_INDEX_FILE", index.as_path()), ("GIT_WORK_TREE", site.as_path())];
    git(&top, &["add", "--all", "--force", "."], &env)?;
    git(&top, &["rm", "--cached", "--quiet", "--ignore-unmatch", MARKER], &env)?;
    let tree = git(&top, &["write-tree"], &env)?;
    let reference = format!("refs/heads/{}", options.branch);
    let parent = git(&top, &["rev-parse", "--verify", "--quiet", &reference], &[]).ok();
    let message = "Publish the nccl-report site";
    let mut args = vec!["commit-tree", tree.as_str(), "-m", message];
    if let Some(parent) = parent.as_deref() {
        args.extend(["-p", parent]);
    }
    let mut identity = Vec::new();
    if git(&top, &["config", "user.email"], &[]).is_err() {
        identity = vec!["-c", "user.name=nccl-report", "-c", "user.email=nccl-report@localhost"];
    }
    let commit = git(&top, &[identity.as_slice(), args.as_slice()].concat(), &[])?;
    git(&top, &["update-ref", &reference, &commit], &[])?;
    if options.push {
        git(&top, &["push", &options.remote, &format!("{reference}:{reference}")], &[])?;
    }
    Ok(commit)
}
