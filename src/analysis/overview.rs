//! What the cross-run pages need of a run (`RunOverview`): facts, status, diagnostics and
//! the section summaries with their per-cycle values, without the raw rows. The build keeps
//! it in the cache (or a temporary file) and reads it back a page of runs at a time, so
//! memory is bounded by the largest run and the page size. Uses `summarize` and the
//! comparison key.

use crate::analysis::comparison::key::ConfigKey;
use crate::analysis::summarize::headline;
use crate::analysis::summarize::{RunStatus, RunSummary};
use crate::core::diag::Diagnostic;
use crate::core::model::facts::RunFacts;
use crate::core::model::summary::*;
use serde::{Deserialize, Serialize};

/// A run as the cross-run pages see it.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub(crate) struct RunOverview {
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

impl RunOverview {
    /// The overview of a summarized run whose seed-format files are `outputs`.
    pub(crate) fn of(run: &RunSummary, outputs: &[&str]) -> RunOverview {
        let key = ConfigKey::of(run);
        RunOverview {
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

    /// The full comparison key as one line, `part=value; ...`.
    pub(crate) fn configuration_text(&self) -> String {
        self.configuration_key.iter().map(|(k, v)| format!("{k}={v}")).collect::<Vec<_>>().join("; ")
    }
}
