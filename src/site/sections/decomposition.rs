//! AllReduce against ReduceScatter + AllGather: time per mode and the overhead of the pair.

use super::{clocks_cell, num, pct2_or_na, spread, t, text, us, us_spread, Axes, ChartKit, Column, SPREAD_NOTE};
use crate::analysis::overview::RunOverview;
use crate::core::format::{bytes, count, pct2};
use crate::core::model::summary::DecompositionSummary;
use crate::site::chart::{ChartSpec, Scale, Series};
use crate::site::spread::{plain, point};

pub(super) const SLUG: &str = "decomposition";
pub(super) const TITLE: &str = "AllReduce vs ReduceScatter + AllGather";
pub(super) const CAPTION: &str = "Critical-path duration per mode; overhead against AllReduce (direct)";
pub(super) const SCOPE: &[&str] = &[
    "Charts and the median/P95 columns use the span (the seed's duration_us: CUDA events around the calls on an idle GPU, host launch cost included); the host issue · device-only column gives the host time to issue the calls and the device time with the calls queued behind a GPU sleep (minimum over ranks). A span within 10 % of its host issue time is marked host-bound.",
    "Compares one AllReduce with ReduceScatter followed by AllGather on the same data; overhead is relative to the AllReduce median of the same size.",
];

pub(super) const COLUMNS: &[Column<DecompositionSummary>] = &[
    num("ranks", |r| t(r.world_size.to_string())),
    num("size", |r| t(bytes(r.size_bytes))),
    text("mode", |r| t(r.mode.clone())),
    num("cycles", |r| t(r.cycles.to_string())),
    num("median (µs)", |r| us(r.median_duration_us, r.cycles, r.cv_percent)),
    num("P95 (µs)", |r| us_spread(r.p95_duration_us, r.cycles, r.cv_percent)),
    num("CV", |r| spread(r.cycles, pct2(r.cv_percent))),
    num("overhead vs AllReduce", |r| t(pct2_or_na(r.overhead_vs_allreduce_percent))),
    text("host issue · device-only (µs)", |r| clocks_cell(r.clocks.as_ref(), r.median_duration_us)),
];

pub(super) fn rows(run: &RunOverview) -> &[DecompositionSummary] {
    run.sections.decomposition.as_deref().unwrap_or_default()
}

pub(super) fn has(run: &RunOverview) -> bool {
    !rows(run).is_empty()
}

pub(super) fn charts(kit: &ChartKit, runs: &[(&RunOverview, String)]) -> Vec<ChartSpec> {
    let mut times = Vec::new();
    let mut overhead = Vec::new();
    for (run, _) in runs {
        let mut keys: Vec<(i64, String)> = rows(run).iter().map(|r| (r.world_size, r.mode.clone())).collect();
        keys.sort();
        keys.dedup();
        for (ws, mode) in keys {
            let of_mode: Vec<&DecompositionSummary> =
                rows(run).iter().filter(|r| r.world_size == ws && r.mode == mode).collect();
            times.push(Series {
                name: kit.label(run, format!("{mode}, {}", count(ws, "rank"))),
                points: of_mode.iter().map(|r| point(r.size_bytes as f64, &r.cycle_values, 1.0)).collect(),
            });
            if mode != "direct" {
                overhead.push(Series {
                    name: kit.label(run, format!("{mode}, {}", count(ws, "rank"))),
                    points: of_mode
                        .iter()
                        .filter_map(|r| r.overhead_vs_allreduce_percent.map(|o| plain(r.size_bytes as f64, o)))
                        .collect(),
                });
            }
        }
    }
    vec![
        kit.spec(
            "decomposition-times",
            "AllReduce vs ReduceScatter + AllGather: time",
            Axes { x: ("message size (bytes)", Scale::Log2), y: ("time (µs)", Scale::Log10) },
            times,
            &format!("Duration of one AllReduce (direct) and of ReduceScatter followed by AllGather, against message size. {SPREAD_NOTE}"),
        ),
        kit.spec(
            "decomposition-overhead",
            "Overhead of ReduceScatter + AllGather over AllReduce",
            Axes { x: ("message size (bytes)", Scale::Log2), y: ("overhead (%)", Scale::Linear) },
            overhead,
            "Median of the decomposed pair over the median AllReduce of the same size, minus one, in percent.",
        ),
    ]
}
