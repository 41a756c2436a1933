//! The public NCCL log corpus (`tests/fixtures/nccl_logs/`, sources in its `SOURCES.md`):
//! `inspect` on every log, each fact compared with the hand-written `.expected` file next to
//! it, and a right / wrong / missing table per kind of fact, for the tuning set and the
//! held-out set (`heldout/`) separately (`cargo test --test integration nccl_corpus --
//! --nocapture` prints it).
//!
//! An `.expected` file has one `key = value` line per fact the log states: `version`,
//! `cuda_driver`, `nranks`, `nnodes`, `local_ranks`, `hosts`, `network`, `net_plugin`,
//! `channels`, `rings`, `trees` (lists, `, `-separated, compared as sets), `nvls`, `collnet`,
//! `pxn` (`yes`/`no`), `transport <name> = <count>` (one line per transport), `tuning` (TUNING
//! lines) and `cut_warnings` (lines that state a fact only partly). A fact the file does not
//! name must not be reported: reporting it counts as wrong. `CORPUS_INSPECT_BIN` scores another
//! binary (e.g. an older build) without asserting the targets. The held-out set's wrong and
//! missing facts are printed only when its targets fail (it is not for tuning on).

use crate::common::text;
use serde_json::Value;
use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};
use std::process::Command;

/// The kinds of fact, in table order (`transport` stands for every `transport <name>` line).
const KINDS: [&str; 17] = [
    "version",
    "cuda_driver",
    "nranks",
    "nnodes",
    "local_ranks",
    "hosts",
    "network",
    "net_plugin",
    "nvls",
    "collnet",
    "pxn",
    "channels",
    "rings",
    "trees",
    "transport",
    "tuning",
    "cut_warnings",
];

#[derive(Default, Clone, Copy)]
struct Score {
    right: u32,
    wrong: u32,
    missing: u32,
}

fn corpus() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/nccl_logs")
}

fn logs(dir: &Path) -> Vec<PathBuf> {
    let mut logs: Vec<PathBuf> = std::fs::read_dir(dir)
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.extension().is_some_and(|e| e == "log"))
        .collect();
    logs.sort();
    logs
}

fn inspect(binary: Option<&str>, log: &Path) -> Value {
    let output = match binary {
        Some(binary) => Command::new(binary).arg("inspect").arg(log).output().unwrap(),
        None => assert_cmd::Command::cargo_bin("nccl-report").unwrap().arg("inspect").arg(log).output().unwrap(),
    };
    serde_json::from_slice(&output.stdout).unwrap_or_else(|_| panic!("{}: {}", log.display(), text(&output)))
}

/// `key = value` lines of an `.expected` file.
fn expected(log: &Path) -> BTreeMap<String, String> {
    let path = log.with_extension("expected");
    let text = std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    text.lines()
        .filter(|l| !l.trim().is_empty())
        .map(|l| {
            let (key, value) = l.split_once(" = ").unwrap_or_else(|| panic!("{}: bad line {l:?}", path.display()));
            (key.trim().to_string(), value.trim().to_string())
        })
        .collect()
}

fn strings(value: &Value) -> Vec<String> {
    value
        .as_array()
        .map(|a| a.iter().map(|v| v.as_str().map_or_else(|| v.to_string(), str::to_string)).collect())
        .unwrap_or_default()
}

fn yes_no(value: &Value) -> String {
    value.as_bool().map_or_else(String::new, |b| if b { "yes" } else { "no" }.to_string())
}

/// The facts `inspect` reported, in the `.expected` vocabulary (older builds' JSON included:
/// world sizes from communicators, hosts from `files_by_host`).
fn reported(json: &Value) -> BTreeMap<String, String> {
    let facts = &json["facts"];
    let join = |list: Vec<String>| list.join(", ");
    let mut out = BTreeMap::new();
    let mut put = |key: &str, value: String| {
        if !value.is_empty() {
            out.insert(key.to_string(), value);
        }
    };
    put("version", join(strings(&facts["nccl_versions"])));
    put("cuda_driver", join(strings(&facts["cuda_driver_versions"])));
    let nranks = if facts["nranks"].is_array() {
        strings(&facts["nranks"])
    } else {
        let sizes: BTreeSet<u64> =
            facts["communicators"].as_array().into_iter().flatten().filter_map(|c| c["nranks"].as_u64()).collect();
        sizes.iter().map(u64::to_string).collect()
    };
    put("nranks", join(nranks));
    put("nnodes", join(strings(&facts["nnodes"])));
    put("local_ranks", join(strings(&facts["local_ranks"])));
    put("hosts", join(facts["files_by_host"].as_object().map(|m| m.keys().cloned().collect()).unwrap_or_default()));
    put("network", join(strings(&facts["networks"])));
    put("net_plugin", join(strings(&facts["net_plugins"])));
    put("nvls", yes_no(&facts["nvls"]));
    put("collnet", yes_no(&facts["collnet"]));
    put("pxn", yes_no(&facts["pxn"]));
    put("channels", join(strings(&facts["channel_counts"])));
    put("rings", join(strings(&facts["rings"])));
    put("trees", join(strings(&facts["trees"])));
    for (name, count) in facts["transports"].as_object().into_iter().flatten() {
        put(&format!("transport {name}"), count.to_string());
    }
    let tuning: u64 = facts["tuning"].as_array().into_iter().flatten().filter_map(|t| t["count"].as_u64()).sum();
    put("tuning", if tuning > 0 { tuning.to_string() } else { String::new() });
    let cut = facts["partial_line_count"].as_u64().unwrap_or(0);
    put("cut_warnings", if cut > 0 { cut.to_string() } else { String::new() });
    out
}

fn kind(key: &str) -> &str {
    if key.starts_with("transport ") {
        "transport"
    } else {
        key
    }
}

/// Lists compare as sets (`, `-separated), everything else as text.
fn same(a: &str, b: &str) -> bool {
    fn set(s: &str) -> BTreeSet<&str> {
        s.split(", ").map(str::trim).collect()
    }
    set(a) == set(b)
}

/// Scores one log into `table`; returns the lines of its wrong and missing facts.
fn score(log: &Path, json: &Value, table: &mut BTreeMap<&'static str, Score>) -> Vec<String> {
    let want = expected(log);
    let got = reported(json);
    let mut notes = Vec::new();
    let name = log.file_name().unwrap().to_string_lossy().into_owned();
    for key in want.keys().chain(got.keys()).collect::<BTreeSet<_>>() {
        let kind = KINDS.iter().find(|k| **k == kind(key)).unwrap_or_else(|| panic!("{name}: unknown fact {key}"));
        let entry = table.entry(kind).or_default();
        match (want.get(key), got.get(key)) {
            (Some(w), Some(g)) if same(w, g) => entry.right += 1,
            (Some(w), None) => {
                entry.missing += 1;
                notes.push(format!("{name}: {key} missing (expected {w})"));
            }
            (w, g) => {
                entry.wrong += 1;
                notes.push(format!("{name}: {key} = {g:?}, expected {w:?}"));
            }
        }
    }
    notes
}

fn run(set: &str, dir: &Path, binary: Option<&str>, show_notes: bool) -> (Score, Vec<String>) {
    let mut table = BTreeMap::new();
    let mut notes = Vec::new();
    let logs = logs(dir);
    for log in &logs {
        notes.extend(score(log, &inspect(binary, log), &mut table));
    }
    let mut total = Score::default();
    println!("\n{set}: {} logs\n| fact | right | wrong | missing |\n|---|---|---|---|", logs.len());
    for kind in KINDS {
        let s = table.get(kind).copied().unwrap_or_default();
        if s.right + s.wrong + s.missing > 0 {
            println!("| {kind} | {} | {} | {} |", s.right, s.wrong, s.missing);
        }
        total.right += s.right;
        total.wrong += s.wrong;
        total.missing += s.missing;
    }
    let all = total.right + total.wrong + total.missing;
    println!(
        "| **all** | {} ({:.0} %) | {} | {} |",
        total.right,
        100.0 * f64::from(total.right) / f64::from(all.max(1)),
        total.wrong,
        total.missing
    );
    if show_notes {
        for note in &notes {
            println!("  {note}");
        }
    }
    (total, notes)
}

#[test]
fn nccl_corpus_facts_against_the_hand_written_ones() {
    let binary = std::env::var("CORPUS_INSPECT_BIN").ok();
    let (tuning, tuning_notes) = run("tuning set", &corpus(), binary.as_deref(), true);
    let (heldout, heldout_notes) = run("held-out set", &corpus().join("heldout"), binary.as_deref(), false);
    if binary.is_some() {
        return;
    }
    assert!(logs(&corpus()).len() + logs(&corpus().join("heldout")).len() >= 30, "at least 30 logs");
    assert_eq!(tuning.wrong + tuning.missing, 0, "tuning set: {tuning_notes:#?}");
    let all = heldout.right + heldout.wrong + heldout.missing;
    assert_eq!(heldout.wrong, 0, "held-out set: {heldout_notes:#?}");
    assert!(f64::from(heldout.right) >= 0.95 * f64::from(all), "held-out set: at least 95 % right");
}
