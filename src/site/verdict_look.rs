//! How the site shows a comparison verdict, in one place: its CSS class (the regression colour
//! for `slower`, the improvement colour for `faster`), a text marker so that no verdict is told
//! by colour alone, its words, and its rank for "worst first" ordering. Keyed by
//! `Verdict::as_str()`, so a new verdict is one arm here. Uses the site's view types only.

use crate::site::view::Cell;

/// What a verdict looks like on every page (index, run page, history pages).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct Look {
    /// CSS class of the cell: `regression`, `improvement`, `na` or empty.
    pub class: &'static str,
    /// A symbol before the words (`▲` slower, `▼` faster), never colour alone.
    pub marker: &'static str,
    /// The verdict in words, as a table cell shows it.
    pub words: &'static str,
    /// 0 is the worst: tables list cases worst first.
    pub rank: u8,
}

/// The look of verdict `verdict` (a `Verdict::as_str()` value); an unknown one is ranked
/// after every known one.
pub(crate) fn look(verdict: &str) -> Look {
    let (class, marker, words, rank) = match verdict {
        "slower" => ("regression", "▲", "slower", 0),
        "faster" => ("improvement", "▼", "faster", 1),
        "insufficient_history" => ("na", "…", "insufficient history", 2),
        "too_few_cycles" => ("na", "…", "too few cycles", 2),
        "not_comparable" => ("na", "≠", "not comparable", 3),
        "no_change" => ("", "=", "no change", 4),
        _ => ("", "?", "other verdict", 5),
    };
    Look { class, marker, words, rank }
}

impl Look {
    /// `▲ slower`: the marker and the words.
    pub(crate) fn label(&self) -> String {
        format!("{} {}", self.marker, self.words)
    }

    /// A table cell showing the verdict.
    pub(crate) fn cell(&self) -> Cell {
        Cell { text: self.label(), href: None, class: self.class }
    }
}

/// The class and marker of a run that has `slower` cases (index: regression), `faster` ones
/// only (improvement), or neither.
pub(crate) fn run_look(slower: usize, faster: usize) -> Option<Look> {
    match (slower, faster) {
        (0, 0) => None,
        (0, _) => Some(look("faster")),
        _ => Some(look("slower")),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn slower_is_the_regression_colour_with_a_marker_and_ranks_first() {
        let slower = look("slower");
        assert_eq!((slower.class, slower.label().as_str()), ("regression", "▲ slower"));
        assert_eq!(look("faster").class, "improvement");
        let verdicts = ["no_change", "not_comparable", "too_few_cycles", "faster", "slower", "insufficient_history"];
        let mut sorted = verdicts;
        sorted.sort_by_key(|v| look(v).rank);
        assert_eq!(sorted[0], "slower");
        assert_eq!(sorted[1], "faster");
        assert_eq!(sorted[5], "no_change");
        assert!(verdicts.iter().all(|v| !look(v).marker.is_empty()));
        assert_eq!(look("new_kind").words, "other verdict");
        assert_eq!(run_look(2, 1), Some(slower));
        assert_eq!(run_look(0, 1).map(|l| l.class), Some("improvement"));
        assert_eq!(run_look(0, 0), None);
    }
}
