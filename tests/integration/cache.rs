//! The build cache: unchanged runs come from it, any changed byte of any input is seen
//! (even with its modification time put back), and a damaged cache is never trusted.

use crate::common::{build, folders, runs_dir, text, tree};
use std::fs;
use std::path::{Path, PathBuf};

/// How many runs the build took from its cache (from the summary line).
fn from_cache(output: &std::process::Output) -> usize {
    let all = text(output);
    assert!(output.status.success(), "{all}");
    let before = all.split(" from cache").next().unwrap();
    before.rsplit(' ').next().unwrap().parse().unwrap()
}

/// A cache entry's head (`line` 0) or body (`line` 1): an entry is two JSON documents on two
/// lines.
fn entry_line(entry: &Path, line: usize) -> serde_json::Value {
    let kept = fs::read_to_string(entry).unwrap();
    serde_json::from_str(kept.lines().nth(line).unwrap()).unwrap()
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
    for id in ["synth-basic", "synth-one-cycle"] {
        let page = fs::read_to_string(out.join(format!("runs/{id}/index.html"))).unwrap();
        assert!(page.contains("Cluster maintenance"), "{id}");
    }
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
    fs::remove_file(cache.join("synth-one-cycle/files.pack")).unwrap();
    fs::remove_dir_all(out.join("runs/synth-one-cycle")).unwrap();
    assert_eq!(from_cache(&build(&runs, &out, &[])), 0);
    assert_eq!(tree(&out), expected);
    assert_eq!(from_cache(&build(&runs, &out, &[])), 2);
    // An entry cut short after its head (a build killed while writing it): a miss, never a
    // hit on the head alone.
    let entry = cache.join("synth-basic/entry.json");
    let kept = fs::read_to_string(&entry).unwrap();
    fs::write(&entry, format!("{}\n", kept.split_once('\n').unwrap().0)).unwrap();
    assert_eq!(from_cache(&build(&runs, &out, &[])), 1);
    assert_eq!(tree(&out), expected);
    assert_eq!(from_cache(&build(&runs, &out, &[])), 2);

    // An unreadable and a missing digest and history row, needed once the cross-run and
    // history pages change (a run is added): each is recomputed from its run's inputs (and
    // stored again); the runs' own folders still come from the cache.
    fs::write(cache.join("synth-basic/digest.mpk"), "[]").unwrap();
    fs::remove_file(cache.join("synth-one-cycle/digest.mpk")).unwrap();
    change_one_byte(&cache.join("synth-basic/history-row.json"), "\"values\":[[", b'X', false);
    fs::remove_file(cache.join("synth-one-cycle/history-row.json")).unwrap();
    crate::common::copy_tree(&crate::common::fixture_runs().join("synth-even-cycles"), &runs.join("synth-even-cycles"));
    assert_eq!(from_cache(&build(&runs, &out, &[])), 2);
    assert_ne!(fs::read(cache.join("synth-basic/digest.mpk")).unwrap(), b"[]", "repaired");
    assert!(cache.join("synth-one-cycle/digest.mpk").is_file(), "repaired");
    assert!(cache.join("synth-one-cycle/history-row.json").is_file(), "repaired");
    let fresh = dir.path().join("fresh");
    assert!(build(&runs, &fresh, &["--no-cache"]).status.success());
    assert_eq!(tree(&out), tree(&fresh));
}

/// An input rewritten with the same bytes (new modification and change times) keeps its run
/// cached: the entry is restamped, its head recording the new listing (`Cache::inputs`) under
/// the same key, so the next build takes the run from the head alone (its body not even
/// parsed); a later change of that input is still seen.
#[test]
fn a_rewritten_but_unchanged_input_keeps_its_run_cached_and_restamped() {
    let (dir, runs) = runs_dir(&["synth-basic", "synth-one-cycle"]);
    let out = dir.path().join("site");
    assert_eq!(from_cache(&build(&runs, &out, &[])), 0);
    let entry = dir.path().join(".nccl-report-cache/site/runs/synth-basic/entry.json");
    let head = || entry_line(&entry, 0);
    let before = head();
    let csv = runs.join("synth-basic/raw/results/world4_full/rank0_async.csv");
    fs::write(&csv, fs::read(&csv).unwrap()).unwrap();
    assert_eq!(from_cache(&build(&runs, &out, &[])), 2);
    let after = head();
    assert_eq!(after["key"], before["key"]);
    assert_ne!(after["inputs"], before["inputs"], "the entry records the listing it was checked against");
    assert_eq!(from_cache(&build(&runs, &out, &[])), 2);
    assert_eq!(head(), after);
    // The head alone is read: a body that is not JSON (its hash made to match) goes unseen
    // while the listing is unchanged, and a build that must read it finds no entry.
    let mut head_only = head();
    head_only["body"] = format!("{:032x}", xxhash_rust::xxh3::xxh3_128(b"not json")).into();
    fs::write(&entry, format!("{head_only}\nnot json")).unwrap();
    assert_eq!(from_cache(&build(&runs, &out, &[])), 2, "a hit on the head alone");
    change_one_byte(&csv, "13.921174220740795", b'6', false);
    assert_eq!(from_cache(&build(&runs, &out, &[])), 1);
    assert_ne!(head()["key"], before["key"]);
}

/// A cached run whose folders have settled is taken by the layout kept with its entry
/// (`ingest::layout`: one `fstatat` a folder and a file, no listing); every change is still
/// seen: a byte changed with its modification time put back, a file added to the run folder,
/// one removed three levels down, a damaged layout. The site equals a build without the cache.
#[test]
fn runs_taken_by_their_kept_layout_still_see_every_change() {
    let (dir, runs) = runs_dir(&["synth-basic", "synth-one-cycle"]);
    let out = dir.path().join("site");
    // 300 folders in one run: a recheck holds a walk's depth of descriptors open, not one a
    // folder, so it builds under a limit of 128.
    for host in 0..300 {
        fs::create_dir_all(runs.join(format!("synth-basic/artifacts/host{host:03}"))).unwrap();
    }
    // A layout is kept only of folders last changed three seconds before the walk.
    std::thread::sleep(std::time::Duration::from_millis(3_200));
    assert_eq!(from_cache(&build(&runs, &out, &[])), 0);
    let cache = dir.path().join(".nccl-report-cache/site/runs");
    let layout = cache.join("synth-basic/layout.mpk");
    assert!(layout.is_file() && cache.join("synth-one-cycle/layout.mpk").is_file());
    let first = tree(&out);
    let limited = std::process::Command::new("sh")
        .args(["-c", "ulimit -n 128 && exec \"$0\" \"$@\" --timings", env!("CARGO_BIN_EXE_nccl-report"), "build"])
        .args(["--jobs", "4", "--runs", runs.to_str().unwrap(), "--out", out.to_str().unwrap()])
        .output()
        .unwrap();
    assert_eq!(from_cache(&limited), 2);
    let timings = text(&limited).lines().find(|l| l.starts_with('{')).map(str::to_string).unwrap();
    let timings: serde_json::Value = serde_json::from_str(&timings).unwrap();
    assert_eq!(timings["rechecked_runs"], 2, "both runs taken by their layouts, no listing");
    assert_eq!(tree(&out), first);

    let numerics = runs.join("synth-basic/raw/results/world4_full/rank0_numerics.csv");
    change_one_byte(&numerics, ",2050.0,2048", b'9', true);
    assert_eq!(from_cache(&build(&runs, &out, &[])), 1);
    assert!(fs::read_to_string(out.join("runs/synth-basic/numeric_summary.csv")).unwrap().contains("2049.0"));

    fs::write(runs.join("synth-one-cycle/NOTES.md"), "A note added after the layout was kept.").unwrap();
    assert_eq!(from_cache(&build(&runs, &out, &[])), 1);
    let page = fs::read_to_string(out.join("runs/synth-one-cycle/index.html")).unwrap();
    assert!(page.contains("A note added after the layout was kept."));

    let deep = runs.join("synth-one-cycle/raw/results/world4_full/rank3_async.csv");
    let kept = fs::read(&deep).unwrap();
    fs::remove_file(&deep).unwrap();
    assert_eq!(from_cache(&build(&runs, &out, &[])), 1);
    let fresh = dir.path().join("fresh");
    assert!(build(&runs, &fresh, &["--no-cache"]).status.success());
    assert_eq!(tree(&out), tree(&fresh));
    fs::write(&deep, kept).unwrap();

    fs::write(&layout, "damaged").unwrap();
    assert_eq!(from_cache(&build(&runs, &out, &[])), 1, "the run put back is built; the other kept");
    assert_eq!(from_cache(&build(&runs, &out, &[])), 2);
    let fresh = dir.path().join("fresh-again");
    assert!(build(&runs, &fresh, &["--no-cache"]).status.success());
    assert_eq!(tree(&out), tree(&fresh));
}

/// The case verdicts kept beside a run's digest feed the Parquet rows of its month: when they
/// are lost or damaged while the run stays cached, the run is compared again (an unchanged
/// stamp is not enough), so the site still equals a build without the cache.
#[test]
fn lost_or_damaged_case_verdicts_are_recomputed() {
    let (dir, runs) = runs_dir(&["synth-basic", "synth-one-cycle", "synth-twenty-cycles"]);
    let out = dir.path().join("site");
    assert_eq!(from_cache(&build(&runs, &out, &[])), 0);
    let cache = dir.path().join(".nccl-report-cache/site/runs");
    let (one, twenty) = (cache.join("synth-one-cycle/verdicts.json"), cache.join("synth-twenty-cycles/verdicts.json"));
    let kept = (fs::read_to_string(&one).unwrap(), fs::read_to_string(&twenty).unwrap());
    assert!(kept.0.contains("insufficient_history") && kept.1.contains("insufficient_history"), "{kept:?}");
    fs::remove_file(&twenty).unwrap();
    change_one_byte(&one, "insufficient_history", b'X', false);
    // A run of another configuration in the same month: the month's Parquet file is written
    // again, and no comparison stamp of the three changes.
    crate::common::copy_tree(&crate::common::fixture_runs().join("synth-even-cycles"), &runs.join("synth-even-cycles"));
    assert_eq!(from_cache(&build(&runs, &out, &[])), 3);
    assert_eq!((fs::read_to_string(&one).unwrap(), fs::read_to_string(&twenty).unwrap()), kept, "recomputed");
    let fresh = dir.path().join("fresh");
    assert!(build(&runs, &fresh, &["--no-cache"]).status.success());
    assert_eq!(tree(&out), tree(&fresh));
}

/// Every file of a site with its inode: a file the build did not write keeps its inode.
fn inodes(root: &Path) -> std::collections::BTreeMap<String, u64> {
    use std::os::unix::fs::MetadataExt;
    tree(root).into_keys().map(|rel| (rel.clone(), fs::metadata(root.join(&rel)).unwrap().ino())).collect()
}

/// Adding the newest run to a built site (in shards of 3) writes the run's files, its compare
/// page, the pages of the runs whose comparison it changes (its baseline's), the first
/// cross-run pages, `data/runs.json`, its own shard's pages, the section pages of the shard
/// its configuration's panel of charts leaves, and its configuration's history pages (which
/// list every run of the configuration), nothing else; every other file keeps its inode.
/// Removing it again removes them.
#[test]
fn adding_a_run_writes_only_the_run_and_the_pages_that_list_it() {
    let (dir, runs) = runs_dir(&[]);
    let out = dir.path().join("site");
    assert!(build(&runs, &out, &["--page-size", "3"]).status.success());
    let (before, before_inodes, before_folders) = (tree(&out), inodes(&out), folders(&out));
    let synth = dir.path().join("synth");
    let made = crate::common::nccl_report(&["synth", "--out", synth.to_str().unwrap(), "--count", "1", "--seed", "5"]);
    assert!(made.status.success(), "{}", text(&made));
    let id = fs::read_dir(&synth).unwrap().next().unwrap().unwrap().file_name().to_string_lossy().into_owned();
    crate::common::copy_tree(&synth, &runs);
    let added = build(&runs, &out, &["--page-size", "3", "--timings"]);
    assert!(text(&added).contains("in place"), "{}", text(&added));
    let (after, after_inodes) = (tree(&out), inodes(&out));

    let index: serde_json::Value = serde_json::from_slice(&after["data/runs.json"]).unwrap();
    let shard = index["shards"]
        .as_array()
        .unwrap()
        .iter()
        .find(|s| s["newest"] == id.as_str() || s["oldest"] == id.as_str())
        .map(|s| s["path"].as_str().unwrap().trim_start_matches("data/runs/").trim_end_matches(".json").to_string())
        .unwrap();
    let written: Vec<&String> =
        after_inodes.iter().filter(|(rel, ino)| before_inodes.get(*rel) != Some(ino)).map(|(rel, _)| rel).collect();
    let mut other_runs = std::collections::BTreeSet::new();
    let mut left_shards = std::collections::BTreeSet::new();
    let mut parquet = 0;
    for rel in &written {
        // The section pages of the shard that held the configuration's newest ok run: its
        // panel of charts moves from there to the page that lists the new run.
        if let Some(name) = rel
            .strip_prefix("sections/")
            .filter(|r| !r.starts_with("charts/") && !r.contains(&shard) && r.contains("-20"))
        {
            left_shards.insert(name[name.find("-20").unwrap()..].to_string());
            continue;
        }
        let expected = rel.starts_with(&format!("runs/{id}/"))
            || ["index.html", "data/runs.json", ".nccl-report-site", "regressions.html"].contains(&rel.as_str())
            || rel.starts_with("history/")
            || rel.starts_with("sections/charts/")
            || (rel.starts_with("sections/") && !rel.contains("-20") && !rel.contains("-undated"))
            || rel.contains(&shard);
        // The Parquet files of the run's shard and of its baseline's (whose comparison stamp
        // lists the runs compared with it).
        parquet += usize::from(rel.starts_with("data/cases/"));
        let expected = expected || rel.starts_with("data/cases/");
        let other_run_page = rel.starts_with("runs/") && rel.ends_with("/index.html");
        if other_run_page {
            other_runs.insert(rel.to_string());
        }
        assert!(expected || other_run_page, "{rel} was written");
    }
    assert!(parquet <= 2, "{parquet} Parquet files written");
    assert!(left_shards.len() <= 1, "{left_shards:?}");
    // The baseline's page lists the runs compared with it; a run whose noise floor now
    // counts the new run as a replicate is compared again.
    assert!(other_runs.len() <= 3, "{other_runs:?}");
    let new_files = written.iter().filter(|r| r.starts_with(&format!("runs/{id}/"))).count();
    // Beyond the run's files and the charts of its configuration (named by the configuration):
    // a handful of pages, whatever the number of runs.
    let pages = written.iter().filter(|r| {
        !r.starts_with(&format!("runs/{id}/")) && !r.starts_with("sections/charts/") && !r.starts_with("history/")
    });
    assert!(new_files >= 10 && pages.clone().count() <= 30, "{:?}", pages.collect::<Vec<_>>());
    let timings = text(&added);
    let json: serde_json::Value = serde_json::from_str(timings.lines().find(|l| l.starts_with('{')).unwrap()).unwrap();
    assert_eq!(json["in_place"], true);
    assert!(json["files_written"].as_u64().unwrap() as usize >= written.len() - 1, "{json}");

    // The in-place site is the site a whole build makes.
    let whole = dir.path().join("whole");
    assert!(build(&runs, &whole, &["--page-size", "3", "--no-cache"]).status.success());
    assert_eq!(after, tree(&whole));
    assert_eq!(folders(&out), folders(&whole));
    // Removing the run again puts the site back as it was, its folders too.
    fs::remove_dir_all(runs.join(&id)).unwrap();
    let removed = build(&runs, &out, &["--page-size", "3"]);
    assert!(text(&removed).contains("in place"), "{}", text(&removed));
    assert_eq!(tree(&out), before);
    assert_eq!(folders(&out), before_folders);
}

/// Removing runs in place until no month needs a shard any more removes the shards' pages and
/// the folders they leave empty (`pages/`): the site holds the files and folders of a whole
/// build.
#[test]
fn runs_removed_in_place_leave_no_empty_folder() {
    let dir = tempfile::tempdir().unwrap();
    let runs = dir.path().join("runs");
    let made = crate::common::nccl_report(&["synth", "--out", runs.to_str().unwrap(), "--count", "6", "--seed", "3"]);
    assert!(made.status.success(), "{}", text(&made));
    let out = dir.path().join("site");
    assert!(build(&runs, &out, &["--page-size", "2"]).status.success());
    assert!(out.join("pages").read_dir().unwrap().next().is_some(), "shards of 2 runs have pages");
    let mut ids: Vec<_> = fs::read_dir(&runs).unwrap().map(|e| e.unwrap().path()).collect();
    ids.sort();
    for old in &ids[..5] {
        fs::remove_dir_all(old).unwrap();
    }
    let removed = build(&runs, &out, &["--page-size", "2"]);
    assert!(text(&removed).contains("in place"), "{}", text(&removed));
    let whole = dir.path().join("whole");
    assert!(build(&runs, &whole, &["--page-size", "2", "--no-cache"]).status.success());
    assert!(!whole.join("pages").exists(), "one run needs no shard");
    assert_eq!(tree(&out), tree(&whole));
    assert_eq!(folders(&out), folders(&whole));
}

/// A build killed inside `Cache::store` (after it dropped a changed run's entry, before it
/// wrote the new one) leaves the live site as committed and no entry for that run. Updating the
/// site in place, the files the run no longer makes are found by listing its folder of the live
/// site, not from the cache, so they go: the site is the one a whole build makes.
#[test]
fn files_a_run_no_longer_makes_go_even_when_its_cache_entry_was_lost() {
    let (dir, runs) = runs_dir(&["synth-basic", "synth-one-cycle"]);
    let out = dir.path().join("site");
    assert_eq!(from_cache(&build(&runs, &out, &[])), 0);
    let results = runs.join("synth-basic/raw/results/world4_full");
    for rank in 0..4 {
        fs::remove_file(results.join(format!("rank{rank}_fragmentation.csv"))).unwrap();
    }
    fs::remove_dir_all(dir.path().join(".nccl-report-cache/site/runs/synth-basic")).unwrap();
    let chart = out.join("runs/synth-basic/charts/fragmentation-total.svg");
    assert!(chart.is_file(), "the run had a fragmentation chart");
    let rebuilt = build(&runs, &out, &[]);
    assert_eq!(from_cache(&rebuilt), 1);
    assert!(text(&rebuilt).contains("in place"), "{}", text(&rebuilt));
    assert!(!chart.exists(), "a file the run no longer makes is gone");
    let whole = dir.path().join("whole");
    assert!(build(&runs, &whole, &["--no-cache"]).status.success());
    assert_eq!(tree(&out), tree(&whole));
    assert_eq!(folders(&out), folders(&whole));
}

/// Issue 26: the summary line counts what the site holds, pages (every `.html`) and files, on a clean build, a build with nothing to do and one that rebuilds
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
    assert!(tree(&out).keys().any(|p| p.starts_with("history/")), "the bundled runs give history pages");
    assert_eq!(clean, (pages, files));
    assert_eq!(counted(&build(&runs, &out, &[])), (pages, files), "nothing to do");
    let notes = runs.join("synth-basic/NOTES.md");
    fs::write(&notes, "changed\n").unwrap();
    let partly_cached = build(&runs, &out, &[]);
    assert!(from_cache(&partly_cached) > 0);
    assert_eq!(counted(&partly_cached), actual(), "one run rebuilt, the others cached");
    // Updated in place, the count is the last build's with what this one added and removed.
    let synth = dir.path().join("synth");
    let made = crate::common::nccl_report(&["synth", "--out", synth.to_str().unwrap(), "--count", "1", "--seed", "5"]);
    assert!(made.status.success(), "{}", text(&made));
    let id = fs::read_dir(&synth).unwrap().next().unwrap().unwrap().file_name();
    crate::common::copy_tree(&synth, &runs);
    let added = build(&runs, &out, &[]);
    assert!(text(&added).contains("in place"), "{}", text(&added));
    assert_eq!(counted(&added), actual(), "a run added in place");
    fs::remove_dir_all(runs.join(id)).unwrap();
    let removed = build(&runs, &out, &[]);
    assert!(text(&removed).contains("in place"), "{}", text(&removed));
    assert_eq!(counted(&removed), actual(), "a run removed in place");
    assert_eq!(counted(&build(&runs, &out, &[])), actual(), "nothing to do after");
    // A file of a cached run deleted by hand is put back; one of a run that then goes is
    // already gone: either way the count is the site's.
    let kept = fs::read_dir(&runs).unwrap().map(|e| e.unwrap().file_name()).find(|n| n != "synth-basic").unwrap();
    let kept = kept.to_string_lossy().into_owned();
    fs::remove_file(out.join(format!("runs/{kept}/summary.md"))).unwrap();
    fs::write(&notes, "changed again\n").unwrap();
    let repaired = build(&runs, &out, &[]);
    assert!(text(&repaired).contains("in place"), "{}", text(&repaired));
    assert_eq!(counted(&repaired), actual(), "a deleted file put back");
    fs::remove_file(out.join("runs/synth-basic/summary.md")).unwrap();
    fs::remove_dir_all(runs.join("synth-basic")).unwrap();
    let gone = build(&runs, &out, &[]);
    assert!(text(&gone).contains("in place"), "{}", text(&gone));
    assert_eq!(counted(&gone), actual(), "a run gone whose file was deleted by hand");
}

/// A build that updates the site in place leaves a cached run's files as they are when their
/// stamps are the ones recorded at the last commit, and puts back from the cache a file
/// edited or deleted by hand, and every file of a run whose recorded stamps are lost; a run
/// whose cached files cannot be read back is built again in place; the site is then the one
/// a whole build makes.
#[test]
fn files_of_cached_runs_altered_by_hand_are_put_back_in_place() {
    let (dir, runs) = runs_dir(&["synth-basic", "synth-one-cycle", "synth-even-cycles", "synth-twenty-cycles"]);
    let out = dir.path().join("site");
    assert_eq!(from_cache(&build(&runs, &out, &[])), 0);
    let untouched = out.join("runs/synth-even-cycles/summary.md");
    let untouched_inode = std::os::unix::fs::MetadataExt::ino(&fs::metadata(&untouched).unwrap());
    fs::write(out.join("runs/synth-basic/summary.md"), "edited by hand\n").unwrap();
    fs::remove_file(out.join("runs/synth-basic/summary.csv")).unwrap();
    let cache = dir.path().join(".nccl-report-cache/site/runs");
    fs::remove_file(cache.join("synth-one-cycle/site.mpk")).unwrap();
    fs::write(out.join("runs/synth-one-cycle/summary.md"), "edited too\n").unwrap();
    // A run whose cached files cannot be read back is built again in place, and a file it
    // had and no longer has (planted in its old file list) goes.
    fs::remove_file(cache.join("synth-twenty-cycles/files.pack")).unwrap();
    fs::write(out.join("runs/synth-twenty-cycles/summary.md"), "edited as well\n").unwrap();
    // An entry is two lines of JSON: its head (with the content hash of the second line),
    // then its stamps and files.
    let entry = cache.join("synth-twenty-cycles/entry.json");
    let kept = fs::read_to_string(&entry).unwrap();
    let (head, body) = kept.split_once('\n').unwrap();
    let mut planted: serde_json::Value = serde_json::from_str(body).unwrap();
    let mut gone = planted["files"][0].clone();
    gone["rel"] = "runs/synth-twenty-cycles/gone.html".into();
    planted["files"].as_array_mut().unwrap().push(gone);
    let planted = planted.to_string();
    let mut head: serde_json::Value = serde_json::from_str(head).unwrap();
    head["body"] = format!("{:032x}", xxhash_rust::xxh3::xxh3_128(planted.as_bytes())).into();
    fs::write(&entry, format!("{head}\n{planted}")).unwrap();
    fs::write(out.join("runs/synth-twenty-cycles/gone.html"), "an old file\n").unwrap();
    let synth = dir.path().join("synth");
    let made = crate::common::nccl_report(&["synth", "--out", synth.to_str().unwrap(), "--count", "1", "--seed", "5"]);
    assert!(made.status.success(), "{}", text(&made));
    crate::common::copy_tree(&synth, &runs);
    // Every history page deleted by hand: the added run's configuration's page is made again
    // as it lists the run, the other configuration's (its key unchanged) as its page is gone.
    let pages: Vec<PathBuf> = fs::read_dir(out.join("history"))
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.extension().is_some_and(|x| x == "html"))
        .collect();
    assert_eq!(pages.len(), 2, "two configurations");
    pages.iter().for_each(|page| fs::remove_file(page).unwrap());
    let added = build(&runs, &out, &[]);
    assert!(text(&added).contains("in place"), "{}", text(&added));
    assert_eq!(from_cache(&added), 3, "the run whose files cannot be read back is built again");
    let whole = dir.path().join("whole");
    assert!(build(&runs, &whole, &["--no-cache"]).status.success());
    assert_eq!(tree(&out), tree(&whole), "every altered file put back");
    let inode = std::os::unix::fs::MetadataExt::ino(&fs::metadata(&untouched).unwrap());
    assert_eq!(inode, untouched_inode, "an intact run's files are left as they are");
}

/// A cross-run unit whose key is unchanged is carried as it is only while its files all lie in
/// the live site as committed: a month shard's `runs.json` deleted, or edited by hand to the
/// same length, is written again when another month's run changes, and the site is the one a
/// whole build makes.
#[test]
fn a_file_of_a_carried_cross_run_unit_deleted_or_edited_by_hand_is_written_again() {
    let (dir, runs) = runs_dir(&["synth-basic", "synth-one-cycle"]);
    let synth = dir.path().join("synth");
    let made = crate::common::nccl_report(&["synth", "--out", synth.to_str().unwrap(), "--count", "1", "--seed", "5"]);
    assert!(made.status.success(), "{}", text(&made));
    let id = fs::read_dir(&synth).unwrap().next().unwrap().unwrap().file_name().to_string_lossy().into_owned();
    crate::common::copy_tree(&synth, &runs);
    let out = dir.path().join("site");
    assert!(build(&runs, &out, &[]).status.success());
    let index: serde_json::Value = serde_json::from_slice(&fs::read(out.join("data/runs.json")).unwrap()).unwrap();
    let other = index["shards"]
        .as_array()
        .unwrap()
        .iter()
        .find(|s| s["newest"] != id.as_str() && s["oldest"] != id.as_str())
        .map(|s| out.join(s["path"].as_str().unwrap()))
        .expect("a month without the synthetic run");
    let committed = fs::read(&other).unwrap();
    for (round, hand) in ["deleted", "edited"].into_iter().enumerate() {
        match hand {
            "deleted" => fs::remove_file(&other).unwrap(),
            // The same length: only the stamp's times and change time tell.
            _ => fs::write(&other, committed.iter().map(|b| if *b == b'0' { b'1' } else { *b }).collect::<Vec<_>>())
                .unwrap(),
        }
        fs::write(runs.join(&id).join("NOTES.md"), format!("A note on this run only ({round}).\n")).unwrap();
        let again = build(&runs, &out, &[]);
        assert!(text(&again).contains("in place"), "{}", text(&again));
        assert_eq!(fs::read(&other).unwrap(), committed, "{} {hand} by hand, written again", other.display());
        let whole = dir.path().join(format!("whole-{round}"));
        assert!(build(&runs, &whole, &["--no-cache"]).status.success());
        assert_eq!(tree(&out), tree(&whole));
    }
}

/// A FIFO put in place of a cached run's folder in the live site is never opened (a read-only
/// open of a FIFO waits for a writer): the build that checks the run's files ends, here with
/// an error naming the place it cannot write, as it did before the folders were opened once.
#[test]
fn a_fifo_in_place_of_a_site_folder_does_not_hang_the_build() {
    let (dir, runs) = runs_dir(&["synth-basic"]);
    let out = dir.path().join("site");
    assert_eq!(from_cache(&build(&runs, &out, &[])), 0);
    let charts = out.join("runs/synth-basic/charts");
    fs::remove_dir_all(&charts).unwrap();
    let path = std::ffi::CString::new(charts.to_str().unwrap()).unwrap();
    // SAFETY: a NUL-terminated path that outlives the call.
    assert_eq!(unsafe { libc::mkfifo(path.as_ptr(), 0o644) }, 0);
    crate::common::copy_tree(&crate::common::fixture_runs().join("synth-one-cycle"), &runs.join("synth-one-cycle"));
    let mut child = std::process::Command::new(assert_cmd::cargo::cargo_bin("nccl-report"))
        .args(["build", "--runs", runs.to_str().unwrap(), "--out", out.to_str().unwrap()])
        .stdout(std::process::Stdio::null())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .unwrap();
    let start = std::time::Instant::now();
    let status = loop {
        if let Some(status) = child.try_wait().unwrap() {
            break status;
        }
        if start.elapsed() > std::time::Duration::from_secs(60) {
            child.kill().unwrap();
            panic!("the build still ran after 60 s: it opened the FIFO");
        }
        std::thread::sleep(std::time::Duration::from_millis(50));
    };
    let mut stderr = String::new();
    std::io::Read::read_to_string(&mut child.stderr.take().unwrap(), &mut stderr).unwrap();
    assert!(!status.success(), "{stderr}");
    assert!(stderr.contains("runs/synth-basic/charts"), "{stderr}");
}

/// A run compared again and again keeps one pack of files in the cache: each comparison
/// appends the file it changes (its page), and the pack is written again
/// with only the files in use once unused bytes outweigh them. What the cache gives back (the
/// site deleted) is still what a build without the cache makes.
#[test]
fn a_run_compared_again_and_again_keeps_a_bounded_pack() {
    let (dir, runs) = runs_dir(&["synth-basic", "synth-twenty-cycles"]);
    let out = dir.path().join("site");
    assert_eq!(from_cache(&build(&runs, &out, &[])), 0);
    let pack = dir.path().join(".nccl-report-cache/site/runs/synth-twenty-cycles/files.pack");
    let first = fs::metadata(&pack).unwrap().len();
    let compared = crate::common::nccl_report(&[
        "compare",
        "--runs",
        runs.to_str().unwrap(),
        "synth-basic",
        "synth-twenty-cycles",
        "--format",
        "json",
    ]);
    let json: serde_json::Value = serde_json::from_slice(&compared.stdout).unwrap();
    let label = json["base"]["configuration"].as_str().unwrap().to_string();
    // Pinning the baseline and unpinning it changes how synth-twenty-cycles' baseline is
    // chosen, so it is compared again on every build.
    let mut sizes = Vec::new();
    for round in 0..8 {
        let pins = if round % 2 == 0 { serde_json::json!({ &label: "synth-basic" }) } else { serde_json::json!({}) };
        fs::write(runs.join("baselines.json"), pins.to_string()).unwrap();
        assert_eq!(from_cache(&build(&runs, &out, &[])), 2);
        sizes.push(fs::metadata(&pack).unwrap().len());
    }
    assert!(sizes.windows(2).any(|w| w[1] > w[0]), "appended: {first} then {sizes:?}");
    assert!(sizes.windows(2).any(|w| w[1] < w[0]), "written again: {first} then {sizes:?}");
    assert!(sizes.iter().all(|&size| size <= 3 * first), "bounded: {first} then {sizes:?}");
    fs::remove_dir_all(&out).unwrap();
    assert_eq!(from_cache(&build(&runs, &out, &[])), 2);
    let fresh = dir.path().join("fresh");
    assert!(build(&runs, &fresh, &["--no-cache"]).status.success());
    assert_eq!(tree(&out), tree(&fresh));
}

/// An archived input published as evidence is not copied into the cache, where a site of large
/// NCCL logs would keep them twice: its record names it in the run folder, and its bytes are
/// read from there, and their hash checked, when the site needs them again: a copy deleted or
/// edited by hand in the live site, or the whole site deleted. The site is then the one a
/// whole build makes, and every run still comes from the cache.
#[test]
fn evidence_is_kept_in_the_run_folder_not_in_the_cache() {
    let (dir, runs) = runs_dir(&["synth-basic", "synth-one-cycle"]);
    let out = dir.path().join("site");
    assert_eq!(from_cache(&build(&runs, &out, &[])), 0);
    let entry = dir.path().join(".nccl-report-cache/site/runs/synth-basic");
    let body = entry_line(&entry.join("entry.json"), 1);
    let files = body["files"].as_array().unwrap();
    let (archived, packed): (Vec<_>, Vec<_>) = files.iter().partition(|f| f.get("source").is_some());
    assert!(archived.len() > 20, "every published input is recorded by its place: {}", archived.len());
    for file in &archived {
        let (rel, source) = (file["rel"].as_str().unwrap(), file["source"].as_str().unwrap());
        assert_eq!(rel, format!("runs/synth-basic/evidence/{source}"));
        assert_eq!(fs::read(out.join(rel)).unwrap(), fs::read(runs.join("synth-basic").join(source)).unwrap());
    }
    assert!(packed.iter().all(|f| !f["rel"].as_str().unwrap().contains("/evidence/")));
    let pack = fs::read(entry.join("files.pack")).unwrap();
    let large: Vec<Vec<u8>> = archived
        .iter()
        .map(|f| fs::read(runs.join("synth-basic").join(f["source"].as_str().unwrap())).unwrap())
        .filter(|bytes| bytes.len() >= 4096)
        .collect();
    assert!(large.len() >= 10, "{}", large.len());
    for bytes in &large {
        assert!(!pack.windows(bytes.len()).any(|w| w == &bytes[..]), "an input's bytes are in the pack");
    }

    // Copies deleted and edited by hand in the live site are put back from the run folder
    // when the site is next updated in place (here for a note on the other run).
    let evidence = out.join("runs/synth-basic/evidence/raw");
    fs::remove_file(evidence.join("nccl_tests_g4.stdout")).unwrap();
    fs::write(evidence.join("world4_full.stdout"), "edited by hand\n").unwrap();
    fs::write(runs.join("synth-one-cycle/NOTES.md"), "A note on this run only.\n").unwrap();
    let again = build(&runs, &out, &[]);
    assert!(text(&again).contains("in place"), "{}", text(&again));
    assert_eq!(from_cache(&again), 1);
    let whole = dir.path().join("whole");
    assert!(build(&runs, &whole, &["--no-cache"]).status.success());
    let expected = tree(&whole);
    assert_eq!(tree(&out), expected);

    // The site deleted, the cache kept: every run is put back, its evidence from its folder.
    fs::remove_dir_all(&out).unwrap();
    assert_eq!(from_cache(&build(&runs, &out, &[])), 2);
    assert_eq!(tree(&out), expected);
}

/// A run built with evidence and no cache entry has its NCCL logs hashed for its key from
/// the bytes read to scan and publish them, not read again: that key is the one a later build
/// makes by reading them, so logs rewritten with the same bytes (plain and gzipped) keep their
/// run cached under the same key, and a changed log is still seen.
#[test]
fn the_key_made_from_logs_read_once_is_the_key_made_by_reading_them() {
    let (dir, runs) = runs_dir(&["synth-gzip-logs", "synth-basic"]);
    let logs = runs.join("synth-gzip-logs/raw/nccl");
    let plain = logs.join("world4_full_synth-7685_13391.log");
    let mut text = Vec::new();
    std::io::Read::read_to_end(
        &mut flate2::read::GzDecoder::new(fs::File::open(logs.join("world4_full_synth-7685_13391.log.gz")).unwrap()),
        &mut text,
    )
    .unwrap();
    fs::remove_file(logs.join("world4_full_synth-7685_13391.log.gz")).unwrap();
    fs::write(&plain, &text).unwrap();
    let out = dir.path().join("site");
    assert_eq!(from_cache(&build(&runs, &out, &[])), 0);
    let entry = dir.path().join(".nccl-report-cache/site/runs/synth-gzip-logs/entry.json");
    let key = || entry_line(&entry, 0)["key"].clone();
    let before = key();
    let gzipped = logs.join("world2_decode_synth-7685_13432.log.gz");
    for log in [&plain, &gzipped] {
        fs::write(log, fs::read(log).unwrap()).unwrap();
    }
    assert_eq!(from_cache(&build(&runs, &out, &[])), 2, "the same key, made by reading the logs");
    assert_eq!(key(), before);
    change_one_byte(&plain, "NCCL INFO", b'o', false);
    assert_eq!(from_cache(&build(&runs, &out, &[])), 1);
    assert_ne!(key(), before);
}
