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
    /// Shown folded under its caption (`<details>`), opened by the reader.
    pub folded: bool,
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
            folded: false,
        }
    }

    /// The table folded under its caption.
    pub(crate) fn with_folded(self) -> Self {
        Table { folded: true, ..self }
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

    /// The classes of the `<table>`: `nK` for each numeric column K (from 1) up to
    /// `STYLED_COLUMNS`, right-aligned by `column_rules`.
    pub(crate) fn column_classes(&self) -> String {
        let numeric = self.columns.iter().take(STYLED_COLUMNS).enumerate().filter(|(_, c)| c.numeric);
        numeric.map(|(index, _)| format!("n{}", index + 1)).collect::<Vec<_>>().join(" ")
    }

    /// A card table's labels as the `<table>`'s custom properties, `--lK:'label'` for columns
    /// 2 to `STYLED_COLUMNS` (the first cell heads its card, unlabelled), shown by
    /// `column_rules`; a CSS string, escaped for CSS here and for HTML by the template.
    pub(crate) fn card_labels(&self) -> String {
        let labels = self.columns.iter().enumerate().take(STYLED_COLUMNS).skip(1);
        labels.map(|(index, c)| format!("--l{}:{};", index + 1, css_string(&c.label))).collect()
    }

    /// Whether a cell of column `index` carries its own `data-label` (a card table's column
    /// beyond `STYLED_COLUMNS`).
    pub(crate) fn own_label(&self, index: &usize) -> bool {
        self.cards && *index >= STYLED_COLUMNS
    }

    /// The label of column `index` (a stacked row's `data-label`).
    pub(crate) fn column_label(&self, index: &usize) -> &str {
        self.columns.get(*index).map_or("", |c| c.label.as_str())
    }

    /// The CSS class of a cell in column `index`: its own, and `num` in a numeric column
    /// beyond `STYLED_COLUMNS` (earlier ones are aligned by the table's `nK`).
    pub(crate) fn cell_class(&self, index: &usize, cell: &Cell) -> String {
        let numeric = *index >= STYLED_COLUMNS && self.columns.get(*index).is_some_and(|c| c.numeric);
        match (numeric, cell.class) {
            (true, "") => "num".to_string(),
            (true, extra) => format!("num {extra}"),
            (false, extra) => extra.to_string(),
        }
    }
}

/// Columns whose look a table states once, on its `<table>`, instead of on each of its cells
/// (issue 27's footprint: `class="num"` and `data-label` were a fifth of a site's HTML):
/// numeric column K is the table's class `nK`, a card's label of column K its custom property
/// `--lK`. The stylesheet's rules (`column_rules`) reach this many columns; cells of later
/// columns keep their own `num` class and `data-label`.
pub(crate) const STYLED_COLUMNS: usize = 24;

/// The stylesheet's rules for `STYLED_COLUMNS` columns, appended to `static/style.css`: the
/// same looks as `td.num` (right-aligned tabular numbers; in the run list, wrapping with a
/// minimum width; on a phone's cards, after the status; in print, on one line) and the cards'
/// labels. Each selector's table part sits in `:where()`, so it weighs (0,1,0), just under
/// `td.num`'s (0,1,1): the stylesheet's `.cards td` and `.runs` rules still win where they
/// did.
pub(crate) fn column_rules() -> String {
    let numeric = |prefix: &str| {
        let each = (1..=STYLED_COLUMNS).map(|k| format!("{prefix}:where(.n{k} tbody tr) > :nth-child({k})"));
        each.collect::<Vec<_>>().join(",\n")
    };
    let labels: String = (2..=STYLED_COLUMNS)
        .map(|k| format!("  .cards td:nth-child({k})::before {{ content: var(--l{k}, attr(data-label)); }}\n"))
        .collect();
    format!(
        concat!(
            "/* Generated by src/site/view.rs (column_rules): numeric columns and card labels, ",
            "stated once on each <table>. */\n",
            "{all} {{ text-align: right; font-variant-numeric: tabular-nums; white-space: nowrap; }}\n",
            "{runs} {{ white-space: normal; min-width: 6rem; }}\n",
            "@media (max-width: 600px) {{\n{cards} {{ order: -1; }}\n{labels}}}\n",
            "@media print {{\n{cards} {{ white-space: nowrap; }}\n}}\n"
        ),
        all = numeric(""),
        runs = numeric(".runs "),
        cards = numeric(".cards "),
        labels = labels,
    )
}

/// `text` as a quoted CSS string: backslashes and quotes escaped, control characters as
/// hex escapes.
fn css_string(text: &str) -> String {
    let mut out = String::from("'");
    for c in text.chars() {
        match c {
            '\\' | '\'' => {
                out.push('\\');
                out.push(c);
            }
            c if c.is_control() => out.push_str(&format!("\\{:x} ", u32::from(c))),
            c => out.push(c),
        }
    }
    out.push('\'');
    out
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

/// One page of runs of the pages that span every run, ready to render.
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct CrossRunModel {
    /// Where the index page is written, from the site root.
    pub index_path: String,
    pub index: IndexPage,
    pub sections: Vec<SectionPage>,
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_table_states_its_numeric_columns_and_card_labels_once() {
        let columns: Vec<(String, bool)> = (1..=26).map(|k| (format!("c{k}"), k % 2 == 0)).collect();
        let columns: Vec<(&str, bool)> = columns.iter().map(|(l, n)| (l.as_str(), *n)).collect();
        let table = Table::new("t", &columns).with_cards();
        let classes = table.column_classes();
        assert!(classes.starts_with("n2 n4 n6 ") && classes.ends_with(" n22 n24"), "{classes}");
        let labels = table.card_labels();
        assert!(labels.starts_with("--l2:'c2';--l3:'c3';") && labels.ends_with("--l24:'c24';"), "{labels}");
        // Beyond the stylesheet's columns, the cells say it themselves.
        let cell = Cell::text("1");
        assert_eq!((table.cell_class(&23, &cell), table.cell_class(&25, &cell)), (String::new(), "num".to_string()));
        assert!(!table.own_label(&23) && table.own_label(&24));
        assert!(!Table::new("t", &columns).own_label(&24), "no labels outside cards");
        let rules = column_rules();
        assert!(rules.contains(":where(.n24 tbody tr) > :nth-child(24)") && !rules.contains(".n25"));
        assert!(rules.contains("content: var(--l24, attr(data-label))") && !rules.contains("--l1,"));
    }

    #[test]
    fn labels_are_quoted_css_strings() {
        assert_eq!(css_string("a'b\\c\nd"), "'a\\'b\\\\c\\a d'");
    }
}
