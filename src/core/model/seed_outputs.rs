//! The seed's output file names: the one list that `find` (archived outputs in a run) and
//! `export` (what nccl-report writes per run) share.

/// The seed's output files, in the order nccl-report writes them.
pub const SEED_OUTPUTS: [&str; 9] = [
    "nccl_tests_raw.csv",
    "async_summary.csv",
    "decomposition_summary.csv",
    "fragmentation_summary.csv",
    "decode_summary.csv",
    "nccl_tests_summary.csv",
    "numeric_summary.csv",
    "summary.csv",
    "summary.md",
];
