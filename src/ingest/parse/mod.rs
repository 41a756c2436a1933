//! Bytes -> model. Pure functions over `&[u8]` / `BufRead`; no filesystem access.
//! Knows `model` and `diag` only.

pub(crate) mod artifacts;
pub(crate) mod fields;
pub(crate) mod graph_memo;
pub(crate) mod ib_devices;
pub(crate) mod inspector;
pub(crate) mod line_memo;
pub(crate) mod machine;
pub(crate) mod manifest;
pub(crate) mod nccl_line;
pub(crate) mod nccl_log;
pub(crate) mod nccl_net;
pub(crate) mod nccl_tests;
pub(crate) mod nccl_tests_json;
pub(crate) mod section_csv;

use std::fmt;

/// A parse failure inside one file: the line (1-based) when known, and what was expected.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct ParseError {
    pub line: Option<u64>,
    pub message: String,
}

impl ParseError {
    pub(crate) fn new(line: Option<u64>, message: impl Into<String>) -> Self {
        ParseError { line, message: message.into() }
    }
}

impl fmt::Display for ParseError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self.line {
            Some(line) => write!(f, "line {line}: {}", self.message),
            None => f.write_str(&self.message),
        }
    }
}

impl std::error::Error for ParseError {}

/// Warnings a reader names one by one per file; more are counted in one last warning (`More`):
/// a file of a million odd lines gives 21 diagnostics, not a million. The NCCL log reader keeps
/// as many `NCCL WARN` and partial lines, and counts all of them in its facts.
pub(crate) const MAX_WARNINGS: usize = 20;

/// Warnings counted past `MAX_WARNINGS`, not kept: how many, and the line of the last (where
/// the count is shown, so it sorts after the warnings it follows).
#[derive(Debug, Default)]
pub(crate) struct More {
    count: u64,
    last_line: u64,
}

impl More {
    /// Counts one more warning, of `line`.
    pub(crate) fn note(&mut self, line: u64) {
        self.count += 1;
        self.last_line = self.last_line.max(line);
    }

    pub(crate) fn count(&self) -> u64 {
        self.count
    }

    pub(crate) fn last_line(&self) -> u64 {
        self.last_line
    }
}
