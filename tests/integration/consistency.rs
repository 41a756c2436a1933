//! A run whose rank CSVs, rows, GPU list, manifest commands, nccl-tests outputs and NCCL logs
//! disagree: each disagreement is a warning naming both sources, in `runs.json`; the fixture
//! runs themselves (world4 + world2 cases on a 4-GPU manifest) get none.

use crate::common::{build, runs_dir, text};
use flate2::write::GzEncoder;
use std::fs;
use std::io::Write;
use std::path::Path;

fn warnings(site: &Path, id: &str) -> Vec<String> {
    let runs = crate::common::runs_json(site);
    let run = runs["runs"].as_array().unwrap().iter().find(|r| r["run_id"] == id).unwrap_or_else(|| panic!("{runs}"));
    run["diagnostics"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|d| d["severity"] == "warning")
        .map(|d| format!("{}: {}", d["file"].as_str().unwrap(), d["message"].as_str().unwrap()))
        .collect()
}

#[test]
fn eight_rank_csvs_on_four_gpus_and_a_four_rank_command_are_warned() {
    let (dir, runs) = runs_dir(&["synth-basic", "synth-gzip-logs"]);
    let basic = runs.join("synth-basic");
    let case = basic.join("raw/results/world4_full");
    for rank in 4..8 {
        fs::copy(case.join("rank0_decode.csv"), case.join(format!("rank{rank}_decode.csv"))).unwrap();
    }
    fs::rename(basic.join("raw/nccl_tests_g2.stdout"), basic.join("raw/nccl_tests_g8.stdout")).unwrap();
    let log = runs.join("synth-gzip-logs/raw/nccl/world9_full_host_1.log.gz");
    let mut gz = GzEncoder::new(fs::File::create(&log).unwrap(), flate2::Compression::default());
    gz.write_all(b"h:1:1 [0] NCCL INFO ncclCommInitRankConfig comm 0x1 rank 0 nranks 16 cudaDev 0 busId 18000 commId 0x9 - Init START\n").unwrap();
    gz.finish().unwrap();

    let site = dir.path().join("site");
    let output = build(&runs, &site, &[]);
    assert!(site.join("data/runs.json").is_file(), "{}", text(&output));
    let basic = warnings(&site, "synth-basic");
    let expected = [
        "raw/results/world4_full: 8 rank CSV sets (rank0..rank7) but the rows' world_size says 4",
        "manifest.txt: command 1 launches --nproc_per_node=4 for world4_full but raw/results/world4_full has 8 rank CSV sets (rank0..rank7)",
        "artifacts/nvidia_smi_query.txt: nvidia-smi lists 4 GPUs but raw/results/world4_full has 8 rank CSV sets (rank0..rank7)",
        "raw/nccl_tests_g8.stdout: named for 8 ranks but lists 2 device lines",
        "raw/nccl_tests_g8.stdout: 8 ranks but the manifest's nccl-tests commands run command 3: -g 2 -t 1; command 4: -g 4 -t 1",
        "artifacts/nvidia_smi_query.txt: nvidia-smi lists 4 GPUs but raw/nccl_tests_g8.stdout ran 8 ranks",
    ];
    for message in expected {
        assert!(basic.iter().any(|w| w == message), "{message:?} missing from {basic:#?}");
    }
    assert_eq!(basic.len(), expected.len(), "{basic:#?}");
    let logs = warnings(&site, "synth-gzip-logs");
    assert_eq!(logs.len(), 1, "{logs:#?}");
    assert!(logs[0].starts_with("raw/nccl: the NCCL logs"), "{logs:#?}");
    assert!(logs[0].ends_with("the NCCL logs show a communicator of nranks 16 but the run's largest world size (rank CSVs, rows, nccl-tests, manifest) is 4"), "{logs:#?}");
}

#[test]
fn the_fixture_runs_agree_with_themselves() {
    let (dir, runs) = runs_dir(&[]);
    let site = dir.path().join("site");
    let output = build(&runs, &site, &[]);
    assert!(site.join("data/runs.json").is_file(), "{}", text(&output));
    let runs_json = crate::common::runs_json(&site);
    let runs = runs_json["runs"].as_array().unwrap();
    assert!(runs.len() > 5, "{runs_json}");
    // The cross-file checks' codes, NR320 (folders merged) to NR326 (a log's communicator).
    let checks: Vec<String> = (320..=326).map(|n| format!("NR{n}")).collect();
    for run in runs {
        for diagnostic in run["diagnostics"].as_array().unwrap() {
            let code = diagnostic["code"].as_str().unwrap().to_string();
            assert!(!checks.contains(&code), "false warning in {}: {diagnostic}", run["run_id"]);
        }
    }
}

/// Two case folders with async, decomposition and fragmentation rows of one world size: the
/// seed's keys merge them, and the run says so (decode is split per folder instead).
#[test]
fn two_folders_of_one_world_size_are_named_where_the_seed_merges_them() {
    let (dir, runs) = runs_dir(&["synth-basic"]);
    let results = runs.join("synth-basic/raw/results");
    fs::create_dir(results.join("world4_again")).unwrap();
    for entry in fs::read_dir(results.join("world4_full")).unwrap() {
        let path = entry.unwrap().path();
        fs::copy(&path, results.join("world4_again").join(path.file_name().unwrap())).unwrap();
    }
    let site = dir.path().join("site");
    let output = build(&runs, &site, &[]);
    assert!(site.join("data/runs.json").is_file(), "{}", text(&output));
    let warned = warnings(&site, "synth-basic");
    for section in ["async", "decomposition", "fragmentation"] {
        let message = format!("raw/results/world4_again: {section} rows of world size 4 come from raw/results/world4_again and raw/results/world4_full: keyed by world size as the seed keys them, their cycles are merged into one case (one row, one line); collect one folder per world size to keep them apart");
        assert!(warned.contains(&message), "{message:?} missing from {warned:#?}");
    }
    assert!(!warned.iter().any(|w| w.contains("decode rows of world size")), "{warned:#?}");
}
