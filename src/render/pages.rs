//! askama page structs and their rendering. Templates live in `templates/` and are compiled
//! into the binary; they escape every value (HTML mode) and never format numbers.

use crate::render::markdown;
use crate::site::view::{Evidence, IndexPage, RunPage, SectionPage};
use askama::Template;

const VERSION: &str = env!("CARGO_PKG_VERSION");

#[derive(Template)]
#[template(path = "index.html")]
struct IndexHtml<'a> {
    root: &'a str,
    version: &'a str,
    page: &'a IndexPage,
    notes_html: Option<String>,
}

#[derive(Template)]
#[template(path = "run.html")]
struct RunHtml<'a> {
    root: &'a str,
    version: &'a str,
    page: &'a RunPage,
    notes_html: Vec<(String, String)>,
}

#[derive(Template)]
#[template(path = "section.html")]
struct SectionHtml<'a> {
    root: &'a str,
    version: &'a str,
    page: &'a SectionPage,
    notes_html: Vec<(String, String)>,
}

#[derive(Template)]
#[template(path = "404.html")]
struct NotFoundHtml<'a> {
    root: &'a str,
    version: &'a str,
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
        page,
        notes_html: page.notes.as_deref().map(|md| markdown::to_html(md, 2)),
    })
}

pub(crate) fn run(page: &RunPage) -> Vec<u8> {
    render(&RunHtml { root: "../../", version: VERSION, page, notes_html: notes(&page.evidence) })
}

pub(crate) fn section(page: &SectionPage) -> Vec<u8> {
    render(&SectionHtml { root: "../", version: VERSION, page, notes_html: notes(&page.evidence) })
}

pub(crate) fn not_found() -> Vec<u8> {
    render(&NotFoundHtml { root: "", version: VERSION })
}
