//! The index: every run in a table, newest first, with headline figures, a page of runs at a
//! time (`paging`: the newest runs, then shards of months); the site-wide notes on the first page.

use crate::analysis::summarize::RunStatus;
use crate::core::format::utc_second;
use crate::site::baseline_view;
use crate::site::digest::{BaselineVerdict, RunCard, RunDigest};
use crate::site::paging::{Page, Paging};
use crate::site::paths;
use crate::site::sections::Section;
use crate::site::view::{Cell, IndexPage, Link, Table};

/// Index page `page`: its runs (`window`, newest first, and their `cards`) with headline
/// figures, the counts of its runs (on the first page: of every run, `all`), and the pager.
/// A shard page depends on its own runs only.
pub(crate) fn build(
    window: &[&RunDigest],
    cards: &[RunCard],
    all: &[RunCard],
    paging: &Paging,
    page: Page,
    notes: Option<&str>,
) -> IndexPage {
    let root = Paging::index_root(page);
    let mut table = Table::new(
        "All runs, newest first",
        &[
            ("run", false),
            ("date", false),
            ("ranks", false),
            ("status", false),
            ("compared with baseline", false),
            ("configuration", false),
            ("decode per call, 1 token (µs)", true),
            ("nccl-tests busbw at the largest size", true),
        ],
    )
    .with_row_headers();
    let verdicts: std::collections::HashMap<&str, &BaselineVerdict> =
        cards.iter().map(|c| (c.id.as_str(), &c.baseline)).collect();
    for run in window {
        let f = &run.facts;
        let verdict = verdicts.get(run.id.as_str()).copied().unwrap_or(&BaselineVerdict::Pending);
        let ranks: Vec<String> = f.world_sizes.iter().map(|w| w.to_string()).collect();
        table.push(vec![
            Cell::link(run.id.clone(), paths::run_link(root, &run.id)),
            Cell { class: "when", ..Cell::text(f.timestamp_utc.as_deref().map(utc_second).unwrap_or_default()) },
            Cell::text(ranks.join(", ")),
            Cell::status(run.status.as_str()),
            baseline_view::index_cell(root, &run.id, verdict),
            Cell::text(run.configuration.clone()),
            Cell::text(run.decode_headline.clone()),
            Cell::text(run.busbw_headline.clone()),
        ]);
    }
    let counted = if page == Page::First { all } else { cards };
    let count = |s: RunStatus| counted.iter().filter(|r| r.status == s).count();
    IndexPage {
        root,
        pager: paging.index_pager(page),
        runs: table,
        sections: Section::ALL
            .iter()
            .map(|s| Link { text: s.title().to_string(), href: format!("{root}{}", paths::section(s.slug(), None)) })
            .collect(),
        counts: format!(
            "{}: {} ok, {} failed, {} invalid.",
            crate::core::format::count(counted.len(), "run"),
            count(RunStatus::Ok),
            count(RunStatus::Failed),
            count(RunStatus::Invalid)
        ),
        notes: notes.filter(|_| page == Page::First).map(str::to_string),
    }
}
