//! Bytes -> model. Pure functions over `&[u8]` / `BufRead`; no filesystem access.
//! Knows `model` and `diag` only.

pub mod artifacts;
pub mod fields;
pub mod ib_devices;
pub mod inspector;
pub mod manifest;
pub mod nccl_log;
pub mod nccl_net;
pub mod nccl_tests;
pub mod nccl_tests_json;
pub mod section_csv;

use std::fmt;

/// A parse failure inside one file: the line (1-based) when known, and what was expected.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ParseError {
    pub line: Option<u64>,
    pub message: String,
}

impl ParseError {
    pub fn new(line: Option<u64>, message: impl Into<String>) -> Self {
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
