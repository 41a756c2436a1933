//! Issue #10 item 10: input quirks read exactly as the seed reads them, or diagnosed. Each
//! expectation was checked against the seed's `csv.DictReader` / `statistics` (Python 3.11):
//! `\r`, `\r\n` and `\r\r\n` all end records; a duplicated column keeps its LAST value; a
//! zero-filled or garbage header lacks the seed's columns (KeyError: invalid); an empty
//! nccl-tests stdout raises "produced no parseable rows" (failed); `max()` over ranks drops a
//! NaN that is not first; `pstdev` raises on a NaN, on values whose `fsum` overflows and
//! (ZeroDivisionError) on a zero mean (invalid).

use crate::common::{build, runs_dir, text};
use serde_json::Value;
use std::fs;
use std::path::Path;

const DECOMPOSITION: &str = "raw/results/world4_full/rank1_decomposition.csv";
/// Its line 4 is the slowest rank of its cycle (the critical path's value).
const CRITICAL_RANK: &str = "raw/results/world4_full/rank3_decomposition.csv";

/// A copy of the `synth-basic` fixture named `name`, with `edit` applied to its folder.
fn variant(runs: &Path, name: &str, edit: impl Fn(&Path)) {
    crate::common::copy_tree(&runs.join("synth-basic"), &runs.join(name));
    edit(&runs.join(name));
}

/// Rewrites every `rank*_decomposition.csv` of `world4_full` through `edit`.
fn each_decomposition(run: &Path, edit: impl Fn(&str) -> String) {
    for rank in 0..4 {
        let path = run.join(format!("raw/results/world4_full/rank{rank}_decomposition.csv"));
        fs::write(&path, edit(&fs::read_to_string(&path).unwrap())).unwrap();
    }
}

/// Sets the `duration_us` cell to `value` on the data row at 1-based line `only` (every row
/// when `None`).
fn durations(text: &str, value: &str, only: Option<usize>) -> String {
    let mut lines = text.lines();
    let header = lines.next().unwrap();
    let column = header.split(',').position(|c| c == "duration_us").unwrap();
    let rows = lines.enumerate().map(|(index, line)| {
        let mut cells: Vec<&str> = line.split(',').collect();
        if only.is_none_or(|line| line == index + 2) {
            cells[column] = value;
        }
        cells.join(",")
    });
    std::iter::once(header.to_string()).chain(rows).collect::<Vec<_>>().join("\n") + "\n"
}

/// Moves `duration_us` to a second column of that name at the end, the first holding `x`.
fn duplicated_duration(text: &str) -> String {
    let mut lines = text.lines();
    let header = lines.next().unwrap();
    let column = header.split(',').position(|c| c == "duration_us").unwrap();
    let rows = lines.map(|line| {
        let mut cells: Vec<&str> = line.split(',').collect();
        let value = std::mem::replace(&mut cells[column], "x");
        format!("{},{value}", cells.join(","))
    });
    std::iter::once(format!("{header},duration_us")).chain(rows).collect::<Vec<_>>().join("\n") + "\n"
}

fn entry<'a>(runs_json: &'a Value, run: &str) -> &'a Value {
    runs_json["runs"].as_array().unwrap().iter().find(|e| e["run_id"] == run).unwrap()
}

/// The first diagnostic of `severity` of a run entry.
fn diagnostic<'a>(entry: &'a Value, severity: &str) -> &'a Value {
    let found = entry["diagnostics"].as_array().unwrap().iter().find(|d| d["severity"] == severity);
    found.unwrap_or_else(|| panic!("no {severity} in {entry}"))
}

#[test]
fn line_ends_duplicated_columns_empty_files_and_odd_durations_as_the_seed() {
    let (dir, runs) = runs_dir(&["synth-basic"]);
    // The fixtures' CSVs end their lines with CRLF (the seed's csv module): each line end
    // becomes CR alone, or CR CR LF.
    let line_ends = |text: &str, end: &str| text.replace("\r\n", "\n").replace('\n', end);
    variant(&runs, "cr-only", |run| each_decomposition(run, |t| line_ends(t, "\r")));
    variant(&runs, "cr-cr-lf", |run| each_decomposition(run, |t| line_ends(t, "\r\r\n")));
    variant(&runs, "duplicated-column", |run| each_decomposition(run, duplicated_duration));
    variant(&runs, "header-only", |run| {
        let text = fs::read_to_string(run.join(DECOMPOSITION)).unwrap();
        fs::write(run.join(DECOMPOSITION), format!("{}\n", text.lines().next().unwrap())).unwrap();
    });
    variant(&runs, "zero-filled", |run| fs::write(run.join(DECOMPOSITION), vec![0u8; 4096]).unwrap());
    variant(&runs, "garbage-header", |run| fs::write(run.join(DECOMPOSITION), "\u{1}\u{2},zz\n1,2\n").unwrap());
    variant(&runs, "empty-nccl-stdout", |run| fs::write(run.join("raw/nccl_tests_g2.stdout"), "").unwrap());
    variant(&runs, "nan-duration", |run| {
        let path = run.join(CRITICAL_RANK);
        fs::write(&path, durations(&fs::read_to_string(&path).unwrap(), "nan", Some(4))).unwrap();
    });
    variant(&runs, "zero-cell", |run| {
        let path = run.join(CRITICAL_RANK);
        fs::write(&path, durations(&fs::read_to_string(&path).unwrap(), "0", Some(4))).unwrap();
    });
    variant(&runs, "nan-first-rank", |run| {
        let path = run.join("raw/results/world4_full/rank0_decomposition.csv");
        fs::write(&path, durations(&fs::read_to_string(&path).unwrap(), "nan", Some(3))).unwrap();
    });
    variant(&runs, "zero-durations", |run| each_decomposition(run, |t| durations(t, "0", None)));
    variant(&runs, "overflowing-durations", |run| each_decomposition(run, |t| durations(t, "1e308", None)));

    let site = dir.path().join("site");
    let output = build(&runs, &site, &[]);
    assert!(output.status.success(), "{}", text(&output));
    let runs_json: Value = crate::common::runs_json(&site);
    let summary = |run: &str| fs::read(site.join("runs").join(run).join("decomposition_summary.csv")).unwrap();

    for run in ["cr-only", "cr-cr-lf", "duplicated-column"] {
        assert_eq!(entry(&runs_json, run)["status"], "ok", "{run}: {}", entry(&runs_json, run));
        assert!(summary(run) == summary("synth-basic"), "{run}: read differently from the CRLF original");
    }

    let header_only = entry(&runs_json, "header-only");
    assert_eq!(header_only["status"], "ok");
    let warning = diagnostic(header_only, "warning");
    assert_eq!(warning["file"], DECOMPOSITION);
    assert!(warning["message"].as_str().unwrap().contains("no data rows"), "{warning}");

    for run in ["zero-filled", "garbage-header"] {
        let error = diagnostic(entry(&runs_json, run), "error");
        assert_eq!(entry(&runs_json, run)["status"], "invalid");
        assert_eq!((&error["file"], &error["line"]), (&Value::from(DECOMPOSITION), &Value::from(1)), "{run}");
        assert!(error["message"].as_str().unwrap().contains("missing column"), "{run}: {error}");
    }

    let empty = entry(&runs_json, "empty-nccl-stdout");
    assert_eq!(empty["status"], "failed", "{empty}");
    assert_eq!(diagnostic(empty, "failure")["file"], "raw/nccl_tests_g2.stdout");

    // Python's max() over ranks drops a NaN that is not the first rank's: the same numbers as a
    // 0 there (smaller than every other rank's value); the first rank's NaN reaches pstdev.
    assert_eq!(entry(&runs_json, "nan-duration")["status"], "ok");
    assert!(summary("nan-duration") == summary("zero-cell"), "a NaN dropped by max() changed the numbers");
    assert!(summary("nan-duration") != summary("synth-basic"), "the edited cell was not on the critical path");
    let nan = diagnostic(entry(&runs_json, "nan-first-rank"), "error");
    assert!(nan["message"].as_str().unwrap().contains("not finite (Python's pstdev raises)"), "{nan}");

    for (run, why) in [("zero-durations", "mean is zero"), ("overflowing-durations", "overflow")] {
        assert_eq!(entry(&runs_json, run)["status"], "invalid", "{run}");
        let error = diagnostic(entry(&runs_json, run), "error");
        assert!(error["message"].as_str().unwrap().contains(why), "{run}: {error}");
    }
}
