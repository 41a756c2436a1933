//! The pages that span every run (the index, the section pages, `data/runs.json`), written a
//! page of runs at a time: each page's digests are read back (`Sources::load`: the digest
//! store, or the run's inputs), rendered, written and dropped. So a build holds one page of
//! digests in memory, whatever the number of runs. Uses `site`, `render` and `write` (through
//! `Staging`).

use crate::analysis::overview::RunOverview;
use crate::analysis::summarize::RunStatus;
use crate::pipeline::write::Staging;
use crate::render;
use crate::site::card::{self, RunCard};
use crate::site::paging::Paging;
use crate::site::section_pages::{Panel, SectionContext, CHART_RUNS};
use crate::site::sections::{self, Section};
use crate::site::{self, runs_json};
use rayon::prelude::*;
use std::collections::HashMap;

/// A configuration's panel while cards are counted: its page, its ok runs, its key text and
/// the ids it draws.
type PanelIds<'a> = (usize, usize, String, Vec<&'a str>);

/// Where the pages' inputs come from.
pub(crate) struct Sources<'a> {
    /// A run's digest, by id.
    pub load: &'a (dyn Fn(&str) -> anyhow::Result<RunOverview> + Sync),
    pub site_notes: &'a crate::site::notes::SiteNotes,
}

/// Writes every page of the cross-run pages.
pub(crate) fn write(
    mut cards: Vec<RunCard>,
    page_size: usize,
    sources: &Sources,
    staging: &Staging,
) -> anyhow::Result<()> {
    card::order(&mut cards);
    let paging = Paging::new(cards.len(), page_size);
    let load = sources.load;

    let mut totals = [0; sections::COUNT];
    // Per section, every configuration with ok runs: the page its newest ok run is on, how
    // many ok runs it has, and the newest of them (up to `CHART_RUNS`) that its panel draws.
    let mut panels: [Vec<PanelIds>; sections::COUNT] = Default::default();
    for (position, card) in cards.iter().enumerate() {
        for (index, &section) in Section::ALL.iter().enumerate() {
            if !card.has(section) {
                continue;
            }
            totals[index] += 1;
            if card.status != RunStatus::Ok {
                continue;
            }
            let page = position / paging.size + 1;
            match panels[index].iter_mut().find(|(_, _, key, _)| *key == card.configuration_key) {
                Some((_, total, _, ids)) => {
                    *total += 1;
                    if ids.len() < CHART_RUNS {
                        ids.push(&card.id);
                    }
                }
                None => panels[index].push((page, 1, card.configuration_key.clone(), vec![&card.id])),
            }
        }
    }
    let mut wanted: Vec<&str> = panels.iter().flatten().flat_map(|(_, _, _, ids)| ids.iter().copied()).collect();
    wanted.sort();
    wanted.dedup();
    let charted_digests: HashMap<&str, RunOverview> =
        wanted.par_iter().map(|id| Ok((*id, load(id)?))).collect::<anyhow::Result<_>>()?;
    let context = SectionContext {
        paging,
        totals,
        panels: panels.map(|list| {
            list.into_iter()
                .map(|(page, ok_runs, _, ids)| Panel {
                    page,
                    ok_runs,
                    runs: ids.iter().map(|id| &charted_digests[id]).collect(),
                })
                .collect()
        }),
        site_notes: sources.site_notes,
    };

    staging.append("data/runs.json", if cards.is_empty() { runs_json::EMPTY } else { runs_json::ARRAY_START })?;
    for page in 1..=paging.pages() {
        let window = &cards[paging.window(page)];
        let digests: Vec<RunOverview> = window.par_iter().map(|card| load(&card.id)).collect::<anyhow::Result<_>>()?;
        let refs: Vec<&RunOverview> = digests.iter().collect();
        let model = site::cross_run(&refs, &cards, page, &context);
        let rendered = render::cross_run_files(&model);
        rendered.par_iter().try_for_each(|file| staging.put(file))?;
        if page > 1 {
            staging.append("data/runs.json", runs_json::BETWEEN_PAGES)?;
        }
        staging.append("data/runs.json", &model.runs_json)?;
    }
    if !cards.is_empty() {
        staging.append("data/runs.json", runs_json::ARRAY_END)?;
    }
    Ok(())
}
