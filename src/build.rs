//! `nccl-report build`: the pipeline, one named stage per line, runs in parallel with rayon.
//! find -> load (read + parse) -> summarize -> export + compare -> site model -> render -> write.
//! The output depends only on the runs, never on the thread count, clock or machine.

use crate::site::BuiltRun;
use crate::summarize::{RunStatus, RunSummary};
use crate::{compare, export, find, input, load, render, site, summarize, write};
use anyhow::Context;
use indicatif::{ProgressBar, ProgressStyle};
use rayon::prelude::*;
use std::io::IsTerminal;
use std::path::PathBuf;
use std::time::{Duration, Instant};

#[derive(Debug, Clone)]
pub struct BuildOptions {
    pub runs: PathBuf,
    pub out: PathBuf,
    pub jobs: Option<usize>,
}

/// What a build did, for the one-line summary and the benchmark.
#[derive(Debug, Clone, Default)]
pub struct BuildReport {
    pub ok: usize,
    pub failed: usize,
    pub invalid: usize,
    pub pages: usize,
    pub files: usize,
    pub input_bytes: u64,
    /// Folders under the runs folder that are not runs, with why.
    pub skipped: Vec<String>,
    /// One line per run that is not ok: id, status, first diagnostic.
    pub problems: Vec<String>,
    pub stages: Vec<(&'static str, Duration)>,
    pub total: Duration,
}

pub fn build(options: &BuildOptions) -> anyhow::Result<BuildReport> {
    let pool = rayon::ThreadPoolBuilder::new()
        .num_threads(options.jobs.unwrap_or(0))
        .build()
        .context("cannot start worker threads")?;
    pool.install(|| run_pipeline(options))
}

fn run_pipeline(options: &BuildOptions) -> anyhow::Result<BuildReport> {
    let start = Instant::now();
    let mut report = BuildReport::default();
    let mut stage = Instant::now();
    let mut lap = |report: &mut BuildReport, name: &'static str| {
        report.stages.push((name, stage.elapsed()));
        stage = Instant::now();
    };

    if !options.runs.is_dir() {
        anyhow::bail!("runs folder {} does not exist or is not a folder", options.runs.display());
    }
    let (runs, skipped) =
        find::find_runs(&options.runs).with_context(|| format!("cannot list {}", options.runs.display()))?;
    report.skipped = skipped;
    report.input_bytes = runs.iter().map(|r| r.files.total_bytes).sum();
    let site_notes = read_site_notes(options);
    lap(&mut report, "find");

    let progress = progress_bar(runs.len() as u64);
    let raws: Vec<_> = runs
        .par_iter()
        .map(|run| {
            let raw = load::load_run(run);
            progress.inc(1);
            raw
        })
        .collect();
    progress.finish_and_clear();
    lap(&mut report, "parse");

    let built: Vec<BuiltRun> = raws.into_par_iter().map(summarize_run).collect();
    lap(&mut report, "summarize");

    for run in &built {
        match run.summary.status {
            RunStatus::Ok => report.ok += 1,
            RunStatus::Failed => report.failed += 1,
            RunStatus::Invalid => report.invalid += 1,
        }
        if run.summary.status != RunStatus::Ok {
            report.problems.push(problem_line(&run.summary));
        }
    }
    let model = site::build(built, site_notes.as_deref());
    let files = render::render_site(&model);
    report.pages = files.iter().filter(|f| f.path.ends_with(".html")).count();
    report.files = files.len();
    lap(&mut report, "render");

    write::write_site(&options.out, &files).with_context(|| format!("cannot write the site to {}", options.out.display()))?;
    lap(&mut report, "write");
    report.total = start.elapsed();
    Ok(report)
}

/// Summarizes one run, exports the seed's files and compares them with any archived copies.
pub fn summarize_run(raw: crate::model::run::RawRun) -> BuiltRun {
    let mut summary = summarize::summarize(raw);
    let seed_files = export::seed_files(&summary);
    let differences = compare::compare(&summary.raw.archived_outputs, &seed_files);
    if !differences.is_empty() {
        summary.raw.diagnostics.extend(differences);
        summary.raw.diagnostics.sort();
        summary.status = RunStatus::from_diagnostics(&summary.raw.diagnostics);
    }
    BuiltRun { summary, seed_files }
}

fn read_site_notes(options: &BuildOptions) -> Option<String> {
    let path = options.runs.join("NOTES.md");
    path.is_file().then(|| input::read_all(&path).ok()).flatten().map(|b| String::from_utf8_lossy(&b).into_owned())
}

fn problem_line(run: &RunSummary) -> String {
    let worst = run.raw.diagnostics.iter().max_by_key(|d| d.severity);
    match worst {
        Some(d) => format!("{}: {} ({d})", run.raw.id, run.status.as_str()),
        None => format!("{}: {}", run.raw.id, run.status.as_str()),
    }
}

/// A progress bar on a terminal; nothing otherwise (the summary line is printed either way).
fn progress_bar(len: u64) -> ProgressBar {
    if !std::io::stderr().is_terminal() || len < 2 {
        return ProgressBar::hidden();
    }
    let bar = ProgressBar::new(len);
    bar.set_style(ProgressStyle::with_template("{spinner} reading runs {pos}/{len} {wide_bar} {elapsed}").expect("valid template"));
    bar
}

impl BuildReport {
    pub fn summary_line(&self, out: &std::path::Path) -> String {
        format!(
            "built {}: {} runs ({} ok, {} failed, {} invalid), {} pages, {} files, {:.1} MB read, in {:.2} s",
            out.display(),
            self.ok + self.failed + self.invalid,
            self.ok,
            self.failed,
            self.invalid,
            self.pages,
            self.files,
            self.input_bytes as f64 / 1e6,
            self.total.as_secs_f64()
        )
    }
}
