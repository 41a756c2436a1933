//! `nccl-report import`: copying run folders into a runs folder, through the CLI.

use assert_cmd::Command;
use nccl_report::collect::tree;
use nccl_report::core::run_id::{validate, RunIdError};
use std::fs;
use std::path::{Path, PathBuf};

/// Writes a small run in the seed layout; `tag` makes its content distinct.
fn make_run(parent: &Path, id: &str, tag: &str) -> PathBuf {
    let run = parent.join(id);
    let results = run.join("raw/results/world4_full");
    fs::create_dir_all(&results).unwrap();
    fs::create_dir_all(run.join("artifacts")).unwrap();
    fs::write(run.join("manifest.txt"), format!("experiment=interview_details\nrun_id={id}\ncommands:\n torchrun x\n"))
        .unwrap();
    fs::write(results.join("rank0_contracts.csv"), format!("correct,tag\nTrue,{tag}\n")).unwrap();
    fs::write(run.join("raw/world4_full.stdout"), "ok\n").unwrap();
    fs::write(
        run.join("artifacts/nvidia_smi_query.txt"),
        "0, NVIDIA H200, GPU-c4, 580.159.04, 143771 MiB, 00000000:00:06.0\n",
    )
    .unwrap();
    run
}

fn import(runs: &Path, args: &[&str]) -> (bool, String, String) {
    let output =
        Command::cargo_bin("nccl-report").unwrap().arg("import").arg("--runs").arg(runs).args(args).output().unwrap();
    (
        output.status.success(),
        String::from_utf8_lossy(&output.stdout).into_owned(),
        String::from_utf8_lossy(&output.stderr).into_owned(),
    )
}

fn hash(path: &Path) -> u128 {
    tree::hash(path, &[]).unwrap().hash
}

/// Names in the runs folder, dot-folders included.
fn listing(runs: &Path) -> Vec<String> {
    let mut names: Vec<String> = match fs::read_dir(runs) {
        Ok(entries) => entries.map(|e| e.unwrap().file_name().to_string_lossy().into_owned()).collect(),
        Err(_) => Vec::new(),
    };
    names.sort();
    names
}

fn s(path: &Path) -> &str {
    path.to_str().unwrap()
}

#[test]
fn imports_one_run_and_leaves_the_source_unchanged() {
    let tmp = tempfile::tempdir().unwrap();
    let src = make_run(&tmp.path().join("src"), "20250101T000000Z", "a");
    let before = hash(&src);
    let runs = tmp.path().join("runs");
    let (ok, out, err) = import(&runs, &[s(&src)]);
    assert!(ok, "{out}{err}");
    assert!(out.starts_with("imported         20250101T000000Z <- "), "{out}");
    assert_eq!(hash(&runs.join("20250101T000000Z")), before);
    assert_eq!(hash(&src), before);
    assert_eq!(listing(&runs), ["20250101T000000Z"]);
}

#[test]
fn imports_a_folder_of_runs() {
    let tmp = tempfile::tempdir().unwrap();
    let logs = tmp.path().join("logs/interview_details");
    make_run(&logs, "run_a", "a");
    make_run(&logs, "run_b", "b");
    make_run(&logs, ".scratch", "c");
    fs::create_dir_all(logs.join("notes")).unwrap();
    fs::write(logs.join("README.md"), "x").unwrap();
    let runs = tmp.path().join("runs");
    let (ok, out, err) = import(&runs, &[s(&logs)]);
    assert!(ok, "{out}{err}");
    assert!(out.contains("imported         run_a"), "{out}");
    assert!(out.contains("imported         run_b"), "{out}");
    assert!(out.contains("notes: not a run folder"), "{out}");
    assert_eq!(listing(&runs), ["run_a", "run_b"]);
}

#[test]
fn reimport_is_a_noop_that_says_so() {
    let tmp = tempfile::tempdir().unwrap();
    let src = make_run(&tmp.path().join("src"), "r1", "a");
    let runs = tmp.path().join("runs");
    assert!(import(&runs, &[s(&src)]).0);
    let modified = fs::metadata(runs.join("r1/manifest.txt")).unwrap().modified().unwrap();
    let (ok, out, err) = import(&runs, &[s(&src)]);
    assert!(ok, "{out}{err}");
    assert!(out.starts_with("already present  r1 <- "), "{out}");
    assert!(out.contains("nothing to do"), "{out}");
    assert_eq!(fs::metadata(runs.join("r1/manifest.txt")).unwrap().modified().unwrap(), modified);
    assert_eq!(listing(&runs), ["r1"]);
}

#[test]
fn conflicting_id_is_refused_and_nothing_is_overwritten() {
    let tmp = tempfile::tempdir().unwrap();
    let first = make_run(&tmp.path().join("one"), "r1", "a");
    let second = make_run(&tmp.path().join("two"), "r1", "b");
    let runs = tmp.path().join("runs");
    assert!(import(&runs, &[s(&first)]).0);
    let (ok, out, err) = import(&runs, &[s(&second)]);
    assert!(!ok);
    assert!(out.starts_with("refused          r1 <- "), "{out}");
    assert!(out.contains(s(&runs.join("r1"))) && out.contains(s(&second)), "both paths named: {out}");
    assert!(out.contains("--rename"), "{out}");
    assert!(err.contains("1 of 1 runs or sources refused"), "{err}");
    assert_eq!(hash(&runs.join("r1")), hash(&first));
    assert_eq!(listing(&runs), ["r1"]);
}

#[test]
fn rename_imports_under_a_new_id() {
    let tmp = tempfile::tempdir().unwrap();
    let first = make_run(&tmp.path().join("one"), "r1", "a");
    let second = make_run(&tmp.path().join("two"), "r1", "b");
    let runs = tmp.path().join("runs");
    assert!(import(&runs, &[s(&first)]).0);
    let (ok, out, err) = import(&runs, &[s(&second), "--rename", "r1-retry"]);
    assert!(ok, "{out}{err}");
    assert!(out.starts_with("imported         r1-retry <- "), "{out}");
    assert_eq!(hash(&runs.join("r1-retry")), hash(&second));
    assert_eq!(hash(&runs.join("r1")), hash(&first));

    let (ok, _, err) = import(&runs, &[s(&tmp.path().join("one")), s(&tmp.path().join("two")), "--rename", "z"]);
    assert!(!ok);
    assert!(err.contains("--rename needs exactly one run, but the sources hold 2"), "{err}");
    assert_eq!(listing(&runs), ["r1", "r1-retry"]);
}

#[test]
fn validate_refuses_ids_that_could_escape() {
    assert_eq!(validate("20250101T000000Z"), Ok(()));
    assert_eq!(validate(".."), Err(RunIdError::ParentDir));
    assert_eq!(validate("a/b"), Err(RunIdError::Separator('/')));
    assert_eq!(validate("a\\b"), Err(RunIdError::Separator('\\')));
    assert_eq!(validate("a\u{1}b"), Err(RunIdError::Control('\u{1}')));
    assert_eq!(validate("a\0b"), Err(RunIdError::Nul));
    assert_eq!(validate(".x"), Err(RunIdError::LeadingDot));
    assert_eq!(validate(""), Err(RunIdError::Empty));
    assert_eq!(validate(&"x".repeat(129)), Err(RunIdError::TooLong(129)));
}

#[test]
fn bad_ids_are_refused_by_the_cli() {
    let tmp = tempfile::tempdir().unwrap();
    let src = make_run(&tmp.path().join("src"), "ok", "a");
    let runs = tmp.path().join("runs");
    for bad in ["..", "a/b", "a\u{1}b", ".x", ""] {
        let (ok, _, err) = import(&runs, &[s(&src), "--rename", bad]);
        assert!(!ok, "{bad:?} accepted");
        assert!(err.contains("--rename"), "{bad:?}: {err}");
    }
    let odd = make_run(&tmp.path().join("src"), "bell\u{7}id", "b");
    let (ok, out, _) = import(&runs, &[s(&odd)]);
    assert!(!ok);
    assert!(out.contains("is not a valid run id") && out.contains("use --rename"), "{out}");
    assert_eq!(listing(&runs), Vec::<String>::new());
}

#[test]
fn interrupted_copy_leaves_nothing() {
    let tmp = tempfile::tempdir().unwrap();
    let src = make_run(&tmp.path().join("src"), "r1", "a");
    // Sorted after manifest.txt and raw/results: the copy has begun when it meets the FIFO.
    let fifo = src.join("raw/zz.fifo");
    assert!(std::process::Command::new("mkfifo").arg(&fifo).status().unwrap().success());
    let before = hash_without_fifo(&src);
    let runs = tmp.path().join("runs");
    fs::create_dir_all(runs.join(".import-r0-999999999")).unwrap();
    let (ok, out, err) = import(&runs, &[s(&src)]);
    assert!(!ok);
    assert!(out.contains("refused          r1") && out.contains("special file"), "{out}");
    assert!(err.contains("removed") && err.contains(".import-r0-999999999"), "leftover cleaned: {err}");
    assert_eq!(listing(&runs), Vec::<String>::new(), "no run and no temporary folder");
    fs::remove_file(&fifo).unwrap();
    assert_eq!(hash(&src), before);
}

fn hash_without_fifo(src: &Path) -> u128 {
    let copy = tempfile::tempdir().unwrap();
    for entry in walkdir::WalkDir::new(src).min_depth(1) {
        let entry = entry.unwrap();
        let target = copy.path().join(entry.path().strip_prefix(src).unwrap());
        if entry.file_type().is_dir() {
            fs::create_dir_all(target).unwrap();
        } else if entry.file_type().is_file() {
            fs::copy(entry.path(), target).unwrap();
        }
    }
    hash(copy.path())
}

#[test]
fn symlinks_stay_inside_or_the_run_is_refused() {
    let tmp = tempfile::tempdir().unwrap();
    let inside = make_run(&tmp.path().join("src"), "inside", "a");
    std::os::unix::fs::symlink("../manifest.txt", inside.join("raw/manifest_link")).unwrap();
    let outside = make_run(&tmp.path().join("src"), "outside", "b");
    fs::write(tmp.path().join("secret"), "x").unwrap();
    std::os::unix::fs::symlink("../../secret", outside.join("raw/secret_link")).unwrap();
    let runs = tmp.path().join("runs");
    let (ok, out, _) = import(&runs, &[s(&inside), s(&outside)]);
    assert!(!ok);
    assert!(out.contains("imported         inside"), "{out}");
    assert!(out.contains("refused          outside") && out.contains("does not resolve inside the run"), "{out}");
    let link = runs.join("inside/raw/manifest_link");
    assert_eq!(fs::read_link(&link).unwrap(), Path::new("../manifest.txt"));
    assert_eq!(listing(&runs), ["inside"]);
}

#[test]
fn a_run_without_manifest_gets_a_derived_one() {
    let tmp = tempfile::tempdir().unwrap();
    let src = make_run(&tmp.path().join("src"), "bare", "a");
    fs::remove_file(src.join("manifest.txt")).unwrap();
    let before = hash(&src);
    let runs = tmp.path().join("runs");
    let (ok, out, err) = import(&runs, &[s(&src)]);
    assert!(ok, "{out}{err}");
    assert!(err.contains("has no manifest.txt"), "{err}");
    let manifest = fs::read_to_string(runs.join("bare/manifest.txt")).unwrap();
    assert!(manifest.contains("run_id=bare\n") && manifest.contains("gpu=1x NVIDIA H200\n"), "{manifest}");
    assert!(manifest.contains("manifest=derived by nccl-report import"), "{manifest}");
    assert_eq!(hash(&src), before, "the source is never modified");
    let (ok, out, _) = import(&runs, &[s(&src)]);
    assert!(ok && out.starts_with("already present  bare"), "{out}");
}

#[test]
fn a_source_without_runs_is_refused() {
    let tmp = tempfile::tempdir().unwrap();
    let empty = tmp.path().join("empty");
    fs::create_dir_all(&empty).unwrap();
    let runs = tmp.path().join("runs");
    let (ok, out, _) = import(&runs, &[s(&empty), s(&tmp.path().join("missing"))]);
    assert!(!ok);
    assert!(out.contains("neither a run folder"), "{out}");
    assert!(out.contains("does not exist"), "{out}");
    assert!(!runs.exists());
}

#[test]
fn concurrent_imports_of_one_run_both_succeed() {
    let tmp = tempfile::tempdir().unwrap();
    let src = make_run(&tmp.path().join("src"), "r1", "a");
    for n in 0..300 {
        fs::write(src.join(format!("raw/results/world4_full/rank{n}_numerics.csv")), "x\n".repeat(200)).unwrap();
    }
    let runs = tmp.path().join("runs");
    let spawned: Vec<_> = (0..4)
        .map(|_| {
            std::process::Command::new(assert_cmd::cargo::cargo_bin("nccl-report"))
                .args(["import", "--runs", s(&runs), s(&src)])
                .stdout(std::process::Stdio::piped())
                .spawn()
                .unwrap()
        })
        .collect();
    for child in spawned {
        let output = child.wait_with_output().unwrap();
        let out = String::from_utf8_lossy(&output.stdout);
        assert!(output.status.success(), "{out}");
        assert!(out.starts_with("imported") || out.starts_with("already present"), "{out}");
    }
    assert_eq!(listing(&runs), ["r1"]);
    assert_eq!(hash(&runs.join("r1")), hash(&src));
}

#[test]
fn overlapping_source_and_runs_are_refused_before_anything_is_created() {
    let tmp = tempfile::tempdir().unwrap();
    let outer = tmp.path().join("outer");
    let run = make_run(&outer, "r1", "a");
    let before = hash(&outer);
    let (ok, out, _) = import(&run.join("raw/x"), &[s(&outer)]);
    assert!(!ok && out.contains("is inside this run"), "{out}");
    assert!(!run.join("raw/x").exists(), "an empty folder was left in the source");
    assert_eq!(hash(&outer), before);
    let runs = tmp.path().join("runs");
    assert!(import(&runs, &[s(&run)]).0);
    // The other way: a run-shaped folder inside a run of the runs folder.
    let nested = make_run(&runs.join("r1/artifacts"), "nested", "b");
    let (ok, out, _) = import(&runs, &[s(&nested)]);
    assert!(!ok && out.contains("inside a run of the runs folder"), "{out}");
    assert_eq!(listing(&runs), ["r1"]);
}
