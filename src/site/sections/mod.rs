//! The site's sections: one file per section holds everything the site shows about it (its
//! slug and title, what it measures, the table's caption and columns, its charts). This module
//! lists them once (`sections!` below) and derives the `Section` enum, its order and the
//! exhaustive dispatch from that list. Adding a section is one new file and one line here.
//!
//! Two enums of sections, on purpose: `model::sections::WorkerSection` is a kind of per-rank
//! CSV the worker writes (what the parser reads), `Section` here is a section of the site (what
//! a reader sees). They are not one enum because they are not the same set: the worker's
//! `contracts` CSV has no page (it decides the run's verdict and facts) and the `nccl-tests`
//! page reads no worker CSV. The relation between them is written once, in the `sections!`
//! list below (`from Source::...`), and `Section::source` derives from it.
//!
//! Uses run overviews (`analysis::overview`) and the site's view types only.

mod asynchronous;
mod decode;
mod decomposition;
mod fragmentation;
mod nccl_tests;
mod numerics;

use crate::analysis::overview::RunOverview;
use crate::analysis::stats::{known_cv, MIN_SPREAD_CYCLES};
use crate::analysis::summarize::RunStatus;
use crate::core::format::{measured, yes_no};
use crate::core::model::sections::WorkerSection;
use crate::core::model::summary::Clocks;
use crate::site::chart::{ChartSpec, Scale, Series};
use crate::site::view::{Cell, Table};

/// Declares the sections in page order: `Variant => module from source`. Every module provides `SLUG`,
/// `TITLE`, `CAPTION`, `SCOPE` (what it measures and what it does not), `COLUMNS`, `rows`,
/// `has` and `charts`.
macro_rules! sections {
    ($($variant:ident => $module:ident from $source:expr),+ $(,)?) => {
        /// A section with a page of its own, in page order.
        #[derive(Debug, Clone, Copy, PartialEq, Eq)]
        pub(crate) enum Section {
            $($variant),+
        }

        impl Section {
            /// Every section, in page order.
            pub(crate) const ALL: &'static [Section] = &[$(Section::$variant),+];

            /// Where the section's data comes from.
            pub(crate) fn source(self) -> Source {
                match self { $(Section::$variant => $source),+ }
            }

            /// The section's name in URLs and element ids.
            pub(crate) fn slug(self) -> &'static str {
                match self { $(Section::$variant => $module::SLUG),+ }
            }

            pub(crate) fn title(self) -> &'static str {
                match self { $(Section::$variant => $module::TITLE),+ }
            }

            /// What the section measures and what it does not (shown on run and section pages).
            pub(crate) fn scope(self) -> &'static [&'static str] {
                match self { $(Section::$variant => $module::SCOPE),+ }
            }

            /// Whether a run has data for the section.
            pub(crate) fn has(self, run: &RunOverview) -> bool {
                match self { $(Section::$variant => $module::has(run)),+ }
            }

            /// A table of the section; with several runs (or a link per run), every row starts
            /// with a link to its run page.
            pub(crate) fn table(self, runs: &[(&RunOverview, String)]) -> Table {
                match self {
                    $(Section::$variant => table($module::CAPTION, $module::COLUMNS, $module::rows, runs)),+
                }
            }

            /// Chart specs of the section, with one series per (label prefix, case) so that the
            /// same function serves a run page (one run) and a section page (label = run id).
            pub(crate) fn charts(self, runs: &[(&RunOverview, String)], id_prefix: &str) -> Vec<ChartSpec> {
                let kit = ChartKit::new(runs, id_prefix);
                match self { $(Section::$variant => $module::charts(&kit, runs)),+ }
            }

            /// Whether every chart of `runs` draws all its series (none over `MAX_SERIES`).
            pub(crate) fn charts_fit(self, runs: &[(&RunOverview, String)]) -> bool {
                let kit = ChartKit { truncate: false, ..ChartKit::new(runs, "") };
                let specs = match self { $(Section::$variant => $module::charts(&kit, runs)),+ };
                specs.iter().all(|s| s.series.len() <= MAX_SERIES)
            }
        }
    };
}

sections! {
    Async => asynchronous from Source::Worker(WorkerSection::Async),
    Decomposition => decomposition from Source::Worker(WorkerSection::Decomposition),
    Fragmentation => fragmentation from Source::Worker(WorkerSection::Fragmentation),
    Decode => decode from Source::Worker(WorkerSection::Decode),
    NcclTests => nccl_tests from Source::NcclTests,
    Numerics => numerics from Source::Worker(WorkerSection::Numerics),
}

/// Where a site section's data comes from.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Source {
    /// The worker's per-rank CSVs of this kind.
    Worker(WorkerSection),
    /// The nccl-tests binaries' output.
    NcclTests,
}

/// Every section, as a fixed-size array (for per-section counters).
pub(crate) const COUNT: usize = Section::ALL.len();

impl Section {
    /// The section's position in page order.
    pub(crate) fn index(self) -> usize {
        Section::ALL.iter().position(|s| *s == self).unwrap_or(0)
    }
}

/// One column of a section's table: its header, whether it is numeric (right-aligned), and
/// the cell it shows for a row. Header and value sit together so they cannot drift apart.
pub(crate) struct Column<R> {
    pub header: &'static str,
    pub numeric: bool,
    pub value: fn(&R) -> Cell,
}

/// A numeric column.
const fn num<R>(header: &'static str, value: fn(&R) -> Cell) -> Column<R> {
    Column { header, numeric: true, value }
}

/// A text column.
const fn text<R>(header: &'static str, value: fn(&R) -> Cell) -> Column<R> {
    Column { header, numeric: false, value }
}

fn table<R>(
    caption: &str,
    columns: &[Column<R>],
    rows: fn(&RunOverview) -> &[R],
    runs: &[(&RunOverview, String)],
) -> Table {
    let with_run = runs.len() > 1 || runs.first().is_some_and(|(_, href)| !href.is_empty());
    let mut heads: Vec<(&str, bool)> =
        if with_run { vec![("run", false), ("configuration", false)] } else { Vec::new() };
    heads.extend(columns.iter().map(|c| (c.header, c.numeric)));
    let mut table = Table::new(caption, &heads);
    for (run, href) in runs {
        for r in rows(run) {
            let mut row: Vec<Cell> = Vec::with_capacity(heads.len());
            if with_run {
                row.extend([run_cell(run, href), Cell { class: "config", ..t(run.configuration.clone()) }]);
            }
            row.extend(columns.iter().map(|c| (c.value)(r)));
            table.push(row);
        }
    }
    table
}

/// The run's id linking to its page; a failed or invalid run says so and is marked.
fn run_cell(run: &RunOverview, href: &str) -> Cell {
    match run.status {
        RunStatus::Ok => Cell::link(run.id.clone(), href),
        status => Cell {
            text: format!("{} ({})", run.id, status.as_str()),
            href: Some(href.to_string()),
            class: status.as_str(),
        },
    }
}

fn t(text: impl Into<String>) -> Cell {
    Cell::text(text)
}

fn ok_cell(ok: bool) -> Cell {
    Cell { text: yes_no(ok).to_string(), href: None, class: if ok { "" } else { "failed" } }
}

/// A statistic over cycles, or `n/a (n = 1: no spread)` when `cycles` cannot give one (the
/// seed's P95 of one value is the value itself and its CV 0 %: numbers that look measured).
fn spread(cycles: usize, value: String) -> Cell {
    if cycles < MIN_SPREAD_CYCLES {
        Cell { text: format!("n/a (n = {cycles}: no spread)"), href: None, class: "na" }
    } else {
        t(value)
    }
}

/// A measured time of a row with `cycles` cycles and coefficient of variation `cv_percent`:
/// as many figures as its spread supports (`format::measured`); one cycle has no known spread.
fn us(value: f64, cycles: usize, cv_percent: f64) -> Cell {
    t(measured(value, known_cv(cycles, cv_percent)))
}

/// The same for a statistic that needs a spread (P95, min, max): `n/a` with one cycle.
fn us_spread(value: f64, cycles: usize, cv_percent: f64) -> Cell {
    spread(cycles, measured(value, Some(cv_percent)))
}

/// A percentage with two decimals, or `n/a`.
fn pct2_or_na(value: Option<f64>) -> String {
    value.map_or("n/a".into(), crate::core::format::pct2)
}

/// The worker's host issue and device-only medians beside the span; a span within 10 % of
/// the host issue time is marked host-bound. `n/a` for runs recorded before those clocks.
fn clocks_cell(clocks: Option<&Clocks>, median_span_us: f64) -> Cell {
    let Some(c) = clocks else {
        return t("n/a");
    };
    let both = format!(
        "{} · {}",
        measured(c.median_host_issue_us, None),
        c.median_device_us.map_or("n/a".into(), |v| measured(v, None))
    );
    if c.host_bound(median_span_us) {
        Cell {
            text: format!("{both} — host-bound: this measures Python/PyTorch launch rate, not NCCL"),
            href: None,
            class: "host-bound",
        }
    } else {
        t(both)
    }
}

/// A cell marked `failed` when `bad`.
fn flagged(text: String, bad: bool) -> Cell {
    Cell { text, href: None, class: if bad { "failed" } else { "" } }
}

/// The part of a chart spec every section shares: the element-id prefix and the series labels.
pub(crate) struct ChartKit<'a> {
    /// Series are named by their run: on a section page (runs with a link), even when one run
    /// is drawn; not on a run page (its own run).
    name_runs: bool,
    /// Whether the runs' short ids are distinct (else legends give full ids).
    abbreviate: bool,
    id_prefix: &'a str,
    /// Cut a chart's series at `MAX_SERIES` (off only to learn whether they fit).
    truncate: bool,
}

/// The most series one chart draws: each keeps a colour of its own (and a marker shape of its
/// own), and the legend stays readable without cutting a name.
pub(crate) const MAX_SERIES: usize = 6;

pub(crate) use crate::site::chart::short_id;

/// Shared by the charts that show a spread over cycles.
const SPREAD_NOTE: &str = "Lines join the medians over cycles; whiskers span the fastest cycle to P95; dots are individual cycles (each the slowest rank's value).";

/// The axes of a chart: (label, scale) for x and for y.
struct Axes<'a> {
    x: (&'a str, Scale),
    y: (&'a str, Scale),
}

impl<'a> ChartKit<'a> {
    fn new(runs: &[(&RunOverview, String)], id_prefix: &'a str) -> ChartKit<'a> {
        let mut shorts: Vec<String> = runs.iter().map(|(r, _)| short_id(&r.id)).collect();
        shorts.sort();
        shorts.dedup();
        let name_runs = runs.len() > 1 || runs.iter().any(|(_, href)| !href.is_empty());
        ChartKit { name_runs, abbreviate: shorts.len() == runs.len(), id_prefix, truncate: true }
    }

    /// A series label: prefixed with the run's short id (`short_id`; the full id if two runs
    /// of the chart share a short one) on a section page; the table beside the chart gives
    /// the full id.
    fn label(&self, run: &RunOverview, what: String) -> String {
        match (self.name_runs, self.abbreviate) {
            (false, _) => what,
            (true, true) => format!("{} · {what}", short_id(&run.id)),
            (true, false) => format!("{} · {what}", run.id),
        }
    }

    /// The spec, with at most `MAX_SERIES` series (the first ones: the newest runs on a
    /// section page); the description says how many were left out and where they are.
    fn spec(&self, id: &str, title: &str, axes: Axes, mut series: Vec<Series>, description: &str) -> ChartSpec {
        let mut description = description.to_string();
        if self.truncate && series.len() > MAX_SERIES {
            let left_out = series.len() - MAX_SERIES;
            series.truncate(MAX_SERIES);
            description.push_str(&format!(
                " The chart draws the first {MAX_SERIES} series (newest runs first); {} more {} in the table{}.",
                left_out,
                crate::core::format::agree(left_out, "is", "are"),
                if self.name_runs { " and the paged history" } else { "" }
            ));
        }
        ChartSpec {
            id: format!("{}{id}", self.id_prefix),
            title: title.to_string(),
            x_label: axes.x.0.to_string(),
            y_label: axes.y.0.to_string(),
            x_scale: axes.x.1,
            y_scale: axes.y.1,
            series,
            description,
            x_names: Vec::new(),
        }
    }
}

/// The distinct world sizes, ascending.
fn world_sizes(values: impl Iterator<Item = i64>) -> Vec<i64> {
    let mut sizes: Vec<i64> = values.collect();
    sizes.sort();
    sizes.dedup();
    sizes
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn legends_drop_only_the_date_of_seed_style_ids() {
        assert_eq!(short_id("20261203T081133Z"), "T081133Z");
        assert_eq!(short_id("20261203T081133Z-h200"), "T081133Z-h200");
        assert_eq!(short_id("h200-rdzv"), "h200-rdzv");
        assert_eq!(short_id("20261203T081133Zx"), "20261203T081133Zx");
        assert_eq!(short_id("2026120"), "2026120");
        assert_eq!(short_id("é20261203T081133Z"), "é20261203T081133Z");
    }

    #[test]
    fn every_worker_csv_but_contracts_has_exactly_one_page() {
        for kind in WorkerSection::ALL {
            let pages = Section::ALL.iter().filter(|s| s.source() == Source::Worker(kind)).count();
            assert_eq!(pages, usize::from(kind != WorkerSection::Contracts), "{kind:?}");
        }
        assert_eq!(Section::NcclTests.source(), Source::NcclTests);
    }

    #[test]
    fn host_bound_cases_are_marked_with_both_numbers() {
        let clocks =
            Clocks { median_host_issue_us: 3960.0, median_device_us: Some(1.3), queued_cycles: 30, cycles: 30 };
        let bound = clocks_cell(Some(&clocks), 4010.0);
        assert_eq!(bound.class, "host-bound");
        assert!(bound.text.starts_with("3960 · 1.30 — host-bound"), "{}", bound.text);
        let free = clocks_cell(Some(&clocks), 4400.0);
        assert_eq!((free.text.as_str(), free.class), ("3960 · 1.30", ""));
        assert_eq!(clocks_cell(None, 1.0).text, "n/a");
        let unqueued = Clocks { median_device_us: None, ..clocks };
        assert!(clocks_cell(Some(&unqueued), 9000.0).text.ends_with("· n/a"));
    }
}
