//! One 80 MiB payload all-reduced as 1, 2, 4 ... collectives: total time and slowdown.

use super::{clocks_cell, num, spread, t, text, us, us_spread, Axes, ChartKit, Column, SPREAD_NOTE};
use crate::analysis::overview::RunOverview;
use crate::core::format::{bytes, count, pct2, times, yes_no};
use crate::core::model::summary::FragmentationSummary;
use crate::site::chart::{ChartSpec, Scale, Series};
use crate::site::spread::{plain, point};

pub(super) const SLUG: &str = "fragmentation";
pub(super) const TITLE: &str = "One 80 MiB payload split into many collectives";
pub(super) const CAPTION: &str = "Total time for the whole payload per number of calls";
pub(super) const SCOPE: &[&str] = &[
    "Charts and the median/P95 columns use the span (the seed's duration_us: CUDA events around the calls on an idle GPU, host launch cost included); the host issue · device-only column gives the host time to issue the calls and the device time with the calls queued behind a GPU sleep (minimum over ranks). A span within 10 % of its host issue time is marked host-bound.",
    "One logical payload all-reduced as 1, 2, 4 ... collectives; the slowdown is relative to the single-call median. It measures per-call overhead, not any model's step time.",
];

pub(super) const COLUMNS: &[Column<FragmentationSummary>] = &[
    num("ranks", |r| t(r.world_size.to_string())),
    num("calls", |r| t(r.fragment_count.to_string())),
    num("bytes/call", |r| t(bytes(r.fragment_bytes))),
    num("median total (µs)", |r| us(r.median_duration_us, r.cycles, r.cv_percent)),
    num("P95 (µs)", |r| us_spread(r.p95_duration_us, r.cycles, r.cv_percent)),
    num("min (µs)", |r| us_spread(r.min_duration_us, r.cycles, r.cv_percent)),
    num("max (µs)", |r| us_spread(r.max_duration_us, r.cycles, r.cv_percent)),
    num("slowdown vs one call", |r| t(r.slowdown_vs_one_collective.map_or("n/a".into(), times))),
    num("per call (µs)", |r| us(r.median_per_collective_us, r.cycles, r.cv_percent)),
    num("CV", |r| spread(r.cycles, pct2(r.cv_percent))),
    text("slower in every cycle", |r| {
        spread(r.cycles, r.strictly_slower_than_one_in_all_cycles.map_or("n/a", yes_no).to_string())
    }),
    text("host issue · device-only (µs)", |r| clocks_cell(r.clocks.as_ref(), r.median_duration_us)),
];

pub(super) fn rows(run: &RunOverview) -> &[FragmentationSummary] {
    run.sections.fragmentation.as_deref().unwrap_or_default()
}

pub(super) fn has(run: &RunOverview) -> bool {
    !rows(run).is_empty()
}

pub(super) fn charts(kit: &ChartKit, runs: &[(&RunOverview, String)]) -> Vec<ChartSpec> {
    let mut totals = Vec::new();
    let mut slowdowns = Vec::new();
    for (run, _) in runs {
        for ws in super::world_sizes(rows(run).iter().map(|r| r.world_size)) {
            let of_size: Vec<&FragmentationSummary> = rows(run).iter().filter(|r| r.world_size == ws).collect();
            let name = kit.label(run, count(ws, "rank"));
            totals.push(Series {
                name: name.clone(),
                points: of_size.iter().map(|r| point(r.fragment_count as f64, &r.cycle_values, 1.0)).collect(),
            });
            slowdowns.push(Series {
                name,
                points: of_size
                    .iter()
                    .filter_map(|r| r.slowdown_vs_one_collective.map(|s| plain(r.fragment_count as f64, s)))
                    .collect(),
            });
        }
    }
    vec![
        kit.spec(
            "fragmentation-total",
            "80 MiB payload: total time against number of calls",
            Axes { x: ("collectives per payload (calls)", Scale::Log2), y: ("total time (µs)", Scale::Log10) },
            totals,
            &format!("Total time to all-reduce the whole payload when split into more calls. {SPREAD_NOTE}"),
        ),
        kit.spec(
            "fragmentation-slowdown",
            "Slowdown against one call",
            Axes { x: ("collectives per payload (calls)", Scale::Log2), y: ("slowdown (x)", Scale::Linear) },
            slowdowns,
            "Median total time over the median of the single-call case.",
        ),
    ]
}
