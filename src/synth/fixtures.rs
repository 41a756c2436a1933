//! The committed fixture runs (`tests/fixtures/runs/<id>/`): small runs that each exercise
//! one edge of the seed's statistics or failure handling. `tests/synth.rs` regenerates them
//! and compares bytes; `tests/fixtures/regen.sh` rebuilds them and their oracle goldens.

use super::run::RunSpec;
use super::write::{ensure_empty, write_run};
use super::{RunShape, SynthVariant};
use std::path::{Path, PathBuf};

/// One fixture run and what it is for.
#[derive(Debug, Clone)]
pub struct Fixture {
    /// The run id, also its folder name.
    pub id: &'static str,
    pub seed: u64,
    pub shape: RunShape,
    /// Approximate bytes per NCCL log file (0: no logs).
    pub log_bytes: u64,
    pub gzip_logs: bool,
    /// For runs the seed rejects: text its exception contains (`seed_oracle.py --expect-error`).
    pub expect_error: Option<&'static str>,
}

impl Fixture {
    /// A fixture of the seed's suite with `cycles` cycles, no logs, accepted by the seed.
    fn new(id: &'static str, seed: u64, cycles: usize, variant: SynthVariant) -> Self {
        let shape = RunShape { cycles, variant, ..RunShape::default() };
        Fixture { id, seed, shape, log_bytes: 0, gzip_logs: false, expect_error: None }
    }
}

/// Every committed fixture, in a fixed order (`tests/fixtures/README.md` says what each is for).
pub fn fixtures() -> Vec<Fixture> {
    use SynthVariant::{ContractFailure, Healthy, NcclWrong, Ties};
    let even = Fixture::new("synth-even-cycles", 2, 4, Healthy);
    vec![
        // Realistic noise; P95 nearest rank is the max.
        Fixture::new("synth-basic", 1, 10, Healthy),
        // Median of the two middle values; decode calls and warmups read from the manifest.
        Fixture { shape: RunShape { decode_collectives: 48, warmups: 1, ..even.shape.clone() }, ..even },
        // One sample per case: CV 0.
        Fixture::new("synth-one-cycle", 3, 1, Healthy),
        // P95 nearest rank below the max.
        Fixture::new("synth-twenty-cycles", 4, 20, Healthy),
        // Repeated values, constant cases, equalities where the seed compares.
        Fixture::new("synth-ties-nan-free", 5, 6, Ties),
        Fixture {
            expect_error: Some("contract failures"),
            ..Fixture::new("synth-contract-failure", 6, 3, ContractFailure)
        },
        Fixture {
            expect_error: Some("nccl-tests correctness failure"),
            ..Fixture::new("synth-nccl-wrong", 7, 3, NcclWrong)
        },
        Fixture { log_bytes: 16_384, gzip_logs: true, ..Fixture::new("synth-gzip-logs", 8, 2, Healthy) },
    ]
}

/// Writes `fixture` to `out/<id>/` (refusing a non-empty folder) and returns that folder.
pub fn write_fixture(out: &Path, fixture: &Fixture) -> anyhow::Result<PathBuf> {
    fixture.shape.validate()?;
    let dir = out.join(fixture.id);
    ensure_empty(&dir)?;
    let spec = RunSpec::fixture(fixture);
    write_run(&dir, &spec)?;
    Ok(dir)
}
