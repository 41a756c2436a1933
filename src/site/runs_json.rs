//! `data/runs.json`: one entry per run with its status, diagnostics and facts.

use crate::diag::Diagnostic;
use crate::summarize::facts::RunFacts;
use crate::summarize::RunSummary;
use serde::Serialize;

#[derive(Serialize)]
struct Entry<'a> {
    run_id: &'a str,
    status: &'static str,
    facts: &'a RunFacts,
    contracts_checked: Option<usize>,
    contract_failures: Option<usize>,
    outputs: Vec<String>,
    diagnostics: &'a [Diagnostic],
}

pub fn render(runs: &[RunSummary], outputs: &[Vec<&str>]) -> Vec<u8> {
    let entries: Vec<Entry> = runs
        .iter()
        .zip(outputs)
        .map(|(run, files)| Entry {
            run_id: &run.raw.id,
            status: run.status.as_str(),
            facts: &run.facts,
            contracts_checked: run.contracts.as_ref().map(|c| c.total),
            contract_failures: run.contracts.as_ref().map(|c| c.failures.len()),
            outputs: files.iter().map(|f| format!("runs/{}/{f}", run.raw.id)).collect(),
            diagnostics: &run.raw.diagnostics,
        })
        .collect();
    let mut bytes = serde_json::to_vec_pretty(&entries).expect("runs.json entries serialize");
    bytes.push(b'\n');
    bytes
}
