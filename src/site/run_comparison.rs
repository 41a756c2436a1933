//! The run page's comparison blocks, kept apart from the rest of the run page: the run's
//! configuration (`comparison::key`: short label and every key part) and the per-rank view
//! (`comparison::ranks`: which rank was critical how often, the median skew, stragglers).
//! Uses the run overview (`analysis::overview`), the raw run and the site's view types.

use crate::analysis::comparison::ranks::{self, RankView};
use crate::analysis::overview::RunOverview;
use crate::core::format::{agree, count, measured};
use crate::core::model::run::RawRun;
use crate::site::view::{Block, Cell, Table};

/// The configuration the run belongs to: runs compare only within one.
pub(crate) fn configuration_block(digest: &RunOverview) -> Block {
    let mut table = Table::new(
        "Comparison key (every part must agree for two runs to be compared)",
        &[("part", false), ("value", false)],
    )
    .with_row_headers();
    for (name, value) in &digest.configuration_key {
        table.push(vec![Cell::text(name), Cell::text(value)]);
    }
    Block {
        id: "configuration".into(),
        title: "Configuration".into(),
        intro: vec![
            format!("Configuration: {}.", digest.configuration),
            "Section pages chart only runs of one configuration together; `unknown` marks a fact the run does not state.".into(),
        ],
        tables: vec![table],
        figures: Vec::new(),
        pre: Vec::new(),
    }
}

/// Per case: how often each rank was the slowest (the seed keeps only that rank), the median
/// skew between the slowest and fastest rank, and a straggler (critical in most cycles).
pub(crate) fn ranks_block(raw: &RawRun) -> Option<Block> {
    let views = ranks::of(raw);
    if views.is_empty() {
        return None;
    }
    let mut table = Table::new(
        "Critical rank per case (cycles in which each rank was the slowest)",
        &[
            ("section", false),
            ("case folder", false),
            ("ranks", true),
            ("case", false),
            ("cycles", true),
            ("critical rank: cycles", false),
            ("median skew (µs)", true),
            ("straggler", false),
        ],
    );
    for v in &views {
        table.push(row(v));
    }
    let stragglers = views.iter().filter(|v| v.straggler.is_some()).count();
    Some(Block {
        id: "ranks".into(),
        title: "Per-rank view".into(),
        intro: vec![
            "Skew: per cycle, the slowest rank's time minus the fastest rank's, median over cycles. A straggler is a rank that was the slowest in more than half of the cycles.".into(),
            format!(
                "{stragglers} of {} {} a straggler rank.",
                count(views.len(), "case"),
                agree(stragglers, "has", "have")
            ),
        ],
        tables: vec![table],
        figures: Vec::new(),
        pre: Vec::new(),
    })
}

fn row(v: &RankView) -> Vec<Cell> {
    let counts: Vec<String> = v.critical_counts.iter().map(|(rank, n)| format!("{rank}: {n}")).collect();
    let straggler = match v.straggler {
        Some(rank) => Cell { text: format!("rank {rank}"), href: None, class: "warning" },
        None => Cell::text("none"),
    };
    vec![
        Cell::text(v.section),
        Cell::text(&v.folder),
        Cell::text(v.world_size.to_string()),
        Cell::text(&v.case),
        Cell::text(v.cycles.to_string()),
        Cell::text(counts.join(" · ")),
        Cell::text(measured(v.median_skew_us, None)),
        straggler,
    ]
}
