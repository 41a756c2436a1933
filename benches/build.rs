//! `cargo bench --bench build`: how fast `nccl-report build` is on corpora of N synthetic
//! runs (seed layout, 4 ranks, 10 cycles, all sections, nccl-tests stdout, NCCL_DEBUG logs
//! with INIT/GRAPH/COLL lines, every 4th run's logs gzip-compressed), against two yardsticks
//! measured in the same process run: reading every input byte, and the seed's own
//! summarization (`benches/seed_summarize.py`, module loaded once, only summarizing timed).
//!
//! Settings (environment): `BENCH_SIZES` (default `10,100,1000`), `BENCH_LOG_BYTES` per log
//! file (default 2 MiB), `BENCH_DIR` (default `target/bench`), `SEED_DIR` (default
//! `../shared/seed`; the seed yardstick is skipped when absent), `BENCH_SEED_RUNS` (how many
//! runs the seed summarizes per corpus, default 100; the best of 3 passes is reported per run),
//! `BENCH_EVIDENCE` (`1`: the builds publish the runs' logs as evidence; by default they run
//! with `--no-evidence`, like for like with the previous wave's figures, which had no evidence:
//! copying 1.3 GB of logs per 100 runs is then most of a cold build).
//! Prints a markdown table; BENCHMARKS.md holds the figures of the last full run.

mod common;

use nccl_report::synth::{generate, SynthOptions};
use serde_json::Value;
use std::path::{Path, PathBuf};
use std::process::Command;
use std::time::Instant;

fn env_or(name: &str, default: &str) -> String {
    std::env::var(name).unwrap_or_else(|_| default.to_string())
}

/// The previous wave's figures on this 2-core machine (BENCHMARKS.md of 48943b2): runs, cold
/// build (s), read floor (s), +1 run (% of cold), no-change (% of cold). The regression guard:
/// every run of this bench prints its ratios against them.
const PREVIOUS_WAVE: [(usize, f64, f64, f64, f64); 2] =
    [(100, 0.986, 0.217, 14.0, 2.0), (1000, 15.725, 3.463, 15.3, 2.2)];

fn main() {
    let sizes: Vec<usize> =
        env_or("BENCH_SIZES", "10,100,1000").split(',').map(|s| s.trim().parse().unwrap()).collect();
    let log_bytes: u64 = env_or("BENCH_LOG_BYTES", "2097152").parse().unwrap();
    let root = PathBuf::from(env_or("BENCH_DIR", "target/bench"));
    let seed_dir = PathBuf::from(env_or("SEED_DIR", "../shared/seed"));
    let seed_runs: usize = env_or("BENCH_SEED_RUNS", "100").parse().unwrap();
    let binary = PathBuf::from(env!("CARGO_BIN_EXE_nccl-report"));
    let evidence = env_or("BENCH_EVIDENCE", "0") == "1";
    println!("evidence published: {}", if evidence { "yes" } else { "no (--no-evidence)" });
    println!("| runs | input | read bytes | cold build | runs/s | MB/s | no-change rebuild | +1 run rebuild | peak RSS | seed summarize (per run) | parse+summarize (tables, per run) |");
    println!("|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|");
    for n in sizes {
        let corpus = root.join(format!("corpus-{n}-{log_bytes}"));
        ensure_corpus(&corpus, n, log_bytes);
        let bytes = read_all(&corpus.join("runs"));
        let read = time_read(&corpus.join("runs"));
        let out = corpus.join("site");
        set_aside(&root, &out);
        set_aside(&root, &corpus.join(".nccl-report-cache"));
        settle();
        let cold = build(&binary, &corpus.join("runs"), &out, evidence);
        let again = build(&binary, &corpus.join("runs"), &out, evidence);
        let extra = corpus.join("runs").join(add_one_run(&corpus));
        let added = build(&binary, &corpus.join("runs"), &out, evidence);
        std::fs::remove_dir_all(&extra).unwrap();
        let cold_s = cold["total_seconds"].as_f64().unwrap();
        let stages = &cold["stages"];
        let tables = stages["parse tables (thread time)"].as_f64().unwrap()
            + stages["summarize (thread time)"].as_f64().unwrap();
        let seed = seed_dir
            .join("seed_runner.py")
            .is_file()
            .then(|| common::seed_per_run(&seed_dir, &corpus.join("runs"), seed_runs, 3))
            .flatten();
        println!(
            "| {n} | {:.1} MB | {:.3} s | {:.3} s | {:.0} | {:.0} | {:.3} s ({:.1} %) | {:.3} s ({:.1} %) | {:.0} MiB | {} | {:.3} ms |",
            bytes as f64 / 1e6,
            read,
            cold_s,
            n as f64 / cold_s,
            bytes as f64 / 1e6 / cold_s,
            again["total_seconds"].as_f64().unwrap(),
            100.0 * again["total_seconds"].as_f64().unwrap() / cold_s,
            added["total_seconds"].as_f64().unwrap(),
            100.0 * added["total_seconds"].as_f64().unwrap() / cold_s,
            cold["peak_rss_kib"].as_f64().unwrap_or(0.0) / 1024.0,
            seed.map_or("n/a".to_string(), |s| format!("{:.3} ms", s * 1e3)),
            tables / n as f64 * 1e3,
        );
        println!("  stages of the cold build (N={n}): {stages}");
        println!(
            "  cached runs: no-change {} / {n}, +1 run {} / {}; +1 run wrote {} files (in place: {})",
            again["cached_runs"],
            added["cached_runs"],
            n + 1,
            added["files_written"],
            added["in_place"]
        );
        if let Some(previous) = PREVIOUS_WAVE.iter().find(|p| p.0 == n) {
            let ratio = |now: f64, then: f64| now / then;
            println!(
                "  against the previous wave (48943b2, BENCHMARKS.md, 2 cores): cold / read floor {:.2}x (then {:.2}x), +1 run {:.1} % (then {:.1} %), no-change {:.1} % (then {:.1} %); cold build now/then {:.2} (machine load differs: compare the ratios)",
                cold_s / read,
                previous.1 / previous.2,
                100.0 * added["total_seconds"].as_f64().unwrap() / cold_s,
                previous.3,
                100.0 * again["total_seconds"].as_f64().unwrap() / cold_s,
                previous.4,
                ratio(cold_s, previous.1),
            );
        }
    }
    let _ = std::fs::remove_dir_all(root.join("trash"));
}

/// Moves an earlier site or cache out of the way, into `<root>/trash` (emptied when the
/// benchmark ends). Deleting tens of thousands of files just before a timed build would
/// measure the file system instead: on ext4 without a journal (this machine's disk), every
/// file created in the next minutes first skips the inodes of recently deleted ones, which
/// made the write stage 5 to 10 times slower.
fn set_aside(root: &Path, path: &Path) {
    if path.exists() {
        let trash = root.join("trash");
        std::fs::create_dir_all(&trash).unwrap();
        let count = std::fs::read_dir(&trash).unwrap().count();
        std::fs::rename(path, trash.join(count.to_string())).unwrap();
    }
}

/// Flushes dirty pages (earlier writes) so that a timed build does not pay for them; the
/// page cache stays warm, as for the read yardstick.
/// Writes the corpus out and lets its folders settle, as archived runs have: a build keeps a
/// run's layout only of folders last changed 3 s before it walks them (`ingest::layout`).
fn settle() {
    let _ = Command::new("sync").status();
    std::thread::sleep(std::time::Duration::from_secs(3));
}

fn ensure_corpus(corpus: &Path, n: usize, log_bytes: u64) {
    let runs = corpus.join("runs");
    let done = corpus.join("complete");
    if done.is_file() {
        return;
    }
    let _ = std::fs::remove_dir_all(corpus);
    std::fs::create_dir_all(&runs).unwrap();
    let start = Instant::now();
    generate(&runs, &SynthOptions { count: n, seed: 7, log_bytes, gzip_every: 4, tuning: false }).unwrap();
    std::fs::write(&done, "").unwrap();
    eprintln!("generated {n} runs in {:.1} s", start.elapsed().as_secs_f64());
}

/// Adds one run (another seed, so another id and other values) and returns its id.
fn add_one_run(corpus: &Path) -> String {
    let staging = corpus.join("extra");
    let _ = std::fs::remove_dir_all(&staging);
    let ids =
        generate(&staging, &SynthOptions { count: 1, seed: 99, log_bytes: 1 << 20, gzip_every: 0, tuning: false })
            .unwrap();
    let id = format!("added-{}", ids[0]);
    std::fs::rename(staging.join(&ids[0]), corpus.join("runs").join(&id)).unwrap();
    std::fs::remove_dir_all(&staging).unwrap();
    id
}

fn files(root: &Path) -> Vec<PathBuf> {
    walkdir::WalkDir::new(root)
        .into_iter()
        .map(Result::unwrap)
        .filter(|e| e.file_type().is_file())
        .map(|e| e.into_path())
        .collect()
}

fn read_all(root: &Path) -> u64 {
    files(root).iter().map(|p| std::fs::metadata(p).unwrap().len()).sum()
}

/// The yardstick: the time to read every input byte (after one warm-up pass, like the builds).
fn time_read(root: &Path) -> f64 {
    let paths = files(root);
    let mut buffer = vec![0u8; 1 << 17];
    let mut pass = || {
        let start = Instant::now();
        let mut total = 0u64;
        for path in &paths {
            let mut file = std::fs::File::open(path).unwrap();
            loop {
                let n = std::io::Read::read(&mut file, &mut buffer).unwrap();
                if n == 0 {
                    break;
                }
                total += n as u64;
            }
        }
        std::hint::black_box(total);
        start.elapsed().as_secs_f64()
    };
    pass();
    pass()
}

fn build(binary: &Path, runs: &Path, out: &Path, evidence: bool) -> Value {
    let mut command = Command::new(binary);
    command.args(["build", "--timings", "--runs", runs.to_str().unwrap(), "--out", out.to_str().unwrap()]);
    if !evidence {
        command.arg("--no-evidence");
    }
    let output = command.output().unwrap();
    assert!(output.status.success(), "{}", String::from_utf8_lossy(&output.stderr));
    let stderr = String::from_utf8_lossy(&output.stderr);
    serde_json::from_str(stderr.lines().last().unwrap()).unwrap()
}
