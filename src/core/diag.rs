//! Diagnostics: what was wrong with an input, where (file relative to the run, line), and how
//! badly. Carried from parsing through summaries to `runs.json` and the run pages.
//! Uses nothing of ours.

use serde::{Deserialize, Serialize};
use std::fmt;

/// How a diagnostic affects its run.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Severity {
    /// Informational: something was skipped or differs, the numbers are still trustworthy.
    Warning,
    /// The run's measurements say something failed (contract `correct=False`, nccl-tests
    /// `#wrong` > 0, out-of-bounds values): the run is `failed`.
    Failure,
    /// An input could not be read: the run is `invalid` (what could be read is still shown).
    Error,
}

/// One finding about one input file.
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
pub struct Diagnostic {
    pub severity: Severity,
    /// Path relative to the run folder, `/`-separated (never an absolute path of this machine).
    pub file: String,
    /// 1-based line, when the problem has one.
    pub line: Option<u64>,
    pub message: String,
}

impl Diagnostic {
    pub fn new(severity: Severity, file: impl Into<String>, line: Option<u64>, message: impl Into<String>) -> Self {
        Diagnostic { severity, file: file.into(), line, message: message.into() }
    }
    pub fn error(file: impl Into<String>, line: Option<u64>, message: impl Into<String>) -> Self {
        Self::new(Severity::Error, file, line, message)
    }
    pub fn warning(file: impl Into<String>, line: Option<u64>, message: impl Into<String>) -> Self {
        Self::new(Severity::Warning, file, line, message)
    }
    pub fn failure(file: impl Into<String>, line: Option<u64>, message: impl Into<String>) -> Self {
        Self::new(Severity::Failure, file, line, message)
    }
}

impl fmt::Display for Diagnostic {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let kind = match self.severity {
            Severity::Warning => "warning",
            Severity::Failure => "failure",
            Severity::Error => "error",
        };
        match self.line {
            Some(line) => write!(f, "{kind}: {}:{line}: {}", self.file, self.message),
            None => write!(f, "{kind}: {}: {}", self.file, self.message),
        }
    }
}
