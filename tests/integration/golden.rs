//! Exactness: every seed statistic recomputed by nccl-report equals the seed oracle's output
//! (`../shared/seed/seed_oracle.py` run on each fixture; see tests/fixtures/README.md) to
//! exactly, cell by cell (a CV within 1e-9 relative: see `assert_same_csv`), `summary.md` has
//! the same table rows, and the runs the seed refuses are failed for the seed's reason.

use crate::common::{build, fixtures, runs_dir};

const REL: f64 = 1e-9;

/// The seed's CSV outputs, listed here independently of the library on purpose (a file the
/// library forgot must still be compared); `the_library_lists_the_same_outputs` holds the two
/// lists together.
const SEED_CSVS: [&str; 8] = [
    "async_summary.csv",
    "decomposition_summary.csv",
    "fragmentation_summary.csv",
    "decode_summary.csv",
    "nccl_tests_raw.csv",
    "nccl_tests_summary.csv",
    "numeric_summary.csv",
    "summary.csv",
];

#[test]
fn the_library_lists_the_same_outputs() {
    let mut ours: Vec<&str> = SEED_CSVS.iter().copied().chain(["summary.md"]).collect();
    let mut library = nccl_report::core::model::seed_outputs::SEED_OUTPUTS.to_vec();
    ours.sort();
    library.sort();
    assert_eq!(ours, library);
}

fn cells(bytes: &[u8]) -> Vec<Vec<String>> {
    csv::ReaderBuilder::new()
        .has_headers(false)
        .from_reader(bytes)
        .records()
        .map(|r| r.unwrap().iter().map(str::to_string).collect())
        .collect()
}

fn assert_same_csv(name: &str, expected: &[u8], actual: &[u8]) {
    let (expected, actual) = (cells(expected), cells(actual));
    assert_eq!(expected.len(), actual.len(), "{name}: row count");
    assert_eq!(expected[0], actual[0], "{name}: header");
    for (row, (e, a)) in expected.iter().zip(&actual).enumerate() {
        assert_eq!(e.len(), a.len(), "{name} row {row}");
        for (column, (x, y)) in e.iter().zip(a).enumerate() {
            let header = &expected[0][column];
            let label = format!("{name} row {row} column {header}");
            // Only a CV may differ in its last bits: the seed takes Python's pstdev (exact
            // rationals) and nccl-report an f64 sum (stats::cv_percent). Every other cell is
            // plain IEEE arithmetic in the seed's order, so its text must be the seed's.
            match (x.parse::<f64>(), y.parse::<f64>()) {
                (Ok(x), Ok(y)) if header.contains("cv_percent") => {
                    // An infinity matches only itself (it is within any relative tolerance).
                    let close = x.is_finite() && y.is_finite() && (x - y).abs() <= REL * x.abs().max(y.abs());
                    assert!(x == y || close, "{label}: seed {x}, nccl-report {y}")
                }
                _ => assert_eq!(x, y, "{label}"),
            }
        }
    }
}

/// The file's text with the text of every cell of a `cv_percent` column put as `*`: lines cut
/// at `\n` (a CR stays with its line), cells at `,`; a line holding a quote is kept whole.
fn without_cv_cells(bytes: &[u8]) -> String {
    let text = String::from_utf8_lossy(bytes);
    let mut lines = text.split('\n');
    let header = lines.next().unwrap_or_default();
    let cv: Vec<bool> = header.trim_end_matches('\r').split(',').map(|c| c.contains("cv_percent")).collect();
    let masked = lines.map(|line| {
        if line.contains('"') {
            return line.to_string();
        }
        let (body, cr) = line.strip_suffix('\r').map_or((line, ""), |body| (body, "\r"));
        let cells: Vec<&str> =
            body.split(',').enumerate().map(|(i, cell)| if cv.get(i) == Some(&true) { "*" } else { cell }).collect();
        format!("{}{cr}", cells.join(","))
    });
    std::iter::once(header.to_string()).chain(masked).collect::<Vec<_>>().join("\n")
}

fn table_rows(bytes: &[u8]) -> Vec<String> {
    String::from_utf8_lossy(bytes).lines().filter(|l| l.starts_with('|')).map(str::to_string).collect()
}

/// Fixtures with an `oracle_status.json` saying the seed finished.
fn golden_runs() -> Vec<String> {
    let mut names = Vec::new();
    for entry in std::fs::read_dir(fixtures().join("golden")).unwrap() {
        let dir = entry.unwrap().path();
        let status = std::fs::read_to_string(dir.join("oracle_status.json")).unwrap_or_default();
        if status.contains("\"status\": \"ok\"") {
            names.push(dir.file_name().unwrap().to_string_lossy().into_owned());
        }
    }
    names.sort();
    names
}

#[test]
fn every_seed_output_matches_the_oracle() {
    let names = golden_runs();
    assert!(names.len() >= 3, "expected several golden fixtures, found {names:?}");
    let (dir, runs) = runs_dir(&[]);
    let out = dir.path().join("site");
    let output = build(&runs, &out, &[]);
    assert!(output.status.success(), "{}", crate::common::text(&output));
    let mut compared = 0;
    for name in &names {
        let golden = fixtures().join("golden").join(name);
        let site = out.join("runs").join(name);
        for file in SEED_CSVS {
            let expected = std::fs::read(golden.join(file)).unwrap_or_else(|_| panic!("{name}/{file} golden"));
            let actual = std::fs::read(site.join(file)).unwrap_or_else(|_| panic!("{name}/{file} not written"));
            assert_same_csv(&format!("{name}/{file}"), &expected, &actual);
            // And byte for byte (line ends, quoting, the last newline), but for the CV cells'
            // text, compared as numbers just above.
            assert_eq!(without_cv_cells(&expected), without_cv_cells(&actual), "{name}/{file}: bytes");
            compared += 1;
        }
        let expected = std::fs::read(golden.join("summary.md")).unwrap();
        let actual = std::fs::read(site.join("summary.md")).unwrap();
        assert_eq!(table_rows(&expected), table_rows(&actual), "{name}/summary.md tables");
        // Every line before the evidence boundary (which nccl-report writes from the run's own
        // facts), the contracts line too: the seed's.
        let before_boundary = |bytes: &[u8]| -> Vec<String> {
            String::from_utf8_lossy(bytes)
                .lines()
                .take_while(|l| *l != "## Evidence boundary")
                .map(str::to_string)
                .collect()
        };
        assert!(before_boundary(&expected).iter().any(|l| l.contains("per-rank contracts")), "{name}/summary.md");
        assert_eq!(
            before_boundary(&expected),
            before_boundary(&actual),
            "{name}/summary.md before the evidence boundary"
        );
    }
    assert_eq!(compared, names.len() * 8);
}

#[test]
fn csv_files_are_byte_identical_where_python_arithmetic_agrees() {
    // Medians, percentiles, min/max and ratios are plain IEEE operations: the exported text must
    // be the seed's byte for byte (CRLF, repr floats, True/False). CV goes through Python's
    // exact-rational pstdev, so files with a CV column are compared numerically above.
    for name in golden_runs() {
        let (dir, runs) = runs_dir(&[name.as_str()]);
        let out = dir.path().join("site");
        assert!(build(&runs, &out, &[]).status.success());
        for file in ["nccl_tests_raw.csv", "numeric_summary.csv"] {
            let expected = std::fs::read(fixtures().join("golden").join(&name).join(file)).unwrap();
            let actual = std::fs::read(out.join("runs").join(&name).join(file)).unwrap();
            assert_eq!(String::from_utf8_lossy(&expected), String::from_utf8_lossy(&actual), "{name}/{file}");
        }
    }
}

#[test]
fn runs_archiving_the_seed_outputs_are_compared_without_differences() {
    let names = golden_runs();
    let (dir, runs) = runs_dir(&[names[0].as_str()]);
    // Archive the oracle's outputs inside the run, as a real seed run holds them.
    for entry in std::fs::read_dir(fixtures().join("golden").join(&names[0])).unwrap() {
        let path = entry.unwrap().path();
        let file = path.file_name().unwrap().to_string_lossy().into_owned();
        if file.ends_with(".csv") || file == "summary.md" {
            std::fs::copy(&path, runs.join(&names[0]).join(&file)).unwrap();
        }
    }
    let out = dir.path().join("site");
    assert!(build(&runs, &out, &["--strict"]).status.success());
    let json = crate::common::runs_json(&out).to_string();
    assert!(!json.contains("differs from the recomputed value"), "{json}");

    // Now tamper with one archived number: the difference is reported with file and line.
    let path = runs.join(&names[0]).join("decode_summary.csv");
    let text = std::fs::read_to_string(&path).unwrap();
    let mut lines: Vec<String> = text.split("\r\n").map(str::to_string).collect();
    let mut cells: Vec<String> = lines[1].split(',').map(str::to_string).collect();
    cells[6] = "1.5".to_string();
    lines[1] = cells.join(",");
    std::fs::write(&path, lines.join("\r\n")).unwrap();
    assert!(build(&runs, &out, &[]).status.success());
    let json = crate::common::runs_json(&out).to_string();
    assert!(json.contains("decode_summary.csv"), "{json}");
    assert!(json.contains("column median_total_us: archived \\\"1.5\\\""), "{json}");
}

/// Fixtures the seed refused: the verdict, the place and the reason must match its error.
fn failing_runs() -> Vec<(String, serde_json::Value)> {
    let mut runs = Vec::new();
    for entry in std::fs::read_dir(fixtures().join("golden")).unwrap() {
        let dir = entry.unwrap().path();
        let status: serde_json::Value =
            serde_json::from_slice(&std::fs::read(dir.join("oracle_status.json")).unwrap()).unwrap();
        if status["status"] == "error" {
            runs.push((dir.file_name().unwrap().to_string_lossy().into_owned(), status));
        }
    }
    runs.sort_by(|a, b| a.0.cmp(&b.0));
    runs
}

#[test]
fn runs_the_seed_refuses_are_failed_with_file_line_and_the_seeds_reason() {
    let failing = failing_runs();
    let names: Vec<&str> = failing.iter().map(|(name, _)| name.as_str()).collect();
    assert_eq!(names, ["synth-contract-failure", "synth-nccl-wrong"]);
    let (dir, runs) = runs_dir(&names);
    let out = dir.path().join("site");
    let output = build(&runs, &out, &["--strict"]);
    assert_eq!(output.status.code(), Some(1), "--strict fails on failed runs: {}", crate::common::text(&output));
    let index = crate::common::runs_json(&out);
    for (name, status) in &failing {
        let error = std::fs::read_to_string(fixtures().join("golden").join(name).join("error.txt")).unwrap();
        assert!(error.contains(status["error"].as_str().unwrap()), "{name}: error.txt and oracle_status.json agree");
        let run = index["runs"].as_array().unwrap().iter().find(|r| r["run_id"] == name.as_str()).unwrap();
        assert_eq!(run["status"], "failed", "{name}");
        // The first failure with a line: that line of that file is where the seed's reason is.
        let failure = run["diagnostics"]
            .as_array()
            .unwrap()
            .iter()
            .find(|d| d["severity"] == "failure" && d["line"].is_u64())
            .unwrap_or_else(|| panic!("{name}: no failure with file:line in {run}"));
        let (file, line) = (failure["file"].as_str().unwrap(), failure["line"].as_u64().unwrap() as usize);
        let text = std::fs::read_to_string(runs.join(name).join(file)).unwrap();
        let cited = text.lines().nth(line - 1).unwrap_or_else(|| panic!("{name}: {file} has no line {line}"));
        let message = failure["message"].as_str().unwrap();
        let seed_error = status["error"].as_str().unwrap();
        if let Some(list) = seed_error.strip_prefix("contract failures: ") {
            // The seed prints the failing contract rows as dicts: every key=value is in our message,
            // and the cited line is that row.
            for pair in list.trim_matches(['[', ']', '{', '}']).split("', '") {
                let (key, value) = pair.trim_matches('\'').split_once("': '").unwrap();
                assert!(message.contains(&format!("{key}={value}")), "{name}: {key}={value} in {message}");
            }
            assert!(cited.contains("False") && cited.contains("reduce_scatter_all_gather"), "{name}: {cited}");
        } else {
            assert_eq!(seed_error, "nccl-tests correctness failure");
            assert!(message.contains(seed_error), "{name}: {message}");
            let wrong: Vec<&str> = cited.split_whitespace().collect();
            assert!(message.contains(&format!("at size {}", wrong[0])), "{name}: {cited} / {message}");
        }
        // The outputs the seed wrote before it stopped are ours byte for byte.
        for output in status["outputs"].as_array().unwrap() {
            let file = output.as_str().unwrap();
            let expected = std::fs::read(fixtures().join("golden").join(name).join(file)).unwrap();
            let actual = std::fs::read(out.join("runs").join(name).join(file)).unwrap();
            assert_eq!(String::from_utf8_lossy(&expected), String::from_utf8_lossy(&actual), "{name}/{file}");
        }
    }
}
