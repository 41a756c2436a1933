//! Rows of the per-rank section CSVs (`raw/results/<case>/rank<N>_<section>.csv`), typed,
//! with only the columns the seed reads (extra columns are tolerated and ignored).

use serde::{Deserialize, Deserializer, Serialize};

/// The sections a worker writes. Anything else found on disk is reported, not summarized.
/// Not the site's `site::sections::WorkerSection` (a page): which page shows which of these kinds
/// is written once, in that module's `sections!` list (`contracts` has no page).
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum WorkerSection {
    Contracts,
    Async,
    Decomposition,
    Fragmentation,
    Decode,
    Numerics,
}

impl WorkerSection {
    pub const ALL: [WorkerSection; 6] = [
        WorkerSection::Contracts,
        WorkerSection::Async,
        WorkerSection::Decomposition,
        WorkerSection::Fragmentation,
        WorkerSection::Decode,
        WorkerSection::Numerics,
    ];

    pub fn name(self) -> &'static str {
        match self {
            WorkerSection::Contracts => "contracts",
            WorkerSection::Async => "async",
            WorkerSection::Decomposition => "decomposition",
            WorkerSection::Fragmentation => "fragmentation",
            WorkerSection::Decode => "decode",
            WorkerSection::Numerics => "numerics",
        }
    }

    pub fn from_name(name: &str) -> Option<WorkerSection> {
        WorkerSection::ALL.into_iter().find(|s| s.name() == name)
    }
}

/// Python's `str(bool)`: the seed tests `value.lower() == "true"`. nccl-report accepts
/// `true`/`false` in any case and rejects anything else, so a typo is an error, not `False`.
pub fn py_bool<'de, D: Deserializer<'de>>(deserializer: D) -> Result<bool, D::Error> {
    let text = <&str>::deserialize(deserializer)?;
    parse_py_bool(text).ok_or_else(|| serde::de::Error::custom(format!("{text:?} is not True or False")))
}

/// `True`/`False` in any case, as the seed's `truthy` reads them.
fn parse_py_bool(text: &str) -> Option<bool> {
    if text.eq_ignore_ascii_case("true") {
        Some(true)
    } else if text.eq_ignore_ascii_case("false") {
        Some(false)
    } else {
        None
    }
}

/// A float the way Python's `float()` reads it (surrounding spaces allowed, `nan`, `inf`).
pub fn py_float<'de, D: Deserializer<'de>>(deserializer: D) -> Result<f64, D::Error> {
    let text = <&str>::deserialize(deserializer)?;
    parse_py_float(text).ok_or_else(|| serde::de::Error::custom(format!("{text:?} is not a number")))
}

pub fn parse_py_float(text: &str) -> Option<f64> {
    let t = py_strip(text);
    if t.is_empty() {
        return None;
    }
    t.parse::<f64>().ok()
}

/// An integer the way Python's `int()` reads it (surrounding spaces allowed).
pub fn py_int<'de, D: Deserializer<'de>>(deserializer: D) -> Result<i64, D::Error> {
    let text = <&str>::deserialize(deserializer)?;
    py_strip(text).parse::<i64>().map_err(|_| serde::de::Error::custom(format!("{text:?} is not an integer")))
}

/// `str.strip()` as `int()`/`float()` apply it, with a fast path for the usual field that
/// neither starts nor ends with a space.
fn py_strip(text: &str) -> &str {
    match (text.as_bytes().first(), text.as_bytes().last()) {
        (Some(a), Some(z)) if a.is_ascii_graphic() && z.is_ascii_graphic() => text,
        _ => text.trim(),
    }
}

#[derive(Debug, Clone, PartialEq, Deserialize, Serialize)]
pub struct ContractRow {
    #[serde(deserialize_with = "py_bool")]
    pub correct: bool,
}

#[derive(Debug, Clone, PartialEq, Deserialize, Serialize)]
pub struct AsyncRow {
    #[serde(deserialize_with = "py_int")]
    pub world_size: i64,
    #[serde(deserialize_with = "py_int")]
    pub size_bytes: i64,
    #[serde(deserialize_with = "py_int")]
    pub cycle: i64,
    #[serde(deserialize_with = "py_float")]
    pub host_enqueue_us: f64,
    #[serde(deserialize_with = "py_float")]
    pub host_wait_us: f64,
    #[serde(deserialize_with = "py_float")]
    pub gpu_dependency_us: f64,
    #[serde(deserialize_with = "py_bool")]
    pub work_completed_after_return: bool,
    #[serde(deserialize_with = "py_bool")]
    pub event_ready_after_wait: bool,
    #[serde(deserialize_with = "py_bool")]
    pub correct: bool,
    /// The dependent kernel's result was right (absent in older runs; `correct` includes it).
    #[serde(default, deserialize_with = "opt_py_bool")]
    pub dependent_correct: Option<bool>,
    /// `gpu_dependency_us` was measured with the launches queued ahead of the GPU.
    #[serde(default, deserialize_with = "opt_py_bool")]
    pub device_queued: Option<bool>,
}

#[derive(Debug, Clone, PartialEq, Deserialize, Serialize)]
pub struct DecompositionRow {
    #[serde(deserialize_with = "py_int")]
    pub world_size: i64,
    #[serde(deserialize_with = "py_int")]
    pub size_bytes: i64,
    pub mode: String,
    #[serde(deserialize_with = "py_int")]
    pub cycle: i64,
    #[serde(deserialize_with = "py_float")]
    pub duration_us: f64,
    /// The worker's second and third clocks (absent in runs before them; see suite/README.md):
    /// host time to issue the calls, device-only time queued behind a GPU sleep (minimum over
    /// ranks), and whether that queue held (else `device_us` is a span again).
    #[serde(default, deserialize_with = "opt_py_float")]
    pub host_issue_us: Option<f64>,
    #[serde(default, deserialize_with = "opt_py_float")]
    pub device_us: Option<f64>,
    #[serde(default, deserialize_with = "opt_py_bool")]
    pub device_queued: Option<bool>,
}

#[derive(Debug, Clone, PartialEq, Deserialize, Serialize)]
pub struct FragmentationRow {
    #[serde(deserialize_with = "py_int")]
    pub world_size: i64,
    #[serde(deserialize_with = "py_int")]
    pub total_bytes: i64,
    #[serde(deserialize_with = "py_int")]
    pub fragment_count: i64,
    #[serde(deserialize_with = "py_int")]
    pub fragment_bytes: i64,
    #[serde(deserialize_with = "py_int")]
    pub cycle: i64,
    #[serde(deserialize_with = "py_float")]
    pub duration_us: f64,
    /// The worker's second and third clocks (absent in runs before them; see suite/README.md):
    /// host time to issue the calls, device-only time queued behind a GPU sleep (minimum over
    /// ranks), and whether that queue held (else `device_us` is a span again).
    #[serde(default, deserialize_with = "opt_py_float")]
    pub host_issue_us: Option<f64>,
    #[serde(default, deserialize_with = "opt_py_float")]
    pub device_us: Option<f64>,
    #[serde(default, deserialize_with = "opt_py_bool")]
    pub device_queued: Option<bool>,
}

#[derive(Debug, Clone, PartialEq, Deserialize, Serialize)]
pub struct DecodeRow {
    #[serde(deserialize_with = "py_int")]
    pub world_size: i64,
    #[serde(deserialize_with = "py_int")]
    pub tokens: i64,
    #[serde(deserialize_with = "py_int")]
    pub message_bytes: i64,
    #[serde(deserialize_with = "py_int")]
    pub collectives: i64,
    #[serde(deserialize_with = "py_int")]
    pub cycle: i64,
    #[serde(deserialize_with = "py_float")]
    pub duration_us: f64,
    /// The worker's second and third clocks (absent in runs before them; see suite/README.md):
    /// host time to issue the calls, device-only time queued behind a GPU sleep (minimum over
    /// ranks), and whether that queue held (else `device_us` is a span again).
    #[serde(default, deserialize_with = "opt_py_float")]
    pub host_issue_us: Option<f64>,
    #[serde(default, deserialize_with = "opt_py_float")]
    pub device_us: Option<f64>,
    #[serde(default, deserialize_with = "opt_py_bool")]
    pub device_queued: Option<bool>,
}

#[derive(Debug, Clone, PartialEq, Deserialize, Serialize)]
pub struct NumericsRow {
    #[serde(deserialize_with = "py_int")]
    pub rank: i64,
    /// Not read by the seed (it assumes 4); used for the unified `summary.csv` when present.
    #[serde(default, deserialize_with = "opt_py_int")]
    pub world_size: Option<i64>,
    pub scenario: String,
    #[serde(deserialize_with = "py_bool")]
    pub fp16_matches_real_sum: bool,
    #[serde(deserialize_with = "py_bool")]
    pub fp32_matches_real_sum: bool,
    /// Kept as written (the seed joins the unique strings); must read as a float.
    #[serde(deserialize_with = "py_float_text")]
    pub fp16_result: String,
}

fn py_float_text<'de, D: Deserializer<'de>>(deserializer: D) -> Result<String, D::Error> {
    let text = <&str>::deserialize(deserializer)?;
    match parse_py_float(text) {
        Some(_) => Ok(text.to_string()),
        None => Err(serde::de::Error::custom(format!("{text:?} is not a number"))),
    }
}

fn opt_py_float<'de, D: Deserializer<'de>>(deserializer: D) -> Result<Option<f64>, D::Error> {
    let text = <&str>::deserialize(deserializer)?;
    if text.trim().is_empty() {
        return Ok(None);
    }
    parse_py_float(text).map(Some).ok_or_else(|| serde::de::Error::custom(format!("{text:?} is not a number")))
}

fn opt_py_bool<'de, D: Deserializer<'de>>(deserializer: D) -> Result<Option<bool>, D::Error> {
    let text = <&str>::deserialize(deserializer)?;
    if text.trim().is_empty() {
        return Ok(None);
    }
    parse_py_bool(text).map(Some).ok_or_else(|| serde::de::Error::custom(format!("{text:?} is not True or False")))
}

fn opt_py_int<'de, D: Deserializer<'de>>(deserializer: D) -> Result<Option<i64>, D::Error> {
    let text = <&str>::deserialize(deserializer)?;
    if text.trim().is_empty() {
        return Ok(None);
    }
    text.trim().parse::<i64>().map(Some).map_err(|_| serde::de::Error::custom(format!("{text:?} is not an integer")))
}

/// The columns a row type reads, in the order of its fields: the CSV reader projects each
/// row onto them once per file and deserializes by position, not by name per row.
pub trait Columns {
    const COLUMNS: &'static [&'static str];
    /// Columns that may be absent from a file (read as an empty value).
    const OPTIONAL: &'static [&'static str] = &[];
}

impl Columns for ContractRow {
    const COLUMNS: &'static [&'static str] = &["correct"];
}

impl Columns for AsyncRow {
    const COLUMNS: &'static [&'static str] = &[
        "world_size",
        "size_bytes",
        "cycle",
        "host_enqueue_us",
        "host_wait_us",
        "gpu_dependency_us",
        "work_completed_after_return",
        "event_ready_after_wait",
        "correct",
        "dependent_correct",
        "device_queued",
    ];
    const OPTIONAL: &'static [&'static str] = &["dependent_correct", "device_queued"];
}

/// The worker's clock columns after `duration_us`, optional in every timed section.
const CLOCKS: [&str; 3] = ["host_issue_us", "device_us", "device_queued"];

impl Columns for DecompositionRow {
    const COLUMNS: &'static [&'static str] =
        &["world_size", "size_bytes", "mode", "cycle", "duration_us", CLOCKS[0], CLOCKS[1], CLOCKS[2]];
    const OPTIONAL: &'static [&'static str] = &CLOCKS;
}

impl Columns for FragmentationRow {
    const COLUMNS: &'static [&'static str] = &[
        "world_size",
        "total_bytes",
        "fragment_count",
        "fragment_bytes",
        "cycle",
        "duration_us",
        CLOCKS[0],
        CLOCKS[1],
        CLOCKS[2],
    ];
    const OPTIONAL: &'static [&'static str] = &CLOCKS;
}

impl Columns for DecodeRow {
    const COLUMNS: &'static [&'static str] = &[
        "world_size",
        "tokens",
        "message_bytes",
        "collectives",
        "cycle",
        "duration_us",
        CLOCKS[0],
        CLOCKS[1],
        CLOCKS[2],
    ];
    const OPTIONAL: &'static [&'static str] = &CLOCKS;
}

impl Columns for NumericsRow {
    const COLUMNS: &'static [&'static str] =
        &["rank", "world_size", "scenario", "fp16_matches_real_sum", "fp32_matches_real_sum", "fp16_result"];
    const OPTIONAL: &'static [&'static str] = &["world_size"];
}

/// A contract row with its 1-based line and every field as written (for failure reports).
#[derive(Debug, Clone, PartialEq)]
pub struct ContractRecord {
    pub line: u64,
    pub row: ContractRow,
    pub fields: Vec<(String, String)>,
}

/// All rows of one section file.
#[derive(Debug, Clone, PartialEq)]
pub enum SectionRows {
    Contracts(Vec<ContractRecord>),
    Async(Vec<AsyncRow>),
    Decomposition(Vec<DecompositionRow>),
    Fragmentation(Vec<FragmentationRow>),
    Decode(Vec<DecodeRow>),
    Numerics(Vec<NumericsRow>),
}

impl SectionRows {
    /// How many data rows the file held.
    pub fn len(&self) -> usize {
        match self {
            SectionRows::Contracts(r) => r.len(),
            SectionRows::Async(r) => r.len(),
            SectionRows::Decomposition(r) => r.len(),
            SectionRows::Fragmentation(r) => r.len(),
            SectionRows::Decode(r) => r.len(),
            SectionRows::Numerics(r) => r.len(),
        }
    }

    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }
}
