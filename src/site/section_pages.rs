//! Cross-run section pages: the same cases side by side for every run that has the section,
//! one table and overlaid charts (the newest runs, capped so charts stay readable).

use crate::site::digest::RunDigest;
use crate::site::evidence::section_scope;
use crate::site::format::url_segment;
use crate::site::index_page::order;
use crate::site::sections::{self, SECTIONS};
use crate::site::view::{Block, Evidence, Figure, SectionPage};
use rayon::prelude::*;

/// How many runs a cross-run chart overlays (the newest); tables list every run.
pub const MAX_CHART_RUNS: usize = 8;

pub fn build(runs: &[RunDigest], site_notes: Option<&str>) -> Vec<SectionPage> {
    let ordered = order(runs);
    SECTIONS
        .par_iter()
        .map(|(slug, title)| {
            let with: Vec<(&RunDigest, String)> = ordered
                .iter()
                .filter(|r| sections::has(r, slug))
                .map(|r| (*r, format!("../runs/{}/index.html", url_segment(&r.id))))
                .collect();
            let mut what: Vec<String> = section_scope(slug).iter().map(|s| s.to_string()).collect();
            let mut blocks = Vec::new();
            if with.is_empty() {
                what.push("No run has this section yet.".to_string());
            } else {
                let charted = &with[..with.len().min(MAX_CHART_RUNS)];
                let figures = sections::charts(charted, slug, "")
                    .into_iter()
                    .map(|spec| Figure {
                        svg_href: format!("charts/{}.svg", spec.id),
                        csv_href: format!("charts/{}.csv", spec.id),
                        dir: "sections/charts".into(),
                        spec,
                    })
                    .collect();
                let mut intro = vec![format!("{} run(s) have this section.", with.len())];
                if with.len() > MAX_CHART_RUNS {
                    intro.push(format!("Charts overlay the {MAX_CHART_RUNS} newest; the table lists all."));
                }
                blocks.push(Block {
                    id: "runs".into(),
                    title: "Across runs".into(),
                    intro,
                    tables: vec![sections::table(&with, slug)],
                    figures,
                    pre: Vec::new(),
                });
            }
            let statements = with
                .iter()
                .map(|(run, _)| {
                    let f = &run.facts;
                    format!(
                        "{}: {}, {}, NCCL {}, {} cycles.",
                        run.id,
                        f.gpu.as_deref().unwrap_or("GPU not recorded"),
                        f.topology.as_deref().unwrap_or("topology not recorded"),
                        f.nccl_version.as_deref().unwrap_or("not recorded"),
                        f.cycles.as_deref().unwrap_or("?")
                    )
                })
                .collect();
            SectionPage {
                slug: slug.to_string(),
                title: title.to_string(),
                what,
                blocks,
                evidence: Evidence {
                    statements,
                    notes: site_notes
                        .map(|n| vec![("All runs (runs/NOTES.md)".to_string(), n.to_string())])
                        .unwrap_or_default(),
                },
            }
        })
        .collect()
}
