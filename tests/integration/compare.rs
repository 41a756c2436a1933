//! `nccl-report compare`: exit codes, the JSON schema, a planted regression found, failed runs
//! refused. Runs are copies of the bundled H200 run (10 cycles), one with a planted change.

use crate::common::{copy_tree, multiply_csv, nccl_report, runs_dir, text};
use serde_json::Value;
use std::path::{Path, PathBuf};

pub(crate) const REAL: &str = "20261203T081106Z";
pub(crate) const LATER: &str = "20261203T090000Z";

pub(crate) fn bundled_run() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("runs").join(REAL)
}

/// Ids of three identical copies of the bundled run that sort before it (a copy keeps the
/// manifest's timestamp, so ties go by id): the history `REAL` and `LATER` are judged against.
pub(crate) const EARLIER: [&str; 3] = ["20261203T070000Z", "20261203T070001Z", "20261203T070002Z"];

/// A runs folder with the bundled run, three identical earlier copies (its history) and a
/// later copy whose decode `tokens=1` cycles are multiplied by `factor`.
pub(crate) fn two_runs(factor: f64) -> (tempfile::TempDir, PathBuf) {
    let (dir, runs) = runs_dir(&["synth-basic", "synth-nccl-wrong"]);
    copy_tree(&bundled_run(), &runs.join(REAL));
    for id in EARLIER {
        add_copy(&runs, id, 1.0);
    }
    add_copy(&runs, LATER, factor);
    (dir, runs)
}

/// Adds a copy `id` of the bundled run whose decode `tokens=1` cycles are multiplied by `factor`.
fn add_copy(runs: &Path, id: &str, factor: f64) {
    copy_tree(&bundled_run(), &runs.join(id));
    multiply_csv(
        &runs.join(id).join("raw/results/world1_full/rank0_decode.csv"),
        &["duration_us"],
        Some(("tokens", "1")),
        factor,
    );
}

/// A copy of the runs bundled in `runs/`, in a `runs` folder of a temporary folder.
fn bundled_runs() -> (tempfile::TempDir, PathBuf) {
    let (dir, runs) = runs_dir(&["no fixture"]);
    let bundled = Path::new(env!("CARGO_MANIFEST_DIR")).join("runs");
    for entry in std::fs::read_dir(&bundled).unwrap() {
        let path = entry.unwrap().path();
        if path.is_dir() {
            copy_tree(&path, &runs.join(path.file_name().unwrap()));
        }
    }
    (dir, runs)
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
    let (code, out) = compare(&runs, &[EARLIER[0]]);
    assert_eq!(code, Some(2));
    assert!(out.contains("has no baseline"), "{out}");
    let (code, out) = compare(&runs, &["synth-basic", "synth-nccl-wrong"]);
    assert_eq!(code, Some(2), "{out}");
    // The refusal names the run's worst finding, with its file (as the build's line does).
    assert!(out.contains("is failed (failure[NR"), "{out}");
    assert!(out.contains("); comparing against it is refused"), "{out}");
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
    assert_eq!(json["schema_version"], 2);
    assert_eq!(json["history_runs"], 4);
    for shift in json["shifts"].as_array().unwrap() {
        for field in ["family", "ratio", "effect_floor", "cases", "history_runs", "verdict"] {
            assert!(shift.get(field).is_some(), "shifts[].{field}");
        }
    }
    let cases = json["cases"].as_array().unwrap();
    assert_eq!(cases.len(), 52);
    for case in cases {
        for field in
            ["section", "world_size", "case", "ratio", "ci_low", "ci_high", "history_ratio", "effect_floor", "verdict"]
        {
            assert!(case.get(field).is_some(), "{field} missing in {case}");
        }
    }
    insta::assert_snapshot!("compare_planted_regression_json", stdout);
}

#[test]
fn the_spread_of_earlier_runs_raises_the_bar_for_a_change() {
    let (_dir, runs) = runs_dir(&["no fixture"]);
    copy_tree(&bundled_run(), &runs.join(REAL));
    add_copy(&runs, LATER, 1.09);
    let case = |out: &str| -> (String, f64) {
        let json: Value = serde_json::from_str(out).unwrap();
        let case =
            json["cases"].as_array().unwrap().iter().find(|c| c["case"] == "tokens=1;bytes=8192;calls=160").unwrap();
        (case["verdict"].as_str().unwrap().to_string(), case["effect_floor"].as_f64().unwrap())
    };
    let args = [REAL, LATER, "--format", "json"];
    // One earlier run is no history: the cycles of two runs never decide.
    let (code, out) = compare(&runs, &args);
    assert_eq!((code, case(&out).0.as_str()), (Some(0), "insufficient_history"), "{out}");
    // Three identical earlier runs: 9 % is beyond the 3 % floor and beyond every one of them.
    for id in EARLIER {
        add_copy(&runs, id, 1.0);
    }
    let (code, out) = compare(&runs, &args);
    let (verdict, floor) = case(&out);
    assert_eq!((code, verdict.as_str()), (Some(1), "slower"), "{out}");
    assert!((floor - 0.03).abs() < 1e-12, "the 3 % floor: {floor}");
    // Earlier runs 25 % apart in that case, both ways: 9 % is no evidence of a change. (One
    // run 25 % off three identical ones would be a change itself, and left out.)
    for (id, factor) in [(EARLIER[1], 1.25), (EARLIER[2], 0.85)] {
        std::fs::remove_dir_all(runs.join(id)).unwrap();
        add_copy(&runs, id, factor);
    }
    let (code, out) = compare(&runs, &args);
    let (verdict, floor) = case(&out);
    assert_eq!((code, verdict.as_str()), (Some(0), "no_change"), "{out}");
    assert!(floor > 0.25, "{floor}");
    // A later run does not change the verdict of an earlier pair.
    add_copy(&runs, "20261203T110000Z", 3.0);
    let (_, again) = compare(&runs, &args);
    assert_eq!(case(&again), (verdict, floor));
}

/// The bundled runs of 2026-12-04 hold a real regression (`CUDA_LAUNCH_BLOCKING=1`: the GPU
/// dependency 16-40x slower) among identical runs. It is a change, not noise: left out of the
/// history of the runs after it, it neither widens their floor (over ±50,000 % with it) nor
/// hides a regression below its own level. A copy of the newest run with one GPU dependency
/// case 1.5x slower is found, and nothing else is flagged; the text and the run's page say what
/// was left out.
#[test]
fn a_change_in_the_history_is_left_out_of_the_floor_of_the_runs_after_it() {
    let (_dir, runs) = bundled_runs();
    let (newest, planted) = ("20261204T114816Z", "20261204T114816Z-planted");
    copy_tree(&runs.join(newest), &runs.join(planted));
    multiply_csv(
        &runs.join(planted).join("raw/results/world1_full/rank0_async.csv"),
        &["gpu_dependency_us"],
        Some(("size_bytes", "65536")),
        1.5,
    );
    let json = |args: &[&str]| -> (Option<i32>, Value) {
        let (code, out) = compare(&runs, &[args, &["--format", "json"]].concat());
        (code, serde_json::from_str(&out).unwrap_or_else(|_| panic!("{out}")))
    };
    let device = |json: &Value| -> Vec<Value> {
        json["cases"].as_array().unwrap().iter().filter(|c| c["metric"] == "gpu_dependency_us").cloned().collect()
    };
    // The regression itself is still found against the runs before it.
    let (code, blocking) = json(&["20261204T114158Z", "20261204T114621Z-blocking"]);
    assert_eq!(code, Some(1));
    assert_eq!(device(&blocking).len(), 7, "{blocking}");
    assert!(device(&blocking).iter().all(|c| c["verdict"] == "slower" && c["history_left_out"] == 0), "{blocking}");
    // The newest run against the first of its day: the blocking run is left out of every GPU
    // dependency case's history and of the device-side shift's; nothing is a change.
    let (code, aa) = json(&["20261204T114025Z", newest]);
    assert_eq!(code, Some(0), "{aa}");
    assert_eq!(device(&aa).len(), 7, "{aa}");
    for case in device(&aa) {
        assert_eq!(
            (case["history_left_out"].as_u64(), case["verdict"].as_str()),
            (Some(1), Some("no_change")),
            "{case}"
        );
        assert!(case["effect_floor"].as_f64().unwrap() < 0.3, "{case}");
    }
    let shift = aa["shifts"].as_array().unwrap().iter().find(|s| s["family"] == "device").unwrap().clone();
    assert_eq!(shift["history_left_out"], 1, "{shift}");
    assert!(shift["effect_floor"].as_f64().unwrap() < 0.2, "{shift}");
    // The text says so beside the shift and each case.
    let (_, report) = compare(&runs, &["20261204T114025Z", newest]);
    let device_shift = report.lines().find(|l| l.starts_with("shift:     device-side")).unwrap();
    assert!(device_shift.contains("from 11 runs (1 earlier run left out as a change)"), "{device_shift}");
    let gpu_cases = report.lines().filter(|l| l.contains("gpu_dependency_us"));
    assert!(
        gpu_cases.clone().count() == 7 && gpu_cases.clone().all(|l| l.ends_with("1 earlier run left out as a change"))
    );
    // And the site, on the run's page.
    let site = runs.parent().unwrap().join("site");
    let output = nccl_report(&["build", "--runs", runs.to_str().unwrap(), "--out", site.to_str().unwrap()]);
    assert!(output.status.success(), "{}", text(&output));
    let page = std::fs::read_to_string(site.join("runs").join(newest).join("index.html")).unwrap();
    assert!(page.contains("from 11 earlier runs; 1 more left out as a change)"), "the shift");
    assert_eq!(page.matches("(11 runs, 1 left out)").count(), 7, "each GPU dependency case");
    // One case 1.5x slower in a copy of the newest run: found, and only it.
    let (code, planted) = json(&[newest, planted]);
    assert_eq!(code, Some(1), "{planted}");
    let slower: Vec<&Value> =
        planted["cases"].as_array().unwrap().iter().filter(|c| c["verdict"] != "no_change").collect();
    assert_eq!(slower.len(), 1, "{slower:?}");
    assert_eq!((slower[0]["case"].as_str(), slower[0]["verdict"].as_str()), (Some("bytes=65536"), Some("slower")));
}

/// A one-off run hides no step: the three bundled runs after the `CUDA_LAUNCH_BLOCKING` run
/// (16-40x in every GPU dependency case) are copied 1.5x slower in one case. Kept in the
/// change point search, the blocking run inflated the variance of the runs before the step
/// and no change point was found; left out as a one-off, the step is found at the first of
/// the three, and the history page says one run was left out.
#[test]
fn a_one_off_run_before_a_step_does_not_hide_it() {
    let (_dir, runs) = bundled_runs();
    for id in ["20261204T114734Z", "20261204T114754Z", "20261204T114816Z"] {
        multiply_csv(
            &runs.join(id).join("raw/results/world1_full/rank0_async.csv"),
            &["gpu_dependency_us"],
            Some(("size_bytes", "65536")),
            1.5,
        );
    }
    let site = runs.parent().unwrap().join("site");
    let output = nccl_report(&["build", "--runs", runs.to_str().unwrap(), "--out", site.to_str().unwrap()]);
    assert!(output.status.success(), "{}", text(&output));
    let regressions = std::fs::read_to_string(site.join("regressions.html")).unwrap();
    let steps: Vec<&str> = regressions
        .split("open change point from run ")
        .skip(1)
        .filter(|s| s.starts_with("20261204T114734Z"))
        .collect();
    assert_eq!(steps.len(), 1, "{regressions}");
    let ratio: f64 = steps[0]["20261204T114734Z: ".len()..].split('x').next().unwrap().parse().unwrap();
    assert!((1.4..1.6).contains(&ratio), "{}", &steps[0][..40]);
    let pages: String = std::fs::read_dir(site.join("history"))
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.extension().is_some_and(|e| e == "html"))
        .map(|p| std::fs::read_to_string(p).unwrap())
        .collect();
    assert_eq!(
        pages
            .matches("gpu_dependency_us in 13 of 13 runs; 1 change point (1 one-off run left out of the search).")
            .count(),
        1
    );
    assert_eq!(
        pages
            .matches("gpu_dependency_us in 13 of 13 runs; no change point (1 one-off run left out of the search).")
            .count(),
        6
    );
    // The step's row names the last run kept before it, not the one-off between the two.
    let rows: Vec<&str> = pages.split("<tr").filter(|row| row.contains(">20261204T114734Z</a>")).collect();
    assert_eq!(rows.len(), 1, "{rows:?}");
    assert!(rows[0].contains(">20261204T114158Z</a>") && !rows[0].contains("blocking"), "{}", rows[0]);
}

/// `compare` reads runs as `build` does, within the same `--max-*` limits: a run with a file
/// over the limit is invalid, and comparing against it is refused.
#[test]
fn compare_reads_within_the_size_limits() {
    let (_dir, runs) = two_runs(1.0);
    let (code, out) = compare(&runs, &[REAL, LATER, "--max-file-bytes", "100"]);
    assert_eq!(code, Some(2), "{out}");
    assert!(out.contains("is invalid (error[NR101]: ") && out.contains("--allow-failed"), "{out}");
    let (code, out) = compare(&runs, &[REAL, LATER, "--max-log-bytes", "100"]);
    assert_eq!(code, Some(2), "{out}");
}
