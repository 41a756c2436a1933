//! Finding runs and their files: a sorted walk of the runs folder (its entries looked at in
//! parallel; each run's files from descriptors, `input::open_beneath`), never following a
//! symlink that leads outside it. A run is a direct sub-folder holding `manifest.txt` or
//! `raw/`; dot-folders (`.failed`, temporary imports) are skipped. Each file's kind is
//! `InputKind::of` its run-relative path with `.gz` stripped; `classify` places the kinds in
//! the run layout (README, "Run layout").

use crate::core::diag::{Code, Diagnostic};
use crate::core::model::nccl_tests::NcclTestsFormat;
use crate::core::model::sections::WorkerSection;
use crate::ingest::input::{self, logical_name, Beneath, Root};
use crate::ingest::input_kind::{Artifact, InputKind};
use crate::ingest::layout::{self, Layout, Recorder};
pub use crate::ingest::stamp::FileStamp;
use rayon::prelude::*;
use std::path::{Path, PathBuf};
use std::sync::Arc;

/// A run folder and its classified files (every path absolute; `rel` run-relative, `/`-separated).
#[derive(Debug, Clone, Default)]
pub struct RunDir {
    pub id: String,
    pub path: PathBuf,
    pub files: RunFiles,
    /// Problems met while walking (symlinks not followed, unreadable folders).
    pub diagnostics: Vec<Diagnostic>,
    /// What the walk met, when a layout can stand for it (`layout`).
    pub layout: Option<Layout>,
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub struct FileRef {
    pub path: PathBuf,
    /// Run-relative path as stored (with `.gz` if compressed).
    pub rel: String,
    pub stamp: FileStamp,
    /// Where every read opens it: beneath the runs folder (`input::open_regular`).
    pub(crate) at: Beneath,
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SectionFile {
    pub case: String,
    pub rank: u64,
    pub section: WorkerSection,
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
    let runs = found.ids.par_iter().map(|id| found.listed(id)).collect();
    Ok((runs, found.skipped))
}

/// The run folders under a runs folder, before their files are listed.
pub struct RunFolders {
    /// The runs folder as given: run `id` is its folder `id`.
    pub root: PathBuf,
    /// The runs' ids (their folders' names), sorted; not their paths, which `listed` makes
    /// (a build holds this list throughout: issue 27's memory).
    pub ids: Vec<String>,
    /// Folders that are not runs, with why.
    pub skipped: Vec<String>,
    /// The runs folder, canonical (symlinks in runs must stay inside it), which every run's
    /// files are opened beneath (opened at the first run listed, then held for the build).
    beneath: Arc<Root>,
}

impl RunFolders {
    /// Run `id` (one of `ids`, in its folder `root/id`) listed with its files.
    pub fn listed(&self, id: &str) -> RunDir {
        list_beneath(id.to_string(), self.root.join(id), &self.beneath, layout::settled_before_now())
    }

    /// The run `id` listed with its files, if it is one of these runs.
    pub fn list(&self, id: &str) -> Option<RunDir> {
        self.ids.binary_search_by(|known| known.as_str().cmp(id)).ok().map(|_| self.listed(id))
    }

    /// The stamps now of the files of run `id` as `layout` (of an earlier walk) has them, when
    /// its folders are unchanged since (`Layout::recheck`).
    pub fn recheck(&self, id: &str, layout: &Layout) -> Option<Vec<FileStamp>> {
        layout.recheck(&self.folder_of(id))
    }

    /// Run `id`'s folder, beneath the runs folder: its files are opened beneath it.
    pub(crate) fn folder_of(&self, id: &str) -> Beneath {
        Beneath::new(Arc::clone(&self.beneath), Path::new(id))
    }
}

/// Finds the run folders under `root` (a build lists each one's files when it builds it).
/// The folder of the runs folder that holds site-wide notes (`notes/*.md`) when it is not a run.
pub const NOTES_FOLDER: &str = "notes";

pub fn find_run_folders(root: &Path) -> std::io::Result<RunFolders> {
    let canonical_root = root.canonicalize()?;
    // Each entry's name and whether it is a symlink, as the listing gives them.
    let mut entries = std::fs::read_dir(root)?
        .map(|entry| entry.map(|e| (e.file_name(), e.file_type().is_ok_and(|t| t.is_symlink()))))
        .collect::<Result<Vec<_>, _>>()?;
    entries.sort();
    // Each entry is looked at on its own (a few `stat`s), in parallel: 100,000 runs.
    let found: Vec<Folder> =
        entries.par_iter().map(|(name, is_symlink)| folder(root, &canonical_root, name, *is_symlink)).collect();
    let mut ids = Vec::new();
    let mut skipped = Vec::new();
    for one in found {
        match one {
            Folder::Run(id) => ids.push(id),
            Folder::Skipped(why) => skipped.push(why),
            Folder::Other => {}
        }
    }
    Ok(RunFolders { root: root.to_path_buf(), ids, skipped, beneath: Root::new(canonical_root) })
}

/// What an entry of the runs folder is.
enum Folder {
    Run(String),
    /// Not a run, with why (shown).
    Skipped(String),
    /// A hidden entry, a file, or the notes folder: not a run, and nothing to say.
    Other,
}

fn folder(root: &Path, canonical_root: &Path, name: &std::ffi::OsStr, is_symlink: bool) -> Folder {
    let Some(name) = name.to_str().map(str::to_string) else {
        // Two names differing only in invalid bytes must never become one run id.
        let shown = name.to_string_lossy().escape_default().to_string();
        return Folder::Skipped(format!("{shown}: folder name is not UTF-8; skipped"));
    };
    if name.starts_with('.') {
        return Folder::Other;
    }
    let path = root.join(&name);
    if is_symlink && !stays_inside(&path, canonical_root) {
        return Folder::Skipped(format!("{name}: symlink leads outside the runs folder; not followed"));
    }
    if !path.is_dir() {
        return Folder::Other;
    }
    if !(path.join("manifest.txt").is_file() || path.join("raw").is_dir()) {
        // `notes/` holds the site-wide notes (`site::notes`), not a run.
        if name == NOTES_FOLDER {
            return Folder::Other;
        }
        return Folder::Skipped(format!("{name}: neither manifest.txt nor raw/; not a run"));
    }
    match crate::core::run_id::validate(&name) {
        Ok(()) => Folder::Run(name),
        Err(why) => Folder::Skipped(format!("{name:?}: not a valid run id ({why}); skipped")),
    }
}

/// True when `path`, symlinks resolved, lies inside `canonical_root`.
pub fn stays_inside(path: &Path, canonical_root: &Path) -> bool {
    path.canonicalize().is_ok_and(|target| target.starts_with(canonical_root))
}

/// Walks one run folder and classifies its files. The walk is made from descriptors: the
/// run folder is opened beneath the runs folder (`input::open_beneath`), each sub-folder from
/// its parent's descriptor with `O_NOFOLLOW`, and names are read from the open folder, so a
/// folder swapped for a symlink during the walk is never listed through it. A symlink is
/// followed only when it resolves inside the runs folder (to a file; a linked folder is not
/// entered).
pub fn list_run(id: String, path: PathBuf, canonical_root: &Path) -> RunDir {
    list_beneath(id, path, &Root::new(canonical_root), layout::settled_before_now())
}

/// `list_run` recording its layout as if its folders had last changed before `settled_before`
/// (tests walk folders made just now).
#[cfg(test)]
pub(crate) fn list_run_settled(id: &str, path: PathBuf, canonical_root: &Path, settled_before: i128) -> RunDir {
    list_beneath(id.to_string(), path, &Root::new(canonical_root), settled_before)
}

/// `list_run` beneath a runs folder already held (`RunFolders`), recording its layout when
/// its folders last changed before `settled_before` (`Recorder::start`).
fn list_beneath(id: String, path: PathBuf, root: &Arc<Root>, settled_before: i128) -> RunDir {
    let mut run = RunDir { id, path: path.clone(), ..RunDir::default() };
    let folder = PathBuf::from(path.file_name().unwrap_or_default());
    let mut listed = Vec::new();
    let mut layout = None;
    match input::open_beneath(&Beneath::new(Arc::clone(root), &folder)).and_then(|dir| Ok((dir.metadata()?, dir))) {
        Ok((meta, dir)) => {
            let mut recorder = Recorder::start(FileStamp::of(&meta), settled_before);
            let mut walk =
                Walk { root, folder: &folder, path: &path, run: &mut run, listed: &mut listed, layout: &mut recorder };
            walk.folder_entries(&dir, Path::new(""), 0, 0);
            layout = Some(recorder);
        }
        Err(error) => {
            run.diagnostics.push(Diagnostic::error(Code::CannotRead, "", None, format!("cannot read: {error}")))
        }
    }
    for file in drop_compressed_twins(listed, &mut run.diagnostics) {
        classify(&mut run.files, file);
    }
    run.files.sections.sort_by(|a, b| {
        (a.case.as_str(), logical_name(&a.file.path), &a.file.rel).cmp(&(
            b.case.as_str(),
            logical_name(&b.file.path),
            &b.file.rel,
        ))
    });
    run.layout = layout.and_then(|recorder| recorder.finish(!run.diagnostics.is_empty()));
    run
}

/// One run's walk in progress (`list_run`).
struct Walk<'a> {
    root: &'a Arc<Root>,
    /// The run folder's name under the root.
    folder: &'a Path,
    /// The run folder's path as given (for `FileRef::path`).
    path: &'a Path,
    run: &'a mut RunDir,
    listed: &'a mut Vec<FileRef>,
    layout: &'a mut Recorder,
}

/// How many folders deep a run is walked below its run folder (the suite's layout is five):
/// a deeper folder is not entered. A walk holds one descriptor a level and recurses once a
/// level, so this bounds both, whatever a run holds (4,000 nested folders overflowed a
/// thread's stack and aborted the whole build).
const MAX_DEPTH: u32 = 32;

/// The longest run-relative path read, in bytes: a file is published beneath the output
/// folder (`runs/<id>/evidence/<path>`), and a path over the system's 4,096 bytes there
/// failed the whole build.
const MAX_PATH_BYTES: usize = 1024;

impl Walk<'_> {
    /// Lists the open folder `dir` (`rel` under the run, `depth` folders below it; folder
    /// `index` of the layout), depth first in name order. A name that is not UTF-8, a path
    /// over `MAX_PATH_BYTES` and a folder below `MAX_DEPTH` are not read (a warning each):
    /// two names that differ only in their invalid bytes would otherwise be read as one.
    fn folder_entries(&mut self, dir: &std::fs::File, rel: &Path, index: u32, depth: u32) {
        let names = match input::read_dir_names(dir) {
            Ok(names) => names,
            Err(error) => {
                self.layout.spoil();
                self.run.diagnostics.push(Diagnostic::error(
                    Code::CannotRead,
                    slashed(rel),
                    None,
                    format!("cannot read: {error}"),
                ));
                return;
            }
        };
        for name in names {
            let rel = rel.join(&name);
            let shown = slashed(&rel);
            if name.to_str().is_none() {
                self.not_read(Code::NotUtf8Name, shown, "a name that is not UTF-8; not read");
                continue;
            }
            if shown.len() > MAX_PATH_BYTES {
                self.not_read(Code::TooDeep, shown, format!("a path over {MAX_PATH_BYTES} bytes; not read"));
                continue;
            }
            match input::entry_at(dir, &name) {
                Ok(input::Entry::Folder(_, _)) if depth + 1 > MAX_DEPTH => {
                    let message = format!("a folder more than {MAX_DEPTH} levels below the run folder; not read");
                    self.not_read(Code::TooDeep, shown, message);
                }
                Ok(input::Entry::Folder(sub, stat)) => {
                    self.folder_warning(&rel, &shown);
                    let sub_index = self.layout.folder(index, &name, FileStamp::of_stat(&stat));
                    self.folder_entries(&sub, &rel, sub_index, depth + 1);
                }
                Ok(input::Entry::File(stat)) => {
                    self.layout.file(index, &name);
                    self.list(&rel, shown, FileStamp::of_stat(&stat));
                }
                Ok(input::Entry::Symlink) => {
                    self.layout.spoil();
                    self.symlink(&rel, shown);
                }
                Ok(input::Entry::Special) => {
                    self.layout.spoil();
                    self.special(shown);
                }
                Err(error) => {
                    self.layout.spoil();
                    self.run.diagnostics.push(Diagnostic::error(
                        Code::CannotRead,
                        shown,
                        None,
                        format!("cannot read: {error}"),
                    ))
                }
            }
        }
    }

    /// An entry left unread, with a warning saying why (the layout cannot be trusted then).
    fn not_read(&mut self, code: Code, shown: String, message: impl Into<String>) {
        self.layout.spoil();
        self.run.diagnostics.push(Diagnostic::warning(code, shown, None, message));
    }

    /// A symlink: not followed, whatever it names. Another run's file or one of the runs
    /// folder that is no run's would be published with this run, and one of the run's own files
    /// would be shown or published under the link's name, by which what a file holds is judged
    /// (a link named `env.txt` to the run's nccl-tests JSON showed the environment that JSON is
    /// withheld for). A link to a folder says so apart.
    fn symlink(&mut self, rel: &Path, shown: String) {
        // Resolved beneath the run folder itself: a link out of the run is not a folder of it.
        let at = Beneath::new(Root::new(self.root.path.join(self.folder)), rel);
        let folder = input::open_beneath(&at).and_then(|file| file.metadata()).is_ok_and(|meta| meta.is_dir());
        let (code, message) = match folder {
            true => (Code::SymlinkFolder, "a symlink to a folder; not followed (copy the folder into the run)"),
            false => (Code::SymlinkOutside, "a symlink; not followed (copy the file it names into the run)"),
        };
        self.run.diagnostics.push(Diagnostic::warning(code, shown, None, message));
    }

    fn list(&mut self, rel: &Path, shown: String, stamp: FileStamp) {
        let at = Beneath::new(Arc::clone(self.root), self.folder.join(rel));
        self.run.files.total_bytes += stamp.len;
        self.listed.push(FileRef { path: self.path.join(rel), rel: shown, stamp, at });
    }

    fn folder_warning(&mut self, rel: &Path, shown: &str) {
        if matches!(InputKind::of(&logical_name(rel)), InputKind::WorkerSection { .. }) {
            let message = "a folder where a rank file should be; not read";
            self.run.diagnostics.push(Diagnostic::warning(Code::FolderForFile, shown, None, message));
        }
    }

    fn special(&mut self, shown: String) {
        let message = "not a regular file (FIFO, socket or device); not read";
        self.run.diagnostics.push(Diagnostic::warning(Code::NotRegularFile, shown, None, message));
    }
}

/// A run-relative path, `/`-separated: built by `Path::join` of names read from folders (no
/// `.`, no doubled separator), so its text is its components joined by `/`.
fn slashed(rel: &Path) -> String {
    rel.to_string_lossy().into_owned()
}

/// One rule for every `X` / `X.gz` pair, whatever the kind (rank CSVs, nccl-tests outputs,
/// NCCL logs, manifests, notes, artifacts): only `X` is read (the uncompressed file is the one
/// a user edits), with a warning on `X.gz` naming both. The warning is a listing diagnostic,
/// so it is part of the run's cache key like every other.
fn drop_compressed_twins(listed: Vec<FileRef>, diagnostics: &mut Vec<Diagnostic>) -> Vec<FileRef> {
    let plain: std::collections::HashSet<&str> = listed.iter().map(|f| f.rel.as_str()).collect();
    let twins: Vec<bool> =
        listed.iter().map(|f| f.rel.strip_suffix(".gz").is_some_and(|stem| plain.contains(stem))).collect();
    let mut kept = Vec::with_capacity(listed.len());
    for (file, twin) in listed.into_iter().zip(twins) {
        if twin {
            let stem = &file.rel[..file.rel.len() - 3];
            let message = format!("both {stem} and {} present; only {stem} read", file.rel);
            diagnostics.push(Diagnostic::warning(Code::CompressedTwin, &file.rel, None, message));
        } else {
            kept.push(file);
        }
    }
    kept
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
        (["raw", "results", case], InputKind::WorkerSection { rank, section }) => {
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
            | InputKind::WorkerSection { .. }
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

    /// Run `r` of a new runs folder (a manifest and `raw/`), changed by `make`, walked.
    fn walked(make: impl FnOnce(&Path)) -> RunDir {
        let dir = tempfile::tempdir().unwrap();
        let run = dir.path().join("r");
        std::fs::create_dir_all(run.join("raw")).unwrap();
        std::fs::write(run.join("manifest.txt"), "m").unwrap();
        make(&run);
        list_run_settled("r", run, &dir.path().canonicalize().unwrap(), i128::MAX)
    }

    /// Each diagnostic's code and file.
    fn found(run: &RunDir) -> Vec<(Code, String)> {
        run.diagnostics.iter().map(|d| (d.code, d.file.clone())).collect()
    }

    #[test]
    fn a_folder_below_the_deepest_level_is_not_entered_and_says_so() {
        let levels = MAX_DEPTH as usize + 8;
        let chain = |n: usize| std::iter::repeat_n("d", n).collect::<Vec<_>>().join("/");
        let run = walked(|run| {
            let deepest = run.join("raw").join(chain(levels));
            std::fs::create_dir_all(&deepest).unwrap();
            std::fs::write(deepest.join("notes.txt"), "deep").unwrap();
            std::fs::write(run.join("raw").join(chain(MAX_DEPTH as usize - 1)).join("kept.txt"), "kept").unwrap();
        });
        // `raw` is one level down: its chain is entered to level MAX_DEPTH, not below.
        let skipped = format!("raw/{}", chain(MAX_DEPTH as usize));
        assert_eq!(found(&run), vec![(Code::TooDeep, skipped)]);
        let rels: Vec<&str> = run.files.all().map(|f| f.rel.as_str()).collect();
        assert!(rels.iter().any(|r| r.ends_with("/kept.txt")), "{rels:?}");
        assert!(!rels.iter().any(|r| r.ends_with("/notes.txt")), "{rels:?}");
        assert_eq!(run.layout, None);
    }

    #[test]
    fn a_path_over_the_longest_is_not_read_and_says_so() {
        let name = "n".repeat(200);
        let run = walked(|run| {
            let folder = run.join("artifacts").join([name.as_str(); 4].join("/"));
            std::fs::create_dir_all(&folder).unwrap();
            std::fs::write(folder.join("short.txt"), "x").unwrap();
            std::fs::write(folder.join("x".repeat(250)), "x").unwrap();
            // The longest path read, and one byte over it.
            std::fs::write(folder.join("y".repeat(210)), "x").unwrap();
            std::fs::write(folder.join("z".repeat(211)), "x").unwrap();
        });
        let path = |file: String| format!("artifacts/{}/{file}", [name.as_str(); 4].join("/"));
        let (longest, over) = (path("y".repeat(210)), path("z".repeat(211)));
        assert_eq!((longest.len(), over.len()), (MAX_PATH_BYTES, MAX_PATH_BYTES + 1));
        let mut not_read = found(&run);
        not_read.sort();
        assert_eq!(not_read, vec![(Code::TooDeep, path("x".repeat(250))), (Code::TooDeep, over)]);
        assert!(run.files.all().any(|f| f.rel.ends_with("/short.txt")));
        assert!(run.files.all().any(|f| f.rel == longest));
    }

    #[test]
    fn names_that_are_not_utf8_are_not_read_nor_taken_for_one_another() {
        use std::os::unix::ffi::OsStrExt;
        let run = walked(|run| {
            std::fs::create_dir_all(run.join("artifacts")).unwrap();
            for name in [&b"a\xff.txt"[..], b"a\xfe.txt"] {
                std::fs::write(run.join("artifacts").join(std::ffi::OsStr::from_bytes(name)), "x").unwrap();
            }
        });
        assert_eq!(found(&run).iter().filter(|(code, _)| *code == Code::NotUtf8Name).count(), 2);
        assert!(!run.files.all().any(|f| f.rel.starts_with("artifacts/a")));
    }

    #[test]
    fn symlinks_are_not_followed_and_say_so() {
        let run = walked(|run| {
            for store in [run.join("store/results/world2_full"), run.parent().unwrap().join("elsewhere/world2_full")] {
                std::fs::create_dir_all(&store).unwrap();
                std::fs::write(store.join("rank0_async.csv"), "x").unwrap();
            }
            std::os::unix::fs::symlink("../store/results", run.join("raw/results")).unwrap();
            std::os::unix::fs::symlink("../../elsewhere", run.join("raw/more")).unwrap();
            std::os::unix::fs::symlink("../manifest.txt", run.join("raw/notes.txt")).unwrap();
        });
        let expected = [
            (Code::SymlinkOutside, "raw/more"),
            (Code::SymlinkOutside, "raw/notes.txt"),
            (Code::SymlinkFolder, "raw/results"),
        ];
        assert_eq!(found(&run), expected.map(|(code, file)| (code, file.to_string())));
        assert!(!run.files.all().any(|f| f.rel.starts_with("raw/")), "only the run's own store is read");
    }

    fn listed(rels: &[&str]) -> RunFiles {
        let mut files = RunFiles::default();
        for rel in rels {
            let at = Beneath::new(Root::new(""), rel);
            classify(&mut files, FileRef { path: PathBuf::from(rel), rel: rel.to_string(), stamp: stamp(), at });
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
        assert_eq!((section.case.as_str(), section.rank, section.section), ("world2_full", 1, WorkerSection::Async));
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
