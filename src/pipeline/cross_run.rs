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
use crate::site::section_pages::{SectionContext, MAX_CHART_RUNS};
use crate::site::sections::{self, Section};
use crate::site::{self, runs_json};
use rayon::prelude::*;
use std::collections::HashMap;

/// Where the pages' inputs come from.
pub(crate) struct Sources<'a> {
    /// A run's digest, by id.
    pub load: &'a (dyn Fn(&str) -> anyhow::Result<RunOverview> + Sync),
    pub site_notes: Option<&'a str>,
}

/// Writes every page of the cross-run pages; returns how many files were written.
pub(crate) fn write(
    mut cards: Vec<RunCard>,
    page_size: usize,
    sources: &Sources,
    staging: &Staging,
) -> anyhow::Result<usize> {
    card::order(&mut cards);
    let paging = Paging::new(cards.len(), page_size);
    let load = sources.load;

    let mut totals = [0; sections::COUNT];
    let mut ok_totals = [0; sections::COUNT];
    let mut charted_ids: [Vec<&str>; sections::COUNT] = Default::default();
    for card in &cards {
        for (index, &section) in Section::ALL.iter().enumerate() {
            if card.has(section) {
                totals[index] += 1;
                ok_totals[index] += usize::from(card.status == RunStatus::Ok);
                if card.status == RunStatus::Ok && charted_ids[index].len() < MAX_CHART_RUNS {
                    charted_ids[index].push(&card.id);
                }
            }
        }
    }
    let mut wanted: Vec<&str> = charted_ids.iter().flatten().copied().collect();
    wanted.sort();
    wanted.dedup();
    let charted_digests: HashMap<&str, RunOverview> =
        wanted.par_iter().map(|id| Ok((*id, load(id)?))).collect::<anyhow::Result<_>>()?;
    let context = SectionContext {
        paging,
        totals,
        ok_totals,
        charted: charted_ids.map(|ids| ids.iter().map(|id| &charted_digests[id]).collect()),
        site_notes: sources.site_notes,
    };

    let mut files = 1;
    staging.append("data/runs.json", if cards.is_empty() { runs_json::EMPTY } else { runs_json::ARRAY_START })?;
    for page in 1..=paging.pages() {
        let window = &cards[paging.window(page)];
        let digests: Vec<RunOverview> = window.par_iter().map(|card| load(&card.id)).collect::<anyhow::Result<_>>()?;
        let refs: Vec<&RunOverview> = digests.iter().collect();
        let model = site::cross_run(&refs, &cards, page, &context);
        let rendered = render::cross_run_files(&model);
        rendered.par_iter().try_for_each(|file| staging.put(file))?;
        files += rendered.len();
        if page > 1 {
            staging.append("data/runs.json", runs_json::BETWEEN_PAGES)?;
        }
        staging.append("data/runs.json", &model.runs_json)?;
    }
    if !cards.is_empty() {
        staging.append("data/runs.json", runs_json::ARRAY_END)?;
    }
    Ok(files)
}
