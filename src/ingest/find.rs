//! Finding runs and their files: a sorted walk of the runs folder (walkdir), never following
//! a symlink that leads outside it. A run is a direct sub-folder holding `manifest.txt` or
//! `raw/`; dot-folders (`.failed`, temporary imports) are skipped. Each file's kind is
//! `InputKind::of` its run-relative path with `.gz` stripped; `classify` places the kinds in
//! the run layout (README, "Run layout").

use crate::core::diag::Diagnostic;
use crate::core::model::nccl_tests::NcclTestsFormat;
use crate::core::model::sections::Section;
use crate::ingest::input::logical_name;
use crate::ingest::input_kind::{Artifact, InputKind};
use rayon::prelude::*;
use serde::{Deserialize, Serialize};
use std::path::{Path, PathBuf};
use walkdir::WalkDir;

/// A run folder and its classified files (every path absolute; `rel` run-relative, `/`-separated).
#[derive(Debug, Clone, Default)]
pub struct RunDir {
    pub id: String,
    pub path: PathBuf,
    pub files: RunFiles,
    /// Problems met while walking (symlinks not followed, unreadable folders).
    pub diagnostics: Vec<Diagnostic>,
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub struct FileRef {
    pub path: PathBuf,
    /// Run-relative path as stored (with `.gz` if compressed).
    pub rel: String,
    pub stamp: FileStamp,
}

/// What the file system says of a file without reading it: size, modification and change
/// times, inode. The change time moves on every write and cannot be set back by a user.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct FileStamp {
    pub len: u64,
    pub mtime_ns: i128,
    pub ctime_ns: i128,
    pub inode: u64,
}

impl FileStamp {
    pub fn of(meta: &std::fs::Metadata) -> FileStamp {
        let mtime_ns = meta
            .modified()
            .ok()
            .and_then(|t| t.duration_since(std::time::UNIX_EPOCH).ok())
            .map_or(0, |d| d.as_nanos() as i128);
        #[cfg(unix)]
        let (ctime_ns, inode) = {
            use std::os::unix::fs::MetadataExt;
            (meta.ctime() as i128 * 1_000_000_000 + meta.ctime_nsec() as i128, meta.ino())
        };
        #[cfg(not(unix))]
        let (ctime_ns, inode) = (0, 0);
        FileStamp { len: meta.len(), mtime_ns, ctime_ns, inode }
    }
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SectionFile {
    pub case: String,
    pub rank: u64,
    pub section: Section,
    pub file: FileRef,
}

/// `raw/nccl_tests_<test>.stdout` / `.json`: nccl-tests output.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct NcclTestsInput {
    pub test: String,
    pub format: NcclTestsFormat,
    pub file: FileRef,
}

/// `artifacts/<host>/<artifact>`: a parsed machine artifact of one host of a multi-node run.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct HostArtifact {
    pub host: String,
    pub artifact: Artifact,
    pub file: FileRef,
}

#[derive(Debug, Clone, Default)]
pub struct RunFiles {
    pub manifest: Option<FileRef>,
    /// Sorted as the seed globs them: by case, then by file name (`rank10` before `rank2`).
    pub sections: Vec<SectionFile>,
    /// `raw/nccl_tests_<test>.stdout` / `.json`.
    pub nccl_tests: Vec<NcclTestsInput>,
    pub nccl_logs: Vec<FileRef>,
    /// `raw/inspector/<case>/<file>`: NCCL Inspector dumps, with their case folder.
    pub inspector: Vec<(String, FileRef)>,
    pub gpu_query: Option<FileRef>,
    pub topology: Option<FileRef>,
    /// `artifacts/<host>/nvidia_smi_query.txt` / `nvidia_smi_topo.txt` / `ibv_devinfo.txt` of a multi-node run.
    pub host_artifacts: Vec<HostArtifact>,
    /// Other `artifacts/*` and `artifacts/<host>/*` files (ibv_devinfo, versions...), shown as text.
    pub other_artifacts: Vec<FileRef>,
    /// `raw/<case>.stdout` torchrun outputs.
    pub case_stdouts: Vec<FileRef>,
    /// The seed's own summary files archived in the run (`summary.md`, `*_summary.csv`...).
    pub archived_outputs: Vec<(String, FileRef)>,
    pub notes: Option<FileRef>,
    /// Files of a known place with an unknown name (e.g. `rank0_foo.csv`): listed, not read.
    pub unrecognized: Vec<FileRef>,
    /// Total bytes of all files of the run, as stored.
    pub total_bytes: u64,
}

impl RunFiles {
    /// Every file of the run, in no particular order.
    pub fn all(&self) -> impl Iterator<Item = &FileRef> {
        self.manifest
            .iter()
            .chain(self.notes.iter())
            .chain(self.gpu_query.iter())
            .chain(self.topology.iter())
            .chain(self.host_artifacts.iter().map(|h| &h.file))
            .chain(self.other_artifacts.iter())
            .chain(self.sections.iter().map(|s| &s.file))
            .chain(self.nccl_tests.iter().map(|t| &t.file))
            .chain(self.nccl_logs.iter())
            .chain(self.inspector.iter().map(|(_, f)| f))
            .chain(self.case_stdouts.iter())
            .chain(self.archived_outputs.iter().map(|(_, f)| f))
            .chain(self.unrecognized.iter())
    }
}

/// The seed's output files, as a run may archive them.
pub use crate::core::model::seed_outputs::SEED_OUTPUTS;

/// Lists the runs under `root` with their files, sorted by id (files listed in parallel).
/// Folders that are not runs are reported.
pub fn find_runs(root: &Path) -> std::io::Result<(Vec<RunDir>, Vec<String>)> {
    let found = find_run_folders(root)?;
    let runs = found.runs.into_par_iter().map(|(name, path)| list_run(name, path, &found.canonical_root)).collect();
    Ok((runs, found.skipped))
}

/// The run folders under a runs folder, before their files are listed.
pub struct RunFolders {
    /// (id, path), sorted by id.
    pub runs: Vec<(String, PathBuf)>,
    /// Folders that are not runs, with why.
    pub skipped: Vec<String>,
    /// The runs folder, canonical (symlinks in runs must stay inside it).
    pub canonical_root: PathBuf,
}

/// Finds the run folders under `root` (a build lists each one's files when it builds it).
/// The folder of the runs folder that holds site-wide notes (`notes/*.md`) when it is not a run.
pub const NOTES_FOLDER: &str = "notes";

pub fn find_run_folders(root: &Path) -> std::io::Result<RunFolders> {
    let canonical_root = root.canonicalize()?;
    let mut runs = Vec::new();
    let mut skipped = Vec::new();
    for entry in WalkDir::new(root).min_depth(1).max_depth(1).sort_by_file_name() {
        let entry = entry.map_err(std::io::Error::other)?;
        let Some(name) = entry.file_name().to_str().map(str::to_string) else {
            // Two names differing only in invalid bytes must never become one run id.
            let shown = entry.file_name().to_string_lossy().escape_default().to_string();
            skipped.push(format!("{shown}: folder name is not UTF-8; skipped"));
            continue;
        };
        if name.starts_with('.') {
            continue;
        }
        let path = entry.path().to_path_buf();
        if entry.path_is_symlink() && !stays_inside(&path, &canonical_root) {
            skipped.push(format!("{name}: symlink leads outside the runs folder; not followed"));
            continue;
        }
        if !path.is_dir() {
            continue;
        }
        if !(path.join("manifest.txt").is_file() || path.join("raw").is_dir()) {
            // `notes/` holds the site-wide notes (`site::notes`), not a run.
            if name != NOTES_FOLDER {
                skipped.push(format!("{name}: neither manifest.txt nor raw/; not a run"));
            }
            continue;
        }
        if let Err(why) = crate::collect::run_id::validate(&name) {
            skipped.push(format!("{name:?}: not a valid run id ({why}); skipped"));
            continue;
        }
        runs.push((name, path));
    }
    Ok(RunFolders { runs, skipped, canonical_root })
}

/// True when `path`, symlinks resolved, lies inside `canonical_root`.
pub fn stays_inside(path: &Path, canonical_root: &Path) -> bool {
    path.canonicalize().is_ok_and(|target| target.starts_with(canonical_root))
}

/// Walks one run folder and classifies its files.
pub fn list_run(id: String, path: PathBuf, canonical_root: &Path) -> RunDir {
    let mut run = RunDir { id, path: path.clone(), ..RunDir::default() };
    for entry in WalkDir::new(&path).min_depth(1).sort_by_file_name() {
        let entry = match entry {
            Ok(entry) => entry,
            Err(error) => {
                let rel = error.path().map(|p| relative(&path, p)).unwrap_or_default();
                run.diagnostics.push(Diagnostic::error(rel, None, format!("cannot read: {error}")));
                continue;
            }
        };
        let rel = relative(&path, entry.path());
        if entry.path_is_symlink() && !stays_inside(entry.path(), canonical_root) {
            run.diagnostics.push(Diagnostic::warning(rel, None, "symlink leads outside the runs folder; not followed"));
            continue;
        }
        let meta = match entry.path().metadata() {
            Ok(meta) if meta.is_file() => meta,
            Ok(meta) if meta.is_dir() => {
                if matches!(InputKind::of(&logical_name(entry.path())), InputKind::Section { .. }) {
                    run.diagnostics.push(Diagnostic::warning(
                        rel,
                        None,
                        "a folder where a rank file should be; not read",
                    ));
                }
                continue;
            }
            Ok(_) => {
                run.diagnostics.push(Diagnostic::warning(
                    rel,
                    None,
                    "not a regular file (FIFO, socket or device); not read",
                ));
                continue;
            }
            Err(error) => {
                run.diagnostics.push(Diagnostic::error(rel, None, format!("cannot read: {error}")));
                continue;
            }
        };
        let stamp = FileStamp::of(&meta);
        run.files.total_bytes += stamp.len;
        classify(&mut run.files, FileRef { path: entry.path().to_path_buf(), rel, stamp });
    }
    run.files.sections.sort_by(|a, b| {
        (a.case.as_str(), logical_name(&a.file.path), &a.file.rel).cmp(&(
            b.case.as_str(),
            logical_name(&b.file.path),
            &b.file.rel,
        ))
    });
    drop_compressed_twins(&mut run);
    run
}

/// When both `X.csv` and `X.csv.gz` hold one rank's section, only `X.csv` is read (the
/// uncompressed file is the one a user edits), with a warning naming both. Expects the
/// sections sorted by (case, logical name, stored name): `X.csv` comes right before `X.csv.gz`.
fn drop_compressed_twins(run: &mut RunDir) {
    let mut kept: Vec<SectionFile> = Vec::with_capacity(run.files.sections.len());
    for section in std::mem::take(&mut run.files.sections) {
        if let Some(previous) = kept.last() {
            if previous.case == section.case && logical_name(&previous.file.path) == logical_name(&section.file.path) {
                let message = format!(
                    "both {} and {} present; only {} read",
                    previous.file.rel, section.file.rel, previous.file.rel
                );
                run.diagnostics.push(Diagnostic::warning(&section.file.rel, None, message));
                continue;
            }
        }
        kept.push(section);
    }
    run.files.sections = kept;
}

fn relative(base: &Path, path: &Path) -> String {
    let rel = path.strip_prefix(base).unwrap_or(path);
    rel.components().map(|c| c.as_os_str().to_string_lossy()).collect::<Vec<_>>().join("/")
}

/// Puts a file where the run layout uses its kind (`InputKind::of` its run-relative logical
/// name). A kind out of its place is listed as unrecognized; every file in `artifacts/` or
/// `artifacts/<host>/` that is not a parsed artifact there is shown as text.
fn classify(files: &mut RunFiles, file: FileRef) {
    let logical = file.rel.strip_suffix(".gz").unwrap_or(&file.rel).to_string();
    let mut folders: Vec<&str> = logical.split('/').collect();
    folders.pop();
    match (folders.as_slice(), InputKind::of(&logical)) {
        ([], InputKind::Manifest) => files.manifest = Some(file),
        ([], InputKind::Notes) => files.notes = Some(file),
        ([], InputKind::SeedOutput(name)) => files.archived_outputs.push((name.to_string(), file)),
        (["artifacts"], InputKind::Artifact(Artifact::GpuQuery)) => files.gpu_query = Some(file),
        (["artifacts"], InputKind::Artifact(Artifact::GpuTopology)) => files.topology = Some(file),
        (["artifacts", host], InputKind::Artifact(artifact)) => {
            files.host_artifacts.push(HostArtifact { host: host.to_string(), artifact, file })
        }
        (["artifacts"] | ["artifacts", _], _) => files.other_artifacts.push(file),
        (["raw", "results", case], InputKind::Section { rank, section }) => {
            files.sections.push(SectionFile { case: case.to_string(), rank, section, file })
        }
        (["raw", "nccl"], InputKind::NcclLog) => files.nccl_logs.push(file),
        (["raw", "inspector", case], InputKind::InspectorDump) => files.inspector.push((case.to_string(), file)),
        (["raw"], InputKind::NcclTests { test, format }) => {
            files.nccl_tests.push(NcclTestsInput { test, format, file })
        }
        (["raw"], InputKind::Stdout) => files.case_stdouts.push(file),
        (
            _,
            InputKind::Manifest
            | InputKind::Notes
            | InputKind::SeedOutput(_)
            | InputKind::Artifact(_)
            | InputKind::Section { .. }
            | InputKind::NcclTests { .. }
            | InputKind::Json
            | InputKind::Stdout
            | InputKind::InspectorDump
            | InputKind::NcclLog
            | InputKind::Other,
        ) => files.unrecognized.push(file),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn stamp() -> FileStamp {
        FileStamp::default()
    }

    fn listed(rels: &[&str]) -> RunFiles {
        let mut files = RunFiles::default();
        for rel in rels {
            classify(&mut files, FileRef { path: PathBuf::from(rel), rel: rel.to_string(), stamp: stamp() });
        }
        files
    }

    fn rels<'a>(files: impl IntoIterator<Item = &'a FileRef>) -> Vec<&'a str> {
        files.into_iter().map(|f| f.rel.as_str()).collect()
    }

    #[test]
    fn each_kind_in_its_place() {
        let files = listed(&[
            "manifest.txt",
            "NOTES.md",
            "summary.md.gz",
            "artifacts/nvidia_smi_query.txt",
            "artifacts/nvidia_smi_topo.txt.gz",
            "artifacts/ibv_devinfo.txt",
            "artifacts/node1/nvidia_smi_query.txt",
            "artifacts/node1/ibv_devinfo.txt",
            "artifacts/node1/env.txt",
            "raw/results/world2_full/rank1_async.csv.gz",
            "raw/nccl_tests_g2.stdout",
            "raw/nccl_tests_g2.json.gz",
            "raw/world2_full.stdout",
            "raw/nccl/world2_full_node1_7.log.gz",
            "raw/nccl/node1-pid7.log",
            "raw/inspector/world2_full/node1-pid7.log.gz",
        ]);
        assert_eq!(files.manifest.as_ref().map(|f| f.rel.as_str()), Some("manifest.txt"));
        assert_eq!(files.notes.as_ref().map(|f| f.rel.as_str()), Some("NOTES.md"));
        assert_eq!(
            files.archived_outputs.iter().map(|(n, f)| (n.as_str(), f.rel.as_str())).collect::<Vec<_>>(),
            [("summary.md", "summary.md.gz")]
        );
        assert_eq!(files.gpu_query.as_ref().map(|f| f.rel.as_str()), Some("artifacts/nvidia_smi_query.txt"));
        assert_eq!(files.topology.as_ref().map(|f| f.rel.as_str()), Some("artifacts/nvidia_smi_topo.txt.gz"));
        let hosts: Vec<_> = files.host_artifacts.iter().map(|h| (h.host.as_str(), h.artifact)).collect();
        assert_eq!(hosts, [("node1", Artifact::GpuQuery), ("node1", Artifact::IbDevices)]);
        assert_eq!(rels(&files.other_artifacts), ["artifacts/ibv_devinfo.txt", "artifacts/node1/env.txt"]);
        let section = &files.sections[0];
        assert_eq!((section.case.as_str(), section.rank, section.section), ("world2_full", 1, Section::Async));
        let tests: Vec<_> = files.nccl_tests.iter().map(|t| (t.test.as_str(), t.format, t.file.rel.as_str())).collect();
        assert_eq!(
            tests,
            [
                ("g2", NcclTestsFormat::Text, "raw/nccl_tests_g2.stdout"),
                ("g2", NcclTestsFormat::Json, "raw/nccl_tests_g2.json.gz")
            ]
        );
        assert_eq!(rels(&files.case_stdouts), ["raw/world2_full.stdout"]);
        assert_eq!(rels(&files.nccl_logs), ["raw/nccl/world2_full_node1_7.log.gz", "raw/nccl/node1-pid7.log"]);
        assert_eq!(
            files.inspector.iter().map(|(c, f)| (c.as_str(), f.rel.as_str())).collect::<Vec<_>>(),
            [("world2_full", "raw/inspector/world2_full/node1-pid7.log.gz")]
        );
        assert!(files.unrecognized.is_empty(), "{:?}", rels(&files.unrecognized));
    }

    #[test]
    fn kinds_out_of_place_are_unrecognized() {
        let misplaced = [
            "raw/manifest.txt",
            "rank0_async.csv",
            "raw/rank0_async.csv",
            "raw/results/world2_full/extra/rank0_async.csv",
            "raw/results/world2_full/notes.txt",
            "nccl_tests_g2.stdout",
            "raw/nccl/notes.txt",
            "raw/world2_full.log",
            "raw/out.json",
            "world2_full.stdout",
            "raw/summary.md",
            "raw/inspector/dump.log",
            "deep/raw/results/world2_full/rank0_async.csv",
            "artifacts/node1/deeper/nvidia_smi_query.txt",
        ];
        let files = listed(&misplaced);
        assert_eq!(rels(&files.unrecognized), misplaced);
        assert_eq!(files.all().count(), misplaced.len());
    }
}
