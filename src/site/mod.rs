//! The site's view model: pages, tables, chart specs, formatted numbers and relative URLs,
//! built from run summaries. Knows summaries, not askama or plotters.
//!
//! Run pages are built one run at a time (`run_page`), from the full summary; the index and
//! the section pages are built from the runs' small `RunOverview`s, a page of runs at a time
//! (`cross_run`).

pub(crate) mod alt_text;
pub(crate) mod baseline_view;
pub(crate) mod budget;
pub(crate) mod card;
pub(crate) mod chart;
pub(crate) mod evidence;
pub(crate) mod history_view;
pub(crate) mod host_views;
pub(crate) mod hosts_block;
pub(crate) mod index_page;
pub(crate) mod inspector_block;
pub(crate) mod nav;
pub(crate) mod nccl_perf_block;
pub(crate) mod notes;
pub(crate) mod paging;
pub(crate) mod paths;
pub(crate) mod run_comparison;
pub(crate) mod run_page;
pub(crate) mod runs_json;
pub(crate) mod section_pages;
pub(crate) mod sections;
pub(crate) mod spread;
pub(crate) mod verdict_look;
pub(crate) mod view;

use crate::analysis::overview::RunOverview;
use card::RunCard;
use paging::Page;
use section_pages::SectionContext;
use view::CrossRunModel;

/// Page `page` of the cross-run pages: the index and every section page of `window` (that
/// page's runs, newest first, and their cards: verdicts and, on the first page, the counts
/// of every run in `all`).
pub(crate) fn cross_run(
    window: &[&RunOverview],
    cards: &[RunCard],
    all: &[RunCard],
    page: Page,
    context: &SectionContext,
) -> CrossRunModel {
    let (index, sections) = rayon::join(
        || index_page::build(window, cards, all, context.paging, page, context.site_notes.for_all().as_deref()),
        || section_pages::build(window, page, context),
    );
    CrossRunModel { index_path: context.paging.index_path(page), index, sections }
}
