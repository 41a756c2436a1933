//! `data/runs.json` and its shards are what `docs/runs.schema.json` says: built from the
//! bundled runs, the fixture runs (failed ones among them), an invalid run and fresh `synth`
//! runs, they validate; a document with a wrong type, an unknown status, a missing field or
//! another version does not.

use crate::common::{build, copy_tree, nccl_report, runs_dir, text};
use serde_json::{json, Value};
use std::fs;
use std::path::Path;

fn schema() -> jsonschema::Validator {
    let path = Path::new(env!("CARGO_MANIFEST_DIR")).join("docs/runs.schema.json");
    let schema: Value = serde_json::from_str(&fs::read_to_string(path).unwrap()).unwrap();
    jsonschema::meta::validate(&schema).expect("docs/runs.schema.json is a valid JSON Schema");
    assert_eq!(schema["$schema"], "https://json-schema.org/draft/2020-12/schema");
    jsonschema::draft202012::new(&schema).unwrap()
}

fn errors(validator: &jsonschema::Validator, document: &Value) -> Vec<String> {
    validator.iter_errors(document).map(|e| format!("{} at {}", e, e.instance_path())).collect()
}

/// runs.json of the bundled runs, every fixture run and three synth runs (in pages of 4,
/// so in several shards): the index and every shard, in the index's order.
fn built_runs_json() -> (Value, Vec<Value>) {
    let (dir, runs) = runs_dir(&[]);
    copy_tree(&Path::new(env!("CARGO_MANIFEST_DIR")).join("runs"), &runs);
    let synth = dir.path().join("synth");
    let output = nccl_report(&["synth", "--out", synth.to_str().unwrap(), "--count", "3", "--seed", "11"]);
    assert!(output.status.success(), "{}", text(&output));
    copy_tree(&synth, &runs);
    // An invalid run (a CSV that cannot be read) and one whose manifest's cycles is no number.
    let broken = runs.join("broken");
    copy_tree(&runs.join("synth-basic"), &broken);
    fs::write(broken.join("raw/results/world4_full/rank1_decode.csv"), "not,a\nsection csv").unwrap();
    let manifest = fs::read_to_string(broken.join("manifest.txt")).unwrap();
    fs::write(broken.join("manifest.txt"), manifest.replacen("cycles=", "cycles=ten", 1)).unwrap();
    let out = dir.path().join("site");
    let output = build(&runs, &out, &["--page-size", "4"]);
    assert!(output.status.success(), "{}", text(&output));
    let read = |rel: &str| -> Value { serde_json::from_str(&fs::read_to_string(out.join(rel)).unwrap()).unwrap() };
    let index = read("data/runs.json");
    let shards = index["shards"].as_array().unwrap().iter().map(|s| read(s["path"].as_str().unwrap())).collect();
    (index, shards)
}

#[test]
fn runs_json_validates_against_its_schema() {
    let validator = schema();
    let (index, shards) = built_runs_json();
    assert_eq!(errors(&validator, &index), Vec::<String>::new());
    for shard in &shards {
        assert_eq!(errors(&validator, shard), Vec::<String>::new());
    }
    assert!(shards.len() >= 4, "{} shards", shards.len());
    let runs: Vec<Value> = shards.iter().flat_map(|s| s["runs"].as_array().unwrap().clone()).collect();
    assert!(runs.len() >= 16, "{} runs", runs.len());
    for (entry, shard) in index["shards"].as_array().unwrap().iter().zip(&shards) {
        let listed = shard["runs"].as_array().unwrap();
        assert_eq!(entry["runs"].as_u64(), Some(listed.len() as u64));
        assert_eq!(entry["newest"], listed[0]["run_id"]);
        assert_eq!(entry["oldest"], listed[listed.len() - 1]["run_id"]);
        assert!(listed.len() <= 4);
    }
    for status in ["ok", "failed", "invalid"] {
        assert!(runs.iter().any(|r| r["status"] == status), "no {status} run to check");
    }
    assert!(runs.iter().any(|r| r["facts"]["cycles"].is_u64()), "cycles is a number");
    assert!(runs.iter().any(|r| r["diagnostics"][0]["line"].is_u64()), "a diagnostic with a line");
    let broken = runs.iter().find(|r| r["run_id"] == "broken").unwrap();
    assert!(broken["facts"]["cycles"].is_null(), "{broken}");

    // A validator that accepts anything proves nothing: each mutation must be refused.
    let document = shards
        .iter()
        .find(|s| s["runs"].as_array().unwrap().iter().any(|r| r["diagnostics"][0]["line"].is_u64()))
        .unwrap()
        .clone();
    type Mutation = fn(&mut Value);
    let mutations: [(&str, Mutation); 14] = [
        ("cycles as text", |d| d["runs"][0]["facts"]["cycles"] = json!("10")),
        ("gpu_count as text", |d| d["runs"][0]["facts"]["gpu_count"] = json!("1")),
        ("an unknown status", |d| d["runs"][0]["status"] = json!("passed")),
        ("a negative count", |d| d["runs"][0]["contracts_checked"] = json!(-1)),
        ("a missing fact", |d| _ = d["runs"][0]["facts"].as_object_mut().unwrap().remove("hostname")),
        ("an unknown field", |d| d["runs"][0]["extra"] = json!(true)),
        ("an unknown section", |d| d["runs"][0]["facts"]["sections"] = json!(["async", "bogus"])),
        ("a diagnostic line 0", |d| {
            d["runs"][0]["diagnostics"] =
                json!([{"severity": "warning", "code": "NR202", "file": "x", "line": 0, "message": "m"}])
        }),
        ("a diagnostic without a code", |d| {
            d["runs"][0]["diagnostics"] = json!([{"severity": "warning", "file": "x", "line": 1, "message": "m"}])
        }),
        ("a malformed code", |d| {
            d["runs"][0]["diagnostics"] =
                json!([{"severity": "warning", "code": "NR1", "file": "x", "line": 1, "message": "m"}])
        }),
        ("another version", |d| d["schema_version"] = json!(2)),
        ("the bare array of version 0", |d| *d = d["runs"].clone()),
        ("the single file of versions 1 and 2", |d| _ = d.as_object_mut().unwrap().remove("month")),
        ("a month that is none", |d| d["month"] = json!("2026-13")),
    ];
    for (what, mutate) in &mutations {
        let mut mutated = document.clone();
        mutate(&mut mutated);
        assert!(!validator.is_valid(&mutated), "{what} was accepted");
    }
    let index_mutations: [(&str, Mutation); 3] = [
        ("a shard outside data/runs", |d| d["shards"][0]["path"] = json!("../x.json")),
        ("an empty shard", |d| d["shards"][0]["runs"] = json!(0)),
        ("another version", |d| d["schema_version"] = json!(1)),
    ];
    for (what, mutate) in &index_mutations {
        let mut mutated = index.clone();
        mutate(&mut mutated);
        assert!(!validator.is_valid(&mutated), "{what} was accepted");
    }
}

/// An empty runs folder builds nothing (exit 2, issue 24), so no site holds an empty list; the
/// schema still takes one.
#[test]
fn runs_json_without_runs_validates() {
    let dir = tempfile::tempdir().unwrap();
    let runs = dir.path().join("runs");
    fs::create_dir(&runs).unwrap();
    let out = dir.path().join("site");
    let output = build(&runs, &out, &[]);
    assert_eq!(output.status.code(), Some(2), "{}", text(&output));
    assert!(!out.exists());
    let document = json!({ "schema_version": 3, "shards": [] });
    assert_eq!(errors(&schema(), &document), Vec::<String>::new());
}
