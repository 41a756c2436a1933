//! Rows -> section summaries, exactly as the seed defines them (one file per section), plus
//! the run's facts and status. Knows `model` and `stats` only.
//!
//! Generalizing the seed's fixed layout: sections are read from every case folder that has
//! them, in sorted case order (`world2_decode` before `world4_full`, as the seed's decode
//! loop); decode is summarized per case folder as the seed does; a section absent from the
//! run is "not run", not an error.

pub mod asynchronous;
pub mod clocks;
pub mod consistency;
pub mod contracts;
pub mod decode;
pub mod decomposition;
pub mod facts;
pub mod fragmentation;
pub mod headline;
pub mod inspector;
pub mod nccl_tests;
pub mod numerics;
pub mod seed_raises;
pub mod unified;

use crate::core::diag::{Diagnostic, Severity};
use crate::core::model::facts::RunFacts;
use crate::core::model::run::RawRun;
use crate::core::model::sections::SectionRows;
use crate::core::model::summary::*;
use serde::{Deserialize, Serialize};

/// Everything known about one run after summarizing.
#[derive(Debug, Clone)]
pub struct RunSummary {
    pub raw: RawRun,
    pub facts: RunFacts,
    pub contracts: Option<ContractsSummary>,
    pub sections: SectionSummaries,
    /// The nccl-tests tables against the hardware, and NCCL's choices.
    pub nccl_perf: Option<crate::analysis::nccl_perf::run::RunNcclPerf>,
    pub unified: Vec<UnifiedRow>,
    pub status: RunStatus,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum RunStatus {
    Ok,
    Failed,
    Invalid,
}

impl RunStatus {
    pub fn as_str(self) -> &'static str {
        match self {
            RunStatus::Ok => "ok",
            RunStatus::Failed => "failed",
            RunStatus::Invalid => "invalid",
        }
    }

    pub fn from_diagnostics(diagnostics: &[Diagnostic]) -> RunStatus {
        match diagnostics.iter().map(|d| d.severity).max() {
            Some(Severity::Error) => RunStatus::Invalid,
            Some(Severity::Failure) => RunStatus::Failed,
            _ => RunStatus::Ok,
        }
    }
}

macro_rules! rows_of {
    ($raw:expr, $variant:ident) => {{
        let mut rows = Vec::new();
        let mut found = false;
        for data in &$raw.sections {
            if let SectionRows::$variant(r) = &data.rows {
                found = true;
                rows.extend(r.iter());
            }
        }
        found.then_some(rows)
    }};
}

pub fn summarize(raw: RawRun) -> RunSummary {
    let mut diagnostics = Vec::new();
    let contracts = contracts::summarize(&raw.sections, &mut diagnostics);
    let async_rows = rows_of!(raw, Async).map(|rows| asynchronous::summarize(&rows));
    let decomposition = rows_of!(raw, Decomposition).map(|rows| decomposition::summarize(&rows, &mut diagnostics));
    let fragmentation = rows_of!(raw, Fragmentation).map(|rows| fragmentation::summarize(&rows, &mut diagnostics));
    let decode = summarize_decode(&raw);
    let (nccl_tests_raw, nccl_tests) = if raw.nccl_tests.is_empty() {
        (None, None)
    } else {
        let rows = nccl_tests::raw_rows(&raw.nccl_tests, &mut diagnostics);
        let summary = nccl_tests::summarize(&rows);
        (Some(rows), Some(summary))
    };
    let numerics = rows_of!(raw, Numerics).map(|rows| numerics::summarize(&rows));
    let facts = facts::collect(&raw, &mut diagnostics);
    let nccl_perf = crate::analysis::nccl_perf::run::analyse_run(&raw);
    consistency::check(&raw, &mut diagnostics);

    let mut summary = RunSummary {
        raw,
        facts,
        contracts,
        sections: SectionSummaries {
            async_rows,
            decomposition,
            fragmentation,
            decode,
            nccl_tests_raw,
            nccl_tests,
            numerics,
        },
        nccl_perf,
        unified: Vec::new(),
        status: RunStatus::Ok,
    };
    summary.unified = unified::rows(&summary);
    summary.raw.diagnostics.extend(diagnostics);
    summary.raw.diagnostics.extend(seed_raises::check(&summary));
    summary.raw.diagnostics.sort();
    summary.raw.diagnostics.dedup();
    summary.status = RunStatus::from_diagnostics(&summary.raw.diagnostics);
    summary
}

/// Decode per case folder, folders in sorted order, as the seed's `for directory in (world2, world4)`.
fn summarize_decode(raw: &RawRun) -> Option<Vec<DecodeSummary>> {
    let mut cases: Vec<&str> =
        raw.sections.iter().filter(|d| matches!(d.rows, SectionRows::Decode(_))).map(|d| d.case.as_str()).collect();
    cases.dedup();
    if cases.is_empty() {
        return None;
    }
    let mut out = Vec::new();
    for case in cases {
        let rows: Vec<_> = raw
            .sections
            .iter()
            .filter(|d| d.case == case)
            .filter_map(|d| match &d.rows {
                SectionRows::Decode(r) => Some(r.iter()),
                _ => None,
            })
            .flatten()
            .collect();
        out.extend(decode::summarize(case, &rows));
    }
    Some(out)
}

/// The expected values of the summarizers' unit tests come from the seed's own loops run on the
/// same rows (`tests/fixtures/summarizer_oracle.py`, stored by `regen.sh` in
/// `summarizer_oracle.out`): each test checks its constants against that file, so a
/// regenerated oracle that disagrees fails the test that copied it.
#[cfg(test)]
pub(crate) const ORACLE: &str = include_str!("../../../tests/fixtures/summarizer_oracle.out");

/// Asserts that the oracle's line starting with `key` holds each of `numbers` (as Python's
/// `repr` writes them).
#[cfg(test)]
pub(crate) fn assert_in_oracle(key: &str, numbers: &[f64]) {
    let line = ORACLE
        .lines()
        .find(|l| l.starts_with(key))
        .unwrap_or_else(|| panic!("no line {key:?} in summarizer_oracle.out"));
    let tokens: Vec<&str> =
        line[key.len()..].split(|c: char| c.is_whitespace() || "[],".contains(c)).filter(|t| !t.is_empty()).collect();
    for x in numbers {
        let text = format!("{x:?}");
        assert!(tokens.contains(&text.as_str()), "{key}: {text} is not in {line:?}");
    }
}
