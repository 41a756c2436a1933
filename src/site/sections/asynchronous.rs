//! Async completion: host enqueue, Work.wait and GPU dependency times of an async all_reduce.

use super::{num, ok_cell, spread, t, text, us, us_spread, Axes, ChartKit, Column, SPREAD_NOTE};
use crate::analysis::overview::RunOverview;
use crate::core::format::{bytes, count, measured, pct2, rate};
use crate::core::model::summary::AsyncSummary;
use crate::site::chart::{ChartSpec, Scale, Series};
use crate::site::spread::point;

pub(super) const SLUG: &str = "async";
pub(super) const TITLE: &str = "Async completion";
pub(super) const CAPTION: &str = "Critical-path medians over cycles; GPU dependency with P95 and CV";
pub(super) const SCOPE: &[&str] = &[
    "Host enqueue and Work.wait times are host clocks: returning from wait() orders the current stream after the collective; it does not mean the GPU has finished.",
    "GPU dependency time: CUDA events from a marker recorded right after wait() to the end of a kernel that reads the result, with the launches queued behind a GPU sleep (runs before the worker's clocks: from before the enqueue, host time included).",
];

pub(super) const COLUMNS: &[Column<AsyncSummary>] = &[
    num("ranks", |r| t(r.world_size.to_string())),
    num("size", |r| t(bytes(r.size_bytes))),
    num("host enqueue (µs)", |r| t(measured(r.median_host_enqueue_us, None))),
    num("Work.wait host (µs)", |r| t(measured(r.median_host_wait_us, None))),
    num("GPU dependency (µs)", |r| us(r.median_gpu_dependency_us, r.cycles, r.gpu_cv_percent)),
    num("GPU P95 (µs)", |r| us_spread(r.p95_gpu_dependency_us, r.cycles, r.gpu_cv_percent)),
    num("GPU CV", |r| spread(r.cycles, pct2(r.gpu_cv_percent))),
    num("done at return", |r| t(rate(r.work_completed_after_return_rate))),
    num("event ready after wait", |r| t(rate(r.event_ready_after_wait_rate))),
    text("correct", |r| ok_cell(r.correct)),
];

pub(super) fn rows(run: &RunOverview) -> &[AsyncSummary] {
    run.sections.async_rows.as_deref().unwrap_or_default()
}

pub(super) fn has(run: &RunOverview) -> bool {
    !rows(run).is_empty()
}

pub(super) fn charts(kit: &ChartKit, runs: &[(&RunOverview, String)]) -> Vec<ChartSpec> {
    let mut series = Vec::new();
    for (run, _) in runs {
        for ws in super::world_sizes(rows(run).iter().map(|r| r.world_size)) {
            let of_size: Vec<&AsyncSummary> = rows(run).iter().filter(|r| r.world_size == ws).collect();
            let mk = |name: &str, f: fn(&AsyncSummary) -> &Vec<f64>| Series {
                name: kit.label(run, format!("{name}, {}", count(ws, "rank"))),
                points: of_size.iter().map(|r| point(r.size_bytes as f64, f(r), 1.0)).collect(),
            };
            series.push(mk("GPU dependency", |r| &r.gpu_cycles));
            series.push(mk("host enqueue", |r| &r.enqueue_cycles));
            series.push(mk("Work.wait host", |r| &r.wait_cycles));
        }
    }
    vec![kit.spec(
        "async-times",
        "Async all_reduce: host enqueue, Work.wait and GPU dependency time",
        Axes { x: ("message size (bytes)", Scale::Log2), y: ("time (µs)", Scale::Log10) },
        series,
        &format!("Time against message size for three measurements of an async all_reduce. {SPREAD_NOTE}"),
    )]
}
