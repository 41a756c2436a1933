//! `nccl-report inspect <FILE>`: what nccl-report reads from one input file, as JSON, so a
//! user can see why a log reads the way it does. The kind of file is told by its name
//! (`.gz` stripped): section CSVs, manifests, nvidia-smi artifacts, NCCL Inspector dumps
//! (`inspector/` folders, `<host>-pid<pid>.log`), NCCL logs, nccl-tests JSON; anything else
//! is read as nccl-tests stdout.

use crate::find::section_file_name;
use crate::input;
use crate::model::nccl_tests::NcclTestsOutput;
use crate::model::sections::SectionRows;
use crate::parse;
use anyhow::Context;
use serde_json::{json, Value};
use std::path::Path;

/// The JSON document, and whether the file had errors (the exit code says so).
pub(crate) fn inspect(path: &Path) -> anyhow::Result<(Value, bool)> {
    let name = input::logical_name(path);
    let label = path.display().to_string();
    if is_inspector_dump(path, &name) {
        let bytes = input::read_all(path, input::MAX_FILE_BYTES).with_context(|| format!("cannot read {label}"))?;
        let (records, error) = parse::inspector::parse_inspector(&bytes);
        let error = error.map(|e| json!({"line": e.line, "message": e.message}));
        let failed = error.is_some();
        return Ok((json!({"file": label, "kind": "nccl_inspector", "records": records, "error": error}), failed));
    }
    if name.ends_with(".log") {
        let reader = input::open(path, input::MAX_LOG_BYTES).with_context(|| format!("cannot open {label}"))?;
        let facts = parse::nccl_log::scan_log(reader, &name).with_context(|| format!("cannot read {label}"))?;
        let tuning = facts.tuning.clone();
        return Ok((json!({"file": label, "kind": "nccl_log", "facts": facts, "tuning": tuning}), false));
    }
    let bytes = input::read_all(path, input::MAX_FILE_BYTES).with_context(|| format!("cannot read {label}"))?;
    let document = if let Some((rank, section)) = section_file_name(&name) {
        match parse::section_csv::parse_section(section, &bytes) {
            Ok(rows) => {
                json!({"file": label, "kind": "section_csv", "section": section, "rank": rank, "rows": rows_json(&rows)})
            }
            Err(e) => {
                return Ok((
                    json!({"file": label, "kind": "section_csv", "section": section, "error": {"line": e.line, "message": e.message}}),
                    true,
                ))
            }
        }
    } else if name == "manifest.txt" {
        match parse::manifest::parse_manifest(&bytes) {
            Ok(m) => json!({"file": label, "kind": "manifest", "entries": m.entries, "commands": m.commands}),
            Err(e) => {
                return Ok((
                    json!({"file": label, "kind": "manifest", "error": {"line": e.line, "message": e.message}}),
                    true,
                ))
            }
        }
    } else if name == "nvidia_smi_query.txt" {
        json!({"file": label, "kind": "nvidia_smi_query", "gpus": parse::artifacts::parse_gpu_query(&String::from_utf8_lossy(&bytes))})
    } else if name == "nvidia_smi_topo.txt" {
        json!({"file": label, "kind": "nvidia_smi_topo", "topology": parse::artifacts::parse_topology(&String::from_utf8_lossy(&bytes))})
    } else if name.ends_with(".json") {
        match parse::nccl_tests_json::parse_json(&bytes) {
            Ok(out) => nccl_tests_json(&label, &out),
            Err(e) => {
                return Ok((
                    json!({"file": label, "kind": "nccl_tests", "error": {"line": e.line, "message": e.message}}),
                    true,
                ))
            }
        }
    } else {
        let out = parse::nccl_tests::parse_text(&bytes);
        nccl_tests_json(&label, &out)
    };
    Ok((document, false))
}

/// An NCCL Inspector dump: inside an `inspector` folder (as `collect` stores them), or named
/// as the plugin names its files, `<host>-pid<pid>.log`.
fn is_inspector_dump(path: &Path, name: &str) -> bool {
    let in_folder = path.parent().is_some_and(|p| p.components().any(|c| c.as_os_str() == "inspector"));
    let pid = name.strip_suffix(".log").and_then(|stem| stem.rsplit_once("-pid")).map(|(_, pid)| pid);
    in_folder || pid.is_some_and(|pid| !pid.is_empty() && pid.bytes().all(|b| b.is_ascii_digit()))
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
