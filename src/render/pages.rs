//! askama page structs and their rendering. Templates live in `templates/` and are compiled
//! into the binary; they escape every value (HTML mode) and never format numbers.

use crate::render::markdown;
use crate::site::history_view::HistoryPage;
use crate::site::nav::{self, NavLink, Place};
use crate::site::view::{Block, Evidence, IndexPage, RunPage, SectionPage};
use askama::Template;

const VERSION: &str = env!("CARGO_PKG_VERSION");

#[derive(Template)]
#[template(path = "index.html")]
struct IndexHtml<'a> {
    root: &'a str,
    version: &'a str,
    nav: Vec<NavLink>,
    page: &'a IndexPage,
    notes_html: Option<String>,
}

#[derive(Template)]
#[template(path = "run.html")]
struct RunHtml<'a> {
    root: &'a str,
    version: &'a str,
    nav: Vec<NavLink>,
    page: &'a RunPage,
    notes_html: Vec<(String, String)>,
}

#[derive(Template)]
#[template(path = "section.html")]
struct SectionHtml<'a> {
    root: &'a str,
    version: &'a str,
    nav: Vec<NavLink>,
    page: &'a SectionPage,
    notes_html: Vec<(String, String)>,
}

#[derive(Template)]
#[template(path = "history.html")]
struct HistoryHtml<'a> {
    root: &'a str,
    version: &'a str,
    nav: Vec<NavLink>,
    page: &'a HistoryPage,
}

#[derive(Template)]
#[template(path = "baseline.html")]
struct BaselineHtml<'a> {
    block: &'a Block,
}

#[derive(Template)]
#[template(path = "404.html")]
struct NotFoundHtml<'a> {
    root: &'a str,
    version: &'a str,
    nav: Vec<NavLink>,
}

fn notes(evidence: &Evidence) -> Vec<(String, String)> {
    evidence.notes.iter().map(|(title, md)| (title.clone(), markdown::to_html(md, 3))).collect()
}

fn render(template: &impl Template) -> Vec<u8> {
    template.render().expect("templates only format prepared strings").into_bytes()
}

pub(crate) fn index(page: &IndexPage) -> Vec<u8> {
    render(&IndexHtml {
        root: page.root,
        version: VERSION,
        nav: nav::links(page.root, Place::Index),
        page,
        notes_html: page.notes.as_deref().map(|md| markdown::to_html(md, 2)),
    })
}

pub(crate) fn run(page: &RunPage) -> Vec<u8> {
    let root = "../../";
    render(&RunHtml {
        root,
        version: VERSION,
        nav: nav::links(root, Place::Elsewhere),
        page,
        notes_html: notes(&page.evidence),
    })
}

pub(crate) fn section(page: &SectionPage) -> Vec<u8> {
    let root = "../";
    render(&SectionHtml {
        root,
        version: VERSION,
        nav: nav::links(root, Place::Section(page.slug)),
        page,
        notes_html: notes(&page.evidence),
    })
}

/// A history page (`history/<slug>.html`) or the regressions page (`regressions.html`): its
/// root prefix follows its depth.
pub(crate) fn history(page: &HistoryPage) -> Vec<u8> {
    let root = if page.path.contains('/') { "../" } else { "" };
    let place = if page.path.contains('/') { Place::Elsewhere } else { Place::Regressions };
    render(&HistoryHtml { root, version: VERSION, nav: nav::links(root, place), page })
}

/// The run page's region between these markers holds its comparison with its baseline: it is
/// filled in after every run is summarized (`splice_baseline`). Text from runs is escaped, so
/// the markers cannot occur anywhere else in a page.
const BASELINE_START: &str = "<!-- nccl-report:baseline -->\n";
const BASELINE_END: &str = "<!-- /nccl-report:baseline -->";

/// `page` (a run page) with its comparison region replaced by `block`; `None` when the page
/// has no such region.
pub(crate) fn splice_baseline(page: &[u8], block: &Block) -> Option<Vec<u8>> {
    let text = std::str::from_utf8(page).ok()?;
    let start = text.find(BASELINE_START)? + BASELINE_START.len();
    let end = start + text[start..].find(BASELINE_END)?;
    let region = BaselineHtml { block }.render().expect("templates only format prepared strings");
    Some([&text[..start], region.trim(), "\n", &text[end..]].concat().into_bytes())
}

/// The 404 page: served for any missing URL, at any depth, so its links are absolute under
/// `site_url` (`/` or `/sub/path/`, already checked to need no escaping).
pub(crate) fn not_found(site_url: &str) -> Vec<u8> {
    render(&NotFoundHtml { root: site_url, version: VERSION, nav: nav::links(site_url, Place::Elsewhere) })
}
