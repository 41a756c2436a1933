//! The run page's "How close NCCL came to the hardware" block and the index headline: a
//! 4-rank synthetic run with TUNING lines (bands, % of expected, fits) as a snapshot, and a
//! one-rank run made of the real H200 captures ("not logged at one rank", no 0.000 headline).

use crate::common::{build, nccl_report, runs_dir};
use std::fs;

/// The `<section id="nccl-perf">` of a run page.
fn perf_section(page: &str) -> &str {
    let start = page.find("<section id=\"nccl-perf\">").expect("the page has the hardware block");
    let end = start + page[start..].find("</section>").unwrap();
    &page[start..end]
}

#[test]
fn four_rank_synthetic_run_shows_expected_share_fits_and_bands() {
    let dir = tempfile::tempdir().unwrap();
    let runs = dir.path().join("runs");
    let synth = nccl_report(&[
        "synth",
        "--out",
        runs.to_str().unwrap(),
        "--count",
        "1",
        "--seed",
        "5",
        "--log-bytes",
        "2000000",
        "--tuning",
    ]);
    assert!(synth.status.success(), "{synth:?}");
    let out = dir.path().join("site");
    assert!(build(&runs, &out, &[]).status.success());
    let id = fs::read_dir(&runs).unwrap().next().unwrap().unwrap().file_name().into_string().unwrap();
    let page = fs::read_to_string(out.join(format!("runs/{id}/index.html"))).unwrap();
    let section = perf_section(&page);
    for expected in ["Ring/LL128", "Ring/Simple", "% of expected", "Expected peak busbw: 370.80 GB/s", "alpha (µs)"] {
        assert!(section.contains(expected), "{expected} missing from {section}");
    }
    assert!(!section.contains("What NCCL chose: not logged"), "{section}");
    insta::assert_snapshot!("nccl_perf_four_ranks", section);
    let charts = fs::read_to_string(out.join(format!("runs/{id}/charts.csv"))).unwrap();
    let chart = crate::common::chart_rows(&charts, "nccl-perf-2");
    assert!(chart.contains("Ring/LL") && chart.contains("expected peak"), "{chart}");
    let decode = crate::common::chart_rows(&charts, "decode-per-call");
    assert!(decode.contains("TP=4 · world4_full · Ring/LL"), "{decode}");
}

/// synth-basic without its all_reduce outputs: (temp dir, runs folder, the run's `raw/`, the
/// `tests/data/nccl` folder).
fn without_all_reduce_outputs() -> (tempfile::TempDir, std::path::PathBuf, std::path::PathBuf, std::path::PathBuf) {
    let (dir, runs) = runs_dir(&["synth-basic"]);
    let raw = runs.join("synth-basic/raw");
    fs::remove_file(raw.join("nccl_tests_g2.stdout")).unwrap();
    fs::remove_file(raw.join("nccl_tests_g4.stdout")).unwrap();
    let data = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/data/nccl");
    (dir, runs, raw, data)
}

#[test]
fn one_rank_run_says_not_logged_and_has_no_zero_headline() {
    let (dir, runs, raw, data) = without_all_reduce_outputs();
    let mut one_rank = fs::read(data.join("all_reduce_perf_seed_args.stdout")).unwrap();
    one_rank.extend(fs::read(data.join("h200_other_collectives.stdout")).unwrap());
    fs::write(raw.join("nccl_tests_g1.stdout"), one_rank).unwrap();
    let out = dir.path().join("site");
    assert!(build(&runs, &out, &[]).status.success());
    let page = fs::read_to_string(out.join("runs/synth-basic/index.html")).unwrap();
    let section = perf_section(&page);
    assert!(section.contains("not logged at one rank: NCCL launches no collective kernels"), "{section}");
    assert!(section.contains("peak unknown"), "{section}");
    for binary in ["all_gather_perf", "reduce_scatter_perf", "broadcast_perf", "alltoall_perf", "sendrecv_perf"] {
        assert!(section.contains(binary), "{binary} missing from {section}");
    }
    // One rank: what it can and cannot show, no chart of zeros, no "no data" chart, no fit.
    assert!(section.contains("one rank moves no data between GPUs, so busbw is 0 by definition"), "{section}");
    assert!(!section.contains("<figure") && !section.contains("alpha-beta fit t ="), "{section}");
    assert!(!page.contains("nccl-tests-busbw.svg") && !page.contains(">no data<"), "no flat-zero busbw chart");
    let index = fs::read_to_string(out.join("index.html")).unwrap();
    let row = index.lines().find(|l| l.starts_with("<tr>") && l.contains("runs/synth-basic/index.html")).unwrap();
    let headline = row.rsplit("<td").next().unwrap();
    let headline = &headline[headline.find('>').unwrap() + 1..];
    assert!(headline.starts_with("one rank, no busbw"), "{row}");
    assert!(!headline.contains("0.000"), "{row}");
}

/// "What NCCL chose" for every collective with TUNING lines, also in a run with no all_reduce
/// control table (only other binaries' outputs).
#[test]
fn choices_without_an_all_reduce_table() {
    let (dir, runs, raw, data) = without_all_reduce_outputs();
    fs::copy(data.join("h200_other_collectives.stdout"), raw.join("nccl_tests_bcast.stdout")).unwrap();
    fs::create_dir_all(raw.join("nccl")).unwrap();
    fs::write(
        raw.join("nccl/bcast_h1_7.log"),
        "h1:7:7 [0] NCCL INFO Broadcast: 1048576 Bytes -> Algo RING proto SIMPLE channel{Lo..Hi}={0..7}\n\
h1:7:7 [0] NCCL INFO AllGather: 4096 Bytes -> Algo RING proto LL channel{Lo..Hi}={0..1}\n",
    )
    .unwrap();
    let out = dir.path().join("site");
    assert!(build(&runs, &out, &[]).status.success());
    let page = fs::read_to_string(out.join("runs/synth-basic/index.html")).unwrap();
    let section = perf_section(&page);
    assert!(section.contains("What NCCL chose (TUNING lines, per collective and size)"), "{section}");
    assert!(section.contains("Broadcast") && section.contains("AllGather"), "{section}");
}
