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

/// What the build keeps in memory of every run until the cross-run pages are written: what
/// orders them, the index's counts, and which sections the run has (for the charts).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub(crate) struct RunCard {
    pub id: String,
    pub timestamp_utc: Option<String>,
    pub status: RunStatus,
    /// Bit i: the run has section `Section::ALL[i]` (the cache stores this mask).
    pub sections: u8,
    /// The configuration's full key text and its label (baselines are chosen by them).
    pub configuration_key: String,
    pub configuration: String,
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
    Compared(VerdictCounts),
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
            configuration_key: ConfigKey::from_parts(&run.configuration_key, &[]).text(),
            configuration: run.configuration.clone(),
            baseline: BaselineVerdict::Pending,
            warnings: run.diagnostics.iter().filter(|d| d.severity == Severity::Warning).count(),
            reason: (run.status != RunStatus::Ok)
                .then(|| run.diagnostics.iter().max_by_key(|d| d.severity).map(one_line))
                .flatten(),
        }
    }

    pub(crate) fn has(&self, section: Section) -> bool {
        self.sections & 1 << section.index() != 0
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
