//! `nccl-report publish`: commits the built site as the whole content of a branch (default
//! `gh-pages`) with git plumbing — every file's bytes stored as they are (`hash-object
//! --no-filters`, `core.autocrlf=false`: no line-ending or attribute conversion), a temporary
//! index, `write-tree`, `commit-tree` on top of the branch's last commit, `update-ref` — so the
//! user's working tree and index are never touched; then pushes the branch. Refuses a branch
//! name git would not take as a branch, and a branch checked out in any worktree of the
//! repository. Needs `git` on PATH and a site written by nccl-report.

use crate::pipeline::write::MARKER;
use anyhow::{bail, Context};
use std::io::Write;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};

pub(crate) struct PublishOptions {
    pub out: PathBuf,
    pub branch: String,
    pub remote: String,
    pub push: bool,
}

/// Runs git in `repo` with no line-ending conversion, feeding `input` on stdin; its stdout.
fn git_with_input(repo: &Path, args: &[&str], envs: &[(&str, &Path)], input: &[u8]) -> anyhow::Result<String> {
    let mut command = Command::new("git");
    command.current_dir(repo).args(["-c", "core.autocrlf=false", "-c", "core.safecrlf=false"]).args(args);
    for (key, value) in envs {
        command.env(key, value);
    }
    command.stdin(Stdio::piped()).stdout(Stdio::piped()).stderr(Stdio::piped());
    let mut child = command.spawn().context("cannot run git (is it installed?)")?;
    let mut stdin = child.stdin.take().context("git stdin")?;
    let input = input.to_vec();
    let feeder = std::thread::spawn(move || stdin.write_all(&input));
    let output = child.wait_with_output().context("cannot run git")?;
    let _ = feeder.join();
    if !output.status.success() {
        bail!("git {} failed: {}", args.join(" "), String::from_utf8_lossy(&output.stderr).trim());
    }
    Ok(String::from_utf8_lossy(&output.stdout).trim().to_string())
}

fn git(repo: &Path, args: &[&str], envs: &[(&str, &Path)]) -> anyhow::Result<String> {
    git_with_input(repo, args, envs, b"")
}

/// Refuses what is not a plain branch name (`HEAD`, `@`, `@{-1}`, an option, anything `git
/// check-ref-format` rejects) and a branch checked out in any worktree of the repository.
fn check_branch(top: &Path, branch: &str) -> anyhow::Result<String> {
    let reference = format!("refs/heads/{branch}");
    let plain = !branch.is_empty() && branch != "HEAD" && !branch.starts_with('-') && !branch.contains('@');
    if !plain || git(top, &["check-ref-format", &reference], &[]).is_err() {
        bail!("invalid branch name {branch:?}: give a plain branch name such as gh-pages");
    }
    let worktrees = git(top, &["worktree", "list", "--porcelain"], &[])?;
    if worktrees.lines().any(|line| line.strip_prefix("branch ") == Some(reference.as_str())) {
        bail!("branch {branch} is checked out in this repository; publish to a branch that is not checked out");
    }
    Ok(reference)
}

/// Every file of the site but the marker, as `/`-separated paths, sorted.
fn site_files(site: &Path) -> anyhow::Result<Vec<String>> {
    let mut files = Vec::new();
    for entry in walkdir::WalkDir::new(site).sort_by_file_name() {
        let entry = entry?;
        if !entry.file_type().is_file() {
            continue;
        }
        let rel = entry.path().strip_prefix(site)?.to_string_lossy().replace('\\', "/");
        if rel == MARKER {
            continue;
        }
        if rel.contains(['\n', '\0']) {
            bail!("cannot publish {rel:?}: a file name with a newline");
        }
        files.push(rel);
    }
    Ok(files)
}

/// Commits `out` as the content of `branch` and pushes it; returns the new commit id.
pub(crate) fn publish(options: &PublishOptions) -> anyhow::Result<String> {
    if !options.out.join(MARKER).is_file() {
        bail!("{} is not a site built by nccl-report: run `nccl-report build` first", options.out.display());
    }
    let site = options.out.canonicalize().with_context(|| format!("cannot resolve {}", options.out.display()))?;
    let cwd = std::env::current_dir()?;
    let top = PathBuf::from(
        git(&cwd, &["rev-parse", "--show-toplevel"], &[]).context("publish must run inside a git repository")?,
    );
    let reference = check_branch(&top, &options.branch)?;
    let files = site_files(&site)?;
    let index_dir = tempfile::tempdir()?;
    let index = index_dir.path().join("index");
    let env = [("GIT_INDEX_FILE", index.as_path())];
    let paths: String = files.iter().map(|rel| format!("{}\n", site.join(rel).display())).collect();
    let hashes = git_with_input(&top, &["hash-object", "-w", "--no-filters", "--stdin-paths"], &[], paths.as_bytes())?;
    let mut index_info = Vec::new();
    for (rel, hash) in files.iter().zip(hashes.lines()) {
        index_info.extend_from_slice(format!("100644 {hash}\t{rel}\0").as_bytes());
    }
    git_with_input(&top, &["update-index", "-z", "--add", "--index-info"], &env, &index_info)?;
    let tree = git(&top, &["write-tree"], &env)?;
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
        git(&top, &["push", "--", &options.remote, &format!("{reference}:{reference}")], &[])?;
    }
    Ok(commit)
}
