//! What cross-run pages need of a run: facts, status, diagnostics and the section summaries
//! (with their per-cycle values), without the raw rows (`RunDigest`, kept in the cache or a
//! temporary folder and read back a page of runs at a time), and the little the build keeps
//! of every run in memory (`RunCard`): so memory is bounded by the largest run and the page
//! size, not by the number of runs.

use crate::analysis::comparison::key::ConfigKey;
use crate::analysis::summarize::headline;
use crate::analysis::summarize::{RunStatus, RunSummary};
use crate::core::diag::Diagnostic;
use crate::core::model::facts::RunFacts;
use crate::core::model::summary::*;
use crate::site::sections::Section;
use serde::{Deserialize, Serialize};

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub(crate) struct RunDigest {
    pub id: String,
    pub status: RunStatus,
    pub facts: RunFacts,
    /// The run's configuration (`comparison::key`): its short label and its key parts.
    pub configuration: String,
    pub configuration_key: Vec<(String, String)>,
    /// The soft facts shown as caveats where two runs differ (`ConfigKey::soft`).
    #[serde(default)]
    pub soft_facts: Vec<(String, String)>,
    /// (checked, failed) per-rank contracts.
    pub contracts: Option<(usize, usize)>,
    pub sections: SectionSummaries,
    pub nccl_perf: Option<crate::analysis::nccl_perf::run::RunNcclPerf>,
    /// The index's headline figures: decode latency, and nccl-tests busbw at the largest size.
    pub decode_headline: String,
    pub busbw_headline: String,
    pub diagnostics: Vec<Diagnostic>,
    /// Names of the seed-format files written for the run.
    pub outputs: Vec<String>,
    /// Each case's verdict against the run's baseline (case key -> verdict), once compared.
    #[serde(default)]
    pub case_verdicts: std::collections::BTreeMap<String, String>,
}

pub(crate) fn digest(run: &RunSummary, outputs: &[&str]) -> RunDigest {
    let key = ConfigKey::of(run);
    RunDigest {
        id: run.raw.id.clone(),
        status: run.status,
        facts: run.facts.clone(),
        configuration: key.label(),
        configuration_key: key.parts.clone(),
        soft_facts: key.soft.clone(),
        contracts: run.contracts.as_ref().map(|c| (c.total, c.failures.len())),
        sections: run.sections.clone(),
        nccl_perf: run.nccl_perf.clone(),
        decode_headline: headline::decode_headline(run.sections.decode.as_deref()),
        busbw_headline: headline::busbw_headline(run.nccl_perf.as_ref(), run.sections.decode.as_deref()),
        diagnostics: run.raw.diagnostics.clone(),
        outputs: outputs.iter().map(|s| s.to_string()).collect(),
        case_verdicts: Default::default(),
    }
}

impl RunDigest {
    /// The full comparison key as one line, `part=value; ...`.
    pub(crate) fn configuration_text(&self) -> String {
        self.configuration_key.iter().map(|(k, v)| format!("{k}={v}")).collect::<Vec<_>>().join("; ")
    }
}

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
    pub(crate) fn of(run: &RunDigest) -> RunCard {
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
