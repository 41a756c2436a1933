//! The build cache: unchanged runs come from it, any changed byte of any input is seen
//! (even with its modification time put back), and a damaged cache is never trusted.

use crate::common::{build, runs_dir, text, tree};
use std::fs;
use std::path::Path;

/// How many runs the build took from its cache (from the summary line).
fn from_cache(output: &std::process::Output) -> usize {
    let all = text(output);
    assert!(output.status.success(), "{all}");
    let before = all.split(" from cache").next().unwrap();
    before.rsplit(' ').next().unwrap().parse().unwrap()
}

/// Changes one byte: the last byte of the first occurrence of `context` becomes `to`.
fn change_one_byte(path: &Path, context: &str, to: u8, keep_mtime: bool) {
    let modified = fs::metadata(path).unwrap().modified().unwrap();
    let mut bytes = fs::read(path).unwrap();
    let at = bytes.windows(context.len()).position(|w| w == context.as_bytes()).unwrap() + context.len() - 1;
    bytes[at] = to;
    fs::write(path, &bytes).unwrap();
    if keep_mtime {
        fs::File::options().write(true).open(path).unwrap().set_modified(modified).unwrap();
    }
}

#[test]
fn unchanged_runs_come_from_the_cache_and_give_the_same_site() {
    let (dir, runs) = runs_dir(&[]);
    let out = dir.path().join("site");
    assert_eq!(from_cache(&build(&runs, &out, &[])), 0);
    let first = tree(&out);
    assert_eq!(from_cache(&build(&runs, &out, &[])), 8);
    assert_eq!(tree(&out), first);
    assert!(dir.path().join(".nccl-report-cache/site").is_dir(), "the cache lives beside the output");
}

#[test]
fn one_changed_byte_of_one_input_rebuilds_that_run_only() {
    let (dir, runs) = runs_dir(&["synth-basic", "synth-even-cycles", "synth-one-cycle"]);
    let out = dir.path().join("site");
    assert_eq!(from_cache(&build(&runs, &out, &[])), 0);
    let numerics = runs.join("synth-basic/raw/results/world4_full/rank0_numerics.csv");
    let summary = out.join("runs/synth-basic/numeric_summary.csv");
    let before = fs::read_to_string(&summary).unwrap();
    assert!(!before.contains("2049.0"));

    // 2048.0 -> 2049.0 in one FP16 result: same size, new bytes.
    change_one_byte(&numerics, ",2050.0,2048", b'9', false);
    assert_eq!(from_cache(&build(&runs, &out, &[])), 2);
    assert!(fs::read_to_string(&summary).unwrap().contains("2049.0"), "the changed input reached the summary");

    // The same with the modification time put back: the change time still tells.
    change_one_byte(&numerics, ",2050.0,2049", b'7', true);
    assert_eq!(from_cache(&build(&runs, &out, &[])), 2);
    let after = fs::read_to_string(&summary).unwrap();
    assert!(after.contains("2047.0") && !after.contains("2049.0"), "{after}");

    // And what the cache serves equals what a build without it makes.
    let cached = tree(&out);
    let fresh = dir.path().join("fresh");
    assert!(build(&runs, &fresh, &["--no-cache"]).status.success());
    assert_eq!(tree(&fresh), cached);
}

#[test]
fn adding_and_removing_runs() {
    let (dir, runs) = runs_dir(&["synth-basic", "synth-one-cycle"]);
    let out = dir.path().join("site");
    assert_eq!(from_cache(&build(&runs, &out, &[])), 0);
    crate::common::copy_tree(&crate::common::fixture_runs().join("synth-even-cycles"), &runs.join("synth-even-cycles"));
    assert_eq!(from_cache(&build(&runs, &out, &[])), 2);
    assert!(out.join("runs/synth-even-cycles/index.html").is_file());
    let index = fs::read_to_string(out.join("index.html")).unwrap();
    assert!(index.contains("synth-even-cycles"), "cross-run pages include the new run");

    fs::remove_dir_all(runs.join("synth-basic")).unwrap();
    assert_eq!(from_cache(&build(&runs, &out, &[])), 2);
    assert!(!out.join("runs/synth-basic").exists());
    assert!(!dir.path().join(".nccl-report-cache/site/runs/synth-basic").exists(), "stale entries are dropped");
}

#[test]
fn site_wide_notes_change_every_run_page() {
    let (dir, runs) = runs_dir(&["synth-basic", "synth-one-cycle"]);
    let out = dir.path().join("site");
    assert_eq!(from_cache(&build(&runs, &out, &[])), 0);
    fs::write(runs.join("NOTES.md"), "Cluster maintenance on day 3.\n").unwrap();
    assert_eq!(from_cache(&build(&runs, &out, &[])), 0);
    assert!(fs::read_to_string(out.join("runs/synth-basic/index.html")).unwrap().contains("Cluster maintenance"));
}

#[test]
fn a_damaged_cache_is_never_trusted() {
    let (dir, runs) = runs_dir(&["synth-basic", "synth-one-cycle"]);
    let out = dir.path().join("site");
    assert_eq!(from_cache(&build(&runs, &out, &[])), 0);
    let expected = tree(&out);
    let cache = dir.path().join(".nccl-report-cache/site/runs");
    // An unreadable entry, and a run whose cached files and site folder are both gone.
    fs::write(cache.join("synth-basic/entry.json"), "{ not json").unwrap();
    fs::remove_file(cache.join("synth-one-cycle/files/runs/synth-one-cycle/index.html")).unwrap();
    fs::remove_dir_all(out.join("runs/synth-one-cycle")).unwrap();
    assert_eq!(from_cache(&build(&runs, &out, &[])), 0);
    assert_eq!(tree(&out), expected);
    assert_eq!(from_cache(&build(&runs, &out, &[])), 2);

    // An unreadable and a missing digest, needed once the cross-run pages change (a run is
    // added): each is recomputed from its run's inputs (and stored again); the runs' own
    // folders still come from the cache.
    fs::write(cache.join("synth-basic/digest.json"), "[]").unwrap();
    fs::remove_file(cache.join("synth-one-cycle/digest.json")).unwrap();
    crate::common::copy_tree(&crate::common::fixture_runs().join("synth-even-cycles"), &runs.join("synth-even-cycles"));
    assert_eq!(from_cache(&build(&runs, &out, &[])), 2);
    assert_ne!(fs::read_to_string(cache.join("synth-basic/digest.json")).unwrap(), "[]", "repaired");
    assert!(cache.join("synth-one-cycle/digest.json").is_file(), "repaired");
    let fresh = dir.path().join("fresh");
    assert!(build(&runs, &fresh, &["--no-cache"]).status.success());
    assert_eq!(tree(&out), tree(&fresh));
}

/// Issue 26: the summary line counts what the site holds, pages (every `.html`, compare pages
/// included) and files, on a clean build, a build with nothing to do and one that rebuilds
/// one run and takes the others from the cache.
#[test]
fn the_build_summary_counts_the_pages_and_files_of_the_site() {
    let (dir, runs) = runs_dir(&[]);
    crate::common::copy_tree(&Path::new(env!("CARGO_MANIFEST_DIR")).join("runs"), &runs);
    let out = dir.path().join("site");
    let counted = |output: &std::process::Output| -> (usize, usize) {
        let all = text(output);
        assert!(output.status.success(), "{all}");
        let number_before = |word: &str| -> usize {
            let before = all.split(word).next().unwrap();
            before.rsplit(' ').next().unwrap().parse().unwrap()
        };
        (number_before(" pages,"), number_before(" files,"))
    };
    let actual = || {
        let files = tree(&out);
        let files: Vec<&String> = files.keys().filter(|p| *p != ".nccl-report-site").collect();
        (files.iter().filter(|p| p.ends_with(".html")).count(), files.len())
    };
    let clean = counted(&build(&runs, &out, &[]));
    let (pages, files) = actual();
    assert!(tree(&out).keys().any(|p| p.starts_with("compare/")), "the bundled runs give compare pages");
    assert_eq!(clean, (pages, files));
    assert_eq!(counted(&build(&runs, &out, &[])), (pages, files), "nothing to do");
    let notes = runs.join("synth-basic/NOTES.md");
    fs::write(&notes, "changed\n").unwrap();
    let partly_cached = build(&runs, &out, &[]);
    assert!(from_cache(&partly_cached) > 0);
    assert_eq!(counted(&partly_cached), actual(), "one run rebuilt, the others cached");
}
