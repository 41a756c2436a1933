//! The site's view model: pages, tables, chart specs, formatted numbers and relative URLs,
//! built from run summaries. Knows summaries, not askama or plotters.
//!
//! Run pages are built one run at a time (`run_page`), from the full summary; the index and
//! the section pages are built from every run's small `RunDigest` (`cross_run`).

pub mod chart;
pub mod digest;
pub mod evidence;
pub mod format;
pub mod index_page;
pub mod run_page;
pub mod runs_json;
pub mod section_pages;
pub mod sections;
pub mod spread;
pub mod view;

use digest::RunDigest;
use view::CrossRunModel;

pub fn cross_run(digests: &[RunDigest], site_notes: Option<&str>) -> CrossRunModel {
    let (index, (sections, runs_json)) = rayon::join(
        || index_page::build(digests, site_notes),
        || rayon::join(|| section_pages::build(digests, site_notes), || runs_json::render(digests)),
    );
    CrossRunModel { index, sections, runs_json }
}
