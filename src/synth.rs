//! Synthetic runs in the seed layout, from a seeded generator: fixtures for tests and
//! corpora for the benchmark.

use std::path::Path;

#[derive(Debug, Clone)]
pub struct SynthOptions {
    pub count: usize,
    pub seed: u64,
    pub log_bytes: u64,
    pub gzip_every: usize,
}

/// Writes `count` runs under `out` and returns their ids.
pub fn generate(_out: &Path, _options: &SynthOptions) -> anyhow::Result<Vec<String>> {
    unimplemented!("synthetic corpus generator")
}
