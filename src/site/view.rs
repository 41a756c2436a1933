//! View types handed to the templates: everything already formatted as text, every URL
//! relative. Templates only lay these out (and escape them).

use crate::site::chart::ChartSpec;

#[derive(Debug, Clone, Default, PartialEq)]
pub(crate) struct Table {
    pub caption: String,
    pub columns: Vec<Column>,
    pub rows: Vec<Vec<Cell>>,
    /// The first cell of each row names the row (a run, a key, a file): `<th scope="row">`.
    pub row_headers: bool,
    /// On a phone, one card per row (cells labelled from their column), first cell on top.
    pub cards: bool,
    /// An extra class of the table's wrapper (`runs`: the run list's wrapping rules), or empty.
    pub class: &'static str,
}

#[derive(Debug, Clone, PartialEq)]
pub(crate) struct Column {
    pub label: String,
    /// Numbers are right-aligned.
    pub numeric: bool,
}

#[derive(Debug, Clone, Default, PartialEq)]
pub(crate) struct Cell {
    pub text: String,
    pub href: Option<String>,
    /// Extra CSS class: `ok`, `failed`, `invalid`, `warning`, a verdict's (`verdict_look`), or
    /// empty.
    pub class: &'static str,
}

impl Table {
    pub(crate) fn new(caption: impl Into<String>, columns: &[(&str, bool)]) -> Self {
        Table {
            caption: caption.into(),
            columns: columns
                .iter()
                .map(|(label, numeric)| Column { label: label.to_string(), numeric: *numeric })
                .collect(),
            rows: Vec::new(),
            row_headers: false,
            cards: false,
            class: "",
        }
    }

    /// The table shown as one card per row on a phone.
    pub(crate) fn with_cards(self) -> Self {
        Table { cards: true, ..self }
    }

    /// The table with an extra wrapper class.
    pub(crate) fn with_class(self, class: &'static str) -> Self {
        Table { class, ..self }
    }

    /// The table with its first column as the rows' headers.
    pub(crate) fn with_row_headers(self) -> Self {
        Table { row_headers: true, ..self }
    }

    pub(crate) fn push(&mut self, row: Vec<Cell>) {
        self.rows.push(row);
    }

    /// The label of column `index` (a stacked row's `data-label`).
    pub(crate) fn column_label(&self, index: &usize) -> &str {
        self.columns.get(*index).map_or("", |c| c.label.as_str())
    }

    /// The CSS class of a cell in column `index`.
    pub(crate) fn cell_class(&self, index: &usize, cell: &Cell) -> String {
        let numeric = self.columns.get(*index).is_some_and(|c| c.numeric);
        match (numeric, cell.class) {
            (true, "") => "num".to_string(),
            (true, extra) => format!("num {extra}"),
            (false, extra) => extra.to_string(),
        }
    }
}

impl Cell {
    pub(crate) fn text(text: impl Into<String>) -> Self {
        Cell { text: text.into(), ..Cell::default() }
    }
    pub(crate) fn link(text: impl Into<String>, href: impl Into<String>) -> Self {
        Cell { text: text.into(), href: Some(href.into()), class: "" }
    }
    pub(crate) fn status(text: &'static str) -> Self {
        Cell { text: text.to_string(), href: None, class: text }
    }
}

/// A chart placed on a page: its spec, and where its files go relative to the page.
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct Figure {
    pub spec: ChartSpec,
    /// Folder of the chart files relative to the site root, e.g. `runs/x/charts`.
    pub dir: String,
    /// `<id>.svg` / `<id>.csv` relative to the page.
    pub svg_href: String,
    pub csv_href: String,
}

impl Figure {
    /// The image's text alternative: the chart's trend from its data (the caption beside it
    /// says how to read it).
    pub(crate) fn alt(&self) -> String {
        crate::site::alt_text::alt_text(&self.spec)
    }
}

/// A titled block of a page: prose lines, tables and figures.
#[derive(Debug, Clone, Default, PartialEq)]
pub(crate) struct Block {
    pub id: String,
    pub title: String,
    pub intro: Vec<String>,
    pub tables: Vec<Table>,
    pub figures: Vec<Figure>,
    /// Preformatted text (commands, artifacts), each with a caption.
    pub pre: Vec<(String, String)>,
}

/// Key/value facts shown as a definition list.
pub(crate) type Facts = Vec<(String, String)>;

/// The evidence boundary: generated statements plus the runs' own notes.
#[derive(Debug, Clone, Default, PartialEq)]
pub(crate) struct Evidence {
    pub statements: Vec<String>,
    /// (title, markdown) from `runs/<id>/NOTES.md` and `runs/NOTES.md`: untrusted, rendered
    /// and sanitized by `render::markdown`.
    pub notes: Vec<(String, String)>,
}

#[derive(Debug, Clone, PartialEq)]
pub(crate) struct Link {
    pub text: String,
    pub href: String,
}

/// Links to the pages of a paged cross-run page (absent when there is one page).
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct Pager {
    /// `Runs of 2026-04, part 2: 100 runs, newest first.`
    pub label: String,
    /// The pages it links (the first page: every shard), with whether it is this one.
    pub pages: Vec<(Link, bool)>,
}

/// One line of the index's "needs attention" list: `2 runs with slower cases: a, b`.
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct Attention {
    /// The verdict's or status's CSS class (`verdict_look`).
    pub class: &'static str,
    pub text: String,
    /// The first runs concerned, newest first, and how many more there are.
    pub runs: Vec<Link>,
    pub more: usize,
}

#[derive(Debug, Clone, PartialEq)]
pub(crate) struct IndexPage {
    /// `""` on `index.html`, `"../"` on `pages/<shard>.html`.
    pub root: &'static str,
    pub pager: Option<Pager>,
    pub runs: Table,
    pub sections: Vec<Link>,
    pub counts: String,
    /// What needs attention (slower runs, failed runs, warnings), worst first; empty when
    /// nothing does.
    pub attention: Vec<Attention>,
    /// Site-wide `runs/NOTES.md` (markdown).
    pub notes: Option<String>,
}

#[derive(Debug, Clone, PartialEq)]
pub(crate) struct RunPage {
    pub id: String,
    pub status: &'static str,
    pub facts: Facts,
    pub blocks: Vec<Block>,
    pub evidence: Evidence,
    pub downloads: Vec<Link>,
}

#[derive(Debug, Clone, PartialEq)]
pub(crate) struct SectionPage {
    /// Where the page is written, from the site root.
    pub path: String,
    /// The section's slug (its place in the top navigation).
    pub slug: &'static str,
    pub title: String,
    pub pager: Option<Pager>,
    pub what: Vec<String>,
    pub blocks: Vec<Block>,
    pub evidence: Evidence,
}

/// A run compared with its baseline, every case (`compare/<base>..<cand>.html`).
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct ComparePage {
    /// Where the page is written, from the site root.
    pub path: String,
    pub title: String,
    /// ("base" | "candidate", link to the run's page).
    pub runs: Vec<(String, Link)>,
    pub block: Block,
}

/// One page of runs of the pages that span every run, ready to render.
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct CrossRunModel {
    /// Where the index page is written, from the site root.
    pub index_path: String,
    pub index: IndexPage,
    pub sections: Vec<SectionPage>,
}
