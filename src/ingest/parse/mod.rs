//! Bytes -> model. Pure functions over `&[u8]` / `BufRead`; no filesystem access.
//! Knows `model` and `diag` only.

pub(crate) mod artifacts;
pub(crate) mod fields;
pub(crate) mod ib_devices;
pub(crate) mod inspector;
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
