//! Issue 24 (reliability, second round): a run folder changed during builds never leads a read
//! outside the runs folder, `.gz` twins follow one rule, listing diagnostics and the digest
//! are part of what the cache checks, and the inputs' size limits are applied from `fstat`.

use crate::common::{build, runs_dir, text, tree};
use std::ffi::CString;
use std::fs;
use std::os::unix::ffi::OsStrExt;
use std::path::Path;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;

const MARKER: &str = "OUTSIDE-MARKER-7f3a";

/// Every file of the site holding `needle`.
fn files_containing(site: &Path, needle: &str) -> Vec<String> {
    tree(site)
        .into_iter()
        .filter(|(_, bytes)| bytes.windows(needle.len()).any(|w| w == needle.as_bytes()))
        .map(|(rel, _)| rel)
        .collect()
}

/// Atomically exchanges two paths (`renameat2(RENAME_EXCHANGE)`).
fn exchange(a: &Path, b: &Path) {
    let (a, b) = (CString::new(a.as_os_str().as_bytes()).unwrap(), CString::new(b.as_os_str().as_bytes()).unwrap());
    // SAFETY: two NUL-terminated paths that outlive the call.
    let rc = unsafe { libc::renameat2(libc::AT_FDCWD, a.as_ptr(), libc::AT_FDCWD, b.as_ptr(), libc::RENAME_EXCHANGE) };
    assert_eq!(rc, 0, "{}", std::io::Error::last_os_error());
}

#[test]
fn swapping_artifacts_for_a_symlink_outside_during_60_builds_publishes_nothing_outside() {
    let (dir, runs) = runs_dir(&["synth-basic"]);
    let outside = dir.path().join("outside");
    fs::create_dir(&outside).unwrap();
    for name in ["nvidia_smi_query.txt", "nvidia_smi_topo.txt", "ibv_devinfo.txt"] {
        fs::write(outside.join(name), format!("{MARKER}\n")).unwrap();
    }
    // Nor a name: the listing is made from descriptors too.
    fs::write(outside.join(format!("{MARKER}-name.txt")), "x").unwrap();
    // `runs/.swap` (a dot-folder, never a run) is exchanged with the run's artifacts/ in a loop.
    let artifacts = runs.join("synth-basic/artifacts");
    let swap = runs.join(".swap");
    std::os::unix::fs::symlink(&outside, &swap).unwrap();
    let stop = Arc::new(AtomicBool::new(false));
    let swapper = {
        let (stop, artifacts, swap) = (Arc::clone(&stop), artifacts.clone(), swap.clone());
        std::thread::spawn(move || {
            let mut swaps = 0u64;
            while !stop.load(Ordering::Relaxed) {
                exchange(&artifacts, &swap);
                swaps += 1;
            }
            if swaps % 2 == 1 {
                exchange(&artifacts, &swap);
            }
            swaps
        })
    };
    let out = dir.path().join("site");
    let mut leaked = Vec::new();
    for _ in 0..60 {
        let output = build(&runs, &out, &["--no-cache"]);
        assert!(output.status.success(), "{}", text(&output));
        leaked.extend(files_containing(&out, MARKER));
    }
    stop.store(true, Ordering::Relaxed);
    let swaps = swapper.join().unwrap();
    assert!(swaps > 60, "the swapper ran ({swaps} swaps)");
    assert!(leaked.is_empty(), "the outside file reached the site: {leaked:?}");
    assert!(artifacts.is_dir() && !artifacts.is_symlink());
}

#[test]
fn every_gz_twin_reads_the_plain_file_and_warns_naming_both() {
    let (dir, runs) = runs_dir(&["synth-basic"]);
    let run = runs.join("synth-basic");
    let gz = |rel: &str, text: &str| {
        let mut encoder = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::fast());
        std::io::Write::write_all(&mut encoder, text.as_bytes()).unwrap();
        fs::write(run.join(format!("{rel}.gz")), encoder.finish().unwrap()).unwrap();
    };
    let stdout = fs::read_to_string(run.join("raw/nccl_tests_g2.stdout")).unwrap();
    gz("raw/nccl_tests_g2.stdout", &stdout);
    gz("manifest.txt", "run_id=GZ-MANIFEST-TWIN\n");
    gz("artifacts/nvidia_smi_query.txt", "0, GZ-QUERY-TWIN, GPU-x, 1, 1 MiB, 0\n");
    fs::write(run.join("NOTES.md"), "plain notes").unwrap();
    gz("NOTES.md", "GZ-NOTES-TWIN");
    let out = dir.path().join("site");
    let output = build(&runs, &out, &["--no-cache"]);
    assert!(output.status.success(), "{}", text(&output));
    for twin in ["GZ-MANIFEST-TWIN", "GZ-QUERY-TWIN", "GZ-NOTES-TWIN"] {
        assert!(files_containing(&out, twin).is_empty(), "{twin} was read");
    }
    let page = fs::read_to_string(out.join("runs/synth-basic/index.html")).unwrap();
    for rel in ["raw/nccl_tests_g2.stdout", "manifest.txt", "artifacts/nvidia_smi_query.txt", "NOTES.md"] {
        let message = format!("both {rel} and {rel}.gz present; only {rel} read");
        assert!(page.contains(&message), "no warning for {rel}");
    }
    // The twin of nccl-tests output is not read as more cycles: the summary equals the
    // one built without it.
    let (plain_dir, plain_runs) = runs_dir(&["synth-basic"]);
    let plain_out = plain_dir.path().join("site");
    assert!(build(&plain_runs, &plain_out, &["--no-cache"]).status.success());
    let tests_csv = "runs/synth-basic/nccl_tests_summary.csv";
    assert!(plain_out.join(tests_csv).is_file(), "the run has an nccl-tests summary");
    assert_eq!(fs::read(out.join(tests_csv)).unwrap(), fs::read(plain_out.join(tests_csv)).unwrap());
    let status = |out: &Path| crate::common::runs_json(out)["runs"][0]["status"].clone();
    assert_eq!(status(&out), "ok");
    assert_eq!(status(&out), status(&plain_out));
}

#[test]
fn listing_diagnostics_are_in_the_cache_key_so_an_incremental_site_equals_a_clean_one() {
    let (dir, runs) = runs_dir(&["synth-basic", "synth-one-cycle"]);
    let out = dir.path().join("site");
    assert!(build(&runs, &out, &[]).status.success());
    let run = runs.join("synth-basic");
    // Three listing diagnostics, no file of the run changed: a FIFO, a symlink leading
    // outside, a `.gz` twin (its own file is new, but the others are listing-only).
    assert!(std::process::Command::new("mkfifo").arg(run.join("raw/fifo.stdout")).status().unwrap().success());
    std::os::unix::fs::symlink("/etc/hostname", run.join("artifacts/host.txt")).unwrap();
    let mut encoder = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::fast());
    std::io::Write::write_all(&mut encoder, b"run_id=GZ-TWIN\n").unwrap();
    fs::write(run.join("manifest.txt.gz"), encoder.finish().unwrap()).unwrap();
    let output = build(&runs, &out, &[]);
    assert!(output.status.success(), "{}", text(&output));
    let clean = dir.path().join("clean");
    assert!(build(&runs, &clean, &["--no-cache"]).status.success());
    assert_eq!(tree(&out), tree(&clean), "the incremental site differs from a clean one");
    let page = fs::read_to_string(out.join("runs/synth-basic/index.html")).unwrap();
    assert!(page.contains("not a regular file") && page.contains("a symlink; not followed"));
    assert!(page.contains("both manifest.txt and manifest.txt.gz present; only manifest.txt read"));
}

#[test]
fn an_edited_byte_in_a_cached_digest_is_detected_and_the_digest_made_again() {
    let (dir, runs) = runs_dir(&["synth-basic", "synth-one-cycle"]);
    let out = dir.path().join("site");
    assert!(build(&runs, &out, &[]).status.success());
    let digest = dir.path().join(".nccl-report-cache/site/runs/synth-basic/digest.mpk");
    let original = fs::read(&digest).unwrap();
    let mut bytes = original.clone();
    // A byte of the MessagePack body (after the line holding its hash).
    let body = bytes.iter().position(|&b| b == b'\n').unwrap() + 1;
    let at = body + bytes[body..].iter().position(|b| (b'1'..=b'8').contains(b)).unwrap();
    bytes[at] += 1;
    fs::write(&digest, &bytes).unwrap();
    // Another page size: the runs come from the cache, the cross-run pages are rendered again
    // from the digests.
    let output = build(&runs, &out, &["--page-size", "1"]);
    assert!(output.status.success(), "{}", text(&output));
    assert!(text(&output).contains("2 from cache"), "{}", text(&output));
    let clean = dir.path().join("clean");
    assert!(build(&runs, &clean, &["--no-cache", "--page-size", "1"]).status.success());
    assert_eq!(tree(&out), tree(&clean), "an edited digest reached the site");
    assert_eq!(fs::read(&digest).unwrap(), original, "the edited digest was not noticed and made again");
}

#[test]
fn a_file_beyond_the_read_limit_is_keyed_by_its_stamp_without_being_read() {
    let (dir, runs) = runs_dir(&["synth-basic"]);
    let big = runs.join("synth-basic/artifacts/huge.txt");
    fs::File::create(&big).unwrap().set_len(1 << 40).unwrap();
    let out = dir.path().join("site");
    // The test hook makes any read of huge.txt for the cache key fail: the build only
    // succeeds without the failure if the key never read it.
    let output = assert_cmd::Command::cargo_bin("nccl-report")
        .unwrap()
        .env("NCCL_REPORT_TEST_UNREADABLE", "huge.txt")
        .args(["build", "--runs", runs.to_str().unwrap(), "--out", out.to_str().unwrap(), "--max-file-bytes", "65536"])
        .output()
        .unwrap();
    assert!(output.status.success(), "{}", text(&output));
    let page = fs::read_to_string(out.join("runs/synth-basic/index.html")).unwrap();
    assert!(page.contains("1099511627776 bytes, larger than the limit of 65536 bytes"), "refused from its size");
    assert!(!page.contains("permission denied"), "the cache key read the file");
}

#[test]
fn an_empty_runs_folder_exits_2() {
    let dir = tempfile::tempdir().unwrap();
    let runs = dir.path().join("runs");
    fs::create_dir(&runs).unwrap();
    let output = build(&runs, &dir.path().join("site"), &[]);
    assert_eq!(output.status.code(), Some(2), "{}", text(&output));
    assert!(text(&output).contains("no runs in"), "{}", text(&output));
}

#[test]
fn site_wide_notes_twin_fifo_and_size_are_diagnosed() {
    let (dir, runs) = runs_dir(&["synth-basic"]);
    let out = dir.path().join("site");
    let gz = |text: &str| {
        let mut encoder = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::fast());
        std::io::Write::write_all(&mut encoder, text.as_bytes()).unwrap();
        fs::write(runs.join("NOTES.md.gz"), encoder.finish().unwrap()).unwrap();
    };
    gz("GZ-SITE-NOTES");
    let output = build(&runs, &out, &["--no-cache"]);
    assert!(output.status.success(), "{}", text(&output));
    assert!(!files_containing(&out, "GZ-SITE-NOTES").is_empty(), "runs/NOTES.md.gz alone is read");
    fs::write(runs.join("NOTES.md"), "PLAIN-SITE-NOTES").unwrap();
    let output = build(&runs, &out, &["--no-cache"]);
    assert!(text(&output).contains("both NOTES.md and NOTES.md.gz present; only NOTES.md read"), "{}", text(&output));
    assert!(
        files_containing(&out, "GZ-SITE-NOTES").is_empty() && !files_containing(&out, "PLAIN-SITE-NOTES").is_empty()
    );
    fs::remove_file(runs.join("NOTES.md.gz")).unwrap();
    fs::File::create(runs.join("NOTES.md")).unwrap().set_len((1 << 20) + 1).unwrap();
    let output = build(&runs, &out, &["--no-cache"]);
    assert!(
        text(&output).contains("runs/NOTES.md: cannot read: 1048577 bytes, larger than the limit"),
        "{}",
        text(&output)
    );
    fs::remove_file(runs.join("NOTES.md")).unwrap();
    assert!(std::process::Command::new("mkfifo").arg(runs.join("NOTES.md")).status().unwrap().success());
    let output = build(&runs, &out, &["--no-cache"]);
    assert!(output.status.success(), "{}", text(&output));
    assert!(text(&output).contains("runs/NOTES.md: cannot read: not a regular file"), "{}", text(&output));
}

/// The server's resident memory, from `/proc/<pid>/status`.
fn rss_kib(pid: u32) -> u64 {
    let status = fs::read_to_string(format!("/proc/{pid}/status")).unwrap();
    let line = status.lines().find(|l| l.starts_with("VmRSS:")).unwrap();
    line.split_whitespace().nth(1).unwrap().parse().unwrap()
}

#[test]
fn serve_answers_others_while_70_clients_do_not_read() {
    use std::io::{Read, Write};
    let (dir, runs) = runs_dir(&["synth-basic"]);
    let site = dir.path().join("site");
    assert!(build(&runs, &site, &[]).status.success());
    fs::write(site.join("big.bin"), vec![7u8; 63 << 20]).unwrap();
    let (mut child, connect) = crate::common::serve(&site, &["--send-timeout", "60"]);
    let silent: Vec<_> = (0..70)
        .map(|_| {
            let mut stream = connect();
            write!(stream, "GET /big.bin HTTP/1.1\r\nHost: localhost\r\n\r\n").unwrap();
            stream
        })
        .collect();
    std::thread::sleep(std::time::Duration::from_millis(500));
    let mut latencies = Vec::new();
    for _ in 0..20 {
        let asked = std::time::Instant::now();
        let mut other = connect();
        other.set_read_timeout(Some(std::time::Duration::from_secs(30))).unwrap();
        write!(other, "GET / HTTP/1.1\r\nHost: localhost\r\n\r\n").unwrap();
        let mut response = String::new();
        let answered = other.read_to_string(&mut response);
        latencies.push(asked.elapsed());
        assert!(answered.is_ok() && response.starts_with("HTTP/1.1 200 OK"), "{answered:?} {response}");
    }
    let rss = rss_kib(child.id());
    child.kill().unwrap();
    child.wait().unwrap();
    drop(silent);
    latencies.sort();
    eprintln!(
        "serve, 70 clients not reading 63 MiB each: others answered in median {:?}, max {:?}; server RSS {rss} KiB",
        latencies[10], latencies[19]
    );
    assert!(rss < 256 << 10, "the server holds {rss} KiB: answers are not streamed");
}

#[test]
fn output_budgets_keep_a_huge_nccl_tests_output_and_manifest_small_and_say_so() {
    let (dir, runs) = runs_dir(&["synth-basic"]);
    let run = runs.join("synth-basic");
    // 2000 tables of one nccl-tests output (a 250 MB output's shape, 3.5 MB here): before the
    // budget, 6072 site files and 76 MB.
    let stdout = fs::read_to_string(run.join("raw/nccl_tests_g2.stdout")).unwrap();
    let lines: Vec<&str> = stdout.lines().collect();
    let table = lines[..19].join("\n") + "\n";
    fs::write(run.join("raw/nccl_tests_g2.stdout"), table.repeat(2000) + &lines[lines.len() - 6..].join("\n")).unwrap();
    // A 4 MB manifest value.
    let mut manifest = fs::read_to_string(run.join("manifest.txt")).unwrap();
    manifest += &format!("huge={}\n", "v".repeat(4 << 20));
    fs::write(run.join("manifest.txt"), manifest).unwrap();
    let out = dir.path().join("site");
    let output = build(&runs, &out, &["--no-cache"]);
    assert!(output.status.success(), "{}", text(&output));
    let site = tree(&out);
    let bytes: usize = site.values().map(Vec::len).sum();
    assert!(site.len() < 400, "{} files", site.len());
    assert!(bytes < 16 << 20, "{bytes} bytes");
    let page = fs::read_to_string(out.join("runs/synth-basic/index.html")).unwrap();
    assert!(page.len() < 4 << 20, "the run page is {} bytes", page.len());
    for cut in ["more charts not drawn: at most 60 per run page", "more tables not shown", "texts cut at 64 KiB"] {
        assert!(page.contains("output budget: ") && page.contains(cut), "no warning {cut:?}");
    }
}

#[test]
fn compare_text_md_and_errors_escape_terminal_control_characters() {
    use crate::compare::{two_runs, LATER, REAL};
    let (_dir, runs) = two_runs(1.0);
    // A key difference prints the manifest's values as they are.
    let manifest = runs.join(LATER).join("manifest.txt");
    let text_now = fs::read_to_string(&manifest).unwrap().replace("dtype=FP32", "dtype=FP32\u{1b}[2J\u{7}");
    fs::write(&manifest, text_now).unwrap();
    for format in ["text", "md"] {
        let output =
            crate::common::nccl_report(&["compare", "--runs", runs.to_str().unwrap(), REAL, LATER, "--format", format]);
        let all = text(&output);
        assert!(all.contains("\\u{1b}[2J"), "{format}: {all}");
        assert!(!all.contains('\u{1b}') && !all.contains('\u{7}'), "{format}: a raw control character");
    }
    let output = crate::common::nccl_report(&["compare", "--runs", runs.to_str().unwrap(), "\u{1b}[2Jnope"]);
    assert_eq!(output.status.code(), Some(2));
    assert!(!text(&output).contains('\u{1b}'), "{}", text(&output));
}
