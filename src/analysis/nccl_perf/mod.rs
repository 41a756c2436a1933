//! How close an nccl-tests run came to the hardware: busbw factors per binary, the topology link-class graph and bottleneck, an alpha-beta
//! fit per algorithm/protocol segment, the sizes where 50 % and 90 % of the best busbw are
//! reached, and a table of known per-GPU link peaks. Pure arithmetic over numbers already
//! parsed; uses `model`, `stats` (and `parse` in tests).

pub(crate) mod busbw;
pub(crate) mod fit;
pub(crate) mod link_peaks;
pub(crate) mod log_facts;
pub(crate) mod reach;
pub(crate) mod run;
pub(crate) mod table;
pub(crate) mod topology;
