//! NCCL_DEBUG logs -> `NcclLogFacts`, streamed line by line (logs can be hundreds of MB).

use crate::model::nccl_log::NcclLogFacts;
use std::io::{self, BufRead};

/// Scans one log. `file` is the run-relative name used in `LogLine`s.
pub fn scan_log<R: BufRead>(_reader: R, _file: &str) -> io::Result<NcclLogFacts> {
    unimplemented!("NCCL log scanner")
}

/// Folds the facts of another log file of the same run into `into` (counts add, lists union).
pub fn merge(_into: &mut NcclLogFacts, _other: NcclLogFacts) {
    unimplemented!("NCCL log merge")
}
