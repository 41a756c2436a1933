//! The write side of issue #10, one test per item: `--out` apart from `--runs` (1), odd
//! `--out` spellings never lose the site (3), leftovers of killed builds cleaned (4), the cache
//! owns its files, and a rebuild carries unchanged live files but never edited ones (5), one
//! build per site at a time (6), publish refuses what it must and keeps bytes exact (7), an
//! unreadable run file makes only that run invalid (8), a slow client does not block `serve`
//! and is dropped after `--send-timeout` (13).

use crate::common::{build, leftovers, nccl_report, runs_dir, text, tree};
use std::fs;
use std::io::Write;
use std::path::Path;
use std::time::Duration;

#[test]
fn item1_out_overlapping_runs_is_refused_before_any_work() {
    let (dir, runs) = runs_dir(&["synth-basic"]);
    let before = tree(&runs);
    let site_above = dir.path().join("site");
    fs::create_dir(&site_above).unwrap();
    let runs_below = site_above.join("r");
    for (runs, out) in
        [(runs.clone(), runs.clone()), (runs.clone(), runs.join("site")), (runs_below.clone(), site_above.clone())]
    {
        fs::create_dir_all(&runs).unwrap();
        let output = build(&runs, &out, &[]);
        assert_eq!(output.status.code(), Some(2), "{}", text(&output));
        assert!(text(&output).contains("overlap"), "{}", text(&output));
    }
    assert_eq!(tree(&runs), before, "the runs folder was written");
    let watch = nccl_report(&[
        "serve",
        "--watch",
        "--runs",
        runs.to_str().unwrap(),
        "--out",
        runs.join("site").to_str().unwrap(),
        "--port",
        "0",
    ]);
    assert_eq!(watch.status.code(), Some(2), "{}", text(&watch));
    assert_eq!(tree(&runs), before);
    // Beside the runs folder, through `..`, is fine.
    let beside = runs.join("../site-beside");
    assert!(build(&runs, &beside, &[]).status.success());
}

#[test]
fn item3_dot_and_dotdot_out_paths_rebuild_the_site_and_never_lose_it() {
    let (dir, runs) = runs_dir(&["synth-basic", "synth-one-cycle"]);
    let site = dir.path().join("site");
    assert!(build(&runs, &site, &[]).status.success());
    let expected = tree(&site);
    for spelled in [site.join("."), site.join("../site"), site.join("./")] {
        let output = build(&runs, &spelled, &["--no-cache"]);
        assert!(output.status.success(), "{}", text(&output));
        assert_eq!(tree(&site), expected, "{}", spelled.display());
        assert!(leftovers(dir.path()).is_empty(), "{:?}", leftovers(dir.path()));
    }
    let output = build(&runs, &site.join(".."), &[]);
    assert_eq!(output.status.code(), Some(2));
    assert_eq!(tree(&site), expected);
}

#[test]
fn item4_leftovers_of_killed_builds_are_removed_and_foreign_folders_kept() {
    let (dir, runs) = runs_dir(&["synth-basic"]);
    let site = dir.path().join("site");
    assert!(build(&runs, &site, &[]).status.success());
    for name in [".site.tmp-999999", ".site.old-999998"] {
        fs::create_dir_all(dir.path().join(name).join("runs")).unwrap();
        fs::write(dir.path().join(name).join(".nccl-report-site"), "").unwrap();
    }
    let foreign = dir.path().join(".site.tmp-1");
    fs::create_dir(&foreign).unwrap();
    fs::write(foreign.join("keep.txt"), "mine").unwrap();
    assert!(build(&runs, &site, &[]).status.success());
    assert_eq!(leftovers(dir.path()), vec![".site.tmp-1".to_string()]);
    assert_eq!(fs::read_to_string(foreign.join("keep.txt")).unwrap(), "mine");
}

#[test]
fn item5_the_site_never_shares_a_file_with_the_cache() {
    use std::os::unix::fs::MetadataExt;
    let (dir, runs) = runs_dir(&["synth-basic"]);
    let site = dir.path().join("site");
    let page = site.join("runs/synth-basic/index.html");
    assert!(build(&runs, &site, &[]).status.success());
    let original = fs::read(&page).unwrap();
    // The cache keeps its own copy of the run's files, one after another in one pack.
    let pack = dir.path().join(".nccl-report-cache/site/runs/synth-basic/files.pack");
    let at = fs::read(&pack).unwrap().windows(original.len()).position(|w| w == original).expect("page in the pack");
    // A rebuild from the cache copies: the page is the site's own file.
    fs::remove_dir_all(&site).unwrap();
    assert!(build(&runs, &site, &[]).status.success());
    assert_eq!(fs::read(&page).unwrap(), original);
    assert_eq!(fs::metadata(&page).unwrap().nlink(), 1);
    // Editing the site never edits the cache.
    let packed = fs::read(&pack).unwrap();
    fs::write(&page, "defaced").unwrap();
    assert_eq!(fs::read(&pack).unwrap(), packed);
    fs::remove_dir_all(&site).unwrap();
    assert!(build(&runs, &site, &[]).status.success());
    assert_eq!(fs::read(&page).unwrap(), original);
    // An altered cache file is not trusted: the run is rendered again.
    let mut tampered = fs::read(&pack).unwrap();
    tampered[at + original.len() / 2] ^= 1;
    fs::write(&pack, tampered).unwrap();
    fs::remove_dir_all(&site).unwrap();
    let output = build(&runs, &site, &[]);
    assert!(text(&output).contains("0 from cache"), "{}", text(&output));
    assert_eq!(fs::read(&page).unwrap(), original);
}

/// A +1-run rebuild hard-links unchanged files from the live site instead of copying them,
/// but never a file edited by hand there, even one whose size and mtime were kept.
#[test]
fn item5_a_rebuild_carries_unchanged_live_files_but_never_an_edited_one() {
    use std::os::unix::fs::MetadataExt;
    let (dir, runs) = runs_dir(&["synth-basic", "synth-one-cycle", "synth-even-cycles"]);
    let site = dir.path().join("site");
    assert!(build(&runs, &site, &[]).status.success());
    let page = |id: &str| site.join(format!("runs/{id}/index.html"));
    let (basic, one) = (fs::read(page("synth-basic")).unwrap(), fs::read(page("synth-one-cycle")).unwrap());
    let kept_inode = fs::metadata(page("synth-one-cycle")).unwrap().ino();
    // synth-basic edited in place (same inode), synth-even-cycles too with size and mtime kept.
    fs::OpenOptions::new().append(true).open(page("synth-basic")).unwrap().write_all(b"defaced").unwrap();
    let even = page("synth-even-cycles");
    let (even_bytes, modified) = (fs::read(&even).unwrap(), fs::metadata(&even).unwrap().modified().unwrap());
    let mut altered = even_bytes.clone();
    altered[0] ^= 1;
    fs::File::options().write(true).open(&even).unwrap().write_all(&altered).unwrap();
    fs::File::options().write(true).open(&even).unwrap().set_modified(modified).unwrap();
    crate::common::copy_tree(&crate::common::fixture_runs().join("synth-gzip-logs"), &runs.join("synth-gzip-logs"));
    let output = build(&runs, &site, &[]);
    assert!(output.status.success(), "{}", text(&output));
    assert_eq!(fs::read(page("synth-basic")).unwrap(), basic);
    assert_eq!(fs::read(&even).unwrap(), even_bytes);
    assert_eq!(fs::read(page("synth-one-cycle")).unwrap(), one);
    assert_eq!(fs::metadata(page("synth-one-cycle")).unwrap().ino(), kept_inode, "not carried over");
    // The site is the only owner of each of its files (none shared with the cache or old site).
    for entry in walkdir::WalkDir::new(&site).into_iter().map(Result::unwrap).filter(|e| e.file_type().is_file()) {
        assert_eq!(entry.metadata().unwrap().nlink(), 1, "{}", entry.path().display());
    }
    let fresh = dir.path().join("fresh");
    assert!(build(&runs, &fresh, &["--no-cache"]).status.success());
    assert_eq!(tree(&site), tree(&fresh));
}

#[test]
fn item6_a_second_build_of_the_same_site_fails_while_one_runs() {
    use std::os::fd::AsRawFd;
    let (dir, runs) = runs_dir(&["synth-basic"]);
    let site = dir.path().join("site");
    assert!(build(&runs, &site, &[]).status.success());
    let before = tree(&site);
    let lock =
        fs::OpenOptions::new().create(true).truncate(false).write(true).open(dir.path().join(".site.lock")).unwrap();
    // SAFETY: flock on a descriptor this test owns.
    assert_eq!(unsafe { libc::flock(lock.as_raw_fd(), libc::LOCK_EX | libc::LOCK_NB) }, 0);
    fs::write(dir.path().join(".site.lock"), "4242\n").unwrap();
    let output = build(&runs, &site, &["--no-cache"]);
    assert_eq!(output.status.code(), Some(2), "{}", text(&output));
    assert!(text(&output).contains("another build of"), "{}", text(&output));
    assert!(text(&output).contains("pid 4242"), "{}", text(&output));
    assert_eq!(tree(&site), before);
    drop(lock);
    assert!(build(&runs, &site, &["--no-cache"]).status.success());
}

/// A build in which the file named `name` (in any run) cannot be read for the cache key (the
/// binary's test hook, `NCCL_REPORT_TEST_UNREADABLE`).
fn build_with_unreadable(runs: &Path, site: &Path, name: &str) -> std::process::Output {
    assert_cmd::Command::cargo_bin("nccl-report")
        .unwrap()
        .env("NCCL_REPORT_TEST_UNREADABLE", name)
        .args(["build", "--runs", runs.to_str().unwrap(), "--out", site.to_str().unwrap()])
        .output()
        .unwrap()
}

#[test]
fn item8_an_unreadable_run_file_makes_only_that_run_invalid() {
    let (dir, runs) = runs_dir(&["synth-basic", "synth-one-cycle"]);
    fs::create_dir_all(runs.join("synth-one-cycle/artifacts")).unwrap();
    fs::write(runs.join("synth-one-cycle/artifacts/locked_file.txt"), "x").unwrap();
    let site = dir.path().join("site");
    let output = build_with_unreadable(&runs, &site, "locked_file.txt");
    assert!(output.status.success(), "{}", text(&output));
    let said = text(&output);
    assert!(said.contains("synth-one-cycle: invalid"), "{said}");
    assert!(said.contains("artifacts/locked_file.txt"), "{said}");
    assert!(site.join("runs/synth-basic/index.html").is_file());
    assert!(site.join("runs/synth-one-cycle/index.html").is_file());
}

#[test]
fn item13_a_client_that_stops_reading_does_not_block_others() {
    use std::io::{Read, Write};
    let (dir, runs) = runs_dir(&["synth-basic"]);
    let site = dir.path().join("site");
    assert!(build(&runs, &site, &[]).status.success());
    fs::write(site.join("big.bin"), vec![7u8; 64 << 20]).unwrap();
    let (mut child, connect) = crate::common::serve(&site, &[]);
    let mut slow = connect();
    write!(slow, "GET /big.bin HTTP/1.0\r\nHost: localhost\r\n\r\n").unwrap();
    std::thread::sleep(Duration::from_millis(500));
    let mut other = connect();
    other.set_read_timeout(Some(Duration::from_secs(5))).unwrap();
    write!(other, "GET / HTTP/1.0\r\nHost: localhost\r\n\r\n").unwrap();
    let mut response = String::new();
    let answered = other.read_to_string(&mut response);
    child.kill().unwrap();
    child.wait().unwrap();
    drop(slow);
    assert!(answered.is_ok(), "the second client waited: {answered:?}");
    assert!(response.contains(" 200 ") && response.contains("NCCL experiment runs"), "{response}");
}

/// A client that stops reading holds its connection (and one of the 64 answer slots) only
/// for `--send-timeout` seconds: then the server drops it, before the whole file was sent.
#[test]
fn item13_a_client_that_stops_reading_is_dropped_after_the_send_timeout() {
    use std::io::Read;
    let (dir, runs) = runs_dir(&["synth-basic"]);
    let site = dir.path().join("site");
    assert!(build(&runs, &site, &[]).status.success());
    let size = 64 << 20;
    fs::write(site.join("big.bin"), vec![7u8; size]).unwrap();
    let (mut child, connect) = crate::common::serve(&site, &["--send-timeout", "1"]);
    let mut slow = connect();
    write!(slow, "GET /big.bin HTTP/1.0\r\nHost: localhost\r\n\r\n").unwrap();
    std::thread::sleep(Duration::from_secs(4));
    slow.set_read_timeout(Some(Duration::from_secs(20))).unwrap();
    let mut received = Vec::new();
    let ended = slow.read_to_end(&mut received);
    child.kill().unwrap();
    child.wait().unwrap();
    assert!(
        ended.is_ok() || ended.as_ref().is_err_and(|e| e.kind() == std::io::ErrorKind::ConnectionReset),
        "the connection was not closed: {ended:?}"
    );
    assert!(received.len() < size, "the whole file was sent to a client that had stopped reading");
}

/// `serve --watch` rebuilds within the `--max-*` limits it is given, as `build` does.
#[test]
fn serve_watch_builds_within_the_size_limits() {
    let (dir, runs) = runs_dir(&["synth-basic"]);
    let site = dir.path().join("site");
    let binary = assert_cmd::cargo::cargo_bin("nccl-report");
    let mut child = std::process::Command::new(binary)
        .args(["serve", "--watch", "--port", "0", "--max-file-bytes", "100"])
        .args(["--runs", runs.to_str().unwrap(), "--out", site.to_str().unwrap()])
        .stdout(std::process::Stdio::null())
        .stderr(std::process::Stdio::null())
        .spawn()
        .unwrap();
    let runs_json = site.join("data/runs.json");
    let mut waited = 0;
    while !runs_json.is_file() && waited < 600 {
        std::thread::sleep(Duration::from_millis(100));
        waited += 1;
    }
    let _ = child.kill();
    child.wait().unwrap();
    let json = crate::common::runs_json(&site).to_string();
    assert!(json.contains("\"status\":\"invalid\""), "{json}");
    assert!(json.contains("NR101"), "{json}");
}

/// The same for an NCCL log of a run with no cache entry, built with evidence: such a log's
/// hash is made from the bytes the build reads to publish it, but it is opened before the run
/// is built, so one that cannot be read is named and makes its run invalid as before, and
/// the other run is built and cached.
#[test]
fn item8_an_unreadable_nccl_log_makes_only_that_run_invalid() {
    let (dir, runs) = runs_dir(&["synth-basic", "synth-gzip-logs"]);
    let log = "world2_decode_synth-7685_13432.log.gz";
    assert!(runs.join("synth-gzip-logs/raw/nccl").join(log).is_file());
    let site = dir.path().join("site");
    let output = build_with_unreadable(&runs, &site, log);
    assert!(output.status.success(), "{}", text(&output));
    let said = text(&output);
    assert!(said.contains("synth-gzip-logs: invalid"), "{said}");
    assert!(said.contains(&format!("raw/nccl/{log}")), "{said}");
    assert!(site.join("runs/synth-basic/index.html").is_file());
    assert!(site.join("runs/synth-gzip-logs/index.html").is_file());
    assert!(dir.path().join(".nccl-report-cache/site/runs/synth-basic/entry.json").is_file());
    assert!(!dir.path().join(".nccl-report-cache/site/runs/synth-gzip-logs/entry.json").exists());
}

/// A copy of evidence that cannot be written (a folder stands in its place in the live site)
/// while a run is built again in place: the build fails naming it, with the run's cache entry
/// and page as they were, and the next build, made whole beside the site, mends it.
#[test]
fn item8_an_evidence_copy_that_cannot_be_written_fails_the_build_and_the_next_mends_it() {
    let (dir, runs) = runs_dir(&["synth-basic", "synth-gzip-logs"]);
    let site = dir.path().join("site");
    assert!(build(&runs, &site, &[]).status.success());
    let copy = "runs/synth-gzip-logs/evidence/raw/nccl/world4_full_synth-7685_13391.log.gz";
    assert!(site.join(copy).is_file());
    fs::remove_file(site.join(copy)).unwrap();
    fs::create_dir_all(site.join(copy).join("in-the-way")).unwrap();
    let entry = dir.path().join(".nccl-report-cache/site/runs/synth-gzip-logs");
    // Its cached files cannot be put back, so the run is built again, in place.
    fs::remove_file(entry.join("files.pack")).unwrap();
    let (entry_before, page_before) =
        (fs::read(entry.join("entry.json")).unwrap(), fs::read(site.join("runs/synth-gzip-logs/index.html")).unwrap());
    // The copies of the logs after it (in path order, the order one thread takes them in).
    let later: Vec<String> = ["13392", "13393", "13394"]
        .iter()
        .map(|pid| format!("runs/synth-gzip-logs/evidence/raw/nccl/world4_full_synth-7685_{pid}.log.gz"))
        .collect();
    for copy in &later {
        fs::remove_file(site.join(copy)).unwrap();
    }
    crate::common::copy_tree(&crate::common::fixture_runs().join("synth-one-cycle"), &runs.join("synth-one-cycle"));
    let output = build(&runs, &site, &["--jobs", "1"]);
    assert_eq!(output.status.code(), Some(2), "{}", text(&output));
    let said = text(&output);
    assert!(said.contains(copy), "{said}");
    for copy in &later {
        assert!(!site.join(copy).exists(), "{copy}: no log is written once a copy has failed");
    }
    assert_eq!(said.matches("Is a directory").count(), 1, "the cause said once: {said}");
    assert_eq!(fs::read(entry.join("entry.json")).unwrap(), entry_before);
    assert_eq!(fs::read(site.join("runs/synth-gzip-logs/index.html")).unwrap(), page_before);
    let output = build(&runs, &site, &[]);
    assert!(output.status.success(), "{}", text(&output));
    let fresh = dir.path().join("fresh");
    assert!(build(&runs, &fresh, &["--no-cache"]).status.success());
    assert_eq!(tree(&site), tree(&fresh));
}
