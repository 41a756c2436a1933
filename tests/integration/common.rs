//! Shared helpers: fixture paths, running the binary, walking and hashing trees.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::process::Output;

/// Every run entry of a built site's `runs.json` as one document `{"runs": [...]}`, newest
/// first: the entries of each shard that `data/runs.json` lists, in its order.
pub(crate) fn runs_json(site: &Path) -> serde_json::Value {
    let read =
        |rel: &str| -> serde_json::Value { serde_json::from_slice(&std::fs::read(site.join(rel)).unwrap()).unwrap() };
    let shards = read("data/runs.json")["shards"].as_array().unwrap().clone();
    let runs: Vec<serde_json::Value> =
        shards.iter().flat_map(|s| read(s["path"].as_str().unwrap())["runs"].as_array().unwrap().clone()).collect();
    serde_json::json!({ "runs": runs })
}

/// The rows of chart `chart` in a page's charts CSV (`chart,series,x,y,...`), one a line.
pub(crate) fn chart_rows(csv: &str, chart: &str) -> String {
    csv.lines().filter(|l| l.split(',').next() == Some(chart)).map(|l| format!("{l}\n")).collect()
}

/// Multiplies `columns` (by header name) of the rows of the CSV at `csv` whose `when.0` column
/// is `when.1` (every row for `None`) by `factor`, keeping each line's end (`\r\n` as the
/// worker writes, or `\n`); returns how many values changed (0 when a column is absent).
pub(crate) fn multiply_csv(csv: &Path, columns: &[&str], when: Option<(&str, &str)>, factor: f64) -> usize {
    let original = std::fs::read_to_string(csv).unwrap();
    let mut lines = original.split_inclusive('\n');
    let Some(first) = lines.next() else { return 0 };
    let header: Vec<&str> = first.trim_end_matches(['\r', '\n']).split(',').collect();
    let at = |name: &str| header.iter().position(|h| *h == name);
    let targets: Vec<usize> = columns.iter().filter_map(|c| at(c)).collect();
    let selector = match when {
        Some((column, value)) => match at(column) {
            Some(i) => Some((i, value)),
            None => return 0,
        },
        None => None,
    };
    let mut out = String::from(first);
    let mut multiplied = 0;
    for line in lines {
        let text = line.trim_end_matches(['\r', '\n']);
        let mut fields: Vec<String> = text.split(',').map(String::from).collect();
        if !text.is_empty() && selector.is_none_or(|(i, value)| fields[i] == value) {
            for &t in &targets {
                fields[t] = (fields[t].parse::<f64>().unwrap() * factor).to_string();
                multiplied += 1;
            }
        }
        out.push_str(&fields.join(","));
        out.push_str(&line[text.len()..]);
    }
    std::fs::write(csv, out).unwrap();
    multiplied
}

pub(crate) fn fixtures() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures")
}

pub(crate) fn fixture_runs() -> PathBuf {
    fixtures().join("runs")
}

/// Copies the named fixture runs (all when empty) into a fresh `runs/` under a temp dir.
pub(crate) fn runs_dir(names: &[&str]) -> (tempfile::TempDir, PathBuf) {
    let dir = tempfile::tempdir().unwrap();
    let runs = dir.path().join("runs");
    std::fs::create_dir_all(&runs).unwrap();
    for entry in std::fs::read_dir(fixture_runs()).unwrap() {
        let entry = entry.unwrap();
        let name = entry.file_name().to_string_lossy().into_owned();
        if entry.path().is_dir() && (names.is_empty() || names.contains(&name.as_str())) {
            copy_tree(&entry.path(), &runs.join(&name));
        }
    }
    (dir, runs)
}

pub(crate) fn copy_tree(from: &Path, to: &Path) {
    for entry in walkdir::WalkDir::new(from) {
        let entry = entry.unwrap();
        let target = to.join(entry.path().strip_prefix(from).unwrap());
        if entry.file_type().is_dir() {
            std::fs::create_dir_all(&target).unwrap();
        } else {
            std::fs::copy(entry.path(), &target).unwrap();
        }
    }
}

pub(crate) fn nccl_report(args: &[&str]) -> Output {
    assert_cmd::Command::cargo_bin("nccl-report").unwrap().args(args).output().unwrap()
}

pub(crate) fn build(runs: &Path, out: &Path, extra: &[&str]) -> Output {
    let mut args = vec!["build", "--runs", runs.to_str().unwrap(), "--out", out.to_str().unwrap()];
    args.extend_from_slice(extra);
    nccl_report(&args)
}

/// Every folder below `root`, by `/`-separated relative path: a site updated in place holds
/// the folders a whole build makes (none left empty behind).
pub(crate) fn folders(root: &Path) -> Vec<String> {
    walkdir::WalkDir::new(root)
        .min_depth(1)
        .sort_by_file_name()
        .into_iter()
        .map(Result::unwrap)
        .filter(|e| e.file_type().is_dir())
        .map(|e| e.path().strip_prefix(root).unwrap().to_string_lossy().replace('\\', "/"))
        .collect()
}

/// Every file under `root` with its bytes, keyed by `/`-separated relative path.
pub(crate) fn tree(root: &Path) -> BTreeMap<String, Vec<u8>> {
    walkdir::WalkDir::new(root)
        .sort_by_file_name()
        .into_iter()
        .map(Result::unwrap)
        .filter(|e| e.file_type().is_file())
        .map(|e| {
            let rel = e.path().strip_prefix(root).unwrap().to_string_lossy().replace('\\', "/");
            (rel, std::fs::read(e.path()).unwrap())
        })
        .collect()
}

pub(crate) fn text(output: &Output) -> String {
    format!("{}{}", String::from_utf8_lossy(&output.stdout), String::from_utf8_lossy(&output.stderr))
}

/// The staging and old-site folders (`.NAME.tmp-PID`, `.NAME.old-PID`) in `parent`.
pub(crate) fn leftovers(parent: &Path) -> Vec<String> {
    std::fs::read_dir(parent)
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .filter(|n| n.contains(".tmp-") || n.contains(".old-"))
        .collect()
}

/// `nccl-report serve --out SITE ARGS` on a free port, and a connection function that waits
/// for it to listen (the test fails after 5 s).
pub(crate) fn serve(site: &Path, args: &[&str]) -> (std::process::Child, impl Fn() -> std::net::TcpStream) {
    let port = std::net::TcpListener::bind("127.0.0.1:0").unwrap().local_addr().unwrap().port();
    let child = std::process::Command::new(assert_cmd::cargo::cargo_bin("nccl-report"))
        .args(["serve", "--out", site.to_str().unwrap(), "--port", &port.to_string()])
        .args(args)
        .stderr(std::process::Stdio::null())
        .spawn()
        .unwrap();
    let connect = move || {
        (0..100)
            .find_map(|_| {
                std::net::TcpStream::connect(("127.0.0.1", port))
                    .inspect_err(|_| std::thread::sleep(std::time::Duration::from_millis(50)))
                    .ok()
            })
            .expect("server did not start")
    };
    (child, connect)
}
