//! `data/runs.json`: `{"schema_version": 2, "runs": [...]}`, one entry per run with its
//! status, diagnostics and facts, newest first, written a page of runs at a time. Its JSON
//! Schema is `docs/runs.schema.json`; a change of shape changes `schema_version` (2 since diagnostics carry a `code`; in
//! `ARRAY_START`, `EMPTY` and the schema).

use crate::analysis::overview::RunOverview;
use crate::core::diag::Diagnostic;
use crate::core::model::facts::RunFacts;
use crate::site::paths;
use serde::Serialize;

#[derive(Serialize)]
struct RunEntry<'a> {
    run_id: &'a str,
    status: &'static str,
    facts: &'a RunFacts,
    contracts_checked: Option<usize>,
    contract_failures: Option<usize>,
    outputs: Vec<String>,
    diagnostics: &'a [Diagnostic],
}

impl<'a> RunEntry<'a> {
    fn of(run: &'a RunOverview) -> RunEntry<'a> {
        RunEntry {
            run_id: &run.id,
            status: run.status.as_str(),
            facts: &run.facts,
            contracts_checked: run.contracts.map(|c| c.0),
            contract_failures: run.contracts.map(|c| c.1),
            outputs: run.outputs.iter().map(|f| paths::run_file(&run.id, f)).collect(),
            diagnostics: &run.diagnostics,
        }
    }
}

/// The entries of `runs` as they appear inside the pretty-printed `runs` array of
/// `data/runs.json` (each line indented by four spaces, entries separated by `,\n`), so that
/// pages of runs written one after another, between `ARRAY_START` and `ARRAY_END`, form the
/// whole file.
pub(crate) fn entries(runs: &[&RunOverview]) -> Vec<u8> {
    let mut out = Vec::new();
    for (i, run) in runs.iter().enumerate() {
        let text = serde_json::to_string_pretty(&RunEntry::of(run)).expect("runs.json entries serialize");
        if i > 0 {
            out.extend_from_slice(b",\n");
        }
        for (j, line) in text.lines().enumerate() {
            if j > 0 {
                out.push(b'\n');
            }
            out.extend_from_slice(b"    ");
            out.extend_from_slice(line.as_bytes());
        }
    }
    out
}

/// What precedes the first entry, goes between two pages' entries, and follows the last.
pub(crate) const ARRAY_START: &[u8] = b"{\n  \"schema_version\": 2,\n  \"runs\": [\n";
pub(crate) const BETWEEN_PAGES: &[u8] = b",\n";
pub(crate) const ARRAY_END: &[u8] = b"\n  ]\n}\n";
/// The whole file when there is no run.
pub(crate) const EMPTY: &[u8] = b"{\n  \"schema_version\": 2,\n  \"runs\": []\n}\n";

#[cfg(test)]
mod tests {
    use super::*;
    use crate::analysis::summarize::RunStatus;
    use crate::core::model::summary::SectionSummaries;

    fn digest(id: &str, diagnostics: Vec<Diagnostic>) -> RunOverview {
        RunOverview {
            id: id.to_string(),
            status: RunStatus::Ok,
            facts: RunFacts { gpu: Some("H200 \"SXM\"\n".into()), world_sizes: vec![2, 4], ..RunFacts::default() },
            configuration: String::new(),
            configuration_key: Vec::new(),
            soft_facts: Vec::new(),
            contracts: Some((3, 0)),
            sections: SectionSummaries::default(),
            nccl_perf: None,
            decode_headline: String::new(),
            busbw_headline: String::new(),
            diagnostics,
            outputs: vec!["summary.md".into()],
        }
    }

    #[test]
    fn pages_of_entries_make_the_pretty_printed_array() {
        let warning = Diagnostic::warning(crate::core::diag::Code::NoDataRows, "raw/x.csv", Some(3), "odd");
        let runs = [digest("a", vec![warning]), digest("b", Vec::new()), digest("c", Vec::new())];
        let refs: Vec<&RunOverview> = runs.iter().collect();
        let mut paged = ARRAY_START.to_vec();
        paged.extend(entries(&refs[..2]));
        paged.extend_from_slice(BETWEEN_PAGES);
        paged.extend(entries(&refs[2..]));
        paged.extend_from_slice(ARRAY_END);
        #[derive(Serialize)]
        struct File<'a> {
            schema_version: u32,
            runs: Vec<RunEntry<'a>>,
        }
        let whole = |runs: Vec<RunEntry>| {
            let file = File { schema_version: 2, runs };
            String::from_utf8([serde_json::to_vec_pretty(&file).unwrap(), b"\n".to_vec()].concat()).unwrap()
        };
        assert_eq!(String::from_utf8(paged).unwrap(), whole(runs.iter().map(RunEntry::of).collect()));
        assert_eq!(std::str::from_utf8(EMPTY).unwrap(), whole(Vec::new()));
    }
}
