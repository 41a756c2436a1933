//! `cargo bench --bench parse`: parse + summarize alone (no export, render or write), in
//! process, against the seed's own summarization of the same runs, measured in the same
//! process run. Prints the best of `BENCH_REPEAT` passes on one thread and on all threads
//! (rayon, as `build` runs them), per run, and the ratios to the seed.
//!
//! Then the NCCL log scan alone: `load::load_logs` over one generated run whose logs are plain
//! text of about `BENCH_LOG_BYTES` each (default 16 MiB; NCCL 2.28 INIT/GRAPH lines, then one
//! COLL line per call, TUNING lines in the 4-rank nccl-tests log), best of `BENCH_REPEAT`
//! passes on one thread, in MB/s of decompressed text (page cache warm after the first pass);
//! then the search for lines that set a secret over the same logs (what publishing them as
//! evidence costs beyond reading); then the same logs with a timestamp and an MPI tag in front
//! of every line.
//!
//! Settings (environment): `BENCH_RUNS` (a runs folder; default: a generated corpus of 100
//! runs in the seed layout without logs, under `target/bench/parse-100`), `BENCH_REPEAT`
//! (passes, default 10), `SEED_DIR` (default `../shared/seed`; the seed is skipped when
//! absent), `BENCH_SEED_RUNS` (runs the seed summarizes, default 100; best of 3 passes).

mod common;

use nccl_report::ingest::input::Limits;
use nccl_report::synth::{generate, SynthOptions};
use nccl_report::{analysis::summarize, ingest::find, ingest::load, ingest::secrets};
use rayon::prelude::*;
use std::path::PathBuf;
use std::time::Instant;

/// The allocator the `nccl-report` binary uses.
#[global_allocator]
static ALLOCATOR: mimalloc::MiMalloc = mimalloc::MiMalloc;

fn env_or(name: &str, default: &str) -> String {
    std::env::var(name).unwrap_or_else(|_| default.to_string())
}

fn main() {
    let runs = match std::env::var("BENCH_RUNS") {
        Ok(dir) => PathBuf::from(dir),
        Err(_) => default_corpus(),
    };
    let repeat: usize = env_or("BENCH_REPEAT", "10").parse().unwrap();
    let seed_dir = PathBuf::from(env_or("SEED_DIR", "../shared/seed"));
    let seed_runs: usize = env_or("BENCH_SEED_RUNS", "100").parse().unwrap();
    let (dirs, _) = find::find_runs(&runs).unwrap();
    let n = dirs.len() as f64;

    let mut best = (f64::MAX, f64::MAX);
    for _ in 0..repeat {
        let (mut parse, mut summ) = (0.0, 0.0);
        for run in &dirs {
            let t = Instant::now();
            let raw = load::load_tables(run, Limits::DEFAULT);
            parse += t.elapsed().as_secs_f64();
            let t = Instant::now();
            std::hint::black_box(summarize::summarize(raw));
            summ += t.elapsed().as_secs_f64();
        }
        if parse + summ < best.0 + best.1 {
            best = (parse, summ);
        }
    }
    let one = (best.0 + best.1) / n;
    let all = (0..repeat)
        .map(|_| {
            let t = Instant::now();
            dirs.par_iter().for_each(|run| {
                std::hint::black_box(summarize::summarize(load::load_tables(run, Limits::DEFAULT)));
            });
            t.elapsed().as_secs_f64()
        })
        .fold(f64::MAX, f64::min)
        / n;
    let seed = seed_dir
        .join("seed_runner.py")
        .is_file()
        .then(|| common::seed_per_run(&seed_dir, &runs, seed_runs, 3))
        .flatten();
    println!("{} runs from {}", dirs.len(), runs.display());
    println!(
        "one thread: parse {:.3} ms/run + summarize {:.3} ms/run = {:.3} ms/run",
        best.0 / n * 1e3,
        best.1 / n * 1e3,
        one * 1e3
    );
    println!("all {} threads: {:.3} ms/run (wall)", rayon::current_num_threads(), all * 1e3);
    match seed {
        Some(seed) => println!(
            "seed summarization: {:.3} ms/run; nccl-report is {:.1}x faster on one thread, {:.1}x on all threads",
            seed * 1e3,
            seed / one,
            seed / all
        ),
        None => println!("seed summarization: n/a (no {})", seed_dir.display()),
    }
    log_scan(repeat);
}

/// MB/s of the NCCL log scan on one thread (see the header).
fn log_scan(repeat: usize) {
    let log_bytes: u64 = env_or("BENCH_LOG_BYTES", &(16 << 20).to_string()).parse().unwrap();
    let dir = PathBuf::from(format!("target/bench/logs-{log_bytes}"));
    if !dir.join("complete").is_file() {
        let _ = std::fs::remove_dir_all(&dir);
        let options = SynthOptions { count: 1, seed: 7, log_bytes, gzip_every: 0, tuning: true };
        generate(&dir.join("runs"), &options).unwrap();
        std::fs::write(dir.join("complete"), "").unwrap();
    }
    let (runs, _) = find::find_runs(&dir.join("runs")).unwrap();
    scan_speed("NCCL log scan", &runs[0], repeat);
    secret_speed(&runs[0], repeat);
    // The same logs as a Python logger writing mpirun's tagged output would keep them: a
    // different timestamp on every line, so every line's host is looked up again.
    let prefixed = dir.join("prefixed");
    if !prefixed.join("complete").is_file() {
        let nccl = prefixed.join("runs/prefixed/raw/nccl");
        std::fs::create_dir_all(&nccl).unwrap();
        for file in &runs[0].files.nccl_logs {
            let text = std::fs::read(&file.path).unwrap();
            let mut out = Vec::with_capacity(text.len() * 2);
            for (i, line) in text.split_inclusive(|b| *b == b'\n').enumerate() {
                let stamp = format!(
                    "2025-11-12 20:{:02}:{:02},{:03} - INFO - [1,0]<stdout>:",
                    i / 60_000 % 60,
                    i / 1000 % 60,
                    i % 1000
                );
                out.extend_from_slice(stamp.as_bytes());
                out.extend_from_slice(line);
            }
            std::fs::write(nccl.join(file.path.file_name().unwrap()), out).unwrap();
        }
        std::fs::write(prefixed.join("complete"), "").unwrap();
    }
    let (runs, _) = find::find_runs(&prefixed.join("runs")).unwrap();
    scan_speed("NCCL log scan, every line prefixed (timestamp + MPI tag)", &runs[0], repeat);
}

/// Best of `repeat` (at least 2) passes of `load::load_logs` over `run`, in MB/s.
fn scan_speed(label: &str, run: &find::RunDir, repeat: usize) {
    let bytes: u64 = run.files.nccl_logs.iter().map(|f| f.stamp.len).sum();
    let best = (0..repeat.max(2))
        .map(|_| {
            let t = Instant::now();
            std::hint::black_box(load::load_logs(run, Limits::DEFAULT));
            t.elapsed().as_secs_f64()
        })
        .fold(f64::MAX, f64::min);
    println!(
        "{label}, one thread: {} files, {:.1} MB in {:.3} s = {:.0} MB/s",
        run.files.nccl_logs.len(),
        bytes as f64 / 1e6,
        best,
        bytes as f64 / 1e6 / best
    );
}

/// MB/s of the search for lines that set a secret (`secrets::secret_line`, what every
/// published file goes through) over the same logs in memory, on one thread.
fn secret_speed(run: &find::RunDir, repeat: usize) {
    let texts: Vec<Vec<u8>> = run.files.nccl_logs.iter().map(|f| std::fs::read(&f.path).unwrap()).collect();
    let bytes: usize = texts.iter().map(Vec::len).sum();
    let best = (0..repeat.max(2))
        .map(|_| {
            let t = Instant::now();
            for text in &texts {
                assert_eq!(std::hint::black_box(secrets::secret_line(text)), None);
            }
            t.elapsed().as_secs_f64()
        })
        .fold(f64::MAX, f64::min);
    println!(
        "secret search (evidence), one thread: {:.1} MB in {:.3} s = {:.0} MB/s",
        bytes as f64 / 1e6,
        best,
        bytes as f64 / 1e6 / best
    );
}

/// 100 runs in the seed layout (4 ranks, 10 cycles, every section, nccl-tests stdout), no logs.
fn default_corpus() -> PathBuf {
    let dir = PathBuf::from("target/bench/parse-100");
    if !dir.join("complete").is_file() {
        let _ = std::fs::remove_dir_all(&dir);
        generate(&dir.join("runs"), &SynthOptions { count: 100, seed: 7, log_bytes: 0, gzip_every: 0, tuning: false })
            .unwrap();
        std::fs::write(dir.join("complete"), "").unwrap();
    }
    dir.join("runs")
}
