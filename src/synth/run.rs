//! One synthetic run: its identity (id, seed, start time), the machine it ran on, and
//! writing its folder in the seed layout.

use super::model::{Machine, Noise};
use super::rng::{mix, Rng};
use super::time::Timestamp;
use super::{Fixture, RunShape, SynthOptions, SynthVariant};
use crate::core::model::sections::WorkerSection;

/// 2026-01-05T00:00:00Z: synthetic corpora start after this.
const CORPUS_EPOCH: Timestamp = Timestamp(1_767_571_200_000_000);
const HOUR_US: u64 = 3_600_000_000;

/// What a run is generated from; everything else derives from `seed`.
#[derive(Debug, Clone)]
pub(super) struct RunSpec {
    pub id: String,
    pub seed: u64,
    pub start: Timestamp,
    pub shape: RunShape,
    pub log_bytes: u64,
    pub gzip_logs: bool,
    /// Write TUNING lines into the 4-rank nccl-tests log.
    pub tuning: bool,
}

impl RunSpec {
    /// Run `index` of a corpus: started some hours after the previous one, named by its
    /// start time as the seed names runs (`%Y%m%dT%H%M%SZ`).
    pub(super) fn corpus(options: &SynthOptions, shape: &RunShape, index: usize) -> Self {
        let seed = mix(options.seed ^ mix(index as u64 + 1));
        let origin = CORPUS_EPOCH.plus_micros(Rng::derive(options.seed, "origin").below(180 * 24) * HOUR_US);
        let start = origin.plus_micros(index as u64 * 6 * HOUR_US + Rng::derive(seed, "start").below(5 * HOUR_US));
        RunSpec {
            id: start.run_id(),
            seed,
            start,
            shape: shape.clone(),
            log_bytes: options.log_bytes,
            gzip_logs: options.gzip_every > 0 && (index + 1) % options.gzip_every == 0,
            tuning: options.tuning,
        }
    }

    /// A fixture run: named by its fixture, started `seed` hours after the corpus epoch.
    pub(super) fn fixture(fixture: &Fixture) -> Self {
        RunSpec {
            id: fixture.id.to_string(),
            seed: fixture.seed,
            start: CORPUS_EPOCH.plus_micros(fixture.seed * HOUR_US),
            shape: fixture.shape.clone(),
            log_bytes: fixture.log_bytes,
            gzip_logs: fixture.gzip_logs,
            tuning: false,
        }
    }
}

/// A torchrun case of the suite: `raw/results/<name>/`, `raw/<name>.stdout`.
#[derive(Debug, Clone)]
pub(super) struct Case {
    pub name: String,
    pub world: usize,
    /// Sections besides `contracts`, which every case writes.
    pub sections: Vec<WorkerSection>,
}

/// A run being written: its spec and everything drawn from its seed.
pub(super) struct Run {
    pub spec: RunSpec,
    pub host: String,
    pub machine: Machine,
    pub cases: Vec<Case>,
    /// World sizes of the nccl-tests controls (`raw/nccl_tests_g<N>.stdout`).
    pub nccl_tests_worlds: Vec<usize>,
    first_pid: u32,
}

impl Run {
    pub(super) fn new(spec: RunSpec) -> Self {
        let mut rng = Rng::derive(spec.seed, "run");
        let ranks = spec.shape.ranks;
        let noise = if spec.shape.variant == SynthVariant::Ties { Noise::ties() } else { Noise::realistic() };
        let full = Case {
            name: format!("world{ranks}_full"),
            world: ranks,
            sections: vec![
                WorkerSection::Async,
                WorkerSection::Decomposition,
                WorkerSection::Fragmentation,
                WorkerSection::Decode,
                WorkerSection::Numerics,
            ],
        };
        let decode = Case { name: "world2_decode".into(), world: 2, sections: vec![WorkerSection::Decode] };
        let mut nccl_tests_worlds = vec![2, ranks];
        nccl_tests_worlds.dedup();
        Run {
            host: format!("synth-{}", rng.hex(4)),
            machine: Machine::draw(&mut rng, ranks, noise),
            cases: vec![full, decode],
            nccl_tests_worlds,
            first_pid: 2000 + rng.below(50_000) as u32,
            spec,
        }
    }

    /// The torchrun launcher's pid for case `case` (its workers follow it).
    pub(super) fn launcher_pid(&self, case: usize) -> u32 {
        self.first_pid + 40 * case as u32
    }

    /// The pid of local rank `rank` of case `case`.
    pub(super) fn worker_pid(&self, case: usize, rank: usize) -> u32 {
        self.launcher_pid(case) + 7 + rank as u32
    }

    /// The pid of the nccl-tests process for `world` ranks.
    pub(super) fn nccl_tests_pid(&self, world: usize) -> u32 {
        self.launcher_pid(self.cases.len()) + 3 * world as u32
    }

    /// The CPU list of `--cpu-affinity`: local rank i uses entry i.
    pub(super) fn cpu_affinity(&self) -> String {
        let cpus: Vec<String> = (0..self.spec.shape.ranks).map(|i| (2 * i).to_string()).collect();
        cpus.join(",")
    }
}
