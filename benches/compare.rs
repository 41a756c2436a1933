//! `cargo bench --bench compare`: the verdicts and intervals of `compare` between two runs of
//! 1000 timed cases x 10 cycles each, judged against a history of 30 earlier runs (the engine
//! on the samples: loading a run is measured by the parse benchmark). Prints the best of
//! `BENCH_REPEAT` passes (default 5).

use nccl_report::analysis::comparison::engine::{add_intervals, compare, expect_intervals, Context};
use nccl_report::analysis::comparison::history::{medians, WINDOW};
use nccl_report::analysis::comparison::samples::{CaseSamples, Family};
use std::time::Instant;

const CASES: usize = 1000;
const CYCLES: usize = 10;

/// A run of `CASES` cases whose cycle values wobble deterministically around their level.
fn run(phase: u64) -> Vec<CaseSamples> {
    (0..CASES)
        .map(|i| CaseSamples {
            section: "decode",
            world_size: 8,
            case: format!("tokens={i};bytes={};calls=160", i * 8192),
            metric: "replay_total_us",
            folder: None,
            higher_is_better: false,
            family: if i % 2 == 0 { Family::Host } else { Family::Device },
            values: (0..CYCLES)
                .map(|c| {
                    let wobble = ((i as u64 * 31 + c as u64 * 17 + phase * 7) % 23) as f64 / 23.0;
                    100.0 * (i + 1) as f64 * (1.0 + 0.04 * (wobble - 0.5))
                })
                .collect(),
        })
        .collect()
}

fn main() {
    let repeat: usize = std::env::var("BENCH_REPEAT").ok().and_then(|v| v.parse().ok()).unwrap_or(5);
    let (base, cand) = (run(1), run(2));
    let history = (0..WINDOW as u64).map(|phase| medians(&run(phase + 3))).collect();
    let context = Context { key_differences: Vec::new(), history };
    let mut best = f64::MAX;
    let mut flagged = 0;
    for _ in 0..repeat {
        let start = Instant::now();
        let mut outcome = compare(&base, &cand, &context);
        expect_intervals([(base.as_slice(), cand.as_slice())]);
        add_intervals(&mut outcome, &base, &cand);
        best = best.min(start.elapsed().as_secs_f64());
        flagged = outcome.cases.iter().filter(|c| c.ci_low.is_some()).count();
    }
    println!("compare of two {CASES}-case runs ({CYCLES} cycles): best {:.1} ms ({flagged} intervals)", best * 1e3);
}
