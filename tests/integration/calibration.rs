//! Verdicts on real noise, in CI: the back-to-back runs of five H100 hosts kept in
//! `tests/data/calibration/` (its README says how they were collected and what was left out of
//! them). Every A/A pair of each host reports no change; a factor planted on a copy of the
//! newest run of the first host is found above the floor its history sets and not below it; a
//! host slower in every host-side case is found as a family shift; the real
//! `CUDA_LAUNCH_BLOCKING=1` runs (of the first, the fourth and the fifth host) are `slower`
//! against the runs before them, and the second is no news against the first; the real CPU
//! hog and one-core runs are no regression. The thresholds asserted are the ones
//! `scripts/calibrate.py` printed on these runs (docs/CALIBRATION.md).

use crate::common::{copy_tree, multiply_csv, nccl_report, text};
use serde_json::Value;
use std::path::{Path, PathBuf};

/// The first host's set: 16 A/A runs, the newest `NEWEST`, then two with
/// `CUDA_LAUNCH_BLOCKING=1`.
const FIRST: &str = "h100-20261207";
const NEWEST: &str = "20261207T094640Z";
const BLOCKING: [&str; 2] = ["20261207T094656Z-blocking", "20261207T094711Z-blocking"];
/// Every host-side timing column of the worker's CSVs (`gpu_dependency_us` and `device_us`
/// are the device side).
const HOST_COLUMNS: [&str; 4] = ["host_enqueue_us", "host_wait_us", "duration_us", "host_issue_us"];

/// The second host's set: 14 A/A runs, then two under a CPU hog.
const SECOND: &str = "h100-20261207b";
const HOG: [&str; 2] = ["20261207T120632Z-hog", "20261207T120651Z-hog"];
/// The third host's set: 16 A/A runs, then two with every rank pinned to CPU 0.
const THIRD: &str = "h100-20261207c";
const CORE1: [&str; 2] = ["20261207T125040Z-core1", "20261207T125101Z-core1"];
/// The fourth host's set: 16 A/A runs, then two with `CUDA_LAUNCH_BLOCKING=1`.
const FOURTH: &str = "h100-20261207d";
const FOURTH_BLOCKING: [&str; 2] = ["20261207T135919Z-blocking", "20261207T135935Z-blocking"];
/// The fifth host's set: 16 A/A runs, then two with `CUDA_LAUNCH_BLOCKING=1`.
const FIFTH: &str = "h100-20261207e";
const FIFTH_BLOCKING: [&str; 2] = ["20261207T173233Z-blocking", "20261207T173300Z-blocking"];

/// A copy of the first host's calibration runs in a `runs` folder of a temporary folder.
fn runs() -> (tempfile::TempDir, PathBuf) {
    runs_of(FIRST)
}

/// A copy of one set of calibration runs in a `runs` folder of a temporary folder.
fn runs_of(set: &str) -> (tempfile::TempDir, PathBuf) {
    let dir = tempfile::tempdir().unwrap();
    let runs = dir.path().join("runs");
    copy_tree(&Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/data/calibration").join(set), &runs);
    (dir, runs)
}

/// The ids of the A/A runs, oldest first (the planted ones end in `-blocking`, `-hog` or
/// `-core1`).
fn a_a_ids(runs: &Path) -> Vec<String> {
    let mut ids: Vec<String> = std::fs::read_dir(runs)
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .filter(|id| id.starts_with("2026") && !["-blocking", "-hog", "-core1"].iter().any(|p| id.ends_with(p)))
        .collect();
    ids.sort();
    ids
}

/// `compare ARGS --format json` on `runs`: the exit code and the report.
fn compare(runs: &Path, args: &[&str]) -> (i32, Value) {
    let mut all = vec!["compare", "--runs", runs.to_str().unwrap(), "--format", "json"];
    all.extend_from_slice(args);
    let output = nccl_report(&all);
    let code = output.status.code().unwrap();
    assert!(code == 0 || code == 1, "compare {args:?}: {}", text(&output));
    (code, serde_json::from_slice(&output.stdout).unwrap())
}

/// `section metric case` of every case `slower` or `faster`, and `family verdict` of every
/// family shift that is.
fn flagged(report: &Value) -> (Vec<String>, Vec<String>) {
    let changed = |v: &Value| matches!(v["verdict"].as_str(), Some("slower" | "faster"));
    let cases = report["cases"].as_array().unwrap().iter().filter(|c| changed(c));
    let shifts = report["shifts"].as_array().unwrap().iter().filter(|s| changed(s));
    (
        cases.map(|c| format!("{} {} {} {}", c["section"], c["metric"], c["case"], c["verdict"])).collect(),
        shifts.map(|s| format!("{} {}", s["family"], s["verdict"])).collect(),
    )
}

/// Copies run `NEWEST` to `id` (which sorts after it; the manifest's timestamp is kept, so the
/// copy is judged against the same history) and multiplies its values (`multiply`).
fn plant(runs: &Path, id: &str, columns: &[&str], when: Option<(&str, &str)>, factor: f64) {
    copy_tree(&runs.join(NEWEST), &runs.join(id));
    multiply(&runs.join(id), columns, when, factor);
}

/// Multiplies `columns` of every row whose `when.0` column is `when.1` (every row for `None`)
/// of `run`'s rank CSVs by `factor` (`multiply_csv`).
fn multiply(run: &Path, columns: &[&str], when: Option<(&str, &str)>, factor: f64) {
    let multiplied: usize = std::fs::read_dir(run.join("raw/results/world1_full"))
        .unwrap()
        .map(|entry| multiply_csv(&entry.unwrap().path(), columns, when, factor))
        .sum();
    assert!(multiplied >= 10, "{}: only {multiplied} values multiplied", run.display());
}

/// 120 pairs of the first host, 91 of the second, 120 of the third, 120 of the fourth, 120 of
/// the fifth. Before the floor allowed for real tails (`rule::TAIL`), 9 of the second's were
/// `slower` (the newest run against 9 of the 13 earlier ones: one host-side case 9.8 % over 13
/// runs within 2.3 %), and 4 of the third's, collected after the allowance was set (the fifth
/// run against the four before it: one decomposition case); the fourth was collected after it
/// too. Before a case's spread was at least its family's (`engine::family_spread`), 6 of the
/// fifth's were `faster` (its seventh run, host-side 0.59x, against the six before it: two
/// decode cases whose six values sat within 2.7 %).
#[test]
fn every_real_a_a_pair_reports_no_change() {
    for (set, count) in [(FIRST, 16), (SECOND, 14), (THIRD, 16), (FOURTH, 16), (FIFTH, 16)] {
        let (_dir, runs) = runs_of(set);
        let ids = a_a_ids(&runs);
        assert_eq!(ids.len(), count, "{set}");
        let mut pairs = 0;
        for (i, base) in ids.iter().enumerate() {
            for candidate in &ids[i + 1..] {
                let (code, report) = compare(&runs, &[base, candidate]);
                assert_eq!(flagged(&report), (vec![], vec![]), "{set}: {base} -> {candidate}");
                assert_eq!(code, 0, "{set}: {base} -> {candidate}");
                assert_eq!(
                    report["history_runs"].as_u64().unwrap() as usize,
                    ids.iter().position(|id| id == candidate).unwrap()
                );
                pairs += 1;
            }
        }
        assert_eq!(pairs, count * (count - 1) / 2, "{set}");
    }
}

/// A CPU hog on every core during a run, or every rank pinned to CPU 0 (real planted host
/// changes), moves this one-rank suite less than its hosts' noise: no family shift and no case
/// slower, exit 0, against the run before (the default base) and against the last A/A run.
#[test]
fn the_real_cpu_hog_and_one_core_runs_are_no_regression() {
    for (set, planted) in [(SECOND, HOG), (THIRD, CORE1)] {
        let (_dir, runs) = runs_of(set);
        let newest_a_a = a_a_ids(&runs).pop().unwrap();
        for id in planted {
            for args in [vec![id], vec![id, "--baseline", &newest_a_a]] {
                let (code, report) = compare(&runs, &args);
                let (cases, shifts) = flagged(&report);
                assert_eq!((code, shifts), (0, vec![]), "{set}: {args:?}");
                assert!(cases.iter().all(|c| c.ends_with("\"faster\"")), "{set}: {args:?}: {cases:?}");
            }
        }
    }
}

#[test]
fn a_factor_planted_on_a_real_run_is_found_above_the_floor_and_not_below() {
    let (_dir, runs) = runs();
    // (column, the case as the JSON report writes it, a factor found, a factor below the floor)
    let plants = [
        ("gpu_dependency_us", "\"bytes=65536\"", 1.2, 1.05),
        ("host_enqueue_us", "\"bytes=65536\"", 2.0, 1.5),
        ("host_wait_us", "\"bytes=65536\"", 4.0, 2.0),
    ];
    for (column, case, found, below) in plants {
        for (factor, expect_found) in [(found, true), (below, false)] {
            let id = format!("{NEWEST}-{column}-{factor}");
            plant(&runs, &id, &[column], Some(("size_bytes", "65536")), factor);
            let (code, report) = compare(&runs, &[&id]);
            let (cases, shifts) = flagged(&report);
            let what = format!("{column} x{factor}: {cases:?} {shifts:?}");
            let planted = format!("\"async\" \"{column}\" {case} \"slower\"");
            match expect_found {
                true => assert_eq!((code, cases, shifts), (1, vec![planted], vec![]), "{what}"),
                false => assert_eq!((code, cases, shifts), (0, vec![], vec![]), "{what}"),
            }
            let row = report["cases"]
                .as_array()
                .unwrap()
                .iter()
                .find(|c| c["metric"] == column && c["case"] == "bytes=65536");
            let floor = row.unwrap()["effect_floor"].as_f64().unwrap();
            assert!(found - 1.0 > floor && below - 1.0 < floor, "{what}: floor {floor}");
            std::fs::remove_dir_all(runs.join(&id)).unwrap();
        }
    }
}

/// An earlier run holding a value that is no measurement in a case (here about 3e299 µs, which
/// the seed still summarizes: a damaged archive, or a run `compare --allow-failed` admits) gives
/// that case no level in the history. Found by `scripts/fuzz-compare.py`: with such values in
/// more earlier runs than are trimmed as gross changes, a copy of the newest run with that case
/// 1000x slower was `no_change` under a floor of `±inf %`, exit 0.
#[test]
fn earlier_values_that_are_no_measurement_give_their_case_no_level() {
    let (_dir, runs) = runs();
    let ids = a_a_ids(&runs);
    let when = Some(("size_bytes", "65536"));
    for id in &ids[ids.len() - 9..ids.len() - 1] {
        multiply(&runs.join(id), &["gpu_dependency_us"], when, 1e299);
    }
    let id = format!("{NEWEST}-x1000");
    plant(&runs, &id, &["gpu_dependency_us"], when, 1000.0);
    let (code, report) = compare(&runs, &[&id]);
    let (cases, shifts) = flagged(&report);
    let planted = "\"async\" \"gpu_dependency_us\" \"bytes=65536\" \"slower\"".to_string();
    assert_eq!((code, cases), (1, vec![planted]), "{shifts:?}");
    for row in report["cases"].as_array().unwrap() {
        assert!(row["effect_floor"].as_f64().is_some_and(f64::is_finite), "{row}");
    }
    let row = report["cases"].as_array().unwrap().iter().find(|c| c["verdict"] == "slower").unwrap();
    // 16 earlier runs (the newest itself among them: the copy keeps its timestamp), 8 with a level.
    assert_eq!(row["history_runs"], 8, "the 8 earlier runs at 3e299 give it none: {row}");
}

#[test]
fn a_host_slower_in_every_host_side_case_is_a_family_shift() {
    let (_dir, runs) = runs();
    for (factor, verdict) in [(1.9, Some("slower")), (1.5, Some("slower")), (0.6, Some("faster")), (1.2, None)] {
        let id = format!("{NEWEST}-host-{factor}");
        plant(&runs, &id, &HOST_COLUMNS, None, factor);
        let (code, report) = compare(&runs, &[&id]);
        let (_, shifts) = flagged(&report);
        let what = format!("host x{factor}: {shifts:?}");
        match verdict {
            Some(verdict) => {
                assert_eq!(shifts, vec![format!("\"host\" \"{verdict}\"")], "{what}");
                // Exit 1 is for a regression only.
                assert_eq!(code, i32::from(verdict == "slower"), "{what}");
                // The CSV has the shift as a row of its own, with the JSON's figures.
                let csv = nccl_report(&["compare", "--runs", runs.to_str().unwrap(), "--format", "csv", &id]);
                assert_eq!(csv.status.code(), Some(code), "{what}");
                let mut rows = csv::Reader::from_reader(csv.stdout.as_slice());
                let header = rows.headers().unwrap().clone();
                let at = |name: &str| header.iter().position(|h| h == name).unwrap();
                let host = rows
                    .records()
                    .map(Result::unwrap)
                    .find(|r| &r[at("scope")] == "family" && &r[at("family")] == "host-side");
                let host = host.unwrap_or_else(|| panic!("{what}: no host-side row"));
                let shift = report["shifts"].as_array().unwrap().iter().find(|s| s["family"] == "host").unwrap();
                assert_eq!(&host[at("verdict")], verdict, "{what}");
                assert_eq!(
                    host[at("history_ratio")].parse::<f64>().unwrap(),
                    shift["ratio"].as_f64().unwrap(),
                    "{what}"
                );
            }
            None => {
                assert_eq!(shifts, Vec::<String>::new(), "{what}");
                assert_eq!((code, flagged(&report).0.len()), (0, 0), "{what}");
            }
        }
        std::fs::remove_dir_all(runs.join(&id)).unwrap();
    }
}

/// On three hosts, both blocking runs against the last A/A run: the seven GPU dependency cases
/// and the device-side shift `slower`, nothing `faster`, exit 1. The second against the first
/// (its default base, the newest earlier run): the change was the first's, and the second is
/// no news of its own.
#[test]
fn the_real_cuda_launch_blocking_runs_are_slower_on_the_device_side() {
    for (set, blocking) in [(FIRST, BLOCKING), (FOURTH, FOURTH_BLOCKING), (FIFTH, FIFTH_BLOCKING)] {
        let (_dir, runs) = runs_of(set);
        let newest = a_a_ids(&runs).pop().unwrap();
        for id in blocking {
            let (code, report) = compare(&runs, &[&newest, id]);
            let (cases, shifts) = flagged(&report);
            assert_eq!(code, 1, "{set} {id}");
            assert_eq!(shifts, vec!["\"device\" \"slower\"".to_string()], "{set} {id}");
            let gpu_dependency =
                cases.iter().filter(|c| c.contains("\"gpu_dependency_us\"") && c.ends_with("\"slower\""));
            assert_eq!(gpu_dependency.count(), 7, "{set} {id}: {cases:?}");
            assert!(cases.iter().all(|c| c.ends_with("\"slower\"")), "{set} {id}: {cases:?}");
        }
        let (code, report) = compare(&runs, &[blocking[1]]);
        assert_eq!((code, flagged(&report)), (0, (vec![], vec![])), "{set}: {report}");
        let device = report["shifts"].as_array().unwrap().iter().find(|s| s["family"] == "device").unwrap();
        assert!(device["ratio"].as_f64().unwrap() > 10.0, "{set}: {device}");
        assert_eq!(device["history_left_out"], 1, "{set}: {device}");
        let reason = device["reason"].as_str().unwrap();
        assert!(reason.starts_with("outside its history, but within "), "{set}: {reason}");
        let output = nccl_report(&["compare", "--runs", runs.to_str().unwrap(), blocking[1]]);
        let expected = format!("(1 earlier run left out as a change): {reason}");
        assert!(text(&output).contains(&expected), "{set}: {}", text(&output));
    }
}

/// The change point search on real runs: none in any of the 52 cases of the 16 A/A runs; with
/// every GPU dependency of the newest 6 runs x1.5, one in each of the 7 GPU dependency cases,
/// at the first of the 6, and in no other case.
#[test]
fn change_points_on_real_runs_are_the_planted_step_only() {
    let (dir, runs) = runs();
    for id in BLOCKING {
        std::fs::remove_dir_all(runs.join(id)).unwrap();
    }
    let ids = a_a_ids(&runs);
    let site = dir.path().join("site");
    let history = |site: &Path| -> String {
        let output = nccl_report(&["build", "--runs", runs.to_str().unwrap(), "--out", site.to_str().unwrap()]);
        assert!(output.status.success(), "{}", text(&output));
        std::fs::read_dir(site.join("history"))
            .unwrap()
            .map(|e| e.unwrap().path())
            .filter(|p| p.extension().is_some_and(|e| e == "html"))
            .map(|p| std::fs::read_to_string(p).unwrap())
            .collect()
    };
    let pages = history(&site);
    assert_eq!(pages.matches(" in 16 of 16 runs; no change point.").count(), 52, "{pages}");
    assert_eq!(pages.matches("change point from run").count(), 0, "{pages}");

    for id in &ids[10..] {
        multiply(&runs.join(id), &["gpu_dependency_us"], None, 1.5);
    }
    let pages = history(&dir.path().join("site-step"));
    assert_eq!(pages.matches("gpu_dependency_us in 16 of 16 runs; 1 change point.").count(), 7, "{pages}");
    assert_eq!(pages.matches(" in 16 of 16 runs; no change point.").count(), 45, "{pages}");
    // Each step's row: the first planted run, the last run before it, the step.
    let rows: Vec<&str> = pages.split("<tr").filter(|row| row.contains(&format!(">{}</a>", ids[10]))).collect();
    assert_eq!(rows.len(), 7, "{rows:?}");
    for row in rows {
        assert!(row.contains(&format!(">{}</a>", ids[9])), "{row}");
        let step: f64 = row.split("x slower").next().unwrap().rsplit('>').next().unwrap().parse().unwrap();
        assert!((1.4..1.6).contains(&step), "{row}");
    }
}
