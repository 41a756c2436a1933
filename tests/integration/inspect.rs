//! `nccl-report inspect`: what is read from one file, as JSON, for each kind of input.

use crate::common::{nccl_report, text};
use serde_json::Value;
use std::path::Path;

fn inspect(path: &Path) -> (Option<i32>, Value) {
    let output = nccl_report(&["inspect", path.to_str().unwrap()]);
    let json = serde_json::from_slice(&output.stdout).unwrap_or_else(|_| panic!("{}", text(&output)));
    (output.status.code(), json)
}

fn data(name: &str) -> std::path::PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/data/nccl").join(name)
}

#[test]
fn nccl_tests_stdout_every_row_with_unchecked_as_null() {
    let (code, json) = inspect(&data("all_reduce_perf_seed_args.stdout"));
    assert_eq!(code, Some(0));
    assert_eq!(json["kind"], "nccl_tests");
    assert_eq!(json["collectives"][0], "all_reduce_perf");
    assert_eq!(json["version"], "2.19.6");
    assert_eq!(json["ranks"], 1);
    let rows = json["output"]["tables"][0]["rows"].as_array().unwrap();
    assert_eq!(rows.len(), 24);
    assert_eq!(rows[8]["cycle"], 1);
    assert_eq!(rows[0]["size_bytes"], 8192);
    assert_eq!(rows[0]["out_of_place"]["time_us"], 7.86);
    assert_eq!(rows[0]["out_of_place"]["wrong"], 0);

    let (_, json) = inspect(&data("other_collectives.stdout"));
    let alltoall = &json["output"]["tables"][3];
    assert_eq!(alltoall["collective"], "alltoall_perf");
    assert!(alltoall["rows"][0]["in_place"]["wrong"].is_null(), "N/A is unchecked, not 0");
}

#[test]
fn json_output_never_shows_the_environment() {
    let (code, json) = inspect(&data("json_2196.json"));
    assert_eq!(code, Some(0));
    let text = json.to_string();
    assert!(!text.contains("\"env\""), "{text}");
    // The secrets the file's environment holds appear under no other name either.
    let file = std::fs::read_to_string(data("json_2196.json")).unwrap();
    for secret in ["hf_supersecret123", "wJalrXUtnFEMI"] {
        assert!(file.contains(secret), "the fixture holds {secret}");
        assert!(!text.contains(secret), "{secret} shown: {text}");
    }
    assert!(json["output"]["tables"][0]["rows"].as_array().is_some_and(|r| !r.is_empty()));
}

#[test]
fn gzip_log_and_csv_errors() {
    let (code, json) = inspect(&data("nccl_debug_all_reduce_perf.log.gz"));
    assert_eq!(code, Some(0));
    assert_eq!(json["kind"], "nccl_log");
    assert_eq!(json["facts"]["nccl_versions"][0], "2.28.9+cuda13.0");
    assert_eq!(json["facts"]["collective_calls"]["AllReduce"], 5056);

    let dir = tempfile::tempdir().unwrap();
    let csv = dir.path().join("rank0_decode.csv");
    std::fs::write(&csv, "world_size,tokens,message_bytes,collectives,cycle,duration_us\n2,1,8192,160,0,x1\n").unwrap();
    let (code, json) = inspect(&csv);
    assert_eq!(code, Some(1), "a file with errors exits 1");
    assert_eq!(json["error"]["line"], 2);
    assert!(json["error"]["message"].as_str().unwrap().contains("column duration_us"), "{json}");
}

#[test]
fn inspector_dump_records_and_a_broken_one() {
    let (code, json) = inspect(&data("inspector/h200-a-pid1639453.log"));
    assert_eq!(code, Some(0));
    assert_eq!(json["kind"], "nccl_inspector");
    let records = json["records"].as_array().unwrap();
    assert_eq!(records.len(), 4);
    assert_eq!(records[2]["msg_size_bytes"], 16777216);
    assert_eq!(records[2]["busbw_gbs"], 275.036984);
    assert_eq!(records[3]["operation"], "Send");
    assert!(json["error"].is_null());

    let dir = tempfile::tempdir().unwrap();
    let dump = dir.path().join("node-pid12.log");
    std::fs::write(&dump, "{\"header\":{\"rank\":0},\"metadata\":{},\"coll_perf\":{}}\n").unwrap();
    let (code, json) = inspect(&dump);
    assert_eq!(code, Some(1), "a broken dump exits 1");
    assert_eq!((json["kind"].as_str(), json["error"]["line"].as_u64()), (Some("nccl_inspector"), Some(1)));
}

#[test]
fn a_file_reads_as_the_build_reads_it_in_a_run() {
    let dir = tempfile::tempdir().unwrap();
    let ib = dir.path().join("ibv_devinfo.txt");
    std::fs::write(
        &ib,
        "hca_id:\tmlx5_0\n\tport:\t1\n\t\tstate:\t\t\tPORT_ACTIVE (4)\n\t\tlink_layer:\t\tInfiniBand\n",
    )
    .unwrap();
    let (code, json) = inspect(&ib);
    assert_eq!((code, json["kind"].as_str()), (Some(0), Some("ibv_devinfo")), "{json}");
    assert_eq!(json["ports"][0]["device"], "mlx5_0");
    assert_eq!(json["ports"][0]["active"], true);

    let nccl = dir.path().join("raw/nccl");
    std::fs::create_dir_all(&nccl).unwrap();
    let log = nccl.join("node-pid12.log");
    std::fs::write(&log, "node:12:12 [0] NCCL INFO NCCL version 2.28.9+cuda13.0\n").unwrap();
    let (code, json) = inspect(&log);
    assert_eq!(
        (code, json["kind"].as_str()),
        (Some(0), Some("nccl_log")),
        "every log in raw/nccl is an NCCL log: {json}"
    );
    assert_eq!(json["facts"]["nccl_versions"][0], "2.28.9+cuda13.0");
}

/// `inspect` reads a file within the `--max-*` limits a build would use.
#[test]
fn inspect_reads_within_the_size_limits() {
    let path = data("all_reduce_perf_seed_args.stdout");
    let output = nccl_report(&["inspect", path.to_str().unwrap(), "--max-file-bytes", "64"]);
    assert_eq!(output.status.code(), Some(2), "{}", text(&output));
    assert!(text(&output).contains("cannot read"), "{}", text(&output));
    let output = nccl_report(&["inspect", path.to_str().unwrap(), "--max-file-bytes", "10000000"]);
    assert_eq!(output.status.code(), Some(0), "{}", text(&output));
}
