//! `nccl-report inspect <FILE>`: what nccl-report reads from one input file, as JSON, so a
//! user can see why a log reads the way it does. The kind of file is `InputKind::of` its path
//! (`.gz` stripped), as for a file in a run: section CSVs, manifests, nvidia-smi and
//! ibv_devinfo artifacts, NCCL Inspector dumps, NCCL logs, nccl-tests JSON (any `*.json`);
//! anything else is read as nccl-tests stdout (all_reduce_perf's output may have any name).
//! Unlike a run, a file given alone may be named anyhow: `--kind` forces a kind, and without
//! it a content check of the first 64 KiB (`sniff`) overrides the name when the name says
//! NCCL log but only nccl-tests output is seen, or the name says nccl-tests output (or
//! anything read as such) but only NCCL_DEBUG lines are seen. The document says which kind
//! was read and why (`kind_reason`); an override is also noted on stderr.

use crate::core::model::nccl_log::NcclLogFacts;
use crate::core::model::nccl_tests::NcclTestsFormat;
use crate::core::model::nccl_tests::NcclTestsOutput;
use crate::core::model::sections::SectionRows;
use crate::ingest::input;
use crate::ingest::input_kind::{Artifact, InputKind};
use crate::ingest::parse::nccl_line::{self, Marker};
use crate::ingest::parse::{self, ParseError};
use anyhow::Context;
use memchr::memmem;
use serde_json::{json, Value};
use std::io::Read;
use std::path::Path;

/// A kind `inspect --kind` can force.
#[derive(Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
pub enum Kind {
    /// NCCL_DEBUG output.
    NcclLog,
    /// nccl-tests text output.
    NcclTests,
    /// nccl-tests `-J` JSON.
    NcclTestsJson,
    /// An NCCL Inspector dump (JSON lines).
    NcclInspector,
    /// A run's `manifest.txt`.
    Manifest,
}

impl Kind {
    fn input_kind(self) -> InputKind {
        match self {
            Kind::NcclLog => InputKind::NcclLog,
            Kind::NcclTests => InputKind::Stdout,
            Kind::NcclTestsJson => InputKind::Json,
            Kind::NcclInspector => InputKind::InspectorDump,
            Kind::Manifest => InputKind::Manifest,
        }
    }
}

/// What `inspect` found: the JSON document, whether the file had errors (the exit code says
/// so), and a note for stderr when the content overrode the file name.
#[derive(Debug)]
pub struct Inspected {
    pub document: Value,
    pub failed: bool,
    pub note: Option<String>,
}

/// Bytes the content check reads.
const SNIFF_BYTES: u64 = 64 << 10;

pub(crate) fn inspect(path: &Path, forced: Option<Kind>, limits: input::Limits) -> anyhow::Result<Inspected> {
    let label = path.display().to_string();
    let by_name = InputKind::of(&logical_path(path));
    let (kind, reason, note) = match forced {
        Some(kind) => (kind.input_kind(), format!("--kind {}", kind_name(kind)), None),
        None => decide(path, &label, by_name, limits)?,
    };
    let (mut document, failed) = read(path, &label, kind, limits)?;
    if let Some(object) = document.as_object_mut() {
        object.insert("kind_reason".to_string(), Value::String(reason));
    }
    Ok(Inspected { document, failed, note })
}

fn kind_name(kind: Kind) -> &'static str {
    match kind {
        Kind::NcclLog => "nccl-log",
        Kind::NcclTests => "nccl-tests",
        Kind::NcclTestsJson => "nccl-tests-json",
        Kind::NcclInspector => "nccl-inspector",
        Kind::Manifest => "manifest",
    }
}

/// The kind by name, unless the content check says otherwise: (kind, reason, stderr note).
fn decide(
    path: &Path,
    label: &str,
    by_name: InputKind,
    limits: input::Limits,
) -> anyhow::Result<(InputKind, String, Option<String>)> {
    let read_as_tests = matches!(
        by_name,
        InputKind::NcclTests { format: NcclTestsFormat::Text, .. }
            | InputKind::Stdout
            | InputKind::Notes
            | InputKind::SeedOutput(_)
            | InputKind::Other
    );
    let name_reason = format!("file name: {}", name_kind(&by_name));
    if !read_as_tests && by_name != InputKind::NcclLog {
        return Ok((by_name, name_reason, None));
    }
    let mut head = Vec::new();
    input::Beneath::file(path)
        .and_then(|at| input::open(&at, limits.log))
        .and_then(|reader| reader.take(SNIFF_BYTES).read_to_end(&mut head))
        .with_context(|| format!("cannot read {label}"))?;
    let seen = sniff(&head);
    let (kind, name) = match (read_as_tests, seen.log_lines > 0, seen.tests_lines > 0) {
        (true, true, false) => (InputKind::NcclLog, "an NCCL log"),
        (false, false, true) => (InputKind::Stdout, "nccl-tests output"),
        _ => return Ok((by_name, format!("{name_reason}; content agrees ({})", seen.describe()), None)),
    };
    let reason = format!("content: {} (the file name says {})", seen.describe(), name_kind(&by_name));
    let note = format!("{label}: read as {name}: {reason}; --kind chooses another");
    Ok((kind, reason, Some(note)))
}

/// How the name rule reads a kind, in words.
fn name_kind(kind: &InputKind) -> &'static str {
    match kind {
        InputKind::NcclLog => "NCCL log",
        InputKind::Manifest => "manifest",
        InputKind::InspectorDump => "NCCL Inspector dump",
        InputKind::WorkerSection { .. } => "section CSV",
        InputKind::Artifact(_) => "machine artifact",
        InputKind::NcclTests { format: NcclTestsFormat::Json, .. } | InputKind::Json => "nccl-tests JSON",
        _ => "nccl-tests output",
    }
}

/// What the first bytes of a file look like.
#[derive(Debug, Default, PartialEq, Eq)]
struct Sniffed {
    lines: usize,
    /// Lines with an `NCCL INFO` / `NCCL WARN` / `NCCL version` marker.
    log_lines: usize,
    /// nccl-tests' own lines: `# nThread`, `# Collective test`, `# Using devices`, the table
    /// header, `# Avg bus bandwidth`, and table rows (a headerless excerpt has only those).
    tests_lines: usize,
}

impl Sniffed {
    fn describe(&self) -> String {
        format!(
            "{} of the first {} lines are NCCL_DEBUG lines, {} are nccl-tests lines (header, footer or table row)",
            self.log_lines, self.lines, self.tests_lines
        )
    }
}

fn sniff(head: &[u8]) -> Sniffed {
    let finder = memmem::Finder::new(b"CCL ");
    let mut seen = Sniffed::default();
    let tests = [&b"# nThread"[..], b"# Collective test", b"# Using devices", b"# Avg bus bandwidth", b"out-of-place"];
    let head = head.strip_suffix(b"\n").unwrap_or(head);
    for line in head.split(|b| *b == b'\n') {
        seen.lines += 1;
        if nccl_line::marker(line, &finder) != Marker::None {
            seen.log_lines += 1;
        } else if tests.iter().any(|t| memmem::find(line, t).is_some()) || is_table_row(line) {
            seen.tests_lines += 1;
        }
    }
    seen
}

/// A line that reads as an nccl-tests table row once launcher tags are dropped (`[0]`,
/// `[1,0]<stdout>:`, also where a launcher split the row): it starts with a byte count and
/// at least 7 of its fields are numbers.
fn is_table_row(line: &[u8]) -> bool {
    let text = String::from_utf8_lossy(line);
    let mut fields = text
        .split(|c: char| c.is_whitespace() || c == '[' || c == ']' || c == ':')
        .filter(|f| !f.is_empty() && !f.contains(',') && !f.starts_with('<') && !f.ends_with('>'));
    let tags_dropped: Vec<&str> = fields.by_ref().collect();
    let numbers = tags_dropped.iter().filter(|f| f.parse::<f64>().is_ok()).count();
    let first_number = tags_dropped.iter().position(|f| f.parse::<u64>().is_ok());
    numbers >= 7 && tags_dropped.len() >= 8 && first_number.is_some_and(|i| i <= 1)
}

/// Reads the file as `kind`: the JSON document and whether it had errors.
fn read(path: &Path, label: &str, kind: InputKind, limits: input::Limits) -> anyhow::Result<(Value, bool)> {
    let at = input::Beneath::file(path).with_context(|| format!("cannot read {label}"))?;
    let read_all = || input::read_all(&at, limits.file).with_context(|| format!("cannot read {label}"));
    let text = |bytes: &[u8]| String::from_utf8_lossy(bytes).into_owned();
    let parse_error = |kind: &str, e: ParseError| {
        (json!({"file": label, "kind": kind, "error": {"line": e.line, "message": e.message}}), true)
    };
    let document = match kind {
        InputKind::InspectorDump => {
            let dump = parse::inspector::parse_inspector(&read_all()?);
            let error = dump.error.map(|e| json!({"line": e.line, "message": e.message}));
            let left_out: Vec<Value> =
                dump.left_out.iter().map(|w| json!({"line": w.line, "message": w.message})).collect();
            let failed = error.is_some();
            let document = json!({"file": label, "kind": "nccl_inspector", "records": dump.records, "left_out": left_out, "error": error});
            return Ok((document, failed));
        }
        InputKind::NcclLog => {
            let reader = input::open(&at, limits.log).with_context(|| format!("cannot open {label}"))?;
            let name = input::logical_name(path);
            let facts = parse::nccl_log::scan_log(reader, &name).with_context(|| format!("cannot read {label}"))?;
            nccl_log_json(label, facts)
        }
        InputKind::WorkerSection { rank, section } => match parse::section_csv::parse_section(section, &read_all()?) {
            Ok(rows) => {
                json!({"file": label, "kind": "section_csv", "section": section, "rank": rank, "rows": rows_json(&rows)})
            }
            Err(e) => {
                let error = json!({"line": e.line, "message": e.message});
                return Ok((json!({"file": label, "kind": "section_csv", "section": section, "error": error}), true));
            }
        },
        InputKind::Manifest => match parse::manifest::parse_manifest(&read_all()?) {
            Ok(m) => json!({"file": label, "kind": "manifest", "entries": m.entries, "commands": m.commands}),
            Err(e) => return Ok(parse_error("manifest", e)),
        },
        InputKind::Artifact(Artifact::GpuQuery) => {
            json!({"file": label, "kind": "nvidia_smi_query", "gpus": parse::artifacts::parse_gpu_query(&text(&read_all()?))})
        }
        InputKind::Artifact(Artifact::GpuTopology) => {
            json!({"file": label, "kind": "nvidia_smi_topo", "topology": parse::artifacts::parse_topology(&text(&read_all()?))})
        }
        InputKind::Artifact(Artifact::IbDevices) => {
            json!({"file": label, "kind": "ibv_devinfo", "ports": parse::ib_devices::parse_ib_devices(&text(&read_all()?))})
        }
        InputKind::NcclTests { format: NcclTestsFormat::Json, .. } | InputKind::Json => {
            match parse::nccl_tests_json::parse_json(&read_all()?) {
                Ok(out) => nccl_tests_json(label, &out),
                Err(e) => return Ok(parse_error("nccl_tests", e)),
            }
        }
        InputKind::NcclTests { format: NcclTestsFormat::Text, .. }
        | InputKind::Stdout
        | InputKind::Notes
        | InputKind::SeedOutput(_)
        | InputKind::Other => nccl_tests_json(label, &parse::nccl_tests::parse_text(&read_all()?)),
    };
    Ok((document, false))
}

/// An NCCL log's facts, what a reader asks first named plainly on top (`facts` holds all).
fn nccl_log_json(label: &str, facts: NcclLogFacts) -> Value {
    json!({
        "file": label,
        "kind": "nccl_log",
        "versions": facts.nccl_versions,
        "nranks": facts.nranks,
        "nnodes": facts.nnodes,
        "local_ranks": facts.local_ranks,
        "hosts": facts.files_by_host,
        "network": facts.networks,
        "net_plugin": facts.net_plugins,
        "nvls": facts.nvls,
        "collnet": facts.collnet,
        "pxn": facts.pxn,
        "partial_lines": facts.partial_line_count,
        "tuning": facts.tuning,
        "facts": facts,
    })
}

/// The path as `InputKind::of` takes it: `/`-separated, a trailing `.gz` stripped.
fn logical_path(path: &Path) -> String {
    let mut folders: Vec<String> = path
        .parent()
        .into_iter()
        .flat_map(Path::components)
        .map(|c| c.as_os_str().to_string_lossy().into_owned())
        .collect();
    folders.push(input::logical_name(path));
    folders.join("/")
}

/// nccl-tests output with its headline: collectives, version and ranks, then every table.
fn nccl_tests_json(label: &str, out: &NcclTestsOutput) -> Value {
    let collectives: Vec<&str> = out.tables.iter().filter_map(|t| t.collective.as_deref()).collect();
    json!({
        "file": label,
        "kind": "nccl_tests",
        "collectives": collectives,
        "version": out.version,
        "ranks": out.ranks(),
        "output": out,
    })
}

fn rows_json(rows: &SectionRows) -> Value {
    match rows {
        SectionRows::Contracts(r) => json!(r
            .iter()
            .map(|r| json!({"line": r.line, "correct": r.row.correct, "fields": r.fields}))
            .collect::<Vec<_>>()),
        SectionRows::Async(r) => json!(r),
        SectionRows::Decomposition(r) => json!(r),
        SectionRows::Fragmentation(r) => json!(r),
        SectionRows::Decode(r) => json!(r),
        SectionRows::Numerics(r) => json!(r),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sniffing_logs_headers_and_headerless_tagged_rows() {
        let log = sniff(b"h:1:1 [0] NCCL INFO Ring 00 : 0 -> 1 -> 2\n[1,0]<stdout>:NCCL version 2.5.6+cuda10.2\n");
        assert_eq!((log.log_lines, log.tests_lines), (2, 0));
        let rows = sniff(
            b"[0]      1048576        262144     float     sum      -1[0]    1626.5    0.64    1.21      0    1618.9    0.65    1.21      0\n\
[1,0]<stdout>:     2097152        524288     float     sum      -1    2951.2    0.71    1.33      0    2949.0    0.71    1.33      0\n",
        );
        assert_eq!((rows.log_lines, rows.tests_lines), (0, 2));
        let header = sniff(
            b"# nThread 1 nGpus 1 minBytes 8\n#       size  count  type  redop  root  time  algbw  busbw #wrong\n",
        );
        assert_eq!(header.tests_lines, 1);
        assert!(!is_table_row(b"# Out of bounds values : 0 OK"));
        assert!(!is_table_row(b"Training epoch 1 step 2 of 3 took 4 5 6 7 ms"));
    }
}
