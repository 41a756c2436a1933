//! Rendering: askama page templates, markdown and charts -> bytes. Knows `site` only.

pub(crate) mod charts;
pub(crate) mod escape;
pub(crate) mod markdown;
pub(crate) mod pages;

use crate::site::paths;
use crate::site::view::{Block, CrossRunModel, RunPage};
use rayon::prelude::*;

/// One file of the site: a `/`-separated path relative to the site root, and its bytes.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct OutputFile {
    pub path: String,
    pub bytes: Vec<u8>,
}

impl OutputFile {
    pub(crate) fn new(path: impl Into<String>, bytes: impl Into<Vec<u8>>) -> Self {
        OutputFile { path: path.into(), bytes: bytes.into() }
    }
}

/// The stylesheet, embedded in the binary (the site's copy ends with
/// `site::view::column_rules`).
pub(crate) const STYLE_CSS: &str = include_str!("../../static/style.css");
/// The optional table sorting and filtering script (pages are complete without it).
pub(crate) const TABLE_JS: &str = include_str!("../../static/table.js");

/// Files that do not depend on the runs; 404.html links absolutely under `site_url`.
pub(crate) fn static_files(site_url: &str) -> Vec<OutputFile> {
    vec![
        OutputFile::new("404.html", pages::not_found(site_url)),
        OutputFile::new(".nojekyll", Vec::new()),
        OutputFile::new("static/style.css", format!("{STYLE_CSS}{}", crate::site::view::column_rules())),
        OutputFile::new("static/table.js", TABLE_JS),
    ]
}

/// A run's page and its charts (site-relative paths).
pub(crate) fn run_files(page: &RunPage) -> Vec<OutputFile> {
    let path = paths::run_file(&page.id, "index.html");
    let mut out = figure_files(&page.blocks, &path);
    out.insert(0, OutputFile::new(path, pages::run(page)));
    out
}

/// One page of the index and of the section pages, with their charts (`runs.json` is
/// written apart, by `pipeline::cross_run`).
pub(crate) fn cross_run_files(model: &CrossRunModel) -> Vec<OutputFile> {
    let mut out = vec![OutputFile::new(model.index_path.clone(), pages::index(&model.index))];
    let sections: Vec<Vec<OutputFile>> = model
        .sections
        .par_iter()
        .map(|page| {
            let mut files = vec![OutputFile::new(page.path.clone(), pages::section(page))];
            files.extend(figure_files(&page.blocks, &page.path));
            files
        })
        .collect();
    out.extend(sections.into_iter().flatten());
    out
}

/// A history page or the regressions page, with its charts.
pub(crate) fn history_files(page: &crate::site::history_view::HistoryPage) -> Vec<OutputFile> {
    // The page beside its charts: a configuration's page is rendered alone when a run is added.
    let (html, figures) = rayon::join(|| pages::history(page), || figure_files(&page.blocks, &page.path));
    let mut out = vec![OutputFile::new(page.path.clone(), html)];
    out.extend(figures);
    out
}

/// The SVG of every chart of the page at `page` (a site path), and one CSV of all their data
/// (`paths::charts_csv`), when it has charts. The charts and the CSV are made in parallel: a
/// history or section page can hold many charts of thousands of points, and is rendered alone.
fn figure_files(blocks: &[Block], page: &str) -> Vec<OutputFile> {
    let figures: Vec<&crate::site::view::Figure> = blocks.iter().flat_map(|block| &block.figures).collect();
    if figures.is_empty() {
        return Vec::new();
    }
    let (mut out, csv) = rayon::join(
        || -> Vec<OutputFile> {
            figures
                .par_iter()
                .map(|f| OutputFile::new(format!("{}/{}.svg", f.dir, f.spec.id), charts::render_svg(&f.spec)))
                .collect()
        },
        || {
            let specs: Vec<&crate::site::chart::ChartSpec> = figures.iter().map(|f| &f.spec).collect();
            charts::render_csv(&specs)
        },
    );
    out.push(OutputFile::new(paths::charts_csv(page), csv));
    out
}
