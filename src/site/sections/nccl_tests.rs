//! The nccl-tests all_reduce_perf control: decode-sized messages over repeated sweeps.

use super::{flagged, num, spread, t, us, us_spread, Axes, ChartKit, Column};
use crate::analysis::overview::RunOverview;
use crate::core::format::{bytes, count, gbs, pct2};
use crate::core::model::summary::{NcclTestsRawRow, NcclTestsSummary};
use crate::site::chart::{ChartSpec, Scale, Series};
use crate::site::spread::point;

pub(super) const SLUG: &str = "nccl-tests";
pub(super) const TITLE: &str = "nccl-tests all_reduce_perf control";
pub(super) const CAPTION: &str = "Decode-sized messages, out-of-place time, over -N cycles";
pub(super) const SCOPE: &[&str] = &[
    "nccl-tests times are the mean of n iterations per size, as printed; the median and P95 here are over repeated sweeps (-N cycles), not over iterations.",
    "A #wrong of N/A means the values were not checked (-c 0), not that they were right.",
    "With one rank, AllReduce moves no data between GPUs: busbw is 0 by definition, so a one-rank run gets the time chart only (launch and synchronization cost), no bandwidth chart.",
];

pub(super) const COLUMNS: &[Column<NcclTestsSummary>] = &[
    num("ranks", |r| t(r.world_size.to_string())),
    num("size", |r| t(bytes(r.size_bytes))),
    num("cycles", |r| t(r.cycles.to_string())),
    num("median (µs)", |r| us(r.median_time_us, r.cycles, r.cv_percent)),
    num("P95 (µs)", |r| us_spread(r.p95_time_us, r.cycles, r.cv_percent)),
    num("algbw (GB/s)", |r| t(gbs(r.median_algbw_gbs))),
    num("busbw (GB/s)", |r| t(gbs(r.median_busbw_gbs))),
    num("CV", |r| spread(r.cycles, pct2(r.cv_percent))),
    num("wrong", |r| {
        let wrong = if r.unchecked { format!("{} (some N/A)", r.wrong_total) } else { r.wrong_total.to_string() };
        flagged(wrong, r.wrong_total > 0)
    }),
];

pub(super) fn rows(run: &RunOverview) -> &[NcclTestsSummary] {
    run.sections.nccl_tests.as_deref().unwrap_or_default()
}

fn raw(run: &RunOverview) -> &[NcclTestsRawRow] {
    run.sections.nccl_tests_raw.as_deref().unwrap_or_default()
}

/// A run has the section when nccl-tests printed any row (the charts draw the raw rows).
pub(super) fn has(run: &RunOverview) -> bool {
    !raw(run).is_empty()
}

/// The run's expected peak busbw (`nccl_perf`), `None` when unknown.
fn expected_gbs(run: &RunOverview) -> Option<f64> {
    run.nccl_perf.as_ref().and_then(|p| p.expected.gbs)
}

pub(super) fn charts(kit: &ChartKit, runs: &[(&RunOverview, String)]) -> Vec<ChartSpec> {
    let mut times = Vec::new();
    let mut busbw = Vec::new();
    for (run, _) in runs {
        let raw = raw(run);
        let mut keys: Vec<u64> = raw.iter().map(|r| r.world_size).collect();
        keys.sort();
        keys.dedup();
        for ws in keys {
            let mut sizes: Vec<u64> = raw.iter().filter(|r| r.world_size == ws).map(|r| r.size_bytes).collect();
            sizes.sort();
            sizes.dedup();
            let name = kit.label(run, count(ws, "rank"));
            let values = |size: u64, f: fn(&NcclTestsRawRow) -> f64| -> Vec<f64> {
                raw.iter().filter(|r| r.world_size == ws && r.size_bytes == size).map(f).collect()
            };
            times.push(Series {
                name: name.clone(),
                points: sizes.iter().map(|&s| point(s as f64, &values(s, |r| r.time_us), 1.0)).collect(),
            });
            busbw.push(Series {
                name,
                points: sizes.iter().map(|&s| point(s as f64, &values(s, |r| r.busbw_gbs), 1.0)).collect(),
            });
            if let (Some(peak), true, Some(first), Some(last)) =
                (expected_gbs(run), ws > 1, sizes.first(), sizes.last())
            {
                busbw.push(Series {
                    name: kit.label(run, format!("{} · expected peak {} GB/s", count(ws, "rank"), gbs(peak))),
                    points: vec![point(*first as f64, &[peak], 1.0), point(*last as f64, &[peak], 1.0)],
                });
            }
        }
    }
    let moves_data = busbw.iter().flat_map(|s| &s.points).any(|p| p.y > 0.0);
    let mut charts = vec![kit.spec(
            "nccl-tests-time",
            "all_reduce_perf: out-of-place time against size",
            Axes { x: ("message size (bytes)", Scale::Log2), y: ("time (µs)", Scale::Log10) },
            times,
            "nccl-tests time per size. Lines join the medians over the -N sweeps; whiskers span the fastest sweep to P95; dots are individual sweeps, each the time nccl-tests printed for it (its mean over its iterations, combined over ranks by nccl-tests itself: nccl-report takes no slowest rank here).",
    )];
    // At one rank busbw is 0 by definition: no chart of zeros (the scope line says why).
    if moves_data {
        charts.push(kit.spec(
            "nccl-tests-busbw",
            "all_reduce_perf: out-of-place bus bandwidth against size",
            Axes { x: ("message size (bytes)", Scale::Log2), y: ("bus bandwidth (GB/s)", Scale::Log10) },
            busbw,
            "Bus bandwidth (algbw x 2(n-1)/n for AllReduce) per size on a log axis; a flat line marks the expected peak where the GPU and topology are known (none: peak unknown); a one-rank series (busbw 0 by definition) is not drawn on the log axis. Lines join the medians over the -N sweeps; whiskers span the slowest sweep's busbw to P95; dots are individual sweeps as nccl-tests printed them.",
        ));
    }
    charts
}
