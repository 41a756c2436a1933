//! The little the build keeps of every run in memory (`RunCard`: what orders runs, the index's
//! counts, which sections a run has, its verdict against its baseline), so that memory is
//! bounded by the page size and not by the number of runs (the rest of a run is its
//! `analysis::overview::RunOverview`, read back a page at a time).

use crate::analysis::comparison::key::ConfigKey;
use crate::analysis::overview::RunOverview;
use crate::analysis::summarize::RunStatus;
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

/// How many cases got each verdict against `baseline` and its history, and the run-wide
/// shifts beyond the noise (sentences; `regression` when a case or a family is slower).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub(crate) struct VerdictCounts {
    pub baseline: String,
    pub slower: usize,
    pub faster: usize,
    pub no_change: usize,
    pub not_comparable: usize,
    pub insufficient_history: usize,
    pub shifts: Vec<String>,
    pub regression: bool,
    /// The slower cases: (case key, cost against the history's median).
    pub slower_cases: Vec<(String, f64)>,
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
        }
    }

    pub(crate) fn has(&self, section: Section) -> bool {
        self.sections & 1 << section.index() != 0
    }
}

/// Newest first (by the manifest's timestamp as an instant: offsets count), then by id; runs
/// without a date last.
pub(crate) fn order(cards: &mut [RunCard]) {
    cards.sort_by_cached_key(|card| {
        let time = card.timestamp_utc.as_deref().map(|t| (crate::core::calendar::iso_seconds(t), t.to_string()));
        (time.is_none(), std::cmp::Reverse(time), card.id.clone())
    });
}
