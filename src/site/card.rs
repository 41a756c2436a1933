//! The little the build keeps of every run in memory (`RunCard`: what orders runs, the index's
//! counts, which sections a run has, its verdict against its baseline), so that memory is
//! bounded by the page size and not by the number of runs (the rest of a run is its
//! `analysis::overview::RunOverview`, read back a page at a time).

use crate::analysis::comparison::key::ConfigKey;
use crate::analysis::overview::RunOverview;
use crate::analysis::summarize::RunStatus;
use crate::core::diag::{Diagnostic, Severity};
use crate::site::sections::Section;
use serde::{Deserialize, Serialize};
use std::collections::HashSet;
use std::sync::Arc;

/// What the build keeps in memory of every run until the cross-run pages are written: what
/// orders them, the index's counts, and which sections the run has (for the charts).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub(crate) struct RunCard {
    pub id: String,
    pub timestamp_utc: Option<String>,
    pub status: RunStatus,
    /// Bit i: the run has section `Section::ALL[i]` (the cache stores this mask).
    pub sections: u8,
    /// The configuration's full key text and its label (baselines are chosen by them), shared
    /// by the cards of one configuration (`intern`: a key is ~0.5 KB, issue 27's memory).
    pub configuration_key: Arc<str>,
    pub configuration: Arc<str>,
    /// The comparison with the run's baseline (set by the build's comparison stage).
    pub baseline: BaselineVerdict,
    /// How many warnings the run's diagnostics hold (a run with warnings is not a plain ok).
    pub warnings: usize,
    /// Why a failed or invalid run is so: its worst diagnostic, on one line.
    pub reason: Option<String>,
}

/// A run's comparison with its baseline, as the index shows it.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub(crate) enum BaselineVerdict {
    /// Not yet compared (only between the per-run and the comparison stages of a build).
    Pending,
    /// Boxed: most of a build holds cards still `Pending` (issue 27's memory).
    Compared(Box<VerdictCounts>),
    /// Not compared, and why.
    NotCompared(String),
}

/// How many cases got each verdict against `baseline` and its history
/// (`(Verdict::as_str(), count)`, worst first, verdicts without cases left out), and the
/// run-wide shifts beyond the noise (sentences; `regression` when a case or a family is
/// slower).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub(crate) struct VerdictCounts {
    pub baseline: String,
    pub counts: Vec<(String, usize)>,
    pub shifts: Vec<String>,
    pub regression: bool,
    /// The slower cases: (case key, cost against the history's median).
    pub slower_cases: Vec<(String, f64)>,
}

impl VerdictCounts {
    /// How many cases got `verdict`.
    pub(crate) fn of(&self, verdict: &str) -> usize {
        self.counts.iter().find(|(v, _)| v == verdict).map_or(0, |(_, n)| *n)
    }
}

impl RunCard {
    pub(crate) fn of(run: &RunOverview) -> RunCard {
        let sections = Section::ALL.iter().filter(|s| s.has(run)).fold(0u8, |bits, s| bits | 1 << s.index());
        RunCard {
            id: run.id.clone(),
            timestamp_utc: run.facts.timestamp_utc.clone(),
            status: run.status,
            sections,
            configuration_key: ConfigKey::from_parts(&run.configuration_key, &[]).text().into(),
            configuration: run.configuration.as_str().into(),
            baseline: BaselineVerdict::Pending,
            warnings: run.diagnostics.iter().filter(|d| d.severity == Severity::Warning).count(),
            reason: (run.status != RunStatus::Ok).then(|| Diagnostic::worst(&run.diagnostics).map(one_line)).flatten(),
        }
    }

    pub(crate) fn has(&self, section: Section) -> bool {
        self.sections & 1 << section.index() != 0
    }
}

/// Shares equal configuration keys and labels between `cards` (each card read from the cache
/// holds its own copy).
pub(crate) fn intern<'a>(cards: impl Iterator<Item = &'a mut RunCard>) {
    let mut seen: HashSet<Arc<str>> = HashSet::new();
    let mut share = |text: &mut Arc<str>| match seen.get(text) {
        Some(shared) => *text = Arc::clone(shared),
        None => {
            seen.insert(Arc::clone(text));
        }
    };
    for card in cards {
        share(&mut card.configuration_key);
        share(&mut card.configuration);
    }
}

/// A diagnostic as one line of at most 160 characters (`file:line: message`).
fn one_line(d: &Diagnostic) -> String {
    let text = match d.line {
        Some(line) => format!("{}:{line}: {}", d.file, d.message),
        None => format!("{}: {}", d.file, d.message),
    };
    crate::core::format::ellipsis(&text.split_whitespace().collect::<Vec<_>>().join(" "), 159)
}

/// Newest first (by the manifest's timestamp as an instant: offsets count), then by id; runs
/// without a date last.
pub(crate) fn order(cards: &mut [RunCard]) {
    cards.sort_by_cached_key(|card| {
        let time = card.timestamp_utc.as_deref().map(|t| (crate::core::calendar::iso_seconds(t), t.to_string()));
        (time.is_none(), std::cmp::Reverse(time), card.id.clone())
    });
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn cards_of_one_configuration_share_its_key() {
        let card = |id: &str, key: &str| RunCard {
            id: id.into(),
            timestamp_utc: None,
            status: RunStatus::Ok,
            sections: 0,
            configuration_key: key.into(),
            configuration: format!("label {key}").into(),
            baseline: BaselineVerdict::Pending,
            warnings: 0,
            reason: None,
        };
        let mut cards = [card("a", "k1"), card("b", "k2"), card("c", "k1")];
        assert!(!Arc::ptr_eq(&cards[0].configuration_key, &cards[2].configuration_key));
        intern(cards.iter_mut());
        assert!(Arc::ptr_eq(&cards[0].configuration_key, &cards[2].configuration_key));
        assert!(Arc::ptr_eq(&cards[0].configuration, &cards[2].configuration));
        assert!(!Arc::ptr_eq(&cards[0].configuration_key, &cards[1].configuration_key));
        assert_eq!((&*cards[2].configuration_key, &*cards[1].configuration_key), ("k1", "k2"));
    }
}
