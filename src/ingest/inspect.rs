//! `nccl-report inspect <FILE>`: what nccl-report reads from one input file, as JSON, so a
//! user can see why a log reads the way it does. The kind of file is `InputKind::of` its path
//! (`.gz` stripped), as for a file in a run: section CSVs, manifests, nvidia-smi and
//! ibv_devinfo artifacts, NCCL Inspector dumps, NCCL logs, nccl-tests JSON (any `*.json`);
//! anything else is read as nccl-tests stdout (all_reduce_perf's output may have any name).

use crate::core::model::nccl_tests::NcclTestsFormat;
use crate::core::model::nccl_tests::NcclTestsOutput;
use crate::core::model::sections::SectionRows;
use crate::ingest::input;
use crate::ingest::input_kind::{Artifact, InputKind};
use crate::ingest::parse::{self, ParseError};
use anyhow::Context;
use serde_json::{json, Value};
use std::path::Path;

/// The JSON document, and whether the file had errors (the exit code says so).
pub(crate) fn inspect(path: &Path) -> anyhow::Result<(Value, bool)> {
    let label = path.display().to_string();
    let at = input::Beneath::file(path).with_context(|| format!("cannot read {label}"))?;
    let read_all = || input::read_all(&at, input::MAX_FILE_BYTES).with_context(|| format!("cannot read {label}"));
    let text = |bytes: &[u8]| String::from_utf8_lossy(bytes).into_owned();
    let parse_error = |kind: &str, e: ParseError| {
        (json!({"file": label, "kind": kind, "error": {"line": e.line, "message": e.message}}), true)
    };
    let document = match InputKind::of(&logical_path(path)) {
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
            let reader = input::open(&at, input::MAX_LOG_BYTES).with_context(|| format!("cannot open {label}"))?;
            let name = input::logical_name(path);
            let facts = parse::nccl_log::scan_log(reader, &name).with_context(|| format!("cannot read {label}"))?;
            let tuning = facts.tuning.clone();
            json!({"file": label, "kind": "nccl_log", "facts": facts, "tuning": tuning})
        }
        InputKind::Section { rank, section } => match parse::section_csv::parse_section(section, &read_all()?) {
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
                Ok(out) => nccl_tests_json(&label, &out),
                Err(e) => return Ok(parse_error("nccl_tests", e)),
            }
        }
        InputKind::NcclTests { format: NcclTestsFormat::Text, .. }
        | InputKind::Stdout
        | InputKind::Notes
        | InputKind::SeedOutput(_)
        | InputKind::Other => nccl_tests_json(&label, &parse::nccl_tests::parse_text(&read_all()?)),
    };
    Ok((document, false))
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
