//! Cross-run section pages: the same cases side by side for every run that has the section,
//! a page of runs at a time (`paging`), with overlaid charts of the newest runs on the first
//! page (capped so charts stay readable).

use crate::core::format::{agree, count};
use crate::site::digest::RunDigest;
use crate::site::paging::{Page, Paging};
use crate::site::paths;
use crate::site::sections::{self, Section};
use crate::site::view::{Block, Cell, Evidence, Figure, SectionPage, Table};
use rayon::prelude::*;

/// How many runs a cross-run chart overlays (the newest); tables list every run.
pub(crate) const MAX_CHART_RUNS: usize = 8;

/// How the first page's charts choose their runs (said on the page).
const CHART_RULE: &str = "Charts overlay only runs of one configuration (one set of charts per configuration, newest runs first); failed and invalid runs are left out of the charts and marked in the tables.";

/// One set of the section's charts per configuration among `charted` (ok runs, newest
/// first), in order of each configuration's newest run; chart ids are prefixed `cfgN-`.
fn configuration_figures(section: Section, charted: &[&RunDigest], href: &dyn Fn(&RunDigest) -> String) -> Vec<Figure> {
    let mut keys: Vec<&[(String, String)]> = Vec::new();
    for run in charted {
        if !keys.contains(&run.configuration_key.as_slice()) {
            keys.push(&run.configuration_key);
        }
    }
    let mut figures = Vec::new();
    for (n, key) in keys.iter().enumerate() {
        let runs: Vec<(&RunDigest, String)> =
            charted.iter().filter(|r| r.configuration_key == *key).map(|r| (*r, href(r))).collect();
        let label = &runs[0].0.configuration;
        for mut spec in section.charts(&runs, &format!("cfg{}-", n + 1)) {
            spec.description = format!("Configuration {label}. {}", spec.description);
            let (svg_href, csv_href) = paths::chart_files(&spec.id);
            figures.push(Figure { svg_href, csv_href, dir: paths::SECTION_CHARTS.into(), spec });
        }
    }
    figures
}

/// The configurations of the page's runs: short label, full key, and the runs.
fn configurations_table(runs: &[(&RunDigest, String)]) -> Table {
    let mut table = Table::new(
        "Configurations (runs compare only within one)",
        &[("configuration", false), ("full key", false), ("runs", false)],
    )
    .with_row_headers();
    let mut seen: Vec<&[(String, String)]> = Vec::new();
    for (run, _) in runs {
        if seen.contains(&run.configuration_key.as_slice()) {
            continue;
        }
        seen.push(&run.configuration_key);
        let ids: Vec<&str> = runs
            .iter()
            .filter(|(r, _)| r.configuration_key == run.configuration_key)
            .map(|(r, _)| r.id.as_str())
            .collect();
        table.push(vec![
            Cell::text(&run.configuration),
            Cell::text(run.configuration_text()),
            Cell::text(ids.join(", ")),
        ]);
    }
    table
}

/// What every section page needs beyond its page of runs.
pub(crate) struct SectionContext<'a> {
    pub paging: Paging,
    /// Per section (in `Section::ALL` order): how many runs have it, and the newest of them (up
    /// to `MAX_CHART_RUNS`) that its first page charts.
    pub totals: [usize; sections::COUNT],
    /// Per section: how many of those runs are ok (the charts draw ok runs only).
    pub ok_totals: [usize; sections::COUNT],
    pub charted: [Vec<&'a RunDigest>; sections::COUNT],
    pub site_notes: Option<&'a str>,
}

/// Page `page` of every section: its runs (`window`, newest first) that have the section. The
/// first page counts every run and charts the newest; a shard page depends on its runs only.
pub(crate) fn build(window: &[&RunDigest], page: Page, context: &SectionContext) -> Vec<SectionPage> {
    Section::ALL
        .par_iter()
        .enumerate()
        .map(|(index, &section)| {
            let (slug, title) = (section.slug(), section.title());
            let href = |run: &RunDigest| paths::run_link("../", &run.id);
            let with: Vec<(&RunDigest, String)> =
                window.iter().filter(|r| section.has(r)).map(|r| (*r, href(r))).collect();
            let first = page == Page::First;
            let total = if first { context.totals[index] } else { with.len() };
            let mut what: Vec<String> = section.scope().iter().map(|s| s.to_string()).collect();
            let mut blocks = Vec::new();
            if context.totals[index] == 0 {
                what.push("No run has this section yet.".to_string());
            } else {
                let charted: &[&RunDigest] = if first { &context.charted[index] } else { &[] };
                let figures = configuration_figures(section, charted, &href);
                let mut intro = vec![format!(
                    "{} {} this section.",
                    if first { count(total, "run") } else { format!("{} of this part", count(total, "run")) },
                    agree(total, "has", "have")
                )];
                // Said only where the page draws charts (numerics has none; later pages none).
                if !figures.is_empty() {
                    intro.push(CHART_RULE.to_string());
                    if context.ok_totals[index] > MAX_CHART_RUNS {
                        intro.push(if context.paging.has_shard_pages() {
                            format!("Charts overlay the {MAX_CHART_RUNS} newest ok runs; the tables list every run, page by page.")
                        } else {
                            format!("Charts overlay the {MAX_CHART_RUNS} newest ok runs; the table lists every run.")
                        });
                    }
                }
                if with.is_empty() {
                    intro.push("No run on this page has this section.".to_string());
                }
                let tables = if with.is_empty() {
                    Vec::new()
                } else {
                    vec![configurations_table(&with), section.table(&with).with_row_headers()]
                };
                blocks.push(Block {
                    id: "runs".into(),
                    title: "Across runs".into(),
                    intro,
                    tables,
                    figures,
                    pre: Vec::new(),
                });
            }
            let statements = with
                .iter()
                .map(|(run, _)| {
                    let f = &run.facts;
                    format!(
                        "{}: configuration {}; {}, {}, NCCL {}, {}.",
                        run.id,
                        run.configuration,
                        f.gpu.as_deref().unwrap_or("GPU not recorded"),
                        f.topology.as_deref().unwrap_or("topology not recorded"),
                        f.nccl_version.as_deref().unwrap_or("not recorded"),
                        f.cycles.map_or("cycles not recorded".to_string(), |c| count(c, "cycle"))
                    )
                })
                .collect();
            SectionPage {
                path: context.paging.section_path(slug, page),
                slug,
                title: title.to_string(),
                pager: context.paging.section_pager(slug, page),
                what,
                blocks,
                evidence: Evidence {
                    statements,
                    notes: context
                        .site_notes
                        .map(|n| vec![("All runs (runs/NOTES.md)".to_string(), n.to_string())])
                        .unwrap_or_default(),
                },
            }
        })
        .collect()
}
