//! `nccl-report compare`: exit codes, the JSON schema, a planted regression found, failed runs
//! refused. Runs are copies of the bundled H200 run (10 cycles), one with a planted change.

use crate::common::{copy_tree, nccl_report, runs_dir, text};
use serde_json::Value;
use std::path::{Path, PathBuf};

pub(crate) const REAL: &str = "20261203T081106Z";
pub(crate) const LATER: &str = "20261203T090000Z";

pub(crate) fn bundled_run() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("runs").join(REAL)
}

/// A runs folder with the bundled run and a later copy whose decode `tokens=1` cycles are
/// multiplied by `factor`.
pub(crate) fn two_runs(factor: f64) -> (tempfile::TempDir, PathBuf) {
    let (dir, runs) = runs_dir(&["synth-basic", "synth-nccl-wrong"]);
    copy_tree(&bundled_run(), &runs.join(REAL));
    add_copy(&runs, LATER, factor);
    (dir, runs)
}

/// Adds a copy `id` of the bundled run whose decode `tokens=1` cycles are multiplied by `factor`.
fn add_copy(runs: &Path, id: &str, factor: f64) {
    copy_tree(&bundled_run(), &runs.join(id));
    let decode = runs.join(id).join("raw/results/world1_full/rank0_decode.csv");
    let original = std::fs::read_to_string(&decode).unwrap();
    let mut lines: Vec<String> = Vec::new();
    for (i, line) in original.lines().enumerate() {
        let mut fields: Vec<String> = line.split(',').map(String::from).collect();
        if i > 0 && fields[4] == "1" {
            fields[8] = (fields[8].parse::<f64>().unwrap() * factor).to_string();
        }
        lines.push(fields.join(","));
    }
    std::fs::write(&decode, lines.join("\n") + "\n").unwrap();
}

fn compare(runs: &Path, args: &[&str]) -> (Option<i32>, String) {
    let mut all = vec!["compare", "--runs", runs.to_str().unwrap()];
    all.extend_from_slice(args);
    let output = nccl_report(&all);
    (output.status.code(), text(&output))
}

#[test]
fn identical_runs_exit_0_and_a_planted_regression_exits_1() {
    let (_dir, runs) = two_runs(1.0);
    let (code, out) = compare(&runs, &[REAL, LATER]);
    assert_eq!(code, Some(0), "{out}");
    assert!(out.contains("slower 0") && !out.contains("NOT COMPARABLE"), "{out}");

    let (_dir, runs) = two_runs(1.5);
    let (code, out) = compare(&runs, &[REAL, LATER, "--format", "csv"]);
    assert_eq!(code, Some(1), "{out}");
    let slower: Vec<&str> = out.lines().filter(|l| l.contains(",slower,")).collect();
    assert_eq!(slower.len(), 1, "{out}");
    assert!(slower[0].starts_with("decode,1,tokens=1;bytes=8192;calls=160,world1_full,"), "{out}");
    // CAND alone: its baseline is the newest earlier ok run of its configuration.
    let (code, out) = compare(&runs, &[LATER]);
    assert_eq!(code, Some(1), "{out}");
    assert!(out.contains("newest earlier ok run"), "{out}");
}

#[test]
fn bad_input_exits_2_with_a_message() {
    let (_dir, runs) = two_runs(1.0);
    let (code, out) = compare(&runs, &[REAL, "no-such-run"]);
    assert_eq!(code, Some(2));
    assert!(out.contains("no run \"no-such-run\""), "{out}");
    let (code, out) = compare(&runs, &[REAL]);
    assert_eq!(code, Some(2));
    assert!(out.contains("has no baseline"), "{out}");
    let (code, out) = compare(&runs, &["synth-basic", "synth-nccl-wrong"]);
    assert_eq!(code, Some(2), "{out}");
    assert!(out.contains("is failed; comparing against it is refused"), "{out}");
    let (code, out) = compare(&runs, &["synth-basic", "synth-nccl-wrong", "--allow-failed", "--format", "json"]);
    assert_eq!(code, Some(0), "{out}");
    std::fs::write(runs.join("baselines.json"), "[1]").unwrap();
    let (code, out) = compare(&runs, &[LATER]);
    assert_eq!(code, Some(2));
    assert!(out.contains("baselines.json: not a JSON object"), "{out}");
}

#[test]
fn pinned_baseline_wins_over_the_newest_earlier_run() {
    let (_dir, runs) = two_runs(1.0);
    let (_, json) = compare(&runs, &[LATER, "--baseline", REAL, "--format", "json"]);
    let json: Value = serde_json::from_str(&json).unwrap();
    let label = json["candidate"]["configuration"].as_str().unwrap().to_string();
    copy_tree(&bundled_run(), &runs.join("20261202T105000Z"));
    std::fs::write(runs.join("baselines.json"), serde_json::json!({ label: REAL }).to_string()).unwrap();
    let output = nccl_report(&["compare", "--runs", runs.to_str().unwrap(), LATER, "--format", "json"]);
    let json: Value = serde_json::from_slice(&output.stdout).unwrap();
    assert_eq!(json["base"]["id"], REAL);
    assert_eq!(json["baseline_source"], "pinned in baselines.json");
}

#[test]
fn json_schema_and_snapshot() {
    let (_dir, runs) = two_runs(1.5);
    let output = nccl_report(&["compare", "--runs", runs.to_str().unwrap(), REAL, LATER, "--format", "json"]);
    let stdout = String::from_utf8(output.stdout).unwrap();
    let json: Value = serde_json::from_str(&stdout).unwrap();
    assert_eq!(json["schema_version"], 1);
    for field in ["ratio", "ci_low", "ci_high"] {
        assert!(json["drift"][field].is_number(), "drift.{field}");
    }
    let cases = json["cases"].as_array().unwrap();
    assert_eq!(cases.len(), 38);
    for case in cases {
        for field in ["section", "world_size", "case", "ratio", "ci_low", "ci_high", "p", "q", "verdict"] {
            assert!(case.get(field).is_some(), "{field} missing in {case}");
        }
    }
    insta::assert_snapshot!("compare_planted_regression_json", stdout);
}

#[test]
fn the_noise_between_repeated_runs_raises_the_bar_for_a_change() {
    // Two runs 9 % apart in one case: slower.
    let (_dir, runs) = two_runs(1.0);
    add_copy(&runs, "20261203T100000Z", 1.09);
    let case = |json: &Value| -> (String, f64) {
        let case =
            json["cases"].as_array().unwrap().iter().find(|c| c["case"] == "tokens=1;bytes=8192;calls=160").unwrap();
        (case["verdict"].as_str().unwrap().to_string(), case["effect_floor"].as_f64().unwrap())
    };
    let args = [LATER, "20261203T100000Z", "--format", "json"];
    std::fs::remove_dir_all(runs.join(REAL)).unwrap();
    let (code, out) = compare(&runs, &args);
    let json: Value = serde_json::from_str(&out).unwrap();
    assert_eq!((code, case(&json)), (Some(1), ("slower".to_string(), 0.03)), "two runs: the 3 % floor");
    // The same pair after two earlier runs of the configuration, 0 % and 25 % off in that
    // case: its runs differ by about 10 % anyway, so 9 % is no evidence of a change.
    add_copy(&runs, REAL, 1.0);
    add_copy(&runs, "20261203T080000Z", 1.25);
    let (code, out) = compare(&runs, &args);
    let json: Value = serde_json::from_str(&out).unwrap();
    let (verdict, floor) = case(&json);
    let medians = [1.25, 1.0, 1.0, 1.09];
    let mean = medians.iter().sum::<f64>() / 4.0;
    let cv = (medians.iter().map(|m| (m - mean).powi(2)).sum::<f64>() / 4.0).sqrt() / mean;
    assert!((floor - cv).abs() < 1e-3, "floor {floor} is the replicates' cv {cv}");
    assert_eq!((code, verdict.as_str()), (Some(0), "no_change"), "{out}");
    // A later, noisier replicate does not change the verdict of an earlier pair.
    add_copy(&runs, "20261203T110000Z", 1.5);
    let (_, again) = compare(&runs, &args);
    assert_eq!(case(&serde_json::from_str(&again).unwrap()), (verdict, floor));
}

/// `compare` reads runs as `build` does, within the same `--max-*` limits: a run with a file
/// over the limit is invalid, and comparing against it is refused.
#[test]
fn compare_reads_within_the_size_limits() {
    let (_dir, runs) = two_runs(1.0);
    let (code, out) = compare(&runs, &[REAL, LATER, "--max-file-bytes", "100"]);
    assert_eq!(code, Some(2), "{out}");
    assert!(out.contains("is invalid") && out.contains("--allow-failed"), "{out}");
    let (code, out) = compare(&runs, &[REAL, LATER, "--max-log-bytes", "100"]);
    assert_eq!(code, Some(2), "{out}");
}
