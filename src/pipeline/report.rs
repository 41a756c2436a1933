//! What a build did and how long it took: the report behind the summary line and `--timings`
//! (`BuildReport`) and the wall time of each stage (`Stages`), with the thread time of each
//! per-run stage (`per_run::StageClock`). Writes nothing.

use super::per_run::{RunResult, StageClock};
use crate::analysis::summarize::RunStatus;
use crate::ingest::find;
use crate::pipeline::write::{SiteCount, WriteCounts};
use std::sync::atomic::Ordering;
use std::time::{Duration, Instant};

/// What a build did, for the one-line summary and the benchmark.
#[derive(Debug, Clone, Default)]
pub(crate) struct BuildReport {
    pub ok: usize,
    pub failed: usize,
    pub invalid: usize,
    pub pages: usize,
    pub files: usize,
    pub input_bytes: u64,
    pub cached_runs: usize,
    /// Cached runs taken by their kept layout, without a listing.
    pub rechecked_runs: usize,
    /// What the build wrote into the site (written, linked, removed, left alone).
    pub written: WriteCounts,
    /// Whether the live site was updated in place (an incremental build).
    pub in_place: bool,
    /// Folders under the runs folder that are not runs, with why.
    pub skipped: Vec<String>,
    /// One line per run that is not ok: id, status, worst diagnostic.
    pub problems: Vec<String>,
    /// Wall time of each step (two of them, the history and cross-run pages, run side by
    /// side: `Stages::time_both`), and thread time of the per-run stages.
    pub stages: Vec<(&'static str, Duration)>,
    pub total: Duration,
}

/// The wall time of each stage of a build, in order, and of the whole build.
pub(super) struct Stages {
    pub(super) start: Instant,
    pub(super) report: BuildReport,
}

impl Stages {
    pub(super) fn start() -> Stages {
        Stages { start: Instant::now(), report: BuildReport::default() }
    }

    /// Runs one stage, recording its wall time under `name`.
    pub(super) fn time<T>(&mut self, name: &'static str, stage: impl FnOnce() -> T) -> T {
        let (out, took) = timed(stage);
        self.report.stages.push((name, took));
        out
    }

    /// Runs two stages at once (`rayon::join`), recording each one's wall time under its name
    /// (the two overlap: their sum is more than the time they took together).
    pub(super) fn time_both<A: Send, B: Send>(
        &mut self,
        (a_name, a): (&'static str, impl FnOnce() -> A + Send),
        (b_name, b): (&'static str, impl FnOnce() -> B + Send),
    ) -> (A, B) {
        let ((a, a_time), (b, b_time)) = rayon::join(|| timed(a), || timed(b));
        self.report.stages.push((a_name, a_time));
        self.report.stages.push((b_name, b_time));
        (a, b)
    }

    /// The thread time of each per-run stage, summed over runs.
    pub(super) fn add_thread_times(&mut self, clock: &StageClock) {
        self.report.rechecked_runs = clock.rechecked.load(Ordering::Relaxed) as usize;
        for (name, counter) in [
            ("list run files (thread time)", &clock.list),
            ("parse tables (thread time)", &clock.parse),
            ("scan NCCL logs (thread time)", &clock.logs),
            ("summarize (thread time)", &clock.summarize),
            ("export seed files (thread time)", &clock.export),
            ("render (thread time)", &clock.render),
            ("read evidence (thread time)", &clock.evidence),
            ("write (thread time)", &clock.write),
        ] {
            self.report.stages.push((name, Duration::from_nanos(counter.load(Ordering::Relaxed))));
        }
    }

    /// Counts what the build did into the report; `count` is what the site holds.
    pub(super) fn finish(self, folders: &find::RunFolders, results: &[RunResult], count: SiteCount) -> BuildReport {
        let mut report = self.report;
        report.skipped = folders.skipped.clone();
        report.input_bytes = results.iter().map(|r| r.bytes).sum();
        for r in results {
            match r.card.status {
                RunStatus::Ok => report.ok += 1,
                RunStatus::Failed => report.failed += 1,
                RunStatus::Invalid => report.invalid += 1,
            }
            report.problems.extend(r.problem.clone());
            report.cached_runs += usize::from(r.cached);
        }
        report.files = count.files;
        report.pages = count.pages;
        report.total = self.start.elapsed();
        report
    }
}

/// What `stage` returns, and the wall time it took.
fn timed<T>(stage: impl FnOnce() -> T) -> (T, Duration) {
    let start = Instant::now();
    (stage(), start.elapsed())
}

impl BuildReport {
    /// Stage times (seconds), totals and the peak resident memory, for the benchmark.
    pub(crate) fn timings_json(&self) -> String {
        let stages: serde_json::Map<String, serde_json::Value> =
            self.stages.iter().map(|(name, d)| (name.to_string(), d.as_secs_f64().into())).collect();
        serde_json::json!({
            "runs": self.ok + self.failed + self.invalid,
            "cached_runs": self.cached_runs,
            "rechecked_runs": self.rechecked_runs,
            "files": self.files,
            "files_written": self.written.written,
            "bytes_written": self.written.bytes,
            "files_linked": self.written.linked,
            "files_removed": self.written.removed,
            "files_unchanged": self.written.unchanged,
            "in_place": self.in_place,
            "input_bytes": self.input_bytes,
            "total_seconds": self.total.as_secs_f64(),
            "stages": stages,
            "peak_rss_kib": peak_rss_kib(),
        })
        .to_string()
    }

    pub(crate) fn summary_line(&self, out: &std::path::Path) -> String {
        format!(
            "built {}: {} runs ({} ok, {} failed, {} invalid; {} from cache), {} pages, {} files, {} written{}, {} linked, {} removed, {:.1} MB of runs, in {:.2} s",
            out.display(),
            self.ok + self.failed + self.invalid,
            self.ok,
            self.failed,
            self.invalid,
            self.cached_runs,
            self.pages,
            self.files,
            self.written.written,
            if self.in_place { " in place" } else { "" },
            self.written.linked,
            self.written.removed,
            self.input_bytes as f64 / 1e6,
            self.total.as_secs_f64()
        )
    }
}

/// Peak resident set size of this process (Linux `VmHWM`), when the system says.
fn peak_rss_kib() -> Option<u64> {
    let status = std::fs::read_to_string("/proc/self/status").ok()?;
    let line = status.lines().find(|l| l.starts_with("VmHWM:"))?;
    line.split_whitespace().nth(1)?.parse().ok()
}
