//! Seed-format outputs: the seed's CSV files and `summary.md`, as bytes, for the sections a
//! run holds. Pure functions `summary -> bytes`; `write` puts them on disk.

pub mod pyfmt;
pub mod seed_csv;
pub mod seed_md;

use crate::summarize::RunSummary;

/// (file name, bytes) of every seed output this run has data for, in the seed's order.
pub fn seed_files(run: &RunSummary) -> Vec<(&'static str, Vec<u8>)> {
    let mut files = Vec::new();
    if let Some(rows) = run.nccl_tests_raw.as_ref().filter(|r| !r.is_empty()) {
        files.push(("nccl_tests_raw.csv", seed_csv::nccl_tests_raw(rows)));
    }
    if let Some(rows) = non_empty(&run.async_rows) {
        files.push(("async_summary.csv", seed_csv::async_summary(rows)));
    }
    if let Some(rows) = non_empty(&run.decomposition) {
        files.push(("decomposition_summary.csv", seed_csv::decomposition_summary(rows)));
    }
    if let Some(rows) = non_empty(&run.fragmentation) {
        files.push(("fragmentation_summary.csv", seed_csv::fragmentation_summary(rows)));
    }
    if let Some(rows) = non_empty(&run.decode) {
        files.push(("decode_summary.csv", seed_csv::decode_summary(rows)));
    }
    if let Some(rows) = non_empty(&run.nccl_tests) {
        files.push(("nccl_tests_summary.csv", seed_csv::nccl_tests_summary(rows)));
    }
    if let Some(rows) = non_empty(&run.numerics) {
        files.push(("numeric_summary.csv", seed_csv::numeric_summary(rows)));
    }
    if !run.unified.is_empty() {
        files.push(("summary.csv", seed_csv::unified(&run.unified)));
    }
    files.push(("summary.md", seed_md::render(run)));
    files
}

fn non_empty<T>(rows: &Option<Vec<T>>) -> Option<&Vec<T>> {
    rows.as_ref().filter(|r| !r.is_empty())
}
