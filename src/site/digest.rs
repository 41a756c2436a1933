//! What cross-run pages need of a run: facts, status, diagnostics and the section summaries
//! (with their per-cycle values), without the raw rows. Small, serializable: the build keeps
//! one per run in memory and in its cache, so memory grows with the largest run, not with
//! the number of runs times their size.

use crate::diag::Diagnostic;
use crate::model::summary::*;
use crate::summarize::facts::RunFacts;
use crate::summarize::{RunStatus, RunSummary};
use serde::{Deserialize, Serialize};

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct RunDigest {
    pub id: String,
    pub status: RunStatus,
    pub facts: RunFacts,
    /// (checked, failed) per-rank contracts.
    pub contracts: Option<(usize, usize)>,
    pub async_rows: Option<Vec<AsyncSummary>>,
    pub decomposition: Option<Vec<DecompositionSummary>>,
    pub fragmentation: Option<Vec<FragmentationSummary>>,
    pub decode: Option<Vec<DecodeSummary>>,
    pub nccl_tests_raw: Option<Vec<NcclTestsRawRow>>,
    pub nccl_tests: Option<Vec<NcclTestsSummary>>,
    pub numerics: Option<Vec<NumericSummary>>,
    pub diagnostics: Vec<Diagnostic>,
    /// Names of the seed-format files written for the run.
    pub outputs: Vec<String>,
}

pub fn digest(run: &RunSummary, outputs: &[&str]) -> RunDigest {
    RunDigest {
        id: run.raw.id.clone(),
        status: run.status,
        facts: run.facts.clone(),
        contracts: run.contracts.as_ref().map(|c| (c.total, c.failures.len())),
        async_rows: run.async_rows.clone(),
        decomposition: run.decomposition.clone(),
        fragmentation: run.fragmentation.clone(),
        decode: run.decode.clone(),
        nccl_tests_raw: run.nccl_tests_raw.clone(),
        nccl_tests: run.nccl_tests.clone(),
        numerics: run.numerics.clone(),
        diagnostics: run.raw.diagnostics.clone(),
        outputs: outputs.iter().map(|s| s.to_string()).collect(),
    }
}
