//! The build pipeline: determinism across thread counts, bad input, exit codes, symlinks,
//! partial runs, and the promise never to modify the runs.

use crate::common::{build, nccl_report, runs_dir, text, tree};
use std::fs;

#[test]
fn same_runs_give_byte_identical_sites_whatever_the_thread_count() {
    let (dir, runs) = runs_dir(&[]);
    let one = dir.path().join("one");
    let many = dir.path().join("many");
    assert!(build(&runs, &one, &["--jobs", "1"]).status.success());
    assert!(build(&runs, &many, &["--jobs", "8"]).status.success());
    let (a, b) = (tree(&one), tree(&many));
    assert!(a.len() > 20, "site too small: {:?}", a.keys().collect::<Vec<_>>());
    assert_same_tree(&a, &b, "--jobs 1 and --jobs 8");
    // A rebuild into the same folder (from the cache) gives the same bytes again, and so does
    // a build without the cache.
    assert!(build(&runs, &one, &["--jobs", "3"]).status.success());
    assert_same_tree(&a, &tree(&one), "a cold build and a cached rebuild");
    assert!(build(&runs, &one, &["--jobs", "2", "--no-cache"]).status.success());
    assert_same_tree(&a, &tree(&one), "a cold build and a --no-cache build");
}

fn assert_same_tree(
    a: &std::collections::BTreeMap<String, Vec<u8>>,
    b: &std::collections::BTreeMap<String, Vec<u8>>,
    what: &str,
) {
    assert_eq!(a.keys().collect::<Vec<_>>(), b.keys().collect::<Vec<_>>(), "{what}: file lists");
    for (path, bytes) in a {
        assert!(bytes == &b[path], "{path} differs between {what}");
    }
}

#[test]
fn the_runs_are_never_modified() {
    let (dir, runs) = runs_dir(&[]);
    let before = tree(&runs);
    assert!(build(&runs, &dir.path().join("site"), &[]).status.success());
    assert_eq!(tree(&runs), before);
}

#[test]
fn a_malformed_csv_marks_its_run_invalid_and_the_others_still_build() {
    let (dir, runs) = runs_dir(&[]);
    let mut names: Vec<String> =
        fs::read_dir(&runs).unwrap().map(|e| e.unwrap().file_name().to_string_lossy().into_owned()).collect();
    names.sort();
    let victim = runs.join(&names[0]).join("raw/results/world4_full/rank1_decode.csv");
    let text_before = fs::read_to_string(&victim).unwrap();
    let lines: Vec<Vec<String>> = text_before.lines().map(|l| l.split(',').map(str::to_string).collect()).collect();
    let column = lines[0].iter().position(|c| c == "duration_us").unwrap();
    let mut lines = lines;
    lines[3][column] = "12.x".to_string();
    let lines: Vec<String> = lines.iter().map(|cells| cells.join(",")).collect();
    fs::write(&victim, lines.join("\n")).unwrap();

    let out = dir.path().join("site");
    let output = build(&runs, &out, &[]);
    assert!(output.status.success(), "{}", text(&output));
    let entries = crate::common::runs_json(&out)["runs"].as_array().unwrap().clone();
    let entry = entries.iter().find(|e| e["run_id"] == names[0].as_str()).unwrap();
    assert_eq!(entry["status"], "invalid");
    let diag = entry["diagnostics"].as_array().unwrap().iter().find(|d| d["severity"] == "error").unwrap();
    assert_eq!(diag["file"], "raw/results/world4_full/rank1_decode.csv");
    assert_eq!(diag["line"], 4);
    assert!(diag["message"].as_str().unwrap().contains("is not a number"), "{diag}");
    // The other runs are built and ok.
    for other in &names[1..] {
        assert!(out.join("runs").join(other).join("index.html").is_file());
    }
    assert!(entries.iter().any(|e| e["status"] == "ok"));
    // --strict turns it into exit code 1, the site is still written.
    let strict = build(&runs, &out, &["--strict"]);
    assert_eq!(strict.status.code(), Some(1), "{}", text(&strict));
    assert!(text(&strict).contains("rank1_decode.csv:4"), "{}", text(&strict));
}

#[test]
fn empty_truncated_and_binary_inputs_never_panic() {
    let (dir, runs) = runs_dir(&[]);
    let name = fs::read_dir(&runs).unwrap().next().unwrap().unwrap().file_name();
    let run = runs.join(name);
    fs::write(run.join("raw/results/world4_full/rank0_async.csv"), b"").unwrap();
    fs::write(run.join("raw/results/world4_full/rank1_async.csv"), b"world_size,size_bytes\n4,").unwrap();
    fs::write(run.join("raw/results/world4_full/rank2_numerics.csv"), b"\xff\xfe\x00garbage\n\x80").unwrap();
    fs::write(run.join("raw/nccl_tests_g2.stdout"), b"#  size count\n 8192 2048 half sum -1 1.0").unwrap();
    fs::write(run.join("manifest.txt"), b"\xff\xff").unwrap();
    let out = dir.path().join("site");
    let output = build(&runs, &out, &[]);
    assert!(output.status.success(), "{}", text(&output));
    assert!(!text(&output).contains("panicked"), "{}", text(&output));
    let page = fs::read_to_string(run_page(&out, &run)).unwrap();
    assert!(page.contains("rank0_async.csv"));
    assert!(page.contains("empty file"));
}

fn run_page(out: &std::path::Path, run: &std::path::Path) -> std::path::PathBuf {
    out.join("runs").join(run.file_name().unwrap()).join("index.html")
}

#[test]
fn exit_code_two_when_nothing_can_be_built() {
    let dir = tempfile::tempdir().unwrap();
    let missing = dir.path().join("nope");
    let output = build(&missing, &dir.path().join("site"), &[]);
    assert_eq!(output.status.code(), Some(2));
    assert!(text(&output).contains("does not exist"), "{}", text(&output));

    let bad_flag = nccl_report(&["build", "--jobs", "many"]);
    assert_eq!(bad_flag.status.code(), Some(2));

    // An output folder that nccl-report did not create is never replaced.
    let (dir, runs) = runs_dir(&[]);
    let precious = dir.path().join("precious");
    fs::create_dir(&precious).unwrap();
    fs::write(precious.join("thesis.tex"), "keep me").unwrap();
    let output = build(&runs, &precious, &[]);
    assert_eq!(output.status.code(), Some(2), "{}", text(&output));
    assert_eq!(fs::read_to_string(precious.join("thesis.tex")).unwrap(), "keep me");
}

#[cfg(unix)]
#[test]
fn symlinks_leading_outside_the_runs_folder_are_not_followed() {
    let (dir, runs) = runs_dir(&[]);
    let outside = dir.path().join("outside");
    crate::common::copy_tree(&runs.join(fs::read_dir(&runs).unwrap().next().unwrap().unwrap().file_name()), &outside);
    fs::write(outside.join("NOTES.md"), "SECRET-OUTSIDE").unwrap();
    std::os::unix::fs::symlink(&outside, runs.join("linked-run")).unwrap();
    let inside = fs::read_dir(&runs).unwrap().map(|e| e.unwrap().path()).find(|p| !p.ends_with("linked-run")).unwrap();
    std::os::unix::fs::symlink(outside.join("NOTES.md"), inside.join("NOTES.md")).unwrap();
    let out = dir.path().join("site");
    let output = build(&runs, &out, &[]);
    assert!(output.status.success(), "{}", text(&output));
    assert!(!out.join("runs/linked-run").exists());
    for (path, bytes) in tree(&out) {
        assert!(!String::from_utf8_lossy(&bytes).contains("SECRET-OUTSIDE"), "{path} shows a file outside runs/");
    }
}

#[test]
fn a_run_with_only_nccl_tests_is_a_run_with_sections_not_run() {
    let (dir, runs) = runs_dir(&["synth-basic"]);
    let source = fs::read_dir(&runs).unwrap().next().unwrap().unwrap().path();
    let only = runs.join("only-nccl-tests");
    fs::create_dir_all(only.join("raw")).unwrap();
    fs::copy(source.join("raw/nccl_tests_g2.stdout"), only.join("raw/nccl_tests_g2.stdout")).unwrap();
    let out = dir.path().join("site");
    assert!(build(&runs, &out, &["--strict"]).status.success());
    let site = out.join("runs/only-nccl-tests");
    assert!(site.join("nccl_tests_summary.csv").is_file());
    assert!(!site.join("async_summary.csv").exists());
    let md = fs::read_to_string(site.join("summary.md")).unwrap();
    assert!(md.contains("## nccl-tests control"));
    assert!(!md.contains("## Async completion"));
}
