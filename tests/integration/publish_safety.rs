//! Issue #10 item 7: `publish` never moves a checked-out branch, takes only plain branch
//! names, never lets a remote be read as an option, and publishes the site's bytes exactly.

use crate::common::{build, runs_dir, text};
use std::fs;
use std::path::Path;
use std::process::Output;

fn git(dir: &Path, args: &[&str]) -> String {
    let output = std::process::Command::new("git").current_dir(dir).args(args).output().unwrap();
    assert!(output.status.success(), "git {args:?}: {}", String::from_utf8_lossy(&output.stderr));
    String::from_utf8_lossy(&output.stdout).trim().to_string()
}

fn publish(repo: &Path, args: &[&str]) -> Output {
    assert_cmd::Command::cargo_bin("nccl-report").unwrap().current_dir(repo).arg("publish").args(args).output().unwrap()
}

/// A repository on branch `main` with one commit, converting line endings as hard as git
/// can (`core.autocrlf=true`, every file `text eol=lf`), and a built site inside it.
fn repo_with_site() -> (tempfile::TempDir, std::path::PathBuf) {
    let (dir, runs) = runs_dir(&["synth-basic"]);
    let repo = dir.path().join("repo");
    fs::create_dir(&repo).unwrap();
    git(&repo, &["init", "--quiet", "--initial-branch=main"]);
    git(&repo, &["config", "core.autocrlf", "true"]);
    fs::write(repo.join(".git/info/attributes"), "* text eol=lf\n").unwrap();
    git(&repo, &["-c", "user.name=t", "-c", "user.email=t@t", "commit", "--quiet", "--allow-empty", "-m", "init"]);
    assert!(build(&runs, &repo.join("site"), &[]).status.success());
    (dir, repo)
}

#[test]
fn item7_refuses_checked_out_and_odd_branches() {
    let (_dir, repo) = repo_with_site();
    let head = git(&repo, &["rev-parse", "main"]);
    for branch in ["main", "HEAD", "@", "@{-1}", "-x", "a..b", "bad name"] {
        let output = publish(&repo, &["--no-push", "--branch", branch]);
        assert_eq!(output.status.code(), Some(2), "{branch}: {}", text(&output));
    }
    assert_eq!(git(&repo, &["rev-parse", "main"]), head);
    assert_eq!(git(&repo, &["for-each-ref", "--format=%(refname)"]), "refs/heads/main");
    assert_eq!(git(&repo, &["status", "--porcelain", "--untracked-files=no"]), "");
}

#[test]
fn item7_a_remote_is_never_an_option() {
    let (dir, repo) = repo_with_site();
    let witness = dir.path().join("ran");
    // Were the remote read as an option, git would take the refspec for the repository: make
    // it one, so that the command would really run.
    let decoy = repo.join("refs/heads/gh-pages:refs/heads/gh-pages");
    fs::create_dir_all(&decoy).unwrap();
    git(&decoy, &["init", "--quiet", "--bare"]);
    git(&repo, &["config", "push.default", "current"]);
    let remote = format!("--remote=--receive-pack=touch {}", witness.display());
    let output = publish(&repo, &[&remote]);
    assert!(!output.status.success(), "{}", text(&output));
    assert!(!witness.exists(), "the remote was run as a command: {}", text(&output));
}

#[test]
fn item7_publishes_the_bytes_exactly() {
    let (_dir, repo) = repo_with_site();
    let output = publish(&repo, &["--no-push"]);
    assert!(output.status.success(), "{}", text(&output));
    let mut crlf = 0;
    for rel in git(&repo, &["ls-tree", "-r", "--name-only", "gh-pages"]).lines() {
        let blob = std::process::Command::new("git")
            .current_dir(&repo)
            .args(["cat-file", "blob", &format!("gh-pages:{rel}")])
            .output()
            .unwrap()
            .stdout;
        let on_disk = fs::read(repo.join("site").join(rel)).unwrap();
        assert!(blob == on_disk, "{rel} was changed on the way to the branch");
        crlf += usize::from(on_disk.windows(2).any(|w| w == b"\r\n"));
    }
    assert!(crlf > 0, "no file with CRLF line endings was published: the test proves nothing");
}

/// Issue 24: a symbolic ref to the checked-out branch is that branch.
#[test]
fn a_symbolic_ref_to_the_checked_out_branch_is_refused() {
    let (_dir, repo) = repo_with_site();
    let head = git(&repo, &["rev-parse", "main"]);
    git(&repo, &["symbolic-ref", "refs/heads/alias", "refs/heads/main"]);
    for branch in ["alias", "refs/heads/alias", "refs/heads/main"] {
        let output = publish(&repo, &["--no-push", "--branch", branch]);
        assert_eq!(output.status.code(), Some(2), "{branch}: {}", text(&output));
        assert!(text(&output).contains("checked out"), "{branch}: {}", text(&output));
    }
    assert_eq!(git(&repo, &["rev-parse", "main"]), head, "main moved");
}

/// Issue 24: `--branch refs/heads/x` is the ref `refs/heads/x`.
#[test]
fn a_full_branch_ref_names_that_branch() {
    let (_dir, repo) = repo_with_site();
    let output = publish(&repo, &["--no-push", "--branch", "refs/heads/pages"]);
    assert!(output.status.success(), "{}", text(&output));
    let refs = git(&repo, &["for-each-ref", "--format=%(refname)"]);
    assert_eq!(refs, "refs/heads/main\nrefs/heads/pages");
}

/// Issue 24: concurrent publishes to one branch each land a commit (none is lost).
#[test]
fn concurrent_publishes_lose_no_commit() {
    let (_dir, repo) = repo_with_site();
    let publishes: Vec<_> = (0..12)
        .map(|_| {
            let repo = repo.clone();
            std::thread::spawn(move || publish(&repo, &["--no-push", "--branch", "gh-pages"]))
        })
        .collect();
    for handle in publishes {
        let output = handle.join().unwrap();
        assert!(output.status.success(), "{}", text(&output));
    }
    let history = git(&repo, &["rev-list", "gh-pages"]);
    assert_eq!(history.lines().count(), 12, "{history}");
}
