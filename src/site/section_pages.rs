//! Cross-run section pages: the same cases side by side for every run that has the section,
//! a page of runs at a time (`paging`), with one panel of charts per configuration (its newest
//! ok runs) on the page that lists the configuration's newest ok run: every configuration
//! with ok runs is charted, on one page of the section.

use crate::analysis::overview::RunOverview;
use crate::core::format::{agree, count};
use crate::site::paging::{Page, Paging};
use crate::site::paths;
use crate::site::sections::{self, Section};
use crate::site::view::{Block, Cell, Evidence, Figure, SectionPage, Table};
use rayon::prelude::*;

/// The most runs one configuration's panel overlays (its newest ok runs); tables list every
/// run.
pub(crate) const CHART_RUNS: usize = 6;

/// How the charts choose their runs (said on the page).
const CHART_RULE: &str = "One panel of charts per configuration, on the page that lists its newest ok run: each overlays that configuration's newest ok runs, as many as the charts can draw whole (every series of every run named in the legend); failed and invalid runs are left out of the charts and marked in the tables.";

/// One configuration's panel: the page of the section it is drawn on, how many ok runs the
/// configuration has with the section, and its newest ok runs (at most `CHART_RUNS`).
pub(crate) struct Panel<'a> {
    pub page: Page,
    pub ok_runs: usize,
    pub runs: Vec<&'a RunOverview>,
}

/// The section's charts for each panel of `panels`, chart ids prefixed `cfg-<slug>-` (the
/// configuration's history page slug, whose first six digits its label shows), so a chart's
/// file is named by its configuration wherever the panel is drawn and whatever other
/// configurations there are (a slug met twice on a page, which only a key made to collide
/// gives, has the panel's place added, so no chart overwrites another). A panel overlays its newest runs, as many as fit: the most runs
/// for which no chart has more than `sections::MAX_SERIES` series.
fn configuration_figures(
    section: Section,
    panels: &[&Panel],
    href: &dyn Fn(&RunOverview) -> String,
    csv_href: &str,
) -> Vec<Figure> {
    let mut figures = Vec::new();
    let mut prefixes = std::collections::HashSet::new();
    for (place, panel) in panels.iter().enumerate() {
        let all: Vec<(&RunOverview, String)> = panel.runs.iter().map(|r| (*r, href(r))).collect();
        let key = crate::analysis::comparison::key::ConfigKey::from_parts(&all[0].0.configuration_key, &[]);
        let prefix = chart_prefix(&mut prefixes, &paths::history_slug(&key.text()), place);
        let drawn = (1..=all.len()).rev().find(|&k| section.charts_fit(&all[..k])).unwrap_or(1);
        let label = &all[0].0.configuration;
        let which = if drawn == 1 {
            format!("its newest ok run, {}, of {}", all[0].0.id, count(panel.ok_runs, "ok run"))
        } else {
            format!("its newest {drawn} of {}", count(panel.ok_runs, "ok run"))
        };
        for mut spec in section.charts(&all[..drawn], &prefix) {
            spec.description = format!("Configuration {label}: {which}. {}", spec.description);
            crate::site::budget::drop_dots(&mut spec, crate::site::budget::Budget::DEFAULT.samples);
            let (svg_href, csv_href) = (paths::chart_svg(&spec.id), csv_href.to_string());
            figures.push(Figure { svg_href, csv_href, dir: paths::SECTION_CHARTS.into(), spec });
        }
    }
    figures
}

/// The chart id prefix of the panel at `place` on a page whose panels so far took `taken`:
/// `cfg-<slug>-`, with the place added when another panel took that already.
fn chart_prefix(taken: &mut std::collections::HashSet<String>, slug: &str, place: usize) -> String {
    let prefix = format!("cfg-{slug}-");
    if taken.insert(prefix.clone()) {
        return prefix;
    }
    let placed = format!("{prefix}{place}-");
    taken.insert(placed.clone());
    placed
}

/// The configurations of the page's runs: short label, full key, and the runs.
fn configurations_table(runs: &[(&RunOverview, String)]) -> Table {
    let mut table = Table::new(
        "Configurations (runs compare only within one)",
        &[("configuration", false), ("differs from the others in", false), ("full key", false), ("runs", false)],
    )
    .with_row_headers();
    let mut seen: Vec<&[(String, String)]> = Vec::new();
    for (run, _) in runs {
        if !seen.contains(&run.configuration_key.as_slice()) {
            seen.push(&run.configuration_key);
        }
    }
    // A key part differs when some configuration of the page has another value for it.
    let differs = |part: &(String, String)| seen.iter().any(|key| !key.contains(part));
    let mut listed: Vec<&[(String, String)]> = Vec::new();
    for (run, _) in runs {
        if listed.contains(&run.configuration_key.as_slice()) {
            continue;
        }
        listed.push(&run.configuration_key);
        let different: Vec<String> =
            run.configuration_key.iter().filter(|p| differs(p)).map(|(k, v)| format!("{k}={v}")).collect();
        let ids: Vec<&str> = runs
            .iter()
            .filter(|(r, _)| r.configuration_key == run.configuration_key)
            .map(|(r, _)| r.id.as_str())
            .collect();
        let different =
            if different.is_empty() { "nothing: the only configuration".to_string() } else { different.join("; ") };
        table.push(vec![
            Cell::text(&run.configuration),
            Cell { class: "differs key", ..Cell::text(different) },
            Cell { class: "key", ..Cell::text(run.configuration_text()) },
            Cell::text(ids.join(", ")),
        ]);
    }
    table
}

/// What every section page needs beyond its page of runs.
pub(crate) struct SectionContext<'a> {
    pub paging: &'a Paging,
    /// Per section (in `Section::ALL` order): how many runs have it.
    pub totals: [usize; sections::COUNT],
    /// Per section: one panel per configuration with ok runs, in order of its newest ok run.
    pub panels: [Vec<Panel<'a>>; sections::COUNT],
    pub site_notes: &'a crate::site::notes::SiteNotes,
}

/// Page `page` of every section: its runs (`window`, newest first) that have the section. The
/// first page counts every run; a shard page depends on its runs and the panels drawn on it
/// only (`context.panels` holds every panel on the first page, only its own on a shard page).
pub(crate) fn build(window: &[&RunOverview], page: Page, context: &SectionContext) -> Vec<SectionPage> {
    Section::ALL
        .par_iter()
        .enumerate()
        .map(|(index, &section)| {
            let (slug, title) = (section.slug(), section.title());
            let href = |run: &RunOverview| paths::run_link("../", &run.id);
            let with: Vec<(&RunOverview, String)> =
                window.iter().filter(|r| section.has(r)).map(|r| (*r, href(r))).collect();
            let first = page == Page::First;
            let total = if first { context.totals[index] } else { with.len() };
            let mut what: Vec<String> = section.scope().iter().map(|s| s.to_string()).collect();
            let mut blocks = Vec::new();
            if first && context.totals[index] == 0 {
                what.push("No run has this section yet.".to_string());
            } else if !first && with.is_empty() {
                what.push("No run of this part has this section.".to_string());
            } else {
                let here: Vec<&Panel> = context.panels[index].iter().filter(|p| p.page == page).collect();
                let csv_href = paths::charts_csv_href(&context.paging.section_path(slug, page));
                let figures = configuration_figures(section, &here, &href, &csv_href);
                let mut intro = vec![format!(
                    "{} {} this section.",
                    if first { count(total, "run") } else { format!("{} of this part", count(total, "run")) },
                    agree(total, "has", "have")
                )];
                // Said only where the page draws charts (numerics has none).
                if !figures.is_empty() {
                    intro.push(CHART_RULE.to_string());
                    intro.push(if first {
                        format!(
                            "This page charts {} of the {} with ok runs in this section.",
                            count(here.len(), "configuration"),
                            count(context.panels[index].len(), "configuration")
                        )
                    } else {
                        format!(
                            "This page charts {}: those whose newest ok run it lists.",
                            count(here.len(), "configuration")
                        )
                    });
                } else if first
                    && here.is_empty()
                    && context.panels[index].iter().any(|p| !section.charts(&[(p.runs[0], String::new())], "").is_empty())
                {
                    let mut pages: Vec<String> =
                        context.panels[index].iter().map(|p| context.paging.page_label(p.page)).collect();
                    pages.dedup();
                    intro.push(format!(
                        "The charts of this section (one panel per configuration, on the page of its newest ok run) are on the pages of {}.",
                        pages.join(", ")
                    ));
                } else if !first && with.iter().any(|(r, _)| !section.charts(&[(*r, String::new())], "").is_empty()) {
                    intro.push(
                        "The charts of this section are drawn once per configuration, on the page that lists its newest ok run: the first page for the newest runs."
                            .to_string(),
                    );
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
                    // The notes about any run of the page, each once.
                    notes: context
                        .site_notes
                        .notes
                        .iter()
                        .filter(|n| with.iter().any(|(r, _)| n.applies(&r.id, &r.configuration)))
                        .map(crate::site::notes::Note::shown)
                        .collect(),
                },
            }
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_slug_met_twice_on_a_page_gets_its_panels_place() {
        let mut taken = std::collections::HashSet::new();
        let prefixes: Vec<String> = [("aa", 0), ("bb", 1), ("aa", 2), ("aa", 3)]
            .iter()
            .map(|(slug, place)| chart_prefix(&mut taken, slug, *place))
            .collect();
        assert_eq!(prefixes, ["cfg-aa-", "cfg-bb-", "cfg-aa-2-", "cfg-aa-3-"]);
    }
}
