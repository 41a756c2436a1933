//! Async completion summary (`async_summary.csv`): critical path of GPU dependency, host
//! enqueue and `Work.wait` host time per (world size, size), and completion rates.

use crate::model::sections::AsyncRow;
use crate::model::summary::AsyncSummary;
use crate::stats::{critical_cycles, fmean, median, Spread};

pub fn summarize(rows: &[&AsyncRow]) -> Vec<AsyncSummary> {
    let key = |r: &&AsyncRow| (r.world_size, r.size_bytes);
    let cycle = |r: &&AsyncRow| r.cycle;
    let gpu = critical_cycles(rows, key, cycle, |r| r.gpu_dependency_us);
    let enqueue = critical_cycles(rows, key, cycle, |r| r.host_enqueue_us);
    let wait = critical_cycles(rows, key, cycle, |r| r.host_wait_us);
    let lookup = |groups: &[((i64, i64), Vec<f64>)], k: (i64, i64)| {
        groups.iter().find(|(g, _)| *g == k).map(|(_, v)| v.clone()).unwrap_or_default()
    };
    let mut ordered = gpu;
    ordered.sort_by_key(|(k, _)| k.1);
    ordered
        .into_iter()
        .map(|((world_size, size_bytes), gpu_values)| {
            let enqueue_values = lookup(&enqueue, (world_size, size_bytes));
            let wait_values = lookup(&wait, (world_size, size_bytes));
            let case_rows: Vec<&AsyncRow> =
                rows.iter().copied().filter(|r| r.world_size == world_size && r.size_bytes == size_bytes).collect();
            let rate = |f: fn(&AsyncRow) -> bool| {
                fmean(&case_rows.iter().map(|r| if f(r) { 1.0 } else { 0.0 }).collect::<Vec<_>>())
            };
            let gpu = Spread::of(&gpu_values);
            AsyncSummary {
                world_size,
                size_bytes,
                cycles: gpu.n,
                median_host_enqueue_us: median(&enqueue_values),
                median_host_wait_us: median(&wait_values),
                median_gpu_dependency_us: gpu.median,
                p95_gpu_dependency_us: gpu.p95,
                gpu_cv_percent: gpu.cv_percent,
                work_completed_after_return_rate: rate(|r| r.work_completed_after_return),
                event_ready_after_wait_rate: rate(|r| r.event_ready_after_wait),
                correct: case_rows.iter().all(|r| r.correct),
                gpu_cycles: gpu_values,
                enqueue_cycles: enqueue_values,
                wait_cycles: wait_values,
            }
        })
        .collect()
}
