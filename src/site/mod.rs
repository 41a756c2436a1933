//! The site's view model: pages, tables, chart specs, formatted numbers and relative URLs,
//! built from run summaries. Knows summaries, not askama or plotters.

pub mod chart;
pub mod evidence;
pub mod format;
pub mod index_page;
pub mod run_page;
pub mod runs_json;
pub mod section_pages;
pub mod sections;
pub mod spread;
pub mod view;

use crate::summarize::RunSummary;
use view::SiteModel;

/// A summarized run and its seed-format files.
pub struct BuiltRun {
    pub summary: RunSummary,
    pub seed_files: Vec<(&'static str, Vec<u8>)>,
}

pub fn build(runs: Vec<BuiltRun>, site_notes: Option<&str>) -> SiteModel {
    let names: Vec<Vec<&str>> = runs.iter().map(|r| r.seed_files.iter().map(|(n, _)| *n).collect()).collect();
    let summaries: Vec<RunSummary> = runs.iter().map(|r| r.summary.clone()).collect();
    let run_pages = runs
        .iter()
        .zip(&names)
        .map(|(run, files)| run_page::build(&run.summary, files, site_notes))
        .collect();
    let data_files = runs
        .into_iter()
        .flat_map(|run| {
            let id = run.summary.raw.id.clone();
            run.seed_files.into_iter().map(move |(name, bytes)| (format!("runs/{id}/{name}"), bytes))
        })
        .collect();
    SiteModel {
        index: index_page::build(&summaries, site_notes),
        runs: run_pages,
        sections: section_pages::build(&summaries, site_notes),
        runs_json: runs_json::render(&summaries, &names),
        data_files,
    }
}
