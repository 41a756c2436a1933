//! Hostile or odd runs (issue #10, the read side): nothing outside `runs/` is read, no
//! quirk is silently ok, resources stay bounded and names cannot drive the terminal.

use crate::common::{build, nccl_report, runs_dir, text, tree};
use std::path::Path;

/// Whether any file of the site contains `needle`.
fn site_contains(site: &Path, needle: &str) -> bool {
    tree(site).values().any(|bytes| String::from_utf8_lossy(bytes).contains(needle))
}

#[test]
fn runs_notes_symlink_leading_outside_is_not_read() {
    let (dir, runs) = runs_dir(&["synth-basic"]);
    let secret = dir.path().join("secret.txt");
    std::fs::write(&secret, "root:x:0:0:SECRET-OUTSIDE-RUNS").unwrap();
    std::os::unix::fs::symlink(&secret, runs.join("NOTES.md")).unwrap();
    std::os::unix::fs::symlink(&secret, runs.join("synth-basic/NOTES.md")).unwrap();
    let site = dir.path().join("site");
    let output = build(&runs, &site, &[]);
    assert!(output.status.success(), "{}", text(&output));
    assert!(!site_contains(&site, "SECRET-OUTSIDE-RUNS"), "a file outside runs/ was published");
    // The same notes as plain files are published: the links were refused, not ignored.
    for notes in [runs.join("NOTES.md"), runs.join("synth-basic/NOTES.md")] {
        std::fs::remove_file(&notes).unwrap();
        std::fs::write(&notes, "PLAIN-NOTES-INSIDE-RUNS").unwrap();
    }
    let output = build(&runs, &site, &[]);
    assert!(output.status.success(), "{}", text(&output));
    let page = |rel: &str| std::fs::read_to_string(site.join(rel)).unwrap();
    assert!(page("index.html").contains("PLAIN-NOTES-INSIDE-RUNS"), "site-wide notes");
    assert!(page("runs/synth-basic/index.html").contains("PLAIN-NOTES-INSIDE-RUNS"), "the run's notes");
}

/// A symlink in a run is not followed, wherever it leads: into another run, to a file of the
/// runs folder that is no run's, or to the run's own nccl-tests JSON under another name (whose
/// environment would then be shown as an artifact).
#[test]
fn symlinks_in_a_run_are_not_followed() {
    let (dir, runs) = runs_dir(&["synth-basic", "synth-one-cycle"]);
    std::fs::write(runs.join("private.txt"), "PRIVATE-IN-RUNS-ROOT").unwrap();
    let other = runs.join("synth-one-cycle/artifacts/other.txt");
    std::fs::write(&other, "OTHER-RUNS-FILE").unwrap();
    let json = runs.join("synth-basic/raw/nccl_tests_g9.json");
    std::fs::write(&json, "{\"env\": [\"HOLDS-THE-ENVIRONMENT\"], \"results\": []}").unwrap();
    let artifacts = runs.join("synth-basic/artifacts");
    std::os::unix::fs::symlink("../../private.txt", artifacts.join("leak.txt")).unwrap();
    std::os::unix::fs::symlink("../../synth-one-cycle/artifacts/other.txt", artifacts.join("cross.txt")).unwrap();
    std::os::unix::fs::symlink("../raw/nccl_tests_g9.json", artifacts.join("env.txt")).unwrap();
    let site = dir.path().join("site");
    let output = build(&runs, &site, &[]);
    assert!(output.status.success(), "{}", text(&output));
    assert!(!site_contains(&site, "PRIVATE-IN-RUNS-ROOT"), "a file of the runs folder that is no run's was read");
    let page = std::fs::read_to_string(site.join("runs/synth-basic/index.html")).unwrap();
    assert!(!page.contains("OTHER-RUNS-FILE"), "another run's file was read through a link");
    assert_eq!(page.matches("a symlink; not followed (copy the file it names into the run)").count(), 3, "{page}");
    assert!(!site.join("runs/synth-basic/evidence/artifacts/env.txt").exists(), "a link is not published");
    assert!(!site_contains(&site, "HOLDS-THE-ENVIRONMENT"), "the nccl-tests environment was published");
}

/// Control characters and Unicode bidi controls from a run never reach a page: a U+202E in a
/// manifest value reversed the site's own text after it wherever the value was shown.
#[test]
fn controls_and_bidi_controls_from_a_run_reach_no_page() {
    let (dir, runs) = runs_dir(&["synth-basic"]);
    let manifest = runs.join("synth-basic/manifest.txt");
    let original = std::fs::read_to_string(&manifest).unwrap();
    let hostile = original.replace("hostname=synth-516d", "hostname=synth\u{202E}-516d\u{1}\u{2066}x");
    assert_ne!(hostile, original);
    std::fs::write(&manifest, hostile).unwrap();
    std::fs::write(runs.join("synth-basic/NOTES.md"), "note \u{202E}reversed\u{7f}\n").unwrap();
    let site = dir.path().join("site");
    let output = build(&runs, &site, &[]);
    assert!(output.status.success(), "{}", text(&output));
    for (rel, bytes) in tree(&site).iter().filter(|(rel, _)| rel.ends_with(".html")) {
        let page = String::from_utf8_lossy(bytes);
        assert!(!page.contains(['\u{202E}', '\u{2066}', '\u{1}', '\u{7f}']), "{rel}");
    }
    assert!(site_contains(&site, "synth-516dx") && site_contains(&site, "note reversed"));
}

#[test]
fn csv_and_csv_gz_of_one_rank_are_not_both_read() {
    let (dir, runs) = runs_dir(&["synth-basic"]);
    let plain = runs.join("synth-basic/raw/results/world4_full/rank1_async.csv");
    let mut encoder = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::fast());
    std::io::Write::write_all(&mut encoder, &std::fs::read(&plain).unwrap()).unwrap();
    std::fs::write(plain.with_extension("csv.gz"), encoder.finish().unwrap()).unwrap();
    let site = dir.path().join("site");
    let output = build(&runs, &site, &[]);
    assert!(output.status.success(), "{}", text(&output));
    assert!(site_contains(&site, "rank1_async.csv and raw/results/world4_full/rank1_async.csv.gz present"));
}

#[test]
fn fifo_or_folder_where_a_rank_file_should_be_is_diagnosed() {
    let (dir, runs) = runs_dir(&["synth-basic"]);
    let results = runs.join("synth-basic/raw/results/world4_full");
    std::fs::remove_file(results.join("rank1_async.csv")).unwrap();
    assert!(std::process::Command::new("mkfifo").arg(results.join("rank1_async.csv")).status().unwrap().success());
    std::fs::remove_file(results.join("rank1_numerics.csv")).unwrap();
    std::fs::create_dir(results.join("rank1_numerics.csv")).unwrap();
    let site = dir.path().join("site");
    let output = build(&runs, &site, &[]);
    assert!(output.status.success(), "{}", text(&output));
    assert!(site_contains(&site, "not a regular file (FIFO, socket or device); not read"));
    assert!(site_contains(&site, "a folder where a rank file should be; not read"));
}

#[test]
fn jobs_is_capped_and_devices_are_not_inspected() {
    let output = nccl_report(&["build", "--jobs", "100000"]);
    assert_eq!(output.status.code(), Some(2));
    assert!(text(&output).contains("more than the 1024 worker threads allowed"), "{}", text(&output));
    let output = nccl_report(&["inspect", "/dev/zero"]);
    assert_eq!(output.status.code(), Some(2));
    assert!(text(&output).contains("not a regular file"), "{}", text(&output));
}

#[test]
fn terminal_escapes_in_folder_names_are_printed_escaped() {
    let (dir, runs) = runs_dir(&["synth-basic"]);
    std::fs::create_dir(runs.join("evil\x1b]0;pwned\x07\x1b[2J")).unwrap();
    let output = build(&runs, &dir.path().join("site"), &[]);
    assert!(output.status.success(), "{}", text(&output));
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(!stderr.contains('\x1b') && !stderr.contains('\x07'), "{stderr:?}");
    assert!(stderr.contains(r"evil\u{1b}]0;pwned\u{7}\u{1b}[2J"), "{stderr}");
}

#[test]
fn non_utf8_folder_names_are_skipped_not_merged() {
    use std::os::unix::ffi::OsStrExt;
    let (dir, runs) = runs_dir(&["synth-basic"]);
    for name in [&b"run\xff"[..], &b"run\xfe"[..]] {
        crate::common::copy_tree(&runs.join("synth-basic"), &runs.join(std::ffi::OsStr::from_bytes(name)));
    }
    let site = dir.path().join("site");
    let output = build(&runs, &site, &[]);
    assert!(output.status.success(), "{}", text(&output));
    assert_eq!(text(&output).matches("folder name is not UTF-8; skipped").count(), 2, "{}", text(&output));
    assert!(!tree(&site).keys().any(|path| path.starts_with("runs/run")), "a non-UTF-8 folder became a run");
}

#[test]
fn input_limits_can_be_raised_and_the_cache_follows_them() {
    let (dir, runs) = runs_dir(&["synth-basic"]);
    let site = dir.path().join("site");
    let csv = runs.join("synth-basic/raw/results/world4_full/rank1_async.csv");
    let size = std::fs::metadata(&csv).unwrap().len();
    let small = (size - 1).to_string();
    let output = build(&runs, &site, &["--max-file-bytes", &small]);
    assert!(output.status.success(), "{}", text(&output));
    assert!(text(&output).contains("1 invalid"), "{}", text(&output));
    assert!(site_contains(&site, &format!("larger than the limit of {small} bytes")));
    let output = build(&runs, &site, &[]);
    assert!(
        text(&output).contains("1 ok, 0 failed, 0 invalid; 0 from cache"),
        "a run read under the old limit came from the cache: {}",
        text(&output)
    );
    assert!(!site_contains(&site, "larger than the limit"));
    let output = build(&runs, &site, &["--max-notes-bytes", "0"]);
    assert_eq!(output.status.code(), Some(2), "{}", text(&output));
}
