//! Synthetic runs in the seed layout, from a seeded generator: fixtures for tests and
//! corpora for the benchmark. Output depends only on the options (no clock, no OS
//! randomness, no hash-map order); runs are independent, so they are written in parallel.

mod artifacts;
mod fixtures;
mod logs;
mod model;
mod nccl_tests;
mod numerics;
mod printf;
mod rng;
mod run;
mod sections;
mod time;
mod write;

pub use fixtures::{fixtures, write_fixture, Fixture};

use rayon::prelude::*;
use std::path::Path;

/// What the `synth` command asks for.
#[derive(Debug, Clone)]
pub struct SynthOptions {
    pub count: usize,
    pub seed: u64,
    /// Approximate bytes of each NCCL log file (0: no logs).
    pub log_bytes: u64,
    /// Gzip the logs of every k-th run (0: never).
    pub gzip_every: usize,
    /// Also write NCCL's TUNING lines (>= 2.24 form) for the 4-rank nccl-tests logs; off by
    /// default so that existing corpora and fixtures stay byte-identical.
    pub tuning: bool,
}

/// The suite every generated run reproduces; `Default` is the seed's (4 ranks, 10 cycles).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RunShape {
    pub cycles: usize,
    /// World size of the full case (`world<ranks>_full`, `nccl_tests_g<ranks>`), 2 to 8.
    pub ranks: usize,
    pub warmups: usize,
    pub decode_collectives: usize,
    pub variant: SynthVariant,
}

impl Default for RunShape {
    fn default() -> Self {
        RunShape { cycles: 10, ranks: 4, warmups: 3, decode_collectives: 160, variant: SynthVariant::Healthy }
    }
}

impl RunShape {
    /// A small run for scale benchmarks (`synth --small`): 2 ranks, 2 cycles, no warm-up, 8
    /// decode collectives; every section, few rows.
    pub fn small() -> RunShape {
        RunShape { cycles: 2, ranks: 2, warmups: 0, decode_collectives: 8, variant: SynthVariant::Healthy }
    }

    fn validate(&self) -> anyhow::Result<()> {
        anyhow::ensure!(self.cycles >= 1, "cycles must be at least 1");
        anyhow::ensure!((2..=8).contains(&self.ranks), "ranks must be between 2 and 8, not {}", self.ranks);
        anyhow::ensure!(self.decode_collectives >= 1, "decode_collectives must be at least 1");
        Ok(())
    }
}

/// What kind of run to generate.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum SynthVariant {
    /// Realistic noise; every check passes.
    #[default]
    Healthy,
    /// Whole-microsecond timings with almost no noise, so values repeat; the smallest async
    /// size and the 1-call fragmentation case are constant, the 2-call case equals the
    /// 1-call one, and ReduceScatter+AllGather equals AllReduce at the largest size.
    Ties,
    /// The last rank of the full case fails its decomposition contract (`correct=False`).
    ContractFailure,
    /// One out-of-place nccl-tests row (64 KiB, second cycle, largest world) has `#wrong` 3.
    NcclWrong,
}

/// Writes `count` runs under `out` and returns their ids.
pub fn generate(out: &Path, options: &SynthOptions) -> anyhow::Result<Vec<String>> {
    generate_with(out, options, &RunShape::default())
}

/// [`generate`] with every run shaped by `shape`. Run ids are start times
/// (`%Y%m%dT%H%M%SZ`, as the seed names runs), hours apart; run `i` does not depend on
/// `count`. Refuses, before writing anything, when a run folder exists and is not empty.
pub fn generate_with(out: &Path, options: &SynthOptions, shape: &RunShape) -> anyhow::Result<Vec<String>> {
    shape.validate()?;
    let specs: Vec<run::RunSpec> =
        (0..options.count).map(|index| run::RunSpec::corpus(options, shape, index)).collect();
    for spec in &specs {
        write::ensure_empty(&out.join(&spec.id))?;
    }
    specs.par_iter().try_for_each(|spec| write::write_run(&out.join(&spec.id), spec))?;
    Ok(specs.into_iter().map(|spec| spec.id).collect())
}
