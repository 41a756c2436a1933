//! `runs.json`, in shards: `data/runs.json` is a small index of the shards
//! (`{"schema_version": 3, "shards": [{"path", "month", "part", "runs", "newest", "oldest"}]}`,
//! newest first), and each shard `data/runs/<month>-<part>.json` holds its runs
//! (`{"schema_version": 3, "month", "part", "runs": [...]}`, newest first), one entry per run
//! with its status, diagnostics and facts. Shards are the parts of months of `paging`, so no
//! file grows with the history. Its JSON Schema is `docs/runs.schema.json` (both shapes); a
//! change of shape changes `SCHEMA_VERSION` and the schema. Versions 1 and 2 were one file
//! `{"schema_version": 2, "runs": [...]}` (2: diagnostics carry a `code`).

use crate::analysis::overview::RunOverview;
use crate::core::diag::Diagnostic;
use crate::core::model::facts::RunFacts;
use crate::site::card::RunCard;
use crate::site::paging::{Paging, Shard};
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

/// The version of both shapes.
pub(crate) const SCHEMA_VERSION: u32 = 3;

/// A shard file: its runs (`runs`, newest first, the shard's window).
pub(crate) fn shard_file(shard: &Shard, runs: &[&RunOverview]) -> Vec<u8> {
    #[derive(Serialize)]
    struct File<'a> {
        schema_version: u32,
        month: &'a str,
        part: usize,
        runs: Vec<RunEntry<'a>>,
    }
    let file = File {
        schema_version: SCHEMA_VERSION,
        month: &shard.month,
        part: shard.part,
        runs: runs.iter().map(|r| RunEntry::of(r)).collect(),
    };
    pretty(&file)
}

/// `data/runs.json`: every shard of `paging`, newest first; `cards` in the newest-first order.
pub(crate) fn index_file(paging: &Paging, cards: &[RunCard]) -> Vec<u8> {
    #[derive(Serialize)]
    struct ShardRef<'a> {
        path: String,
        month: &'a str,
        part: usize,
        runs: usize,
        newest: &'a str,
        oldest: &'a str,
    }
    #[derive(Serialize)]
    struct File<'a> {
        schema_version: u32,
        shards: Vec<ShardRef<'a>>,
    }
    let shards = paging
        .shards
        .iter()
        .map(|shard| ShardRef {
            path: paths::runs_json_shard(&shard.name()),
            month: &shard.month,
            part: shard.part,
            runs: shard.window.len(),
            newest: &cards[shard.window.start].id,
            oldest: &cards[shard.window.end - 1].id,
        })
        .collect();
    pretty(&File { schema_version: SCHEMA_VERSION, shards })
}

fn pretty(value: &impl Serialize) -> Vec<u8> {
    let mut out = serde_json::to_vec_pretty(value).expect("runs.json serializes");
    out.push(b'\n');
    out
}

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
            case_verdicts: Default::default(),
        }
    }

    #[test]
    fn the_index_lists_shards_and_a_shard_its_runs() {
        let warning = Diagnostic::warning(crate::core::diag::Code::NoDataRows, "raw/x.csv", Some(3), "odd");
        let runs = [digest("a", vec![warning]), digest("b", Vec::new()), digest("c", Vec::new())];
        let cards: Vec<RunCard> = runs.iter().map(RunCard::of).collect();
        let paging = Paging::new(&cards, 2);
        let index: serde_json::Value = serde_json::from_slice(&index_file(&paging, &cards)).unwrap();
        assert_eq!(
            index,
            serde_json::json!({"schema_version": 3, "shards": [
                {"path": "data/runs/undated-2.json", "month": "undated", "part": 2, "runs": 1, "newest": "a", "oldest": "a"},
                {"path": "data/runs/undated-1.json", "month": "undated", "part": 1, "runs": 2, "newest": "b", "oldest": "c"},
            ]})
        );
        let refs: Vec<&RunOverview> = runs[1..].iter().collect();
        let shard: serde_json::Value = serde_json::from_slice(&shard_file(&paging.shards[1], &refs)).unwrap();
        assert_eq!(shard["runs"][0]["run_id"], "b");
        assert_eq!(shard["runs"].as_array().unwrap().len(), 2);
        assert_eq!((shard["month"].as_str(), shard["part"].as_u64()), (Some("undated"), Some(1)));
        let first: serde_json::Value = serde_json::from_slice(&shard_file(&paging.shards[0], &[&runs[0]])).unwrap();
        assert_eq!(first["runs"][0]["diagnostics"][0]["line"], 3);
    }
}
