//! The floor under a build of a corpus of runs: what reading its inputs costs before any of
//! them is looked at. Every regular file under the folder is read once and thrown away, on
//! `--jobs` threads into one 256 KiB block a thread (as the build reads logs), page cache as
//! it is; then the same again with every `*.gz` decompressed (`ingest::gunzip`, the build's
//! own reader); then again with the newlines of every block counted (`memchr`), the least a
//! scanner that sees lines does. A build must do at least the third: the NCCL logs it scans
//! are in there, a gzipped log has no text until it is inflated, and a log's facts count its
//! lines. The listing is made once, untimed.
//!
//!     cargo run --release --example read_floor -- RUNS_DIR [--jobs N] [--rounds R]
//!
//! `--jobs 0` (the default) is rayon's default: every logical CPU. Anything else on the command
//! line is refused (exit 2).
//!
//! Prints one JSON line: files, bytes read, bytes after decompression, newlines, and the best
//! wall time of `--rounds` rounds (3) of each pass. BENCHMARKS.md ("Stop 41") uses it for the
//! issue's goals; `scripts/bench-device.sh` runs it beside the builds.

use std::cell::RefCell;
use std::fs::File;
use std::io::{self, BufReader, Read as _};
use std::path::{Path, PathBuf};
use std::time::Instant;

use nccl_report::ingest::gunzip::Gunzip;
use rayon::prelude::*;

const BLOCK: usize = 256 * 1024;

thread_local! {
    /// Each thread's block, allocated once.
    static BLOCK_OF_THREAD: RefCell<Vec<u8>> = RefCell::new(vec![0u8; BLOCK]);
}

const USAGE: &str = "usage: read_floor RUNS_DIR [--jobs N (0: every CPU)] [--rounds R (3)]";

fn main() {
    if let Err(error) = run() {
        eprintln!("read_floor: {error}");
        std::process::exit(1);
    }
}

fn run() -> io::Result<()> {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let Some((root, options)) = args.split_first() else { refuse("no RUNS_DIR") };
    let (mut jobs, mut rounds) = (0, 3);
    for pair in options.chunks(2) {
        let value = pair.get(1).and_then(|v| v.parse::<usize>().ok());
        match (pair[0].as_str(), value) {
            ("--jobs", Some(n)) => jobs = n,
            ("--rounds", Some(n)) if n > 0 => rounds = n,
            _ => refuse(&format!("cannot use {}", pair.join(" "))),
        }
    }
    let pool = rayon::ThreadPoolBuilder::new().num_threads(jobs).build().map_err(io::Error::other)?;
    let files = list(Path::new(root))?;
    // Every round reads the same files, so the totals of any round are the totals.
    let best = |pass: Pass| -> io::Result<(f64, Out)> {
        let mut best = f64::INFINITY;
        let mut total = Out::default();
        for _ in 0..rounds {
            let start = Instant::now();
            let each: Vec<Out> = pool
                .install(|| files.par_iter().with_max_len(1).map(|path| read(path, pass)).collect::<io::Result<_>>())?;
            best = best.min(start.elapsed().as_secs_f64());
            total = each.iter().fold(Out::default(), |a, r| Out { bytes: a.bytes + r.bytes, lines: a.lines + r.lines });
        }
        Ok((best, total))
    };
    let (read_s, read) = best(Pass { inflate: false, lines: false })?;
    let (inflate_s, inflated) = best(Pass { inflate: true, lines: false })?;
    let (lines_s, lined) = best(Pass { inflate: true, lines: true })?;
    println!(
        "{{\"files\":{},\"threads\":{},\"bytes_read\":{},\"bytes_out\":{},\"newlines\":{},\"read_s\":{read_s:.4},\"read_inflate_s\":{inflate_s:.4},\"read_inflate_lines_s\":{lines_s:.4}}}",
        files.len(),
        pool.current_num_threads(),
        read.bytes,
        inflated.bytes,
        lined.lines,
    );
    Ok(())
}

/// Exits with status 2 after saying why and how the program is called.
fn refuse(why: &str) -> ! {
    eprintln!("read_floor: {why}\n{USAGE}");
    std::process::exit(2);
}

/// Every regular file beneath `dir` in name order, symlinks not followed.
fn list(dir: &Path) -> io::Result<Vec<PathBuf>> {
    let mut files = Vec::new();
    for entry in walkdir::WalkDir::new(dir).sort_by_file_name() {
        let entry = entry.map_err(io::Error::other)?;
        if entry.file_type().is_file() {
            files.push(entry.into_path());
        }
    }
    Ok(files)
}

/// What one pass does to a file.
#[derive(Clone, Copy)]
struct Pass {
    /// `*.gz` decompressed.
    inflate: bool,
    /// Newlines counted.
    lines: bool,
}

/// What came out of a file (or of all of them).
#[derive(Default)]
struct Out {
    bytes: u64,
    lines: u64,
}

/// Reads `path` to its end into the thread's block as `pass` says; an error names the file.
fn read(path: &Path, pass: Pass) -> io::Result<Out> {
    BLOCK_OF_THREAD
        .with(|block| read_into(path, pass, &mut block.borrow_mut()))
        .map_err(|e| io::Error::new(e.kind(), format!("{}: {e}", path.display())))
}

fn read_into(path: &Path, pass: Pass, block: &mut [u8]) -> io::Result<Out> {
    let file = File::open(path)?;
    let gz = path.extension().is_some_and(|e| e == "gz");
    let mut reader: Box<dyn io::Read> = if pass.inflate && gz {
        Box::new(Gunzip::new(BufReader::with_capacity(32 << 10, file)))
    } else {
        Box::new(file)
    };
    let mut out = Out::default();
    loop {
        match reader.read(block) {
            Ok(0) => return Ok(out),
            Ok(n) => {
                out.bytes += n as u64;
                if pass.lines {
                    out.lines += memchr::memchr_iter(b'\n', &block[..n]).count() as u64;
                }
            }
            Err(e) if e.kind() == io::ErrorKind::Interrupted => {}
            Err(e) => return Err(e),
        }
    }
}
