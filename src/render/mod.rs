//! Rendering: askama page templates, markdown and charts -> bytes. Knows `site` only.

pub mod charts;
pub mod markdown;
pub mod pages;

use crate::site::view::{Figure, SiteModel};
use crate::write::OutputFile;
use rayon::prelude::*;

/// The stylesheet, embedded in the binary.
pub const STYLE_CSS: &str = include_str!("../../static/style.css");

/// Every file of the site, in a fixed order (pages and charts rendered in parallel).
pub fn render_site(model: &SiteModel) -> Vec<OutputFile> {
    let mut files = vec![
        OutputFile::new("index.html", pages::index(&model.index)),
        OutputFile::new("404.html", pages::not_found()),
        OutputFile::new(".nojekyll", Vec::new()),
        OutputFile::new("static/style.css", STYLE_CSS),
        OutputFile::new("data/runs.json", model.runs_json.clone()),
    ];
    let run_files: Vec<Vec<OutputFile>> = model
        .runs
        .par_iter()
        .map(|page| {
            let mut out = vec![OutputFile::new(format!("runs/{}/index.html", page.id), pages::run(page))];
            for block in &page.blocks {
                out.extend(block.figures.iter().flat_map(figure_files));
            }
            out
        })
        .collect();
    files.extend(run_files.into_iter().flatten());
    let section_files: Vec<Vec<OutputFile>> = model
        .sections
        .par_iter()
        .map(|page| {
            let mut out = vec![OutputFile::new(format!("sections/{}.html", page.slug), pages::section(page))];
            for block in &page.blocks {
                out.extend(block.figures.iter().flat_map(figure_files));
            }
            out
        })
        .collect();
    files.extend(section_files.into_iter().flatten());
    files.extend(model.data_files.iter().map(|(path, bytes)| OutputFile::new(path.clone(), bytes.clone())));
    files
}

fn figure_files(figure: &Figure) -> [OutputFile; 2] {
    let stem = format!("{}/{}", figure.dir, figure.spec.id);
    [
        OutputFile::new(format!("{stem}.svg"), charts::render_svg(&figure.spec)),
        OutputFile::new(format!("{stem}.csv"), charts::render_csv(&figure.spec)),
    ]
}
