//! The per-rank worker CSVs of one case, `raw/results/<case>/rank<N>_<section>.csv`, with
//! the columns the real GPU worker writes: every cycle's rows for every message size.

use super::model::{event_us, host_us, Machine, Matrix, Noise};
use super::numerics;
use super::rng::Rng;
use super::run::{Case, Run};
use super::SynthVariant;
use crate::core::model::sections::WorkerSection;
use crate::export::pyfmt::{py_bool, repr as py_float};
use crate::export::seed_csv::push_row as csv_row;

pub(super) const ASYNC_SIZES: [u64; 5] = [8192, 131_072, 1_048_576, 16_777_216, 67_108_864];
pub(super) const DECOMPOSITION_SIZES: [u64; 3] = [262_144, 4_194_304, 67_108_864];
pub(super) const DECOMPOSITION_MODES: [&str; 2] = ["direct", "reduce_scatter_all_gather"];
pub(super) const FRAGMENT_TOTAL_BYTES: u64 = 83_886_080;
pub(super) const FRAGMENT_COUNTS: [u64; 7] = [1, 2, 4, 8, 16, 32, 64];
pub(super) const DECODE_TOKENS: [u64; 4] = [1, 8, 32, 128];
pub(super) const HIDDEN_SIZE: u64 = 4096;

/// What one section generator needs to know about its case.
struct Ctx<'a> {
    run: &'a Run,
    case: &'a Case,
    rng: Rng,
}

impl Ctx<'_> {
    fn cycles(&self) -> usize {
        self.run.spec.shape.cycles
    }

    fn ties(&self) -> bool {
        self.run.spec.shape.variant == SynthVariant::Ties
    }

    /// Samples for every key, `[key][cycle][rank]`, around `base_us(key)`.
    fn matrices(&mut self, keys: usize, noise: &Noise, base_us: impl Fn(&Machine, usize) -> f64) -> Vec<Matrix> {
        let (cycles, world) = (self.cycles(), self.case.world);
        let machine = &self.run.machine;
        (0..keys).map(|key| machine.samples(&mut self.rng, base_us(machine, key), cycles, world, noise)).collect()
    }

    /// One CSV per rank: the header, then for every cycle and key `row(rank, cycle, key)`.
    fn per_rank(&self, header: &[&str], keys: usize, row: impl Fn(usize, usize, usize) -> Vec<String>) -> Vec<String> {
        (0..self.case.world)
            .map(|rank| {
                let mut text = String::new();
                csv_row(&mut text, header);
                for cycle in 0..self.cycles() {
                    for key in 0..keys {
                        csv_row(&mut text, &row(rank, cycle, key));
                    }
                }
                text
            })
            .collect()
    }
}

/// Every CSV file of `case` as (file name, contents): contracts first, then its sections.
pub(super) fn case_files(run: &Run, case: &Case) -> Vec<(String, String)> {
    let mut files = Vec::new();
    for &section in std::iter::once(&WorkerSection::Contracts).chain(&case.sections) {
        let rng = Rng::derive(run.spec.seed, &format!("{}/{}", case.name, section.name()));
        let mut ctx = Ctx { run, case, rng };
        let per_rank = match section {
            WorkerSection::Contracts => contracts(&ctx),
            WorkerSection::Async => async_completion(&mut ctx),
            WorkerSection::Decomposition => decomposition(&mut ctx),
            WorkerSection::Fragmentation => fragmentation(&mut ctx),
            WorkerSection::Decode => decode(&mut ctx),
            WorkerSection::Numerics => numerics(&ctx),
        };
        for (rank, text) in per_rank.into_iter().enumerate() {
            files.push((format!("rank{rank}_{}.csv", section.name()), text));
        }
    }
    files
}

fn contracts(ctx: &Ctx) -> Vec<String> {
    let header = ["world_size", "rank", "section", "check", "correct", "detail"];
    let world = ctx.case.world;
    (0..world)
        .map(|rank| {
            let mut text = String::new();
            csv_row(&mut text, &header);
            for (section, check, detail) in contract_checks(ctx, rank) {
                let failed = is_failing_contract(ctx, rank, check);
                let detail = if failed { "max_abs_diff=0.0625, tolerance=0.0".to_string() } else { detail };
                csv_row(&mut text, &[&world.to_string(), &rank.to_string(), section, check, py_bool(!failed), &detail]);
            }
            text
        })
        .collect()
}

/// (section, check, detail) rows: the process group setup, then one per section.
fn contract_checks(ctx: &Ctx, rank: usize) -> Vec<(&'static str, &'static str, String)> {
    let world = ctx.case.world;
    let mut checks = vec![
        ("setup", "world_size", format!("expected={world} got={world}")),
        ("setup", "rank_device", format!("rank {rank} -> cuda:{rank}")),
        ("setup", "cpu_affinity", format!("cpu {}", 2 * rank)),
    ];
    for section in &ctx.case.sections {
        let check = match section {
            WorkerSection::Async => {
                ("async", "wait_orders_consumer_stream", "consumer stream saw the reduced tensor".into())
            }
            WorkerSection::Decomposition => {
                ("decomposition", "reduce_scatter_all_gather_matches_all_reduce", "max_abs_diff=0.0".into())
            }
            WorkerSection::Fragmentation => ("fragmentation", "fragments_match_single_call", "max_abs_diff=0.0".into()),
            WorkerSection::Decode => (
                "decode",
                "replay_result_matches",
                format!("calls={}, max_abs_diff=0.0", ctx.run.spec.shape.decode_collectives),
            ),
            WorkerSection::Numerics => ("numerics", "fp32_reference_matches_real_sum", "scenarios=3".into()),
            WorkerSection::Contracts => continue,
        };
        checks.push(check);
    }
    checks
}

/// The `ContractFailure` variant breaks the decomposition check of the last rank of the
/// full case (the run's first).
fn is_failing_contract(ctx: &Ctx, rank: usize, check: &str) -> bool {
    ctx.run.spec.shape.variant == SynthVariant::ContractFailure
        && ctx.case.name == ctx.run.cases[0].name
        && rank + 1 == ctx.case.world
        && check == "reduce_scatter_all_gather_matches_all_reduce"
}

fn async_completion(ctx: &mut Ctx) -> Vec<String> {
    let header = [
        "world_size",
        "rank",
        "cycle",
        "dtype",
        "size_bytes",
        "host_enqueue_us",
        "host_wait_us",
        "gpu_dependency_us",
        "work_completed_after_return",
        "event_ready_after_wait",
        "correct",
    ];
    let (world, keys) = (ctx.case.world, ASYNC_SIZES.len());
    let noise = &ctx.run.machine.noise;
    let enqueue = ctx.matrices(keys, &noise.scaled(4.0), |_, _| 12.0 + world as f64);
    let wait = ctx.matrices(keys, &noise.scaled(6.0), |_, _| 4.0);
    let mut gpu = ctx.matrices(keys, noise, |m, key| m.allreduce_us(ASYNC_SIZES[key], world) + 2.5);
    if ctx.ties() {
        make_constant(&mut gpu[0]);
    }
    ctx.per_rank(&header, keys, |rank, cycle, key| {
        let enqueue_us = host_us(enqueue[key][cycle][rank]);
        let wait_us = host_us(wait[key][cycle][rank]);
        let gpu_us = event_us(gpu[key][cycle][rank]);
        vec![
            world.to_string(),
            rank.to_string(),
            cycle.to_string(),
            "float32".into(),
            ASYNC_SIZES[key].to_string(),
            py_float(enqueue_us),
            py_float(wait_us),
            py_float(gpu_us),
            py_bool(gpu_us < enqueue_us).into(),
            py_bool(gpu_us <= enqueue_us + wait_us).into(),
            py_bool(true).into(),
        ]
    })
}

fn decomposition(ctx: &mut Ctx) -> Vec<String> {
    let header = ["world_size", "rank", "cycle", "dtype", "size_bytes", "mode", "duration_us", "correct"];
    let world = ctx.case.world;
    let modes = DECOMPOSITION_MODES.len();
    let keys = DECOMPOSITION_SIZES.len() * modes;
    let mut samples = ctx.matrices(keys, &ctx.run.machine.noise, |m, key| {
        let size = DECOMPOSITION_SIZES[key / modes];
        if key % modes == 0 {
            m.allreduce_us(size, world)
        } else {
            m.reduce_scatter_all_gather_us(size, world)
        }
    });
    if ctx.ties() {
        samples[keys - 1] = samples[keys - 2].clone();
    }
    ctx.per_rank(&header, keys, |rank, cycle, key| {
        vec![
            world.to_string(),
            rank.to_string(),
            cycle.to_string(),
            "float32".into(),
            DECOMPOSITION_SIZES[key / modes].to_string(),
            DECOMPOSITION_MODES[key % modes].into(),
            py_float(event_us(samples[key][cycle][rank])),
            py_bool(true).into(),
        ]
    })
}

fn fragmentation(ctx: &mut Ctx) -> Vec<String> {
    let header = [
        "world_size",
        "rank",
        "cycle",
        "dtype",
        "total_bytes",
        "fragment_count",
        "fragment_bytes",
        "duration_us",
        "correct",
    ];
    let world = ctx.case.world;
    let mut samples = ctx.matrices(FRAGMENT_COUNTS.len(), &ctx.run.machine.noise, |m, key| {
        let count = FRAGMENT_COUNTS[key];
        count as f64 * m.allreduce_us(FRAGMENT_TOTAL_BYTES / count, world)
    });
    if ctx.ties() {
        make_constant(&mut samples[0]);
        samples[1] = samples[0].clone();
    }
    ctx.per_rank(&header, FRAGMENT_COUNTS.len(), |rank, cycle, key| {
        let count = FRAGMENT_COUNTS[key];
        vec![
            world.to_string(),
            rank.to_string(),
            cycle.to_string(),
            "float16".into(),
            FRAGMENT_TOTAL_BYTES.to_string(),
            count.to_string(),
            (FRAGMENT_TOTAL_BYTES / count).to_string(),
            py_float(event_us(samples[key][cycle][rank])),
            py_bool(true).into(),
        ]
    })
}

fn decode(ctx: &mut Ctx) -> Vec<String> {
    let header = [
        "world_size",
        "rank",
        "cycle",
        "dtype",
        "tokens",
        "hidden_size",
        "message_bytes",
        "collectives",
        "duration_us",
        "correct",
    ];
    let world = ctx.case.world;
    let calls = ctx.run.spec.shape.decode_collectives;
    let samples = ctx.matrices(DECODE_TOKENS.len(), &ctx.run.machine.noise, |m, key| {
        calls as f64 * m.allreduce_us(decode_message_bytes(DECODE_TOKENS[key]), world)
    });
    ctx.per_rank(&header, DECODE_TOKENS.len(), |rank, cycle, key| {
        let tokens = DECODE_TOKENS[key];
        vec![
            world.to_string(),
            rank.to_string(),
            cycle.to_string(),
            "float16".into(),
            tokens.to_string(),
            HIDDEN_SIZE.to_string(),
            decode_message_bytes(tokens).to_string(),
            calls.to_string(),
            py_float(event_us(samples[key][cycle][rank])),
            py_bool(true).into(),
        ]
    })
}

/// FP16 hidden states of `tokens` tokens.
pub(super) fn decode_message_bytes(tokens: u64) -> u64 {
    tokens * HIDDEN_SIZE * 2
}

fn numerics(ctx: &Ctx) -> Vec<String> {
    let header = [
        "world_size",
        "rank",
        "dtype",
        "scenario",
        "permutation",
        "values",
        "real_sum",
        "fp16_result",
        "fp32_result",
        "fp16_matches_real_sum",
        "fp32_matches_real_sum",
    ];
    let world = ctx.case.world;
    let scenarios = numerics::scenarios(world);
    (0..world)
        .map(|rank| {
            let mut text = String::new();
            csv_row(&mut text, &header);
            for scenario in &scenarios {
                for outcome in numerics::outcomes(scenario) {
                    csv_row(
                        &mut text,
                        &[
                            world.to_string(),
                            rank.to_string(),
                            "float16".into(),
                            scenario.name.into(),
                            py_tuple(&outcome.permutation),
                            py_list(&outcome.values),
                            py_float(outcome.real_sum),
                            py_float(outcome.fp16_result),
                            py_float(outcome.fp32_result),
                            py_bool(outcome.fp16_result == outcome.real_sum).into(),
                            py_bool(outcome.fp32_result == outcome.real_sum).into(),
                        ],
                    );
                }
            }
            text
        })
        .collect()
}

/// Python's `repr(tuple)` of rank indices, e.g. `(0, 2, 1, 3)`.
fn py_tuple(items: &[usize]) -> String {
    let inner: Vec<String> = items.iter().map(usize::to_string).collect();
    format!("({})", inner.join(", "))
}

/// Python's `repr(list)` of floats, e.g. `[60000.0, -30000.0]`.
fn py_list(items: &[f64]) -> String {
    let inner: Vec<String> = items.iter().map(|&v| py_float(v)).collect();
    format!("[{}]", inner.join(", "))
}

/// Every sample of `matrix` set to its first one: a case with no spread at all.
fn make_constant(matrix: &mut Matrix) {
    let value = matrix[0][0];
    matrix.iter_mut().flatten().for_each(|v| *v = value);
}
