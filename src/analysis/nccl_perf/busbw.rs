//! nccl-tests' bus-bandwidth factor per binary: busbw = algbw x factor(n ranks). Taken from
//! each `src/<binary>.cu`'s `*GetBw` (and `doc/PERFORMANCE.md`): AllReduce 2(n-1)/n;
//! AllGather, ReduceScatter, AlltoAll, Gather, Scatter (n-1)/n; Broadcast, Reduce, SendRecv 1;
//! HyperCube 1 (its algbw already counts the (n-1) peers' data).

/// The factor for `binary` (`all_reduce_perf`, `all_reduce`, or NCCL's `AllReduce`) at
/// `ranks` ranks; `None` for an unknown binary or zero ranks, never a guess.
pub(crate) fn busbw_factor(binary: &str, ranks: u64) -> Option<f64> {
    if ranks == 0 {
        return None;
    }
    let n = ranks as f64;
    let key: String = binary.trim_end_matches("_perf").chars().filter(|c| *c != '_').collect();
    match key.to_ascii_lowercase().as_str() {
        "allreduce" => Some(2.0 * (n - 1.0) / n),
        "allgather" | "reducescatter" | "alltoall" | "gather" | "scatter" => Some((n - 1.0) / n),
        "broadcast" | "reduce" | "sendrecv" | "hypercube" => Some(1.0),
        _ => None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn factors_per_binary() {
        assert_eq!(busbw_factor("all_reduce_perf", 8), Some(1.75));
        assert_eq!(busbw_factor("AllReduce", 2), Some(1.0));
        assert_eq!(busbw_factor("all_gather", 4), Some(0.75));
        assert_eq!(busbw_factor("reduce_scatter_perf", 4), Some(0.75));
        assert_eq!(busbw_factor("alltoall_perf", 8), Some(0.875));
        assert_eq!(busbw_factor("broadcast_perf", 8), Some(1.0));
        assert_eq!(busbw_factor("reduce_perf", 8), Some(1.0));
        assert_eq!(busbw_factor("sendrecv_perf", 8), Some(1.0));
        assert_eq!(busbw_factor("hypercube_perf", 8), Some(1.0));
        assert_eq!(busbw_factor("all_reduce_perf", 1), Some(0.0));
        assert_eq!(busbw_factor("mystery_perf", 8), None);
        assert_eq!(busbw_factor("all_reduce_perf", 0), None);
    }
}
