//! The run page's NCCL log facts read as a person would write them: CUDA driver `13.0`,
//! graph-search patterns by name, channels explained, each tree once.

use crate::common::{build, runs_dir, text};
use std::fs;

#[test]
fn run_page_states_nccl_facts_in_words_once() {
    let (dir, runs) = runs_dir(&["synth-gzip-logs"]);
    let site = dir.path().join("site");
    let output = build(&runs, &site, &[]);
    let page = fs::read_to_string(site.join("runs/synth-gzip-logs/index.html"))
        .unwrap_or_else(|_| panic!("{}", text(&output)));
    let page = page.replace("&#62;", ">").replace("&gt;", ">");
    for phrase in [
        "CUDA driver: 13.0.",
        "Channels: 32 per communicator: the ring graph search found 16, which NCCL duplicated (x2).",
        "balanced tree (1)",
        "ring (4)",
    ] {
        assert!(page.contains(phrase), "{phrase:?} missing");
    }
    assert!(!page.contains("CUDA driver: 13000"));
    assert_eq!(page.matches("\n1/-1/-1->0->-1\n").count(), 1, "each tree once");
    assert!(!page.contains("-1 -> 0 -> 1/"), "no tree in the Tree line's order");
}

/// A two-node run assembled from a real public log (`tests/fixtures/two-node/`): both hosts on
/// the run page, the evidence boundary says two nodes, the manifest names the binary of an
/// nccl-tests output that does not.
#[test]
fn two_node_run_from_real_logs_shows_both_hosts() {
    let dir = tempfile::tempdir().unwrap();
    let runs = dir.path().join("runs");
    crate::common::copy_tree(&crate::common::fixtures().join("two-node"), &runs);
    let site = dir.path().join("site");
    let output = build(&runs, &site, &[]);
    let page = fs::read_to_string(site.join("runs/efa-t4-two-node/index.html"))
        .unwrap_or_else(|_| panic!("{}", text(&output)));
    for phrase in [
        "2 hosts: test-nccl-efa-worker-0, test-nccl-efa-worker-1.",
        "Measured on Tesla T4 (topology not recorded), 2 nodes.",
        "NCCL network: AWS Libfabric.",
        "NET/AWS Libfabric/0",
        "all_reduce_perf at 2 ranks",
        "Net plugin: aws-ofi-nccl.",
        "World sizes logged: 2.",
    ] {
        assert!(page.contains(phrase), "{phrase:?} missing");
    }
    for absent in ["single node", "unknown binary", "NET/AWS 8"] {
        assert!(!page.contains(absent), "{absent:?} on the page");
    }
}

/// `inspect` on an NCCL log saved as `.txt`: the content check reads it as a log and says so
/// (stdout `kind_reason`, a stderr note); `--kind` forces either kind.
#[test]
fn inspect_guesses_a_txt_log_and_kind_forces() {
    let dir = tempfile::tempdir().unwrap();
    let txt = dir.path().join("job-output.txt");
    let log = crate::common::fixtures().join("nccl_logs/02-efa-two-node-aws-ofi-1.12.log");
    fs::copy(&log, &txt).unwrap();
    let output = crate::common::nccl_report(&["inspect", txt.to_str().unwrap()]);
    let json: serde_json::Value =
        serde_json::from_slice(&output.stdout).unwrap_or_else(|_| panic!("{}", text(&output)));
    assert_eq!(json["kind"], "nccl_log");
    assert_eq!(json["nnodes"], serde_json::json!([2]));
    assert_eq!(json["hosts"].as_object().map(|h| h.len()), Some(2));
    let reason = json["kind_reason"].as_str().unwrap();
    assert!(reason.starts_with("content: ") && reason.contains("the file name says nccl-tests output"), "{reason}");
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(stderr.contains("read as an NCCL log") && stderr.contains("--kind"), "{stderr}");

    let forced = crate::common::nccl_report(&["inspect", "--kind", "nccl-tests", txt.to_str().unwrap()]);
    let json: serde_json::Value = serde_json::from_slice(&forced.stdout).unwrap();
    assert_eq!((json["kind"].as_str(), json["kind_reason"].as_str()), (Some("nccl_tests"), Some("--kind nccl-tests")));
    assert!(forced.stderr.is_empty());

    let named = crate::common::nccl_report(&["inspect", log.to_str().unwrap()]);
    let json: serde_json::Value = serde_json::from_slice(&named.stdout).unwrap();
    assert!(json["kind_reason"].as_str().unwrap().starts_with("file name: NCCL log; content agrees"));
}
