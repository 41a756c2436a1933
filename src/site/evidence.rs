//! Evidence-boundary statements, generated from what each run says: hardware, topology,
//! NCCL version, cycles, and what each section measures and does not.

use crate::site::digest::RunDigest;

/// What a section measures and what it does not (shown on run and section pages).
pub fn section_scope(slug: &str) -> &'static [&'static str] {
    match slug {
        "async" => &[
            "Host enqueue and Work.wait times are host clocks: returning from wait() orders the current stream after the collective; it does not mean the GPU has finished.",
            "GPU dependency time: CUDA events from a marker recorded right after wait() to the end of a kernel that reads the result, with the launches queued behind a GPU sleep (runs before the worker's clocks: from before the enqueue, host time included).",
        ],
        "decomposition" => &[
            "Charts and the median/P95 columns use the span (the seed's duration_us: CUDA events around the calls on an idle GPU, host launch cost included); the host issue · device-only column gives the host time to issue the calls and the device time with the calls queued behind a GPU sleep (minimum over ranks). A span within 10 % of its host issue time is marked host-bound.",
            "Compares one AllReduce with ReduceScatter followed by AllGather on the same data; overhead is relative to the AllReduce median of the same size.",
        ],
        "fragmentation" => &[
            "Charts and the median/P95 columns use the span (the seed's duration_us: CUDA events around the calls on an idle GPU, host launch cost included); the host issue · device-only column gives the host time to issue the calls and the device time with the calls queued behind a GPU sleep (minimum over ranks). A span within 10 % of its host issue time is marked host-bound.",
            "One logical payload all-reduced as 1, 2, 4 ... collectives; the slowdown is relative to the single-call median. It measures per-call overhead, not any model's step time.",
        ],
        "decode" => &[
            "Charts and the median/P95 columns use the span (the seed's duration_us: CUDA events around the calls on an idle GPU, host launch cost included); the host issue · device-only column gives the host time to issue the calls and the device time with the calls queued behind a GPU sleep (minimum over ranks). A span within 10 % of its host issue time is marked host-bound.",
            "Decode replay contains communication only (tokens x 4096 FP16 AllReduces back to back); it excludes GEMM, scheduling, CUDA Graphs and custom AllReduce kernels.",
        ],
        "nccl-tests" => &[
            "nccl-tests times are the mean of n iterations per size, as printed; the median and P95 here are over repeated sweeps (-N cycles), not over iterations.",
            "A #wrong of N/A means the values were not checked (-c 0), not that they were right.",
            "With one rank, AllReduce moves no data between GPUs and busbw is 0.",
        ],
        "numerics" => &[
            "FP16 counterexamples show that callers cannot assume implicit FP32 accumulation; they do not describe every GPU architecture's internal reduction order.",
        ],
        _ => &[],
    }
}

/// Statements about the conditions of one run.
pub fn run_statements(run: &RunDigest) -> Vec<String> {
    let facts = &run.facts;
    let mut out = Vec::new();
    let gpu = facts.gpu.as_deref().unwrap_or("an unrecorded GPU");
    let topology = facts.topology.as_deref().unwrap_or("topology not recorded");
    out.push(format!("Measured on {gpu} ({topology}), single node."));
    out.push(format!(
        "NCCL {}, PyTorch {}, CUDA {}.",
        facts.nccl_version.as_deref().unwrap_or("version not recorded"),
        facts.torch_version.as_deref().unwrap_or("not recorded"),
        facts.cuda_version.as_deref().unwrap_or("not recorded"),
    ));
    if !facts.world_sizes.is_empty() {
        let sizes: Vec<String> = facts.world_sizes.iter().map(|w| w.to_string()).collect();
        out.push(format!("World sizes run: {}.", sizes.join(", ")));
    }
    if facts.world_sizes.iter().all(|&w| w <= 1) && !facts.world_sizes.is_empty() {
        out.push("Only one rank took part: collectives move no data between GPUs, so these numbers are launch and synchronization overheads, not communication.".to_string());
    }
    match &facts.cycles {
        Some(cycles) => out
            .push(format!("{cycles} timed cycles per case; each cycle's value is the slowest rank's (critical path).")),
        None => out.push("Each cycle's value is the slowest rank's (critical path).".to_string()),
    }
    out.push("Exact percentages hold only for the recorded hardware, software and message sizes.".to_string());
    out
}
