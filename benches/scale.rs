//! The scale benchmark (issue #27): N small synthetic runs (`synth --small`: 2 ranks, 2
//! cycles, no logs), built cold with the cache, then 1,000 newer runs added and built again.
//! Prints per N: the cold and +1,000 build times, peak RSS of each, files and bytes written
//! per run, the most entries in one folder of the site and the largest file. Sizes from
//! `SCALE_SIZES` (default `10000`; `SCALE_SIZES=10000,100000` for the figures; at
//! 100,000 the corpus is about 2 million input files). Work folder: `target/bench/scale`.

use nccl_report::synth::{generate_with, RunShape, SynthOptions};
use std::path::{Path, PathBuf};
use std::process::Command;
use std::time::Instant;

const ADDED: usize = 1000;

fn main() {
    let sizes: Vec<usize> = std::env::var("SCALE_SIZES")
        .unwrap_or_else(|_| "10000".to_string())
        .split(',')
        .map(|s| s.trim().parse().expect("SCALE_SIZES: numbers separated by commas"))
        .collect();
    let binary = PathBuf::from(env!("CARGO_BIN_EXE_nccl-report"));
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("target/bench/scale");
    println!("| runs | cold build | peak RSS | +{ADDED} runs | peak RSS | files written (+{ADDED}) | site files / run | site bytes / run | most entries in a folder | largest file |");
    println!("|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|");
    for n in sizes {
        let dir = root.join(n.to_string());
        let _ = std::fs::remove_dir_all(&dir);
        let (runs, later) = (dir.join("runs"), dir.join("later"));
        let start = Instant::now();
        let options = SynthOptions { count: n + ADDED, seed: 7, log_bytes: 0, gzip_every: 0, tuning: false };
        let mut ids = generate_with(&runs, &options, &RunShape::small()).unwrap();
        ids.sort();
        std::fs::create_dir_all(&later).unwrap();
        for id in &ids[n..] {
            std::fs::rename(runs.join(id), later.join(id)).unwrap();
        }
        eprintln!("generated {} small runs in {:.1} s", n + ADDED, start.elapsed().as_secs_f64());
        let out = dir.join("site");
        let cold = build(&binary, &runs, &out);
        let (files, bytes) = tree_size(&out);
        for id in &ids[n..] {
            std::fs::rename(later.join(id), runs.join(id)).unwrap();
        }
        let added = build(&binary, &runs, &out);
        let (most, largest) = widest_and_largest(&out);
        let mib = |v: &serde_json::Value| v["peak_rss_kib"].as_f64().unwrap_or(0.0) / 1024.0;
        println!(
            "| {n} | {:.2} s | {:.0} MiB | {:.2} s ({:.1} %) | {:.0} MiB | {} | {:.1} | {:.1} KB | {} ({}) | {} B ({}) |",
            cold["total_seconds"].as_f64().unwrap(),
            mib(&cold),
            added["total_seconds"].as_f64().unwrap(),
            100.0 * added["total_seconds"].as_f64().unwrap() / cold["total_seconds"].as_f64().unwrap(),
            mib(&added),
            added["files_written"],
            files as f64 / n as f64,
            bytes as f64 / n as f64 / 1e3,
            most.1,
            most.0,
            largest.1,
            largest.0,
        );
        let _ = std::fs::remove_dir_all(&dir);
    }
}

/// One build with the cache and `--timings`; its timings JSON.
fn build(binary: &Path, runs: &Path, out: &Path) -> serde_json::Value {
    let output =
        Command::new(binary).args(["build", "--timings", "--runs"]).arg(runs).arg("--out").arg(out).output().unwrap();
    assert!(output.status.success(), "{}", String::from_utf8_lossy(&output.stderr));
    let text = String::from_utf8_lossy(&output.stdout).into_owned() + &String::from_utf8_lossy(&output.stderr);
    serde_json::from_str(text.lines().find(|l| l.starts_with('{')).expect("timings JSON")).unwrap()
}

/// Files and bytes of a site.
fn tree_size(root: &Path) -> (usize, u64) {
    walkdir::WalkDir::new(root)
        .into_iter()
        .map(Result::unwrap)
        .filter(|e| e.file_type().is_file())
        .fold((0, 0), |(n, b), e| (n + 1, b + e.metadata().unwrap().len()))
}

/// The folder with the most entries (path, count) and the largest file (path, bytes).
fn widest_and_largest(root: &Path) -> ((String, usize), (String, u64)) {
    let mut most = (String::new(), 0);
    let mut largest = (String::new(), 0);
    for entry in walkdir::WalkDir::new(root).into_iter().map(Result::unwrap) {
        let rel = entry.path().strip_prefix(root).unwrap().display().to_string();
        if entry.file_type().is_dir() {
            let count = std::fs::read_dir(entry.path()).unwrap().count();
            if count > most.1 {
                most = (rel, count);
            }
        } else if entry.metadata().unwrap().len() > largest.1 {
            largest = (rel.clone(), entry.metadata().unwrap().len());
        }
    }
    (most, largest)
}
