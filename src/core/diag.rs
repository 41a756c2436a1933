//! Diagnostics: what was wrong with an input, where (file relative to the run, line), how
//! badly, and a stable code (`NR101`...) the README lists with what it means and what to do.
//! Carried from parsing through summaries to `runs.json` and the run pages, always in one
//! order (`Diagnostic`'s `Ord`: worst severity first, then file, line, code, message).
//! Uses nothing of ours.

use serde::{Deserialize, Deserializer, Serialize, Serializer};
use std::cmp::{Ordering, Reverse};
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

/// A diagnostic's stable code, `NR` and three digits: `NR1xx` finding and reading files,
/// `NR2xx` parsing them, `NR3xx` summarizing a run and checking it against itself (and
/// against its archived seed outputs). `NR4xx` is kept for the comparison and `NR5xx` for the
/// site and output: neither gives a run diagnostics today. A code, once given, keeps its
/// meaning; the README's table lists each with what to do (a test holds the two equal).
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum Code {
    /// A file or folder could not be read (I/O error, size limit, corrupt gzip).
    CannotRead = 101,
    /// A symlink in the run (to a file, or leading outside the run): not followed.
    SymlinkOutside = 102,
    /// A folder stands where a rank CSV should be.
    FolderForFile = 103,
    /// A FIFO, socket or device where a file should be.
    NotRegularFile = 104,
    /// Both `X.csv` and `X.csv.gz`: only `X.csv` is read.
    CompressedTwin = 105,
    /// A folder nested too deep, or a path too long, to be read.
    TooDeep = 106,
    /// A symlink to a folder: not followed.
    SymlinkFolder = 107,
    /// A file or folder name that is not UTF-8: not read.
    NotUtf8Name = 108,
    /// A file could not be parsed (the error names the line).
    CannotParse = 201,
    /// A section CSV with a header and no rows.
    NoDataRows = 202,
    /// An nccl-tests output line that is not understood, or a suspicious one.
    NcclTestsLine = 203,
    /// A malformed object in an NCCL Inspector dump.
    InspectorObject = 204,
    /// An NCCL Inspector record out of range (negative time, absurd bandwidth): left out.
    InspectorValue = 205,
    /// An `nvidia-smi topo -m` matrix with more devices than a node has: not read.
    TopologyTooLarge = 206,
    /// A per-rank contract row says `correct=False`.
    ContractFailed = 301,
    /// nccl-tests counted wrong values.
    NcclTestsWrong = 302,
    /// nccl-tests counted out-of-bounds values.
    NcclTestsOutOfBounds = 303,
    /// An nccl-tests output without a result row.
    NcclTestsNoRows = 304,
    /// An nccl-tests output whose world size is unknown.
    NcclTestsWorldSize = 305,
    /// A case the seed itself cannot summarize (it would raise).
    SeedCannotSummarize = 306,
    /// The manifest names another GPU than nvidia-smi lists.
    ManifestGpu = 310,
    /// The manifest's NCCL version is not the one in the NCCL logs.
    ManifestNcclVersion = 311,
    /// A manifest count that is not a whole number.
    ManifestNotNumber = 312,
    /// Rows of one world size from two case folders, merged.
    FoldersMerged = 320,
    /// A case folder's rank files and its rows disagree on the world size.
    RowsWorldSize = 321,
    /// A manifest command launches another rank count than its folder holds.
    CommandRanks = 322,
    /// More ranks than the GPUs nvidia-smi lists on a single node.
    MoreRanksThanGpus = 323,
    /// An nccl-tests output named for one rank count lists another number of devices.
    NcclTestsDevices = 324,
    /// An nccl-tests output's ranks are not what the manifest's nccl-tests commands run.
    NcclTestsCommand = 325,
    /// The NCCL logs show a communicator larger than any world size of the run.
    LogCommunicator = 326,
    /// Fragmentation without a `fragment_count=1` case: the slowdown is left empty.
    NoFragmentBase = 330,
    /// Decomposition without a `direct` mode: the overhead is left empty.
    NoDirectMode = 331,
    /// An archived seed output the recomputation does not produce.
    ArchivedUnmatched = 340,
    /// An archived seed output differs from the recomputed one.
    ArchivedDiffers = 341,
    /// A run page hit an output budget (tables, rows, charts, inline text): it shows less.
    OutputBudget = 501,
}

impl Code {
    /// Every code, in number order.
    pub const ALL: [Code; 35] = [
        Code::CannotRead,
        Code::SymlinkOutside,
        Code::FolderForFile,
        Code::NotRegularFile,
        Code::CompressedTwin,
        Code::TooDeep,
        Code::SymlinkFolder,
        Code::NotUtf8Name,
        Code::CannotParse,
        Code::NoDataRows,
        Code::NcclTestsLine,
        Code::InspectorObject,
        Code::InspectorValue,
        Code::TopologyTooLarge,
        Code::ContractFailed,
        Code::NcclTestsWrong,
        Code::NcclTestsOutOfBounds,
        Code::NcclTestsNoRows,
        Code::NcclTestsWorldSize,
        Code::SeedCannotSummarize,
        Code::ManifestGpu,
        Code::ManifestNcclVersion,
        Code::ManifestNotNumber,
        Code::FoldersMerged,
        Code::RowsWorldSize,
        Code::CommandRanks,
        Code::MoreRanksThanGpus,
        Code::NcclTestsDevices,
        Code::NcclTestsCommand,
        Code::LogCommunicator,
        Code::NoFragmentBase,
        Code::NoDirectMode,
        Code::ArchivedUnmatched,
        Code::ArchivedDiffers,
        Code::OutputBudget,
    ];

    /// `NR101`.
    pub fn name(self) -> String {
        format!("NR{}", self as u16)
    }

    /// The code named `NR101`, if there is one.
    pub fn from_name(name: &str) -> Option<Code> {
        Code::ALL.into_iter().find(|c| c.name() == name)
    }
}

impl fmt::Display for Code {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "NR{}", *self as u16)
    }
}

impl Serialize for Code {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        serializer.collect_str(self)
    }
}

impl<'de> Deserialize<'de> for Code {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        let name = String::deserialize(deserializer)?;
        Code::from_name(&name).ok_or_else(|| serde::de::Error::custom(format!("unknown diagnostic code {name:?}")))
    }
}

/// One finding about one input file.
#[derive(Debug, Clone, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub struct Diagnostic {
    pub severity: Severity,
    pub code: Code,
    /// Path relative to the run folder, `/`-separated (never an absolute path of this machine).
    pub file: String,
    /// 1-based line, when the problem has one.
    pub line: Option<u64>,
    pub message: String,
}

impl Diagnostic {
    pub fn new(
        severity: Severity,
        code: Code,
        file: impl Into<String>,
        line: Option<u64>,
        message: impl Into<String>,
    ) -> Self {
        Diagnostic { severity, code, file: file.into(), line, message: message.into() }
    }
    pub fn error(code: Code, file: impl Into<String>, line: Option<u64>, message: impl Into<String>) -> Self {
        Self::new(Severity::Error, code, file, line, message)
    }
    pub fn warning(code: Code, file: impl Into<String>, line: Option<u64>, message: impl Into<String>) -> Self {
        Self::new(Severity::Warning, code, file, line, message)
    }
    pub fn failure(code: Code, file: impl Into<String>, line: Option<u64>, message: impl Into<String>) -> Self {
        Self::new(Severity::Failure, code, file, line, message)
    }

    /// The worst of `diagnostics` (the last of the most severe), the one a run that is not ok
    /// is summed up by: the build's summary line, its card, `compare`'s refusal.
    pub fn worst(diagnostics: &[Diagnostic]) -> Option<&Diagnostic> {
        diagnostics.iter().max_by_key(|d| d.severity)
    }

    /// The one order of diagnostics: worst severity first, then file, line, code, message.
    fn sort_key(&self) -> (Reverse<Severity>, &str, Option<u64>, Code, &str) {
        (Reverse(self.severity), &self.file, self.line, self.code, &self.message)
    }
}

impl Ord for Diagnostic {
    fn cmp(&self, other: &Self) -> Ordering {
        self.sort_key().cmp(&other.sort_key())
    }
}

impl PartialOrd for Diagnostic {
    fn partial_cmp(&self, other: &Self) -> Option<Ordering> {
        Some(self.cmp(other))
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
            Some(line) => write!(f, "{kind}[{}]: {}:{line}: {}", self.code, self.file, self.message),
            None => write!(f, "{kind}[{}]: {}: {}", self.code, self.file, self.message),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn codes_are_unique_sorted_and_named_back() {
        let numbers: Vec<u16> = Code::ALL.iter().map(|&c| c as u16).collect();
        assert!(numbers.windows(2).all(|w| w[0] < w[1]), "{numbers:?}");
        for code in Code::ALL {
            assert_eq!(Code::from_name(&code.name()), Some(code));
            assert_eq!(code.to_string(), code.name());
            assert!((101..600).contains(&(code as u16)));
        }
        assert_eq!(Code::from_name("NR999"), None);
    }

    #[test]
    fn codes_serialize_as_their_names() {
        let d = Diagnostic::warning(Code::CompressedTwin, "raw/a.csv", Some(3), "m");
        let json = serde_json::to_string(&d).unwrap();
        assert_eq!(json, r#"{"severity":"warning","code":"NR105","file":"raw/a.csv","line":3,"message":"m"}"#);
        assert_eq!(serde_json::from_str::<Diagnostic>(&json).unwrap(), d);
        assert!(serde_json::from_str::<Diagnostic>(&json.replace("NR105", "NR100")).is_err());
    }

    #[test]
    fn one_order_worst_first_then_file_line_code_message() {
        let mut all = [
            Diagnostic::warning(Code::ArchivedDiffers, "summary.csv", Some(2), "x"),
            Diagnostic::warning(Code::NoDataRows, "raw/b.csv", None, "x"),
            Diagnostic::error(Code::CannotRead, "z.csv", None, "x"),
            Diagnostic::warning(Code::CannotParse, "raw/a.csv", Some(9), "x"),
            Diagnostic::warning(Code::NoDataRows, "raw/a.csv", Some(9), "x"),
            Diagnostic::warning(Code::NoDataRows, "raw/a.csv", Some(9), "a"),
            Diagnostic::warning(Code::NoDataRows, "raw/a.csv", None, "x"),
            Diagnostic::failure(Code::ContractFailed, "y.csv", Some(1), "x"),
        ];
        all.sort();
        let order: Vec<(Severity, &str, Option<u64>, Code, &str)> =
            all.iter().map(|d| (d.severity, d.file.as_str(), d.line, d.code, d.message.as_str())).collect();
        assert_eq!(
            order,
            [
                (Severity::Error, "z.csv", None, Code::CannotRead, "x"),
                (Severity::Failure, "y.csv", Some(1), Code::ContractFailed, "x"),
                (Severity::Warning, "raw/a.csv", None, Code::NoDataRows, "x"),
                (Severity::Warning, "raw/a.csv", Some(9), Code::CannotParse, "x"),
                (Severity::Warning, "raw/a.csv", Some(9), Code::NoDataRows, "a"),
                (Severity::Warning, "raw/a.csv", Some(9), Code::NoDataRows, "x"),
                (Severity::Warning, "raw/b.csv", None, Code::NoDataRows, "x"),
                (Severity::Warning, "summary.csv", Some(2), Code::ArchivedDiffers, "x"),
            ]
        );
    }

    /// The README's table of codes lists every code once, in order, and no other, each with
    /// a severity, a meaning and what to do.
    #[test]
    fn the_readme_lists_every_code() {
        let readme = std::fs::read_to_string(concat!(env!("CARGO_MANIFEST_DIR"), "/README.md")).unwrap();
        let rows: Vec<Vec<&str>> = readme
            .lines()
            .filter(|l| l.starts_with("| NR"))
            .map(|l| l.trim_matches('|').split(" | ").map(str::trim).collect())
            .collect();
        let listed: Vec<&str> = rows.iter().map(|r| r[0]).collect();
        let names: Vec<String> = Code::ALL.iter().map(|c| c.name()).collect();
        assert_eq!(listed, names);
        for row in &rows {
            assert_eq!(row.len(), 4, "{row:?}");
            assert!(["error", "failure", "warning"].contains(&row[1]), "{row:?}");
            assert!(row[2].len() > 10 && row[3].len() > 10, "{row:?}");
        }
    }

    #[test]
    fn display_names_the_code() {
        let d = Diagnostic::error(Code::CannotParse, "manifest.txt", Some(4), "bad");
        assert_eq!(d.to_string(), "error[NR201]: manifest.txt:4: bad");
        let d = Diagnostic::warning(Code::NoDirectMode, "raw/results", None, "m");
        assert_eq!(d.to_string(), "warning[NR331]: raw/results: m");
    }
}
