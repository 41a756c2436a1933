//! Decode-time tensor-parallel AllReduce replay: latency per call against tokens per step.

use super::{clocks_cell, num, spread, t, text, us, us_spread, Axes, ChartKit, Column, SPREAD_NOTE};
use crate::analysis::nccl_perf::run::TuningState;
use crate::analysis::nccl_perf::table::segment_label;
use crate::analysis::overview::RunOverview;
use crate::core::format::{bytes, pct2};
use crate::core::model::nccl_log::TuningChoice;
use crate::core::model::summary::DecodeSummary;
use crate::site::chart::{history, ChartSpec, RunValue, Scale, Series};
use crate::site::spread::point;

pub(super) const SLUG: &str = "decode";
pub(super) const TITLE: &str = "Decode-time tensor-parallel AllReduce replay";
pub(super) const CAPTION: &str = "Replay of `calls` AllReduces of tokens x 4096 FP16 per step";
pub(super) const SCOPE: &[&str] = &[
    "Charts and the median/P95 columns use the span (the seed's duration_us: CUDA events around the calls on an idle GPU, host launch cost included); the host issue · device-only column gives the host time to issue the calls and the device time with the calls queued behind a GPU sleep (minimum over ranks). A span within 10 % of its host issue time is marked host-bound.",
    "Decode replay contains communication only (tokens x 4096 FP16 AllReduces back to back); it excludes GEMM, scheduling, CUDA Graphs and custom AllReduce kernels.",
];

pub(super) const COLUMNS: &[Column<DecodeSummary>] = &[
    text("case folder", |r| t(r.case_folder.clone())),
    num("TP", |r| t(r.world_size.to_string())),
    num("tokens", |r| t(r.tokens.to_string())),
    num("bytes/call", |r| t(bytes(r.message_bytes))),
    num("calls", |r| t(r.collectives.to_string())),
    num("median total (µs)", |r| us(r.median_total_us, r.cycles, r.cv_percent)),
    num("P95 (µs)", |r| us_spread(r.p95_total_us, r.cycles, r.cv_percent)),
    num("per call (µs)", |r| us(r.median_per_collective_us, r.cycles, r.cv_percent)),
    num("CV", |r| spread(r.cycles, pct2(r.cv_percent))),
    text("host issue · device-only (µs)", |r| clocks_cell(r.clocks.as_ref(), r.median_total_us)),
];

pub(super) fn rows(run: &RunOverview) -> &[DecodeSummary] {
    run.sections.decode.as_deref().unwrap_or_default()
}

pub(super) fn has(run: &RunOverview) -> bool {
    !rows(run).is_empty()
}

pub(super) fn charts(kit: &ChartKit, runs: &[(&RunOverview, String)]) -> Vec<ChartSpec> {
    let mut series = Vec::new();
    for (run, _) in runs {
        let tuning = run.nccl_perf.as_ref().filter(|p| p.tuning == TuningState::Logged).map(|p| &p.choices);
        let mut groups: Vec<(&str, i64)> = rows(run).iter().map(|r| (r.case_folder.as_str(), r.world_size)).collect();
        groups.dedup();
        let folders_named = groups.iter().any(|(folder, _)| !folder.is_empty());
        for (folder, ws) in groups {
            let of_size: Vec<&DecodeSummary> =
                rows(run).iter().filter(|r| r.case_folder == folder && r.world_size == ws).collect();
            let case = if folders_named { format!("TP={ws} · {folder}") } else { format!("TP={ws}") };
            for (choice, group) in by_choice(&of_size, tuning) {
                let what = match choice {
                    Some(choice) => format!("{case} · {choice}"),
                    None => case.clone(),
                };
                series.push(Series {
                    name: kit.label(run, what),
                    points: group
                        .iter()
                        .map(|r| point(r.tokens as f64, &r.cycle_values, 1.0 / r.collectives.max(1) as f64))
                        .collect(),
                });
            }
        }
    }
    let mut charts = vec![kit.spec(
        "decode-per-call",
        "Decode replay: AllReduce latency per call",
        Axes { x: ("tokens per step (tokens x 4096 FP16)", Scale::Log2), y: ("time per call (µs)", Scale::Linear) },
        series,
        &format!("Per-call latency (total replay time over the number of calls) against tokens, one line per tensor-parallel size and case folder (two folders of one size are two lines), split by the algorithm/protocol NCCL logged for the message size (TUNING lines; not split when they are not logged). {SPREAD_NOTE}"),
    )];
    if runs.len() > 1 {
        charts.push(one_token_history(kit, runs));
    }
    charts
}

/// The runs' per-call latency at 1 token over time (oldest run first): one line per
/// tensor-parallel size and case folder, each run's median with its fastest cycle to P95.
fn one_token_history(kit: &ChartKit, runs: &[(&RunOverview, String)]) -> ChartSpec {
    let oldest_first: Vec<&RunOverview> = runs.iter().rev().map(|(run, _)| *run).collect();
    let ids: Vec<String> = oldest_first.iter().map(|run| run.id.clone()).collect();
    let mut series: Vec<(String, Vec<RunValue>)> = Vec::new();
    for run in &oldest_first {
        for r in rows(run).iter().filter(|r| r.tokens == 1) {
            let name = if r.case_folder.is_empty() {
                format!("TP={}", r.world_size)
            } else {
                format!("TP={} · {}", r.world_size, r.case_folder)
            };
            let p = point(0.0, &r.cycle_values, 1.0 / r.collectives.max(1) as f64);
            let value = RunValue { run: run.id.clone(), value: p.y, low: p.low, high: p.high, samples: p.samples };
            match series.iter_mut().find(|(n, _)| *n == name) {
                Some((_, values)) => values.push(value),
                None => series.push((name, vec![value])),
            }
        }
    }
    let mut spec = history(
        &format!("{}decode-history", kit.id_prefix),
        "Decode replay at 1 token per step, run by run",
        "time per call (µs)",
        &ids,
        series,
        &format!("Per-call latency at 1 token per step in each run, oldest run first (the index's headline figure), one line per tensor-parallel size and case folder. {SPREAD_NOTE}"),
    );
    let left_out = spec.series.len().saturating_sub(super::MAX_SERIES);
    if left_out > 0 {
        spec.series.truncate(super::MAX_SERIES);
        spec.description.push_str(&format!(
            " The chart draws the first {} lines; {left_out} more are in the table.",
            super::MAX_SERIES
        ));
    }
    spec
}

/// Consecutive rows (by tokens) grouped by the algorithm/protocol NCCL planned for their
/// AllReduce message size; one group without a label when TUNING was not logged.
fn by_choice<'a>(
    rows: &[&'a DecodeSummary],
    tuning: Option<&Vec<TuningChoice>>,
) -> Vec<(Option<String>, Vec<&'a DecodeSummary>)> {
    let Some(tuning) = tuning else { return vec![(None, rows.to_vec())] };
    let mut groups: Vec<(Option<String>, Vec<&DecodeSummary>)> = Vec::new();
    for row in rows {
        let label = segment_label(tuning, Some("AllReduce"), row.message_bytes.max(0) as u64);
        match groups.last_mut() {
            Some((Some(last), group)) if *last == label => group.push(row),
            _ => groups.push((Some(label), vec![row])),
        }
    }
    groups
}
