//! Output budgets of a run page: however large a run's inputs (within the read limits), its
//! page shows at most `Budget::charts` charts, `tables` tables of at most `rows` rows, `intro`
//! prose lines per block, `samples` cycle dots per chart, and `text` bytes of any one piece of
//! inline text (a table cell, a manifest value, an artifact, a fact). What is cut is named by
//! a warning in the page's diagnostics, so nothing is dropped silently. Pure: view model in,
//! view model and warnings out; uses `site::view` and `site::chart` only.

use crate::site::chart::ChartSpec;
use crate::site::view::{Block, Facts};

/// The most a run page shows of each kind of output.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct Budget {
    /// Charts (each is 4 files: wide and phone SVG, CSV, and its place on the page).
    pub charts: usize,
    /// Tables on the page.
    pub tables: usize,
    /// Rows of one table.
    pub rows: usize,
    /// Prose lines of one block.
    pub intro: usize,
    /// Cycle dots drawn on one chart (above it, the dots are left out; medians and whiskers
    /// stay).
    pub samples: usize,
    /// Bytes of one piece of inline text.
    pub text: usize,
}

impl Budget {
    /// The budget of every run page: far above any real run (the bundled runs use a tenth of
    /// it), far below what a 250 MB output would make (74,388 files before).
    pub(crate) const DEFAULT: Budget =
        Budget { charts: 60, tables: 120, rows: 2000, intro: 200, samples: 10_000, text: 64 << 10 };
}

/// Cuts `blocks` and `facts` to `budget`; one message per kind of cut, saying how much.
pub(crate) fn apply(blocks: &mut [Block], facts: &mut Facts, budget: &Budget) -> Vec<String> {
    let mut messages = Vec::new();
    let (mut charts, mut tables, mut cut_charts, mut cut_tables) = (0usize, 0usize, 0usize, 0usize);
    let mut long_tables = Vec::new();
    let mut long_intros = 0usize;
    let mut texts = 0usize;
    let mut dotless = Vec::new();
    for block in blocks.iter_mut() {
        let keep = budget.charts.saturating_sub(charts).min(block.figures.len());
        cut_charts += block.figures.len() - keep;
        block.figures.truncate(keep);
        charts += keep;
        for figure in &mut block.figures {
            if let Some(dots) = drop_dots(&mut figure.spec, budget.samples) {
                dotless.push(format!("{} ({dots} dots)", figure.spec.title));
            }
        }
        let keep = budget.tables.saturating_sub(tables).min(block.tables.len());
        cut_tables += block.tables.len() - keep;
        block.tables.truncate(keep);
        tables += keep;
        for table in &mut block.tables {
            if table.rows.len() > budget.rows {
                long_tables.push(format!("{} ({} rows)", table.caption, table.rows.len()));
                table.rows.truncate(budget.rows);
            }
            for cell in table.rows.iter_mut().flatten() {
                texts += usize::from(cut_text(&mut cell.text, budget.text));
            }
        }
        if block.intro.len() > budget.intro {
            long_intros += block.intro.len() - budget.intro;
            block.intro.truncate(budget.intro);
        }
        for line in &mut block.intro {
            texts += usize::from(cut_text(line, budget.text));
        }
        for (_, text) in &mut block.pre {
            texts += usize::from(cut_text(text, budget.text));
        }
    }
    for (_, value) in facts.iter_mut() {
        texts += usize::from(cut_text(value, budget.text));
    }
    if cut_charts > 0 {
        messages.push(format!("{cut_charts} more charts not drawn: at most {} per run page", budget.charts));
    }
    if cut_tables > 0 {
        messages.push(format!("{cut_tables} more tables not shown: at most {} per run page", budget.tables));
    }
    if !long_tables.is_empty() {
        let shown = list(&long_tables);
        messages.push(format!("only the first {} rows shown of {shown}", budget.rows));
    }
    if long_intros > 0 {
        messages.push(format!("{long_intros} more lines of text not shown: at most {} per block", budget.intro));
    }
    if !dotless.is_empty() {
        messages.push(format!(
            "cycle dots left out (medians and whiskers drawn), over {} per chart: {}",
            budget.samples,
            list(&dotless)
        ));
    }
    if texts > 0 {
        messages.push(format!("{texts} texts cut at {} KiB each", budget.text >> 10));
    }
    messages
}

/// Leaves out a chart's cycle dots when it has more than `limit` of them (medians and
/// whiskers stay), saying so in its text alternative; how many there were. Also used by the
/// section pages, where one run's many cycles would make every chart of its configuration
/// huge.
pub(crate) fn drop_dots(spec: &mut ChartSpec, limit: usize) -> Option<usize> {
    let dots: usize = spec.series.iter().flat_map(|s| &s.points).map(|p| p.samples.len()).sum();
    if dots <= limit {
        return None;
    }
    spec.series.iter_mut().flat_map(|s| &mut s.points).for_each(|p| p.samples.clear());
    spec.description += &format!(" Its {dots} cycle values are not drawn as dots (at most {limit} per chart).");
    Some(dots)
}

/// The first few items of a list, and how many more.
fn list(items: &[String]) -> String {
    const SHOWN: usize = 3;
    let mut text = items.iter().take(SHOWN).cloned().collect::<Vec<_>>().join("; ");
    if items.len() > SHOWN {
        text += &format!("; and {} more", items.len() - SHOWN);
    }
    text
}

/// Cuts `text` to at most `limit` bytes (at a character boundary), marking the cut; whether
/// it was cut.
fn cut_text(text: &mut String, limit: usize) -> bool {
    if text.len() <= limit {
        return false;
    }
    let mut end = limit;
    while !text.is_char_boundary(end) {
        end -= 1;
    }
    text.truncate(end);
    text.push_str(&format!(" [... cut at {} KiB]", limit >> 10));
    true
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::site::view::{Cell, Table};

    #[test]
    fn every_kind_of_output_is_cut_to_its_budget_and_named() {
        let budget = Budget { charts: 1, tables: 2, rows: 3, intro: 1, samples: 10, text: 1024 };
        let mut table = Table::new("many rows", &[("a", false)]);
        for i in 0..10 {
            table.push(vec![Cell::text(i.to_string())]);
        }
        table.push(vec![Cell::text("x".repeat(5000))]);
        let mut blocks = vec![
            Block { intro: vec!["a".into(), "b".into()], tables: vec![table.clone(); 3], ..Block::default() },
            Block { pre: vec![("artifact".into(), "é".repeat(2000))], ..Block::default() },
        ];
        let mut facts = vec![("manifest".to_string(), "v".repeat(200 << 20 >> 10))];
        let messages = apply(&mut blocks, &mut facts, &budget);
        assert_eq!(blocks[0].tables.len(), 2);
        assert!(blocks[0].tables.iter().all(|t| t.rows.len() == 3));
        assert_eq!(blocks[0].intro, ["a"]);
        assert!(blocks[1].pre[0].1.len() < 1100 && blocks[1].pre[0].1.ends_with("[... cut at 1 KiB]"));
        assert!(facts[0].1.len() < 1100);
        let all = messages.join("\n");
        for expected in [
            "1 more tables not shown: at most 2 per run page",
            "only the first 3 rows shown of many rows (11 rows); many rows (11 rows)",
            "1 more lines of text not shown",
            "2 texts cut at 1 KiB each",
        ] {
            assert!(all.contains(expected), "{expected:?} not in {all}");
        }
        let untouched = apply(&mut blocks, &mut facts, &Budget::DEFAULT);
        assert!(untouched.is_empty(), "{untouched:?}");
    }
}
