//! The index: every run in a table, newest first, with headline figures, a page of runs at a
//! time (`paging`: the newest runs, then shards of months); the site-wide notes on the first page.

use crate::analysis::overview::RunOverview;
use crate::analysis::summarize::RunStatus;
use crate::core::format::{count, ellipsis, utc_second};
use crate::site::baseline_view;
use crate::site::card::{BaselineVerdict, RunCard};
use crate::site::paging::{Page, Paging};
use crate::site::paths;
use crate::site::sections::Section;
use crate::site::verdict_look::look;
use crate::site::view::{Attention, Cell, IndexPage, Link, Table};

/// The run's status: a failed or invalid run with its reason, an ok run with warnings marked
/// as such (not a plain green ok), each linked to the run page's diagnostics.
fn status_cell(root: &str, run: &RunOverview, card: Option<&RunCard>) -> Cell {
    let diagnostics = format!("{}#diagnostics", paths::run_link(root, &run.id));
    let warnings = card.map_or(0, |c| c.warnings);
    match (run.status, card.and_then(|c| c.reason.as_deref())) {
        (RunStatus::Ok, _) if warnings == 0 => Cell::status("ok"),
        (RunStatus::Ok, _) => {
            Cell { text: format!("ok, ⚠ {}", count(warnings, "warning")), href: Some(diagnostics), class: "warning" }
        }
        (status, reason) => Cell {
            text: match reason {
                Some(reason) => format!("✖ {}: {}", status.as_str(), ellipsis(reason, 80)),
                None => format!("✖ {}", status.as_str()),
            },
            href: Some(diagnostics),
            class: status.as_str(),
        },
    }
}

/// What needs a reader's attention across every run: runs with slower or faster cases, failed
/// and invalid runs, runs with warnings; each a count with the runs named and linked.
fn attention(cards: &[RunCard], root: &str) -> Vec<Attention> {
    // A run-wide slower shift is a regression as a slower case is.
    let compared = |c: &RunCard, verdict: &str| match &c.baseline {
        BaselineVerdict::Compared(v) => v.of(verdict) > 0 || (verdict == "slower" && v.regression),
        _ => false,
    };
    let (slower, faster) = (look("slower"), look("faster"));
    let groups: [(&'static str, &str, &str, Vec<&RunCard>); 5] = [
        (slower.class, slower.marker, "slower than before", cards.iter().filter(|c| compared(c, "slower")).collect()),
        (faster.class, faster.marker, "faster than before", cards.iter().filter(|c| compared(c, "faster")).collect()),
        ("failed", "✖", "failed", cards.iter().filter(|c| c.status == RunStatus::Failed).collect()),
        ("invalid", "✖", "invalid", cards.iter().filter(|c| c.status == RunStatus::Invalid).collect()),
        (
            "warning",
            "⚠",
            "ok, with warnings",
            cards.iter().filter(|c| c.status == RunStatus::Ok && c.warnings > 0).collect(),
        ),
    ];
    groups
        .into_iter()
        .filter(|(_, _, _, runs)| !runs.is_empty())
        .map(|(class, marker, what, runs)| Attention {
            class,
            text: format!("{marker} {}, {what}", count(runs.len(), "run")),
            runs: runs
                .iter()
                .take(LISTED)
                .map(|c| Link { text: c.id.clone(), href: paths::run_link(root, &c.id) })
                .collect(),
            more: runs.len().saturating_sub(LISTED),
        })
        .collect()
}

/// How many runs a line of the "needs attention" list names (newest first); the index lists
/// the rest.
const LISTED: usize = 10;

/// Index page `page`: its runs (`window`, newest first, and their `cards`) with headline
/// figures, the counts of its runs (on the first page: of every run, `all`), and the pager.
/// A shard page depends on its own runs only.
pub(crate) fn build(
    window: &[&RunOverview],
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
    .with_row_headers()
    .with_cards()
    .with_class("runs");
    let card_of: std::collections::HashMap<&str, &RunCard> = cards.iter().map(|c| (c.id.as_str(), c)).collect();
    for run in window {
        let f = &run.facts;
        let verdict = card_of.get(run.id.as_str()).map_or(&BaselineVerdict::Pending, |c| &c.baseline);
        let ranks: Vec<String> = f.world_sizes.iter().map(|w| w.to_string()).collect();
        table.push(vec![
            Cell::link(run.id.clone(), paths::run_link(root, &run.id)),
            Cell { class: "when", ..Cell::text(f.timestamp_utc.as_deref().map(utc_second).unwrap_or_default()) },
            Cell::text(ranks.join(", ")),
            status_cell(root, run, card_of.get(run.id.as_str()).copied()),
            baseline_view::index_cell(root, &run.id, verdict),
            Cell::text(run.configuration.clone()),
            Cell::text(run.decode_headline.clone()),
            Cell::text(run.busbw_headline.clone()),
        ]);
    }
    let counted = if page == Page::First { all } else { cards };
    let of_status = |s: RunStatus| counted.iter().filter(|r| r.status == s).count();
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
            of_status(RunStatus::Ok),
            of_status(RunStatus::Failed),
            of_status(RunStatus::Invalid)
        ),
        attention: if page == Page::First { attention(all, root) } else { Vec::new() },
        notes: notes.filter(|_| page == Page::First).map(str::to_string),
    }
}
