//! `data/runs.json`: one entry per run with its status, diagnostics and facts.

use crate::diag::Diagnostic;
use crate::site::digest::RunDigest;
use crate::summarize::facts::RunFacts;
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

pub fn render(runs: &[RunDigest]) -> Vec<u8> {
    let entries: Vec<Entry> = runs
        .iter()
        .map(|run| Entry {
            run_id: &run.id,
            status: run.status.as_str(),
            facts: &run.facts,
            contracts_checked: run.contracts.map(|c| c.0),
            contract_failures: run.contracts.map(|c| c.1),
            outputs: run.outputs.iter().map(|f| format!("runs/{}/{f}", run.id)).collect(),
            diagnostics: &run.diagnostics,
        })
        .collect();
    let mut bytes = serde_json::to_vec_pretty(&entries).expect("runs.json entries serialize");
    bytes.push(b'\n');
    bytes
}
