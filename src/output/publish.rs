//! `nccl-report publish`: commits the built site as the whole content of a branch (default
//! `gh-pages`) with git plumbing — every file's bytes stored as they are (`hash-object
//! --no-filters`, `core.autocrlf=false`: no line-ending or attribute conversion), a temporary
//! index, `write-tree`, `commit-tree` on top of the branch's last commit, `update-ref` with
//! that commit as the expected old value (retried on top of a concurrent publish, so none is
//! lost) — so the user's working tree and index are never touched; then pushes the branch.
//! `--branch x` and `--branch refs/heads/x` name one ref. Refuses a branch name git would not
//! take as a branch, and a branch checked out in any worktree of the repository, symbolic refs
//! followed on both sides. Needs `git` on PATH and a site written by nccl-report.

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

/// The ref a `--branch` names: `refs/heads/<name>` for a plain name, and a full
/// `refs/heads/<name>` as it is (never `refs/heads/refs/heads/<name>`). Refuses what is not a
/// plain branch name (`HEAD`, `@`, `@{-1}`, an option, anything `git check-ref-format`
/// rejects).
fn branch_ref(top: &Path, branch: &str) -> anyhow::Result<String> {
    let name = branch.strip_prefix("refs/heads/").unwrap_or(branch);
    let reference = format!("refs/heads/{name}");
    let plain = !name.is_empty() && name != "HEAD" && !name.starts_with('-') && !name.contains('@');
    if !plain || git(top, &["check-ref-format", &reference], &[]).is_err() {
        bail!("invalid branch name {branch:?}: give a plain branch name such as gh-pages");
    }
    Ok(reference)
}

/// The most symbolic refs followed from one name (git's own limit is 5).
const MAX_SYMREF_DEPTH: usize = 5;

/// The ref that `reference` finally names, symbolic refs followed (`refs/heads/alias ->
/// refs/heads/main` is `refs/heads/main`); a ref that does not exist yet is itself.
fn resolve_ref(top: &Path, reference: &str) -> anyhow::Result<String> {
    let mut current = reference.to_string();
    for _ in 0..MAX_SYMREF_DEPTH {
        match git(top, &["symbolic-ref", "-q", "--", &current], &[]) {
            Ok(target) if !target.is_empty() => current = target,
            _ => return Ok(current),
        }
    }
    bail!("{reference} is a chain of more than {MAX_SYMREF_DEPTH} symbolic refs; not published")
}

/// The branch ref to move, resolved fully: refused when it is not a branch, or when it is
/// (after every symbolic ref on either side is followed) the branch checked out in any
/// worktree of the repository.
fn check_branch(top: &Path, branch: &str) -> anyhow::Result<String> {
    let target = resolve_ref(top, &branch_ref(top, branch)?)?;
    if !target.starts_with("refs/heads/") {
        bail!("branch {branch} is a symbolic ref to {target}, which is not a branch; not published");
    }
    let worktrees = git(top, &["worktree", "list", "--porcelain"], &[])?;
    for checked_out in worktrees.lines().filter_map(|line| line.strip_prefix("branch ")) {
        if resolve_ref(top, checked_out)? == target {
            bail!(
                "branch {branch} ({target}) is checked out in this repository; publish to a branch that is not checked out"
            );
        }
    }
    Ok(target)
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

/// How often a commit is made again on top of a branch that another publish moved meanwhile.
const MAX_ATTEMPTS: u64 = 50;

/// Commits `tree` on top of `reference`'s last commit and moves the ref there only if it still
/// holds that commit (`update-ref --no-deref <ref> <new> <old>`, an empty old value for a new
/// ref): a concurrent publish that moved it first makes this one commit again on top of it,
/// so no publish loses another's commit.
fn commit_onto(top: &Path, reference: &str, tree: &str) -> anyhow::Result<String> {
    let mut identity = Vec::new();
    if git(top, &["config", "user.email"], &[]).is_err() {
        identity = vec!["-c", "user.name=nccl-report", "-c", "user.email=nccl-report@localhost"];
    }
    let mut last_error = None;
    for attempt in 0..MAX_ATTEMPTS {
        if attempt > 0 {
            // Apart from the others retrying: a little longer each time, offset by the pid.
            let pause = 5 * attempt + u64::from(std::process::id() % 7);
            std::thread::sleep(std::time::Duration::from_millis(pause));
        }
        let parent = git(top, &["rev-parse", "--verify", "--quiet", &format!("{reference}^{{commit}}")], &[]).ok();
        let mut args = vec!["commit-tree", tree, "-m", "Publish the nccl-report site"];
        if let Some(parent) = parent.as_deref() {
            args.extend(["-p", parent]);
        }
        let commit = git(top, &[identity.as_slice(), args.as_slice()].concat(), &[])?;
        let old = parent.as_deref().unwrap_or("");
        match git(top, &["update-ref", "--no-deref", "-m", "nccl-report publish", reference, &commit, old], &[]) {
            Ok(_) => return Ok(commit),
            Err(error) => last_error = Some(error),
        }
    }
    Err(last_error.unwrap_or_else(|| anyhow::anyhow!("cannot update {reference}")))
        .with_context(|| format!("{reference} kept moving under {MAX_ATTEMPTS} attempts to publish"))
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
    let commit = commit_onto(&top, &reference, &tree)?;
    if options.push {
        git(&top, &["push", "--", &options.remote, &format!("{reference}:{reference}")], &[])?;
    }
    Ok(commit)
}
