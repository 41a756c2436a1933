//! The run page's "How close NCCL came to the hardware" block: the topology bottleneck and
//! the expected peak with its source (or "peak unknown"), what NCCL chose per (collective,
//! bytes) from its TUNING lines (or why nothing was logged), and per nccl-tests table (every
//! binary, with its own busbw factor) a log-log busbw chart with one labelled series per
//! algorithm/protocol segment and a line at the expected peak, the sizes reaching 50 % and
//! 90 % of the best busbw, % of expected per size, and the alpha-beta fit per segment with
//! its residual; a one-rank table gets its times and a sentence on what one rank cannot show,
//! never a chart of zeros or a fit. Formats `nccl_perf::run` only; computes nothing.

use crate::analysis::nccl_perf::run::{RunNcclPerf, TablePerf};
use crate::core::format::{bytes, count, gbs, measured, percent, trimmed};
use crate::site::chart::{ChartSpec, Point, Scale, Series};
use crate::site::paths;
use crate::site::view::{Block, Cell, Figure, Table};

/// The block for `perf`, its charts written under `runs/<run_id>/charts`.
pub(crate) fn block(perf: &RunNcclPerf, run_id: &str) -> Block {
    let expected = &perf.expected;
    let mut intro = vec![
        format!("Topology bottleneck: {}.", expected.bottleneck),
        match expected.gbs {
            Some(peak) => format!("Expected peak busbw: {} GB/s ({}).", gbs(peak), expected.source),
            None => format!("Expected peak: {}.", expected.source),
        },
    ];
    let mut tables = Vec::new();
    match perf.tuning.note() {
        Some(note) => intro.push(format!("What NCCL chose: {note}.")),
        None => tables.push(choices_table(perf)),
    }
    let mut figures = Vec::new();
    for (index, table) in perf.tables.iter().enumerate() {
        if table.ranks <= 1 {
            intro.push(one_rank_line(table));
            tables.push(sizes_table(table));
            continue;
        }
        intro.push(table_line(table));
        let spec = chart(table, expected.gbs, &format!("nccl-perf-{}", index + 1));
        let svg_href = paths::chart_svg(&spec.id);
        let csv_href = paths::charts_csv_href(&paths::run_file(run_id, "index.html"));
        figures.push(Figure { svg_href, csv_href, dir: paths::run_file(run_id, "charts"), spec });
        tables.push(sizes_table(table));
        tables.push(fit_table(table));
    }
    Block {
        id: "nccl-perf".into(),
        title: "How close NCCL came to the hardware".into(),
        intro,
        tables,
        figures,
        pre: Vec::new(),
    }
}

/// `all_gather_perf at 4 ranks (raw/x.stdout): busbw = algbw x 0.75; 50 % of the best busbw
/// from 1 MiB, 90 % from 64 MiB.`
fn table_line(table: &TablePerf) -> String {
    let factor =
        table.busbw_factor.map_or("unknown factor".to_string(), |f| format!("busbw = algbw x {}", trimmed(f, 4)));
    let reach = |size: Option<u64>| size.map_or("never".to_string(), |s| format!("from {}", bytes(s)));
    let mut line = format!(
        "{} at {} ({}): {factor}; 50 % of the best busbw {}, 90 % {}.",
        table.binary,
        count(table.ranks, "rank"),
        table.file,
        reach(table.analysis.size_50),
        reach(table.analysis.size_90)
    );
    if table.analysis.nvls_equivalent {
        line +=
            " NVLS ran: busbw is NVLS-equivalent (the NVLink bandwidth needed without NVLS), not a share of the wire.";
    }
    line
}

/// A one-rank table: what it can show (launch and synchronization time per size) and what it
/// cannot (bandwidth, a peak, a latency-bandwidth fit); no chart of zeros, no fit.
fn one_rank_line(table: &TablePerf) -> String {
    format!(
        "{} at 1 rank ({}): one rank moves no data between GPUs, so busbw is 0 by definition and there is no bandwidth to chart, compare with a peak or fit (alpha-beta); the times per size below are launch and synchronization cost only.",
        table.binary, table.file
    )
}

fn choices_table(perf: &RunNcclPerf) -> Table {
    let mut table = Table::new(
        "What NCCL chose (TUNING lines, per collective and size)",
        &[
            ("collective", false),
            ("size", true),
            ("algorithm", false),
            ("protocol", false),
            ("channels", true),
            ("count", true),
        ],
    );
    for c in &perf.choices {
        table.push(vec![
            Cell::text(c.collective.clone().unwrap_or_else(|| "not named (NCCL <= 2.22)".into())),
            Cell::text(bytes(c.bytes)),
            Cell::text(c.algorithm.clone()),
            Cell::text(c.protocol.clone()),
            Cell::text(c.channels.map(|n| n.to_string()).unwrap_or_default()),
            Cell::text(c.count.to_string()),
        ]);
    }
    table
}

fn sizes_table(table: &TablePerf) -> Table {
    let label = if table.analysis.nvls_equivalent { "busbw, NVLS-equivalent (GB/s)" } else { "busbw (GB/s)" };
    let mut out = Table::new(
        format!("{} at {}: per size (median over cycles, out of place)", table.binary, count(table.ranks, "rank")),
        &[("size", true), ("time (µs)", true), (label, true), ("% of expected", true), ("algorithm/protocol", false)],
    );
    for p in &table.analysis.points {
        out.push(vec![
            Cell::text(bytes(p.bytes)),
            Cell::text(measured(p.time_us, None)),
            Cell::text(gbs(p.busbw_gbs)),
            Cell::text(p.percent_of_expected.map_or("peak unknown".to_string(), |v| percent(v, 1))),
            Cell::text(p.segment.clone()),
        ]);
    }
    out
}

fn fit_table(table: &TablePerf) -> Table {
    let mut out = Table::new(
        format!(
            "{} at {}: alpha-beta fit t = alpha + bytes / beta per algorithm/protocol segment",
            table.binary,
            count(table.ranks, "rank")
        ),
        &[
            ("algorithm/protocol", false),
            ("sizes", false),
            ("points", true),
            ("alpha (µs)", true),
            ("beta (GB/s)", true),
            ("RMS relative residual", true),
        ],
    );
    for s in &table.analysis.segments {
        let sizes = format!("{} – {}", bytes(s.first_bytes), bytes(s.last_bytes));
        let cells = match &s.fit {
            Some(fit) => vec![
                Cell::text(fit.points.to_string()),
                // Fitted parameters have no spread over cycles (the residual is the fit's, not
                // the parameters' uncertainty): 3 figures.
                Cell::text(measured(fit.alpha_us, None)),
                Cell::text(fit.beta_gbs.map_or("latency-bound".to_string(), |b| measured(b, None))),
                Cell::text(percent(100.0 * fit.relative_rms_residual, 2)),
            ],
            None => vec![
                Cell::text(String::new()),
                Cell::text("too few sizes".to_string()),
                Cell::text(String::new()),
                Cell::text(String::new()),
            ],
        };
        let mut row = vec![Cell::text(s.label.clone()), Cell::text(sizes)];
        row.extend(cells);
        out.push(row);
    }
    out
}

/// busbw against size, both on log axes: one series per algorithm/protocol segment (so the
/// legend names where NCCL switched) and a flat line at the expected peak when known.
fn chart(table: &TablePerf, expected_gbs: Option<f64>, id: &str) -> ChartSpec {
    let point = |x: f64, y: f64| Point { x, y, low: None, high: None, samples: Vec::new() };
    let mut series: Vec<Series> = table
        .analysis
        .segments
        .iter()
        .map(|s| Series {
            name: s.label.clone(),
            points: table
                .analysis
                .points
                .iter()
                .filter(|p| (s.first_bytes..=s.last_bytes).contains(&p.bytes))
                .map(|p| point(p.bytes as f64, p.busbw_gbs))
                .collect(),
        })
        .collect();
    let sizes = (table.analysis.points.first(), table.analysis.points.last());
    let peak_note = match (expected_gbs.filter(|_| table.ranks > 1), sizes) {
        (Some(peak), (Some(first), Some(last))) => {
            series.push(Series {
                name: format!("expected peak {} GB/s", gbs(peak)),
                points: vec![point(first.bytes as f64, peak), point(last.bytes as f64, peak)],
            });
            "The flat line is the expected peak."
        }
        _ => "Peak unknown: no reference line.",
    };
    let busbw = if table.analysis.nvls_equivalent { "busbw, NVLS-equivalent (GB/s)" } else { "busbw (GB/s)" };
    ChartSpec {
        id: id.to_string(),
        title: format!("{} at {}: bus bandwidth against size", table.binary, count(table.ranks, "rank")),
        x_label: "message size (bytes)".into(),
        y_label: busbw.into(),
        x_scale: Scale::Log2,
        y_scale: Scale::Log10,
        series,
        description: format!(
            "Median out-of-place busbw per size on log axes, one series per algorithm/protocol NCCL logged (\"not logged\" without TUNING lines); a busbw of 0 (one rank) is not drawn on a log axis. {peak_note}"
        ),
        x_names: Vec::new(),
    }
}
