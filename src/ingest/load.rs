//! Reading and parsing one run: `RunDir` -> `RawRun`. Files are read through `input` (gzip
//! transparent) and parsed by `parse`, each with the parser of its `InputKind` (as `find`
//! placed it); every failure becomes a diagnostic naming the file and line, and the rest of
//! the run is still read. Files of one run are read one after another: the build runs many
//! runs in parallel, and per-stage timings stay per run.

use crate::core::diag::{Code, Diagnostic};
use crate::core::model::artifacts::TopologyMatrix;
use crate::core::model::hosts::HostFacts;
use crate::core::model::inspector::InspectorCase;
use crate::core::model::nccl_log::NcclLogFacts;
use crate::core::model::nccl_tests::NcclTestsFormat;
use crate::core::model::run::{NcclTestsFile, RawRun, SectionData};
use crate::ingest::evidence::{self, ReadOnce};
use crate::ingest::find::{FileRef, HostArtifact, NcclTestsInput, RunDir};
use crate::ingest::input::{self, Limits};
use crate::ingest::input_kind::Artifact;
use crate::ingest::parse::{self, ParseError};
use std::collections::{BTreeMap, BTreeSet};

/// Reads and parses everything but the NCCL logs, each file within `limits`.
pub fn load_tables(run: &RunDir, limits: Limits) -> RawRun {
    let files = &run.files;
    let mut raw = RawRun { id: run.id.clone(), diagnostics: run.diagnostics.clone(), ..RawRun::default() };
    raw.total_bytes = files.total_bytes;

    if let Some(file) = &files.manifest {
        if let Some(bytes) = read(file, limits, &mut raw.diagnostics, <[u8]>::to_vec) {
            match parse::manifest::parse_manifest(&bytes) {
                Ok(manifest) => raw.manifest = Some(manifest),
                Err(e) => raw.diagnostics.push(parse_diag(file, e)),
            }
        }
    }
    if let Some(file) = &files.gpu_query {
        if let Some(text) = read_text(file, limits, &mut raw.diagnostics) {
            raw.gpus = parse::artifacts::parse_gpu_query(&text);
        }
    }
    if let Some(file) = &files.topology {
        if let Some(text) = read_text(file, limits, &mut raw.diagnostics) {
            raw.topology = topology(&file.rel, &text, &mut raw.diagnostics);
        }
    }
    raw.hosts = load_hosts(run, limits, &mut raw.diagnostics);
    let mut kept = 0;
    for file in &files.other_artifacts {
        if let Some(text) = read_text(file, limits, &mut raw.diagnostics) {
            // Shown on the run page: never a line that sets a secret (not even kept).
            let text = match crate::ingest::secrets::secret_line(text.as_bytes()) {
                Some(line) => format!("(withheld: line {line} sets a variable named like a secret)"),
                None if kept >= ARTIFACTS_KEPT_BYTES => {
                    format!(
                        "(not kept: this run's artifacts passed {} when read)",
                        crate::core::format::bytes(kept as u64)
                    )
                }
                None => cut_to(text, ARTIFACT_KEPT_BYTES),
            };
            kept += text.len();
            raw.other_artifacts.push((file.rel.clone(), text));
        }
    }
    if let Some(file) = &files.notes {
        raw.notes = contents_within(file, limits.notes, |b| String::from_utf8_lossy(b).into_owned())
            .map_err(|d| raw.diagnostics.push(d))
            .ok();
    }
    for (name, file) in &files.archived_outputs {
        if let Some(bytes) = read(file, limits, &mut raw.diagnostics, <[u8]>::to_vec) {
            raw.archived_outputs.push((name.clone(), bytes));
        }
    }

    load_sections(run, limits, &mut raw);
    load_nccl_tests(run, limits, &mut raw);
    load_inspector(run, limits, &mut raw);

    raw.files = all_files(files);
    raw
}

/// Each host's GPUs and topology from `artifacts/<host>/`, sorted by host name.
fn load_hosts(run: &RunDir, limits: Limits, diagnostics: &mut Vec<Diagnostic>) -> Vec<HostFacts> {
    let mut hosts: BTreeMap<String, HostFacts> = BTreeMap::new();
    for HostArtifact { host, artifact, file } in &run.files.host_artifacts {
        let Some(text) = read_text(file, limits, diagnostics) else { continue };
        let facts =
            hosts.entry(host.clone()).or_insert_with(|| HostFacts { host: host.clone(), ..HostFacts::default() });
        match artifact {
            Artifact::GpuQuery => facts.gpus = parse::artifacts::parse_gpu_query(&text),
            Artifact::IbDevices => facts.nics = parse::ib_devices::parse_ib_devices(&text),
            Artifact::GpuTopology => facts.topology = topology(&file.rel, &text, diagnostics),
        }
    }
    hosts.into_values().collect()
}

/// The most devices (columns or rows) a topology matrix may have: a node has tens of GPUs
/// and NICs, and the matrix is read cell by cell into the comparison key (columns x rows).
const MAX_TOPOLOGY_DEVICES: usize = 512;

/// The `nvidia-smi topo -m` matrix of `text` (the file `rel`); `None` when it has none, or more
/// devices than a node has (a warning naming the file).
fn topology(rel: &str, text: &str, diagnostics: &mut Vec<Diagnostic>) -> Option<TopologyMatrix> {
    let topology = parse::artifacts::parse_topology(text);
    let (columns, rows) = (topology.header.len(), topology.rows.len());
    if columns.max(rows) > MAX_TOPOLOGY_DEVICES {
        let message = format!(
            "a topology matrix of {columns} columns and {rows} rows: more devices than a node has (at most {MAX_TOPOLOGY_DEVICES}); not read"
        );
        diagnostics.push(Diagnostic::warning(Code::TopologyTooLarge, rel, None, message));
        return None;
    }
    (!topology.header.is_empty()).then_some(topology)
}

fn load_sections(run: &RunDir, limits: Limits, raw: &mut RawRun) {
    let parsed: Vec<_> = run
        .files
        .sections
        .iter()
        .map(|sf| {
            contents(&sf.file, limits, |bytes| {
                parse::section_csv::parse_section(sf.section, bytes).map_err(|e| parse_diag(&sf.file, e))
            })?
        })
        .collect();
    let mut broken = BTreeSet::new();
    for (sf, result) in run.files.sections.iter().zip(parsed) {
        match result {
            Ok(rows) => {
                if rows.is_empty() {
                    raw.diagnostics.push(Diagnostic::warning(
                        Code::NoDataRows,
                        &sf.file.rel,
                        None,
                        "no data rows (header only): this rank adds nothing to its section",
                    ));
                }
                raw.sections.push(SectionData { case: sf.case.clone(), rank: sf.rank, file: sf.file.rel.clone(), rows })
            }
            Err(diag) => {
                raw.diagnostics.push(diag);
                broken.insert((sf.case.clone(), sf.section));
            }
        }
    }
    raw.sections.retain(|s| !broken.contains(&(s.case.clone(), s.section())));
    raw.broken_sections = broken.into_iter().collect();
}

fn load_nccl_tests(run: &RunDir, limits: Limits, raw: &mut RawRun) {
    let parsed: Vec<_> = run
        .files
        .nccl_tests
        .iter()
        .map(|NcclTestsInput { test, format, file }| {
            let output = contents(file, limits, |bytes| match format {
                NcclTestsFormat::Json => parse::nccl_tests_json::parse_json(bytes).map_err(|e| parse_diag(file, e)),
                NcclTestsFormat::Text => Ok(parse::nccl_tests::parse_text(bytes)),
            })??;
            Ok((test.clone(), file.rel.clone(), output))
        })
        .collect();
    for result in parsed {
        match result {
            Ok((name, file, output)) => {
                for warning in &output.warnings {
                    let line = (warning.line > 0).then_some(warning.line);
                    raw.diagnostics.push(Diagnostic::warning(Code::NcclTestsLine, &file, line, &warning.message));
                }
                let world_size = name.strip_prefix('g').and_then(|n| n.parse().ok()).or_else(|| output.ranks());
                raw.nccl_tests.push(NcclTestsFile { name, file, world_size, output });
            }
            Err(diag) => raw.diagnostics.push(diag),
        }
    }
}

/// The Inspector dumps, grouped by case folder (in the walk's sorted order). A malformed
/// object is a warning naming its file and line; the records before it are kept. A record
/// whose time or bandwidth is out of range is left out with a warning naming its line.
fn load_inspector(run: &RunDir, limits: Limits, raw: &mut RawRun) {
    for (case, file) in &run.files.inspector {
        let Some(dump) = read(file, limits, &mut raw.diagnostics, parse::inspector::parse_inspector) else {
            continue;
        };
        for warning in &dump.left_out {
            let message = format!("NCCL Inspector dump: {}", warning.message);
            raw.diagnostics.push(Diagnostic::warning(Code::InspectorValue, &file.rel, warning.line, message));
        }
        let records = dump.records;
        if let Some(error) = dump.error {
            let message = format!("NCCL Inspector dump: {}; the records before it are kept", error.message);
            raw.diagnostics.push(Diagnostic::warning(Code::InspectorObject, &file.rel, error.line, message));
        }
        if raw.inspector.last().is_none_or(|last| &last.case != case) {
            raw.inspector.push(InspectorCase { case: case.clone(), ..InspectorCase::default() });
        }
        if let Some(last) = raw.inspector.last_mut() {
            last.files.push(file.rel.clone());
            last.records.extend(records);
        }
    }
}

/// What the scan of a run's NCCL_DEBUG logs found, to be attached to its `RawRun`.
pub struct LogScan {
    facts: Option<NcclLogFacts>,
    files: Vec<String>,
    diagnostics: Vec<Diagnostic>,
}

impl LogScan {
    /// Puts the scan into `raw` (`raw.nccl_log`, the files read, any failures).
    pub fn attach(self, raw: &mut RawRun) {
        raw.nccl_log = self.facts;
        raw.nccl_log_files.extend(self.files);
        raw.diagnostics.extend(self.diagnostics);
    }
}

/// Scans the run's NCCL_DEBUG logs (streamed), one after another on this thread (`cargo bench
/// --bench parse` times the scan with it). A build scans them before it reads the tables, so
/// that the rows are still in the processor's cache when they are summarized, each log a task
/// of its own (`scan_log_file`, then `merge_logs`).
pub fn load_logs(run: &RunDir, limits: Limits) -> LogScan {
    merge_logs(run, run.files.nccl_logs.iter().map(|file| scan_log_file(file, limits)).collect())
}

/// One NCCL_DEBUG log of a run scanned (streamed, within the log limit), or why it could not
/// be read.
pub fn scan_log_file(file: &FileRef, limits: Limits) -> Result<NcclLogFacts, Diagnostic> {
    input::open(&file.at, limits.log)
        .and_then(|reader| parse::nccl_log::scan_log(reader, &file.rel))
        .map_err(|e| cannot_read(file, e))
}

/// `scan_log_file`, and, when the log is to be published as evidence (`publish`), its bytes
/// as stored with what is published of them (`evidence::read_to_publish`): one read of the
/// file for both. A log withheld before it is read, or that cannot be read whole, is scanned
/// streamed as without evidence (and `evidence::collect` reads it on its own).
pub(crate) fn scan_log_to_publish(
    file: &FileRef,
    limits: Limits,
    publish: bool,
) -> (Result<NcclLogFacts, Diagnostic>, Option<ReadOnce>) {
    let Some(read) = publish.then(|| evidence::read_to_publish(&file.at, &file.rel, file.stamp.len, limits)).flatten()
    else {
        return (scan_log_file(file, limits), None);
    };
    let facts = input::open_stored(&file.at.rel, &read.stored, limits.log)
        .and_then(|reader| parse::nccl_log::scan_log_lines(reader, &file.rel))
        .map_err(|e| cannot_read(file, e));
    (facts, Some(read))
}

/// The run's `LogScan` from the scans of its logs (`scan_log_file`, one a file of
/// `run.files.nccl_logs`, in that order), merged in that order: the same whichever thread
/// scanned which.
pub fn merge_logs(run: &RunDir, scans: Vec<Result<NcclLogFacts, Diagnostic>>) -> LogScan {
    let mut scan = LogScan { facts: None, files: Vec::new(), diagnostics: Vec::new() };
    if run.files.nccl_logs.is_empty() {
        return scan;
    }
    let mut facts = NcclLogFacts::default();
    for (file, result) in run.files.nccl_logs.iter().zip(scans) {
        match result {
            Ok(one) => {
                parse::nccl_log::merge(&mut facts, one);
                scan.files.push(file.rel.clone());
            }
            Err(diag) => scan.diagnostics.push(diag),
        }
    }
    scan.facts = Some(facts);
    scan
}

fn all_files(files: &crate::ingest::find::RunFiles) -> Vec<(String, u64)> {
    let mut all: Vec<(String, u64)> = files.all().map(|f| (f.rel.clone(), f.stamp.len)).collect();
    all.sort();
    all
}

/// A whole file through `input::with_contents`, within the file limit; a failure to read
/// names the file.
fn contents<T>(file: &FileRef, limits: Limits, use_bytes: impl FnOnce(&[u8]) -> T) -> Result<T, Diagnostic> {
    contents_within(file, limits.file, use_bytes)
}

/// `contents` with a size limit of its own.
fn contents_within<T>(file: &FileRef, limit: u64, use_bytes: impl FnOnce(&[u8]) -> T) -> Result<T, Diagnostic> {
    input::with_contents(&file.at, file.stamp.len, limit, use_bytes).map_err(|e| cannot_read(file, e))
}

fn cannot_read(file: &FileRef, error: std::io::Error) -> Diagnostic {
    Diagnostic::error(Code::CannotRead, &file.rel, None, format!("cannot read: {error}"))
}

/// A whole file, converted; a failure to read becomes a diagnostic.
fn read<T>(
    file: &FileRef,
    limits: Limits,
    diagnostics: &mut Vec<Diagnostic>,
    convert: impl FnOnce(&[u8]) -> T,
) -> Option<T> {
    contents(file, limits, convert).map_err(|d| diagnostics.push(d)).ok()
}

/// The most of one artifact's text a run keeps: its page shows at most 64 KiB of it (the
/// output budget), and each may be 256 MiB read.
const ARTIFACT_KEPT_BYTES: usize = 1 << 20;
/// The most of all its artifacts' text a run keeps (a run of six 250 MB gzip bombs held
/// 1.5 GB); a later artifact is kept as a line that says so.
const ARTIFACTS_KEPT_BYTES: usize = 16 << 20;

/// `text` cut to at most `max` bytes (at a character boundary), saying so.
fn cut_to(mut text: String, max: usize) -> String {
    if text.len() <= max {
        return text;
    }
    let at = (0..=max).rev().find(|&i| text.is_char_boundary(i)).unwrap_or(0);
    text.truncate(at);
    text.push_str(&format!("\n[... cut at {} when read]", crate::core::format::bytes(max as u64)));
    text
}

/// Reads a text file; invalid UTF-8 is replaced (artifacts and notes are shown, not computed on).
fn read_text(file: &FileRef, limits: Limits, diagnostics: &mut Vec<Diagnostic>) -> Option<String> {
    read(file, limits, diagnostics, |bytes| String::from_utf8_lossy(bytes).into_owned())
}

fn parse_diag(file: &FileRef, error: ParseError) -> Diagnostic {
    Diagnostic::error(Code::CannotParse, &file.rel, error.line, error.message)
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::io::{Read as _, Write as _};

    /// A log read once for its scan and its evidence gives the facts (or the error) a streamed
    /// scan gives, and the evidence `evidence::collect` gives when it reads the file itself:
    /// a real log plain and gzipped, with a secret, past the log limit plain and gzipped, past
    /// the publishing limit, and a log that is not a text kind is scanned streamed.
    #[test]
    fn a_log_read_once_for_its_scan_and_evidence_gives_what_two_reads_give() {
        const REAL_GZ: &[u8] = include_bytes!("../../tests/data/nccl/nccl_debug_all_reduce_perf.log.gz");
        let mut real = Vec::new();
        flate2::read::GzDecoder::new(REAL_GZ).read_to_end(&mut real).unwrap();
        let gzip = |text: &[u8]| {
            let mut encoder = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::fast());
            encoder.write_all(text).unwrap();
            encoder.finish().unwrap()
        };
        let mut secret = real.clone();
        secret.extend_from_slice(b"export HF_TOKEN=hf_x\n");
        let dir = tempfile::tempdir().unwrap();
        let files: Vec<(&str, Vec<u8>)> = vec![
            ("raw/nccl/a.log", real.clone()),
            ("raw/nccl/b.log.gz", gzip(&real)),
            ("raw/nccl/c.log", secret.clone()),
            ("raw/nccl/d.log.gz", gzip(&secret)),
            ("raw/nccl/e.nccl", real.clone()),
            ("raw/nccl/f.log", Vec::new()),
            ("raw/nccl/g.log.gz", Vec::new()),
            ("raw/nccl/h.log.gz", gzip(&real)[..1000].to_vec()),
        ];
        let limits = Limits::DEFAULT;
        let small_log = Limits { log: real.len() as u64 / 2, ..limits };
        let small_file = Limits { file: real.len() as u64 / 2, ..limits };
        let mut read_once = 0;
        for (rel, bytes) in &files {
            let path = dir.path().join(rel);
            std::fs::create_dir_all(path.parent().unwrap()).unwrap();
            std::fs::write(&path, bytes).unwrap();
            let stamp = crate::ingest::find::FileStamp::of(&std::fs::metadata(&path).unwrap());
            let at = input::Beneath::file(&path).unwrap();
            let file = FileRef { path: path.clone(), rel: rel.to_string(), stamp, at };
            let files = crate::ingest::find::RunFiles { nccl_logs: vec![file.clone()], ..Default::default() };
            for limits in [limits, small_log, small_file] {
                let (facts, evidence) = scan_log_to_publish(&file, limits, true);
                let evidence = evidence.map(ReadOnce::into_evidence);
                assert_eq!(facts, scan_log_file(&file, limits), "{rel} {limits:?}");
                let kept = |_: &str, bytes| Ok::<_, ()>(bytes);
                assert_eq!(
                    evidence::collect(&files, limits, evidence.clone().into_iter().collect(), kept),
                    evidence::collect(&files, limits, Vec::new(), kept),
                    "{rel} {limits:?}"
                );
                read_once += usize::from(evidence.is_some());
                // What was read is taken as it is, not read again.
                let planted = evidence::EvidenceFile { rel: rel.to_string(), len: 1, published: Err("planted".into()) };
                assert_eq!(evidence::collect(&files, limits, vec![planted.clone()], kept), Ok(vec![planted]));
                let (facts, unread) = scan_log_to_publish(&file, limits, false);
                assert!(facts == scan_log_file(&file, limits) && unread.is_none());
            }
        }
        // The seven text logs under the first two limits; under the publishing one, all but
        // the two plain logs over it.
        assert_eq!(read_once, 19);
    }

    #[test]
    fn a_long_text_is_cut_at_a_character_boundary_and_says_so() {
        assert_eq!(cut_to("short".into(), 10), "short");
        let cut = cut_to("ééé".into(), 3);
        assert_eq!(cut, format!("é\n[... cut at {} when read]", crate::core::format::bytes(3u64)));
    }

    /// The fuzzer's 100,000-column header made a 1.7 GB site through the comparison key; a
    /// matrix larger than a node is not read, with a warning. A real one is.
    #[test]
    fn a_topology_larger_than_a_node_is_not_read() {
        let mut diagnostics = Vec::new();
        let real = include_str!("../../tests/data/topology/dgx_h100_nv18_nics.txt");
        assert!(topology("artifacts/nvidia_smi_topo.txt", real, &mut diagnostics).is_some());
        assert_eq!(diagnostics, []);
        let huge = format!("{}\n{}", "\tG".repeat(100_000), "GPU0\tX\n".repeat(300));
        assert_eq!(topology("artifacts/nvidia_smi_topo.txt", &huge, &mut diagnostics), None);
        assert_eq!(diagnostics.len(), 1);
        assert_eq!(diagnostics[0].code, Code::TopologyTooLarge);
        assert_eq!(diagnostics[0].file, "artifacts/nvidia_smi_topo.txt");
        assert!(
            diagnostics[0].message.starts_with("a topology matrix of 100000 columns and 300 rows"),
            "{}",
            diagnostics[0]
        );
    }
}
