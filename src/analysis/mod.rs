//! Numbers from parsed runs: the seed statistics (`summarize`), shared statistics (`stats`), NCCL performance views (`nccl_perf`) and run comparison (`comparison`), and what cross-run pages need of a run (`overview`).

pub mod comparison;
pub(crate) mod nccl_perf;
pub(crate) mod overview;
pub(crate) mod stats;
pub mod summarize;
