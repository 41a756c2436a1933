//! The build cache: one entry per run, kept beside the output (`.nccl-report-cache/<out>/`),
//! holding the run's digest and its rendered files. An entry is used only when its key — a
//! hash of the tool binary, the site-wide inputs and the content of every file of the run —
//! equals the key computed from the inputs now, or when the run's listing (every file's
//! stamp, the listing's diagnostics, the same context) is the one that key was computed from
//! (`Cache::inputs`, which then stands for the key); the cache is never trusted over the
//! inputs.
//!
//! A run with no entry, whose NCCL logs the build reads whole (to publish them), has those
//! logs' hashes made from the bytes read (`stamps`, then `complete_key`), not from a read of
//! their own.
//!
//! Content hashes (xxh3-128) are recomputed for any file whose size, modification time,
//! change time or inode differ from the last build; the change time is set by the kernel on
//! every write (it cannot be restored by `touch`), so an edit that keeps size and mtime is
//! still seen. The tool binary is part of every key (its hash memoized the same way). The
//! cache writes only inside its own folder, and owns its files: a run's rendered files are
//! written from their bytes (never linked to the site) one after another into one pack file
//! beside its entry (`files.pack`: one file to create per run, not one per site file), each
//! with its place and content hash, and a file is copied into a new site only after its hash
//! is checked, so editing the site (or the cache) can never change what a later build
//! publishes. A comparison appends the files it changes to the pack; the pack is written
//! again without the bytes no file uses any more once they outweigh the rest. An archived
//! input published as it is stored (evidence: most of a site's bytes where runs keep large
//! NCCL logs) is not copied into the pack, which would double those logs on disk and in the
//! build's writes: its record names its path in the run folder, and when it must be put back
//! it is read from there (beneath the runs folder, as stored) and its hash checked, so it is
//! still the bytes searched for secrets when it was published; an input changed since is not
//! put back, and its run is built again.
//!
//! Carrying unchanged runs without copying: after each commit the stamp (size, mtime, ctime,
//! inode) of every file of a cached run in the live site is recorded beside the entry
//! (`site.mpk`). The next build hard-links a live file into the new site only when its stamp
//! is still the recorded one and it was recorded with the hash the entry has now; any write
//! to the file changes its ctime (which `touch` cannot restore), so a file edited by hand is
//! copied from the cache instead. Cache files are never linked.

use crate::analysis::overview::RunOverview;
use crate::ingest::find::{FileRef, FileStamp, RunDir};
use crate::ingest::input::Beneath;
use crate::ingest::layout::Layout;
use crate::pipeline::digest_pack::{decode, encode, DigestPack, Part};
use crate::pipeline::histories::{CaseLists, HistoryRow};
use crate::pipeline::out_dir;
use crate::pipeline::write::Staging;
use crate::render::OutputFile;
use crate::site::card::RunCard;
use serde::de::DeserializeOwned;
use serde::{Deserialize, Serialize};
use std::collections::BTreeMap;
use std::fs;
use std::io::{self, Read, Write};
use std::path::{Path, PathBuf};
use xxhash_rust::xxh3::Xxh3;

/// Bumped whenever the cache layout changes.
const FORMAT: &str = "nccl-report-cache-13";
/// The units of the site last committed (`Cache::units`).
const UNITS: &str = "page-units.json";
/// Beside an entry: the run's digest (MessagePack: `digest_pack::encode`).
const DIGEST: &str = "digest.mpk";
/// A run's entry (`CacheEntry`: its head, then its stamps and files).
const ENTRY: &str = "entry.json";
/// Beside the digest: what the run gives its configuration's history page.
const HISTORY_ROW: &str = "history-row.json";
/// Beside the digest: the case verdicts of the run's last comparison.
const VERDICTS: &str = "verdicts.json";
/// Beside an entry: the stamps of its files in the live site as last committed (MessagePack:
/// read for every cached run of a site updated in place, a fifth of the time JSON took).
const SITE_STAMPS: &str = "site.mpk";
/// Beside an entry: the bytes of its rendered files (`CachedFile::at`).
const PACK: &str = "files.pack";
/// Beside an entry: its run folder's layout as last walked (`Layout`, MessagePack after a line
/// holding its content hash).
const LAYOUT: &str = "layout.mpk";

/// A file of a run as last built: its stamp and the hash of its content.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub(crate) struct Stamp {
    pub rel: String,
    pub stamp: FileStamp,
    pub hash: String,
}

/// A run as last built: its key, the stamps behind it, its status and its rendered files
/// (their bytes in the pack beside it, `PACK`). Its digest is kept apart (`digest.mpk`), read only when the
/// cross-run pages must be rendered again.
///
/// Kept in `entry.json` as two JSON documents on two lines: its `EntryHead`, then its stamps
/// and files (`EntryBody`). A build reads only the head of every cached run whose listing is
/// unchanged (`Cache::head`), a tenth of the entry's bytes; the whole entry only when its
/// files are put back or its inputs changed.
#[derive(Debug, Clone)]
pub(crate) struct CacheEntry {
    pub key: String,
    /// `Cache::inputs` of the listing the key was made from.
    pub inputs: String,
    pub stamps: Vec<Stamp>,
    pub card: RunCard,
    /// The build summary's line for a run that is not ok.
    pub problem: Option<String>,
    pub files: Vec<CachedFile>,
    /// The stamp of the comparison with its baseline that the cached run page holds (`None`:
    /// not yet compared).
    pub comparison: Option<String>,
}

/// What a new entry is keyed by: the key of its run's inputs, `Cache::inputs` of their
/// listing, and their stamps.
pub(crate) struct Keyed {
    pub key: String,
    pub inputs: String,
    pub stamps: Vec<Stamp>,
}

/// What a build needs of a cached run whose inputs are unchanged: an entry's first line.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub(crate) struct EntryHead {
    pub key: String,
    pub inputs: String,
    pub card: RunCard,
    pub problem: Option<String>,
    pub comparison: Option<String>,
    /// `files_print` of the entry's files.
    pub print: u64,
    /// The content hash of the entry's second line (`write_entry`).
    pub body: String,
}

/// An entry's second line.
#[derive(Serialize, Deserialize)]
struct EntryBody {
    stamps: Vec<Stamp>,
    files: Vec<CachedFile>,
}

/// A cached run in a live site updated in place, as `Cache::repair_live` found it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum LiveRun {
    /// Its files are the ones recorded at the last commit, unchanged since.
    Intact,
    /// Its files were checked one by one against its entry, and `repaired` put back: its
    /// stamps are to be recorded again at this commit.
    Checked { repaired: usize },
}

/// A hash of a run's rendered files, each its site path and the hash of its bytes, in order:
/// what a build keeps of a cached run's file list until its files are put back (8 bytes, not
/// the list).
pub(crate) fn files_print<'a>(files: impl Iterator<Item = (&'a str, &'a str)>) -> u64 {
    let mut hasher = Xxh3::new();
    for (rel, hash) in files {
        hasher.update(rel.as_bytes());
        hasher.update(&[0]);
        hasher.update(hash.as_bytes());
        hasher.update(&[0]);
    }
    hasher.digest()
}

impl CacheEntry {
    /// `files_print` of the entry's files.
    pub(crate) fn files_print(&self) -> u64 {
        files_print(self.files.iter().map(|f| (f.rel.as_str(), f.hash.as_str())))
    }

    /// The entry's head (its `body` hash is set where the entry is written: `write_entry`).
    pub(crate) fn head(&self) -> EntryHead {
        EntryHead {
            key: self.key.clone(),
            inputs: self.inputs.clone(),
            card: self.card.clone(),
            problem: self.problem.clone(),
            comparison: self.comparison.clone(),
            print: self.files_print(),
            body: String::new(),
        }
    }
}

/// Writes an entry as its two lines (`CacheEntry`), the head holding the content hash of the
/// body line.
fn write_entry(path: &Path, entry: &CacheEntry) -> io::Result<()> {
    let body = EntryBody { stamps: entry.stamps.clone(), files: entry.files.clone() };
    let body = serde_json::to_vec(&body).map_err(io::Error::other)?;
    let head = EntryHead { body: hash_bytes(&body), ..entry.head() };
    let mut bytes = serde_json::to_vec(&head).map_err(io::Error::other)?;
    bytes.push(b'\n');
    bytes.extend_from_slice(&body);
    fs::write(path, bytes)
}

/// An entry's head and the bytes of its body, when the file is an entry whose body still has
/// the content hash its head recorded: a body cut short (a build killed while writing it) or
/// edited makes the whole entry a miss, never a hit on its head alone.
fn split_entry(bytes: &[u8]) -> Option<(EntryHead, &[u8])> {
    let newline = memchr::memchr(b'\n', bytes)?;
    let head: EntryHead = serde_json::from_slice(&bytes[..newline]).ok()?;
    let body = &bytes[newline + 1..];
    (head.body == hash_bytes(body)).then_some((head, body))
}

/// An entry written by `write_entry`; `None` when missing or not one.
fn read_entry(path: &Path) -> Option<CacheEntry> {
    let bytes = read_small(path).ok()?;
    let (head, body) = split_entry(&bytes)?;
    let body: EntryBody = serde_json::from_slice(body).ok()?;
    // The head's `print` is not checked here: whoever holds a print from a head compares it
    // with the files read (`entry_as_keyed`).
    Some(CacheEntry {
        key: head.key,
        inputs: head.inputs,
        stamps: body.stamps,
        card: head.card,
        problem: head.problem,
        files: body.files,
        comparison: head.comparison,
    })
}

/// The head of an entry written by `write_entry` (its body checked, not parsed).
fn read_head(path: &Path) -> Option<EntryHead> {
    split_entry(&read_small(path).ok()?).map(|(head, _)| head)
}

/// A rendered file of a run kept in the cache: its site path, the hash of its bytes, and
/// where they lie: `len` bytes from byte `at` of the entry's pack, or, for an archived input
/// published as it is stored (`source`, its path in the run folder), that input itself.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub(crate) struct CachedFile {
    pub rel: String,
    pub hash: String,
    pub at: u64,
    pub len: u64,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub source: Option<String>,
}

/// An archived input of a run published as it is stored (evidence), once its copy is written:
/// its site path, its path in the run folder, where the cache reads it again when it must
/// (`CachedFile::source`), and the length and hash (`hash_bytes`) of the bytes published.
pub(crate) struct ArchivedFile {
    pub path: String,
    pub source: String,
    pub len: u64,
    pub hash: String,
}

/// What the current site was built from: each run folder's key, the cross-run pages' key,
/// the stamp of the site's marker file as committed (a site rebuilt without the cache, or
/// deleted, has another marker, so it is not taken for this one), and its files and pages
/// then (the next build counts from them rather than walking the site).
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub(crate) struct Published {
    pub runs: BTreeMap<String, String>,
    pub cross: Option<String>,
    pub site: Option<FileStamp>,
    #[serde(default)]
    pub count: Option<crate::pipeline::write::SiteCount>,
}

pub(crate) struct Cache {
    dir: PathBuf,
    /// Hash of the tool binary and the site-wide inputs that run pages show.
    context: String,
}

impl Cache {
    /// The cache for the site at `out`; `site_inputs` are bytes every run page depends on.
    /// `out` is the resolved output folder (`OutputLock::out`).
    pub(crate) fn open(out: &Path, site_inputs: &[u8]) -> io::Result<Cache> {
        let dir = out_dir::cache_dir(out);
        let mut hasher = Xxh3::new();
        hasher.update(FORMAT.as_bytes());
        hasher.update(tool_hash(&dir)?.as_bytes());
        hasher.update(site_inputs);
        Ok(Cache { dir, context: format!("{:032x}", hasher.digest128()) })
    }

    fn entry_dir(&self, run_id: &str) -> PathBuf {
        self.dir.join("runs").join(run_id)
    }

    /// The last entry for a run, if readable.
    pub(crate) fn lookup(&self, run_id: &str) -> Option<CacheEntry> {
        read_entry(&self.entry_dir(run_id).join(ENTRY))
    }

    /// The head of a run's entry (`EntryHead`), read alone.
    pub(crate) fn head(&self, run_id: &str) -> Option<EntryHead> {
        read_head(&self.entry_dir(run_id).join(ENTRY))
    }

    /// A digest of a run's listing: what `key` hashes, with each file's stamp in place of its
    /// content hash. Equal to the `inputs` of the entry keyed from the same listing when no
    /// file's stamp, no listing diagnostic and nothing of the build's context changed, in
    /// which case `key` would give the entry's key again (it reuses the content hash of every
    /// file whose stamp is unchanged): the entry's head is then all a build parses of it (its
    /// body is read only to check the hash the head records).
    pub(crate) fn inputs(&self, run: &RunDir) -> String {
        let (mut hasher, files) = self.listing(run);
        for file in files {
            hasher.update(file.rel.as_bytes());
            hash_stamp(&mut hasher, &file.stamp);
        }
        format!("{:032x}", hasher.digest128())
    }

    /// `inputs` of run `run_id` listed now as `layout` (an earlier walk's, which gave no
    /// diagnostic) with `stamps`, its files' stamps now (`RunFolders::recheck`): equal to
    /// what `inputs` gives of the run listed again while its folders are unchanged.
    pub(crate) fn inputs_of_layout(&self, run_id: &str, layout: &Layout, stamps: &[FileStamp]) -> String {
        let mut hasher = self.listing_hasher(run_id, &[]);
        let mut stamps = stamps.iter();
        layout.visit_files(|folder, name| {
            if !folder.is_empty() {
                hasher.update(folder.as_bytes());
                hasher.update(b"/");
            }
            hasher.update(name.as_bytes());
            // One stamp a file (`Layout::recheck`); a missing one cannot give the head's digest.
            hash_stamp(&mut hasher, stamps.next().unwrap_or(&FileStamp::default()));
        });
        format!("{:032x}", hasher.digest128())
    }

    /// The layout of run `run_id`'s folder kept with its entry, if readable.
    pub(crate) fn layout(&self, run_id: &str) -> Option<Layout> {
        let layout: Layout = rmp_serde::from_slice(&checked_bytes(&self.entry_dir(run_id).join(LAYOUT))?).ok()?;
        layout.holds_together().then_some(layout)
    }

    /// Keeps the layout of run `run_id`'s folder with its entry (after the entry is written),
    /// or drops the one kept when the last walk gave none (a symlink or a `.gz` twin added, a
    /// folder not yet settled). The file only spares the next build a listing: failing to
    /// write or remove it is no error (a stale layout can only fail its recheck).
    pub(crate) fn keep_layout(&self, run_id: &str, layout: Option<&Layout>) {
        let path = self.entry_dir(run_id).join(LAYOUT);
        // The kept one is read again, not taken from the failed recheck: storing a run built
        // anew removes its entry's folder, layout included.
        match layout {
            Some(layout) if self.layout(run_id).as_ref() != Some(layout) => {
                if let Ok(bytes) = rmp_serde::to_vec(layout) {
                    let _ = write_checked_bytes(&path, &bytes);
                }
            }
            Some(_) => {}
            None => {
                let _ = fs::remove_file(&path);
            }
        }
    }

    /// A run's entry read again when its files are put back, if it is still the one keyed
    /// `key` at the start of the build with files of `print` (`files_print`; `None` otherwise:
    /// the run is then built again).
    pub(crate) fn entry_as_keyed(&self, run_id: &str, key: Option<&str>, print: u64) -> Option<CacheEntry> {
        self.lookup(run_id).filter(|entry| Some(entry.key.as_str()) == key && entry.files_print() == print)
    }

    /// The key of a run's current inputs, reusing content hashes whose stamps are unchanged.
    /// A file that cannot be read gives its run-relative path and the error.
    pub(crate) fn key(
        &self,
        run: &RunDir,
        previous: Option<&CacheEntry>,
    ) -> Result<(String, Vec<Stamp>), (String, io::Error)> {
        let (stamps, _) = self.stamps(run, previous, |_, _| false)?;
        Ok((self.key_of(run, &stamps), stamps))
    }

    /// The stamps of a run's current inputs (in path order) with their content hashes,
    /// reusing those whose stamps are unchanged, but for the files `later` picks (given each
    /// file and whether it is an NCCL log): those are only opened (so that one that cannot be
    /// read is named here, as `key` names it), and their places are returned, for
    /// `complete_key` to hash once the build has read them.
    pub(crate) fn stamps(
        &self,
        run: &RunDir,
        previous: Option<&CacheEntry>,
        later: impl Fn(&FileRef, bool) -> bool,
    ) -> Result<(Vec<Stamp>, Vec<usize>), (String, io::Error)> {
        let files = files_in_order(run);
        let logs: std::collections::HashSet<&str> = run.files.nccl_logs.iter().map(|f| f.rel.as_str()).collect();
        let limits = crate::ingest::input::limits();
        // The previous stamps by path: one lookup a file, not a scan (a run of 120,000 files
        // took 44 s to key again with a scan a file).
        let known_stamps: std::collections::HashMap<&str, &Stamp> =
            previous.map(|e| e.stamps.iter().map(|s| (s.rel.as_str(), s)).collect()).unwrap_or_default();
        let mut stamps = Vec::with_capacity(files.len());
        let mut pending = Vec::new();
        for file in files {
            let known = known_stamps.get(file.rel.as_str());
            let is_log = logs.contains(file.rel.as_str());
            let limit = if is_log { limits.log } else { limits.file };
            let hash = match known {
                Some(old) if old.stamp == file.stamp => old.hash.clone(),
                _ if beyond_reading(file.stamp.len, limit) => stamp_hash(&file.stamp),
                _ if later(file, is_log) => {
                    open_input(&file.at).map_err(|error| (file.rel.clone(), error))?;
                    pending.push(stamps.len());
                    String::new()
                }
                _ => hash_input(&file.at).map_err(|error| (file.rel.clone(), error))?,
            };
            stamps.push(Stamp { rel: file.rel.clone(), stamp: file.stamp, hash });
        }
        Ok((stamps, pending))
    }

    /// The key of a run whose stamps at `pending` (`stamps`) lack their hashes: each is the
    /// hash in `hashes` of the bytes the build read of that file, or the file is read again
    /// now; `None` when it cannot be.
    pub(crate) fn complete_key(
        &self,
        run: &RunDir,
        mut stamps: Vec<Stamp>,
        pending: &[usize],
        hashes: &std::collections::HashMap<String, String>,
    ) -> Option<(String, Vec<Stamp>)> {
        // The run's files in path order, sorted only for a file whose hash was not made.
        let mut files = None;
        for &at in pending {
            let stamp = stamps.get_mut(at)?;
            stamp.hash = match hashes.get(&stamp.rel) {
                Some(hash) => hash.clone(),
                None => hash_input(&files.get_or_insert_with(|| files_in_order(run)).get(at)?.at).ok()?,
            };
        }
        Some((self.key_of(run, &stamps), stamps))
    }

    /// The key of a run from its inputs' stamps and content hashes, in path order.
    fn key_of(&self, run: &RunDir, stamps: &[Stamp]) -> String {
        let mut hasher = self.listing_hasher(&run.id, &run.diagnostics);
        for stamp in stamps {
            hasher.update(stamp.rel.as_bytes());
            hasher.update(&[0]);
            hasher.update(stamp.hash.as_bytes());
        }
        format!("{:032x}", hasher.digest128())
    }

    /// What `key` and `inputs` both hash first (the build's context, the run's id and its
    /// listing diagnostics: symlinks not followed, FIFOs, `.gz` twins change a run's page
    /// without changing any of its files), and the run's files in path order.
    fn listing<'r>(&self, run: &'r RunDir) -> (Xxh3, Vec<&'r FileRef>) {
        (self.listing_hasher(&run.id, &run.diagnostics), files_in_order(run))
    }

    /// The build's context, a run's id and its listing diagnostics, hashed.
    fn listing_hasher(&self, run_id: &str, diagnostics: &[crate::core::diag::Diagnostic]) -> Xxh3 {
        let mut hasher = Xxh3::new();
        hasher.update(self.context.as_bytes());
        hasher.update(run_id.as_bytes());
        for diagnostic in diagnostics {
            hasher.update(diagnostic.to_string().as_bytes());
            hasher.update(&[0]);
        }
        hasher
    }

    /// Puts a cached entry's files into the new site: hard-linked from the live site `live`
    /// where the file there still has the stamp recorded at the last commit, else copied from
    /// the cache (an archived input: from the run's folder `run`) after its hash is checked;
    /// false when any file is missing, altered or cannot be written (the run is rebuilt; the
    /// files already put are removed again).
    pub(crate) fn restore(
        &self,
        entry: &CacheEntry,
        run_id: &str,
        run: &Beneath,
        staging: &Staging,
        live: &Path,
    ) -> bool {
        let dir = self.entry_dir(run_id);
        let committed = read_site_stamps(&dir);
        let mut pack = Pack::new(&dir, Some(run));
        let mut live = LiveFiles::new(live);
        let restored = entry.files.iter().all(|file| {
            crate::pipeline::write::is_safe_relative(&file.rel)
                && (carry_live(file, &committed, &mut live, staging)
                    || pack
                        .bytes_of(file)
                        .is_some_and(|bytes| staging.put(&OutputFile { path: file.rel.clone(), bytes }).is_ok()))
        });
        if !restored {
            // The files put before the failure go: the run built again may not have them all
            // (charts of sections it no longer has).
            for file in entry.files.iter().filter(|f| crate::pipeline::write::is_safe_relative(&f.rel)) {
                let _ = staging.remove(&file.rel);
            }
        }
        restored
    }

    /// For a site updated in place: puts back, from the cache (an archived input: from the
    /// run's folder `run`) and after its hash is checked,
    /// every file of a cached run whose stamp in the live site `live` is not the one recorded
    /// at the last commit (a file edited by hand, or missing). Returns what it found, or
    /// `None` when a file cannot be put back (the run is then built again). `print` is the
    /// `files_print` of the entry keyed `key` at the start of the build: when the stamps
    /// recorded at the last commit are of exactly those files and all still hold, the run is
    /// `Intact` and the entry itself is not read again.
    pub(crate) fn repair_live(
        &self,
        run_id: &str,
        key: Option<&str>,
        print: u64,
        run: &Beneath,
        staging: &Staging,
        live: &Path,
    ) -> Option<LiveRun> {
        let dir = self.entry_dir(run_id);
        let committed = read_site_stamps(&dir);
        let mut files = LiveFiles::new(live);
        let mut holds = |recorded: &Stamp| {
            crate::pipeline::write::is_safe_relative(&recorded.rel)
                && files.stamp(&recorded.rel) == Some(recorded.stamp)
        };
        if files_print(committed.iter().map(|s| (s.rel.as_str(), s.hash.as_str()))) == print
            && committed.iter().all(&mut holds)
        {
            return Some(LiveRun::Intact);
        }
        let entry = self.entry_as_keyed(run_id, key, print)?;
        let mut pack = Pack::new(&dir, Some(run));
        let mut repaired = 0;
        for file in &entry.files {
            if !crate::pipeline::write::is_safe_relative(&file.rel) {
                return None;
            }
            let recorded = committed.iter().find(|s| s.rel == file.rel && s.hash == file.hash);
            if !recorded.is_some_and(&mut holds) {
                if fs::symlink_metadata(live.join(&file.rel)).is_err() {
                    staging.recount();
                }
                let bytes = pack.bytes_of(file)?;
                staging.put(&OutputFile { path: file.rel.clone(), bytes }).ok()?;
                repaired += 1;
            }
        }
        Some(LiveRun::Checked { repaired })
    }

    /// Records the stamps of a run's files (its entry's) as they lie in the just committed
    /// site `live` (a file that cannot be read is left out, so it is copied next time).
    pub(crate) fn record_site(&self, run_id: &str, live: &Path) -> io::Result<()> {
        let files = self.lookup(run_id).map(|e| e.files).unwrap_or_default();
        let stamps: Vec<Stamp> = files
            .iter()
            .filter_map(|file| {
                let stamp = FileStamp::of_plain_file(&live.join(&file.rel))?;
                Some(Stamp { rel: file.rel.clone(), stamp, hash: file.hash.clone() })
            })
            .collect();
        let bytes = rmp_serde::to_vec(&stamps).map_err(io::Error::other)?;
        fs::write(self.entry_dir(run_id).join(SITE_STAMPS), bytes)
    }

    /// Records a run's entry and its own copy of the run's rendered files (its digest is kept
    /// after, by `DigestStore::put`), and the hashes of its archived inputs published as they
    /// are stored (`archived`), whose bytes stay in the run folder. The entry is written last:
    /// a build killed before leaves no entry, so the run is built again.
    pub(crate) fn store(
        &self,
        run_id: &str,
        keyed: Keyed,
        card: RunCard,
        problem: Option<String>,
        files: &[OutputFile],
        archived: &[ArchivedFile],
    ) -> io::Result<CacheEntry> {
        let dir = self.entry_dir(run_id);
        if dir.exists() {
            fs::remove_dir_all(&dir)?;
        }
        fs::create_dir_all(&dir)?;
        let mut pack = io::BufWriter::new(fs::File::create(dir.join(PACK))?);
        let mut cached = pack_files(&mut pack, files, 0)?;
        pack.flush()?;
        for ArchivedFile { path, source, len, hash } in archived {
            let record =
                CachedFile { rel: path.clone(), hash: hash.clone(), at: 0, len: *len, source: Some(source.clone()) };
            cached.push(checked_record(record)?);
        }
        let Keyed { key, inputs, stamps } = keyed;
        let entry = CacheEntry { key, inputs, stamps, card, problem, files: cached, comparison: None };
        write_entry(&dir.join(ENTRY), &entry)?;
        Ok(entry)
    }

    /// Updates a stored run after its comparison with its baseline: `files` replace (or join)
    /// the cached files of the same path, and the card and the comparison stamp are recorded (the case verdicts go to the digest store:
    /// `DigestStore::put_verdicts`). Returns the entry as stored.
    pub(crate) fn update_compared(
        &self,
        run_id: &str,
        files: &[OutputFile],
        card: RunCard,
        comparison: String,
    ) -> io::Result<CacheEntry> {
        let dir = self.entry_dir(run_id);
        let mut entry =
            read_entry(&dir.join(ENTRY)).ok_or_else(|| io::Error::other(format!("no cache entry for {run_id}")))?;
        entry.files.retain(|f| !files.iter().any(|n| n.path == f.rel));
        let path = dir.join(PACK);
        // A missing pack counts as all waste: it is written again, which drops the entry
        // when an old file is kept (its bytes are gone).
        let end = fs::metadata(&path).map_or(u64::MAX, |meta| meta.len());
        let live: u64 = entry.files.iter().filter(|f| f.source.is_none()).map(|f| f.len).sum::<u64>()
            + files.iter().map(|f| f.bytes.len() as u64).sum::<u64>();
        if end > 2 * live {
            // Mostly bytes no file uses: the pack is written again with only the files in use,
            // one file in memory at a time. A damaged pack drops the entry (the run is built
            // again next time; the records returned name the run's files, their places are
            // moot).
            let temp = dir.join(format!("{PACK}.new"));
            let mut out = io::BufWriter::new(fs::File::create(&temp)?);
            let mut pack = Pack::new(&dir, None);
            let mut kept = Vec::with_capacity(entry.files.len() + files.len());
            let mut at = 0;
            for old in &entry.files {
                if old.source.is_some() {
                    kept.push(old.clone());
                    continue;
                }
                let Some(bytes) = pack.bytes_of(old) else {
                    drop(out);
                    let _ = fs::remove_file(&temp);
                    fs::remove_file(dir.join(ENTRY))?;
                    entry.files.extend(files.iter().map(|f| record(f, 0)).collect::<io::Result<Vec<_>>>()?);
                    return Ok(entry);
                };
                out.write_all(&bytes)?;
                kept.push(CachedFile { at, ..old.clone() });
                at += old.len;
            }
            kept.extend(pack_files(&mut out, files, at)?);
            out.flush()?;
            drop(out);
            fs::rename(&temp, &path)?;
            entry.files = kept;
        } else {
            let mut pack = io::BufWriter::new(fs::OpenOptions::new().append(true).open(&path)?);
            entry.files.extend(pack_files(&mut pack, files, end)?);
            pack.flush()?;
        }
        (entry.card, entry.comparison) = (card, Some(comparison));
        write_entry(&dir.join(ENTRY), &entry)?;
        Ok(entry)
    }

    /// Drops a run's entry and everything beside it, if there is one.
    pub(crate) fn forget(&self, run_id: &str) -> io::Result<()> {
        match fs::remove_dir_all(self.entry_dir(run_id)) {
            Err(error) if error.kind() != io::ErrorKind::NotFound => Err(error),
            _ => Ok(()),
        }
    }

    /// Updates only the stamps of an entry whose inputs were touched but not changed.
    pub(crate) fn restamp(&self, run_id: &str, entry: &CacheEntry) -> io::Result<()> {
        write_entry(&self.entry_dir(run_id).join(ENTRY), entry)
    }

    /// What the current site was built from.
    pub(crate) fn published(&self) -> Published {
        read_json(&self.dir.join("published.json")).unwrap_or_default()
    }

    /// Records what the site just committed was built from.
    pub(crate) fn set_published(&self, published: &Published) -> io::Result<()> {
        fs::create_dir_all(&self.dir)?;
        write_json(&self.dir.join("published.json"), published)
    }

    /// The units of the cross-run and history pages of the site last committed (`None`:
    /// unknown).
    pub(crate) fn units(&self) -> Option<crate::pipeline::cross_run::Units> {
        read_json(&self.dir.join(UNITS))
    }

    /// Records the units of the cross-run and history pages of the site being committed, and
    /// removes the record an earlier version kept (`units.json`: one unit for every history
    /// page; a binary of that version reading this record would take each history page's unit
    /// for a cross-run unit and remove its files, so it finds none and rebuilds the site).
    pub(crate) fn set_units(&self, units: &crate::pipeline::cross_run::Units) -> io::Result<()> {
        fs::create_dir_all(&self.dir)?;
        write_json(&self.dir.join(UNITS), units)?;
        match fs::remove_file(self.dir.join("units.json")) {
            Err(error) if error.kind() != io::ErrorKind::NotFound => Err(error),
            _ => Ok(()),
        }
    }

    /// Removes the entries of runs that are gone.
    pub(crate) fn retain(&self, run_ids: &[String]) {
        let Ok(entries) = fs::read_dir(self.dir.join("runs")) else { return };
        for entry in entries.flatten() {
            let name = entry.file_name().to_string_lossy().into_owned();
            if run_ids.binary_search(&name).is_err() {
                let _ = fs::remove_dir_all(entry.path());
            }
        }
    }
}

/// Hard-links `file` from the live site when it is a plain file whose stamp is the one
/// recorded at the last commit, with the content hash the entry expects.
fn carry_live(file: &CachedFile, committed: &[Stamp], live: &mut LiveFiles, staging: &Staging) -> bool {
    let Some(recorded) = committed.iter().find(|s| s.rel == file.rel && s.hash == file.hash) else { return false };
    live.stamp(&file.rel) == Some(recorded.stamp) && staging.link(&live.site.join(&file.rel), &file.rel).is_ok()
}

/// The stamps of a run's files in the live site, each folder opened once: a run's files lie in
/// a few folders (`runs/<id>/`, its `charts/`, its evidence's), so each costs an `fstatat` of
/// its name rather than a walk of its whole path. A folder is opened as a place to look up
/// names only (`O_PATH | O_DIRECTORY`): something else put there by hand (a FIFO, a device, a
/// file) is never opened for reading, and a folder that is not readable is still searched.
struct LiveFiles<'a> {
    site: &'a Path,
    /// Folders opened so far (site-relative, `/`-separated); `None`: it could not be opened.
    folders: Vec<(String, Option<fs::File>)>,
}

impl<'a> LiveFiles<'a> {
    fn new(site: &'a Path) -> LiveFiles<'a> {
        LiveFiles { site, folders: Vec::new() }
    }

    /// The stamp of the plain file `rel` (a safe relative path: `write::is_safe_relative`);
    /// `None` when it is missing, not a plain file or cannot be read.
    fn stamp(&mut self, rel: &str) -> Option<FileStamp> {
        let (parent, name) = rel.rsplit_once('/').unwrap_or(("", rel));
        let at = match self.folders.iter().position(|(folder, _)| folder == parent) {
            Some(at) => at,
            None => {
                self.folders.push((parent.to_string(), open_folder(&self.site.join(parent))));
                self.folders.len() - 1
            }
        };
        let folder = self.folders[at].1.as_ref()?;
        match crate::ingest::input::entry_at(folder, std::ffi::OsStr::new(name)).ok()? {
            crate::ingest::input::Entry::File(stat) => Some(FileStamp::of_stat(&stat)),
            _ => None,
        }
    }
}

/// Flags that open only a folder, as a place to look names up in.
#[cfg(target_os = "linux")]
const FOLDER_ONLY: libc::c_int = libc::O_PATH | libc::O_DIRECTORY;
#[cfg(not(target_os = "linux"))]
const FOLDER_ONLY: libc::c_int = libc::O_DIRECTORY;

/// The folder at `path` (symlinks on the way followed, as the site's own paths are), or `None`
/// when there is none: anything else there fails at once (`O_DIRECTORY`), never blocking.
fn open_folder(path: &Path) -> Option<fs::File> {
    use std::os::unix::fs::OpenOptionsExt;
    fs::OpenOptions::new().read(true).custom_flags(FOLDER_ONLY).open(path).ok()
}

/// The content hash of the running binary, recomputed only when its stamp changed.
fn tool_hash(dir: &Path) -> io::Result<String> {
    let exe = std::env::current_exe()?;
    let memo = dir.join("tool.json");
    let stamp = FileStamp::of(&fs::metadata(&exe)?);
    if let Some(old) = read_json::<Stamp>(&memo) {
        if old.stamp == stamp {
            return Ok(old.hash);
        }
    }
    let tool = Stamp { rel: "tool".into(), stamp, hash: hash_file(&exe)? };
    fs::create_dir_all(dir)?;
    write_json(&memo, &tool)?;
    Ok(tool.hash)
}

/// A file's stamp as `Cache::inputs` hashes it, after its run-relative path.
fn hash_stamp(hasher: &mut Xxh3, stamp: &FileStamp) {
    let FileStamp { len, mtime_ns, ctime_ns, inode } = *stamp;
    hasher.update(&[0]);
    for part in [len.to_le_bytes().as_slice(), &mtime_ns.to_le_bytes(), &ctime_ns.to_le_bytes(), &inode.to_le_bytes()] {
        hasher.update(part);
    }
}

/// The stamps of a cached run's files in the live site as last committed, kept beside its
/// entry in `dir` (none when missing or unreadable: every file is then checked against the
/// entry and put back where it differs).
fn read_site_stamps(dir: &Path) -> Vec<Stamp> {
    read_small(&dir.join(SITE_STAMPS)).ok().and_then(|bytes| rmp_serde::from_slice(&bytes).ok()).unwrap_or_default()
}

/// Room for a cache file read in one `read` (`read_small`): a layout, an entry, a history row
/// or a run's site stamps take 1-12 KB for a typical run.
const SMALL_FILE: usize = 16 * 1024;

/// A file of the cache, read whole. Every cached run's small files are read on every build
/// (a thousand runs, five files each, on a build that adds one run), so this spares
/// `fs::read`'s two other calls a file: no `statx` for a size hint, and no last `read` to meet
/// the end when the first one came back short (a read of a regular file returns fewer bytes
/// than asked only at its end). Were a file system ever to cut a read short elsewhere, what
/// is read is checked as every cache file is (a content hash, or decoding): a miss, not a
/// wrong hit.
fn read_small(path: &Path) -> io::Result<Vec<u8>> {
    let mut file = fs::File::open(path)?;
    let mut bytes = vec![0; SMALL_FILE];
    let mut filled = 0;
    loop {
        match file.read(&mut bytes[filled..]) {
            Ok(0) => break,
            Ok(n) => {
                filled += n;
                if filled < bytes.len() {
                    break;
                }
                bytes.resize(bytes.len() * 2, 0);
            }
            Err(error) if error.kind() == io::ErrorKind::Interrupted => {}
            Err(error) => return Err(error),
        }
    }
    bytes.truncate(filled);
    Ok(bytes)
}

/// A JSON file of the cache; `None` when it is missing or unreadable.
fn read_json<T: DeserializeOwned>(path: &Path) -> Option<T> {
    serde_json::from_slice(&read_small(path).ok()?).ok()
}

/// The bytes after the first line of a file written by `write_checked_bytes`, when they still
/// have the content hash that line holds (`None` when missing or unreadable: an edited digit
/// is not trusted).
fn checked_bytes(path: &Path) -> Option<Vec<u8>> {
    let mut bytes = read_small(path).ok()?;
    let newline = memchr::memchr(b'\n', &bytes)?;
    let payload = bytes.split_off(newline + 1);
    (bytes[..newline] == *hash_bytes(&payload).as_bytes()).then_some(payload)
}

/// Writes `payload` after a line holding its content hash (`checked_bytes` reads it back).
fn write_checked_bytes(path: &Path, payload: &[u8]) -> io::Result<()> {
    let mut bytes = hash_bytes(payload).into_bytes();
    bytes.push(b'\n');
    bytes.extend_from_slice(payload);
    fs::write(path, bytes)
}

fn write_json(path: &Path, value: &impl Serialize) -> io::Result<()> {
    fs::write(path, serde_json::to_vec(value).map_err(io::Error::other)?)
}

/// Writes `files` one after another to `pack` (its end at byte `from`) and returns their
/// records.
fn pack_files(pack: &mut impl Write, files: &[OutputFile], from: u64) -> io::Result<Vec<CachedFile>> {
    let mut at = from;
    let mut cached = Vec::with_capacity(files.len());
    for file in files {
        let kept = record(file, at)?;
        pack.write_all(&file.bytes)?;
        at += kept.len;
        cached.push(kept);
    }
    Ok(cached)
}

/// The record of `file` with its bytes at `at` in a pack. A site path that could leave its
/// folder is refused.
fn record(file: &OutputFile, at: u64) -> io::Result<CachedFile> {
    let len = file.bytes.len() as u64;
    checked_record(CachedFile { rel: file.path.clone(), hash: hash_bytes(&file.bytes), at, len, source: None })
}

/// `record`, refused when its site path could leave its folder.
fn checked_record(record: CachedFile) -> io::Result<CachedFile> {
    if !crate::pipeline::write::is_safe_relative(&record.rel) {
        return Err(io::Error::other(format!("refusing to cache {:?}", record.rel)));
    }
    Ok(record)
}

/// The pack of an entry, opened when a file is first asked of it; each file is read from its
/// own range (it is never read whole). An archived input is read instead by its recorded path
/// in the run's folder `run` (a plain relative path), through the safe opener, as stored: a
/// symlink swapped in there since is followed only within the runs folder, and what is read
/// is used only with the recorded length and xxh3-128 hash.
struct Pack<'a> {
    dir: &'a Path,
    file: Option<Option<fs::File>>,
    run: Option<&'a Beneath>,
}

impl<'a> Pack<'a> {
    fn new(dir: &'a Path, run: Option<&'a Beneath>) -> Pack<'a> {
        Pack { dir, file: None, run }
    }

    /// A cached file's bytes, when they can be read with the length and hash recorded for them.
    fn bytes_of(&mut self, file: &CachedFile) -> Option<Vec<u8>> {
        use std::os::unix::fs::FileExt as _;
        let bytes = match &file.source {
            Some(source) if crate::pipeline::write::is_safe_relative(source) => {
                crate::ingest::input::read_stored(&self.run?.join(source), file.len).ok()?
            }
            Some(_) => return None,
            None => {
                let pack = self.file.get_or_insert_with(|| fs::File::open(self.dir.join(PACK)).ok()).as_ref()?;
                let mut bytes = vec![0; usize::try_from(file.len).ok()?];
                pack.read_exact_at(&mut bytes, file.at).ok()?;
                bytes
            }
        };
        (bytes.len() as u64 == file.len && hash_bytes(&bytes) == file.hash).then_some(bytes)
    }
}

/// xxh3-128 of some bytes, as the cache writes it.
pub(crate) fn hash_bytes(bytes: &[u8]) -> String {
    format!("{:032x}", xxhash_rust::xxh3::xxh3_128(bytes))
}

/// Whether a stored file of `len` bytes is too large to be read whole under `limit`: a plain
/// file over the limit is refused from its size, and deflate never grows data by a 16th, so a
/// `.gz` that large holds more than the limit. Such a file's content cannot reach the site.
fn beyond_reading(len: u64, limit: u64) -> bool {
    len > limit.saturating_add(limit / 16).saturating_add(4096)
}

/// The key part of a file too large to be read (`beyond_reading`): its stamp (size,
/// modification and change times, inode), not its content, so a 20 GB artifact costs no read.
fn stamp_hash(stamp: &FileStamp) -> String {
    let text = format!("stamp {} {} {} {}", stamp.len, stamp.mtime_ns, stamp.ctime_ns, stamp.inode);
    format!("stamp-{}", hash_bytes(text.as_bytes()))
}

/// The content hash of a run's input file, opened like every other input read
/// (`input::open_regular`: a regular file only, never a FIFO or device). For tests of a build meeting an unreadable file
/// when run as root (who can read a `chmod 000` file), `NCCL_REPORT_TEST_UNREADABLE` names a
/// file name that this step then fails to read, as `chmod 000` would make it fail.
fn hash_input(at: &Beneath) -> io::Result<String> {
    hash_reader(open_input(at)?)
}

/// A run's files in path order (the order of its stamps).
fn files_in_order(run: &RunDir) -> Vec<&FileRef> {
    let mut files: Vec<&FileRef> = run.files.all().collect();
    files.sort_by(|a, b| a.rel.cmp(&b.rel));
    files
}

/// An input opened to be read (`NCCL_REPORT_TEST_UNREADABLE` names a file the tests make
/// unreadable).
fn open_input(at: &Beneath) -> io::Result<fs::File> {
    let refused = std::env::var_os("NCCL_REPORT_TEST_UNREADABLE");
    if refused.is_some_and(|name| at.rel.file_name() == Some(name.as_os_str())) {
        return Err(io::Error::from(io::ErrorKind::PermissionDenied));
    }
    crate::ingest::input::open_regular(at)
}

/// xxh3-128 of a file's stored bytes (the tool binary, the cache's own files).
pub(crate) fn hash_file(path: &Path) -> io::Result<String> {
    hash_reader(fs::File::open(path)?)
}

/// xxh3-128 of everything `file` yields.
fn hash_reader(mut file: impl Read) -> io::Result<String> {
    let mut hasher = Xxh3::new();
    let mut buffer = vec![0u8; 1 << 17];
    loop {
        let n = file.read(&mut buffer)?;
        if n == 0 {
            break;
        }
        hasher.update(&buffer[..n]);
    }
    Ok(format!("{:032x}", hasher.digest128()))
}

/// Where a build keeps every run's digest until the cross-run pages are rendered from them, a
/// page of runs at a time: the build cache (which stores them anyway, a folder a run), or, for
/// a build without a cache, one unnamed temporary file (`digest_pack`). Beside each digest:
/// its history row (a few KB, all the history stage reads of a run) and the case verdicts of
/// the run's last comparison (written after the digest, by the comparison stage). Run ids are
/// the checked names of run folders, so they are safe file names.
pub(crate) enum DigestStore<'a> {
    Cache(&'a Cache),
    Temporary(DigestPack),
}

impl DigestStore<'_> {
    pub(crate) fn temporary() -> io::Result<DigestStore<'static>> {
        Ok(DigestStore::Temporary(DigestPack::new()?))
    }

    /// Keeps a run's digest and its history row (in the cache: beside its entry, written
    /// first).
    pub(crate) fn put(&self, digest: &RunOverview) -> io::Result<()> {
        if let DigestStore::Cache(cache) = self {
            fs::create_dir_all(cache.entry_dir(&digest.id))?;
        }
        self.put_part(&digest.id, Part::Digest, digest)?;
        self.put_row(&digest.id, &HistoryRow::of(digest))
    }

    /// A run's digest, without its case verdicts (`verdicts`); `None` when it is missing or
    /// unreadable (the caller recomputes it).
    pub(crate) fn get(&self, run_id: &str) -> Option<RunOverview> {
        self.part(run_id, Part::Digest)
    }

    /// Keeps a run's history row (`put` does, with the digest).
    pub(crate) fn put_row(&self, run_id: &str, row: &HistoryRow) -> io::Result<()> {
        let bytes = row.to_bytes().map_err(io::Error::other)?;
        match self {
            DigestStore::Cache(cache) => write_checked_bytes(&part_path(cache, run_id, Part::Row), &bytes),
            DigestStore::Temporary(pack) => pack.put_bytes(run_id, Part::Row, &bytes),
        }
    }

    /// A run's history row, its case list parsed once a build (`lists`); `None` when it is
    /// missing or unreadable.
    pub(crate) fn row(&self, run_id: &str, lists: &CaseLists) -> Option<HistoryRow> {
        let bytes = match self {
            DigestStore::Cache(cache) => checked_bytes(&part_path(cache, run_id, Part::Row))?,
            DigestStore::Temporary(pack) => pack.get_bytes(run_id, Part::Row)?,
        };
        HistoryRow::from_bytes(&bytes, lists)
    }

    /// Keeps the case verdicts of a run's comparison (empty: not compared).
    pub(crate) fn put_verdicts(&self, run_id: &str, verdicts: &BTreeMap<String, String>) -> io::Result<()> {
        if let DigestStore::Cache(cache) = self {
            fs::create_dir_all(cache.entry_dir(run_id))?;
        }
        self.put_part(run_id, Part::Verdicts, verdicts)
    }

    /// The case verdicts of a run's last comparison; `None` when none is kept or the file is
    /// damaged (the comparison stage then compares the run again: `has_verdicts`).
    pub(crate) fn verdicts(&self, run_id: &str) -> Option<BTreeMap<String, String>> {
        self.part(run_id, Part::Verdicts)
    }

    /// Whether a run's case verdicts are kept and intact: in the cache their content hash is
    /// checked, the JSON not parsed (every cached run is asked on every build that compares).
    pub(crate) fn has_verdicts(&self, run_id: &str) -> bool {
        match self {
            DigestStore::Cache(cache) => checked_bytes(&part_path(cache, run_id, Part::Verdicts)).is_some(),
            DigestStore::Temporary(pack) => pack.has(run_id, Part::Verdicts),
        }
    }

    fn put_part(&self, run_id: &str, part: Part, value: &impl Serialize) -> io::Result<()> {
        match self {
            DigestStore::Cache(cache) => write_checked_bytes(&part_path(cache, run_id, part), &encode(part, value)?),
            DigestStore::Temporary(pack) => pack.put(run_id, part, value),
        }
    }

    fn part<T: DeserializeOwned>(&self, run_id: &str, part: Part) -> Option<T> {
        match self {
            DigestStore::Cache(cache) => decode(part, &checked_bytes(&part_path(cache, run_id, part))?),
            DigestStore::Temporary(pack) => pack.get(run_id, part),
        }
    }
}

/// The file of a run's `part` beside its cache entry.
fn part_path(cache: &Cache, run_id: &str, part: Part) -> PathBuf {
    let name = match part {
        Part::Digest => DIGEST,
        Part::Row => HISTORY_ROW,
        Part::Verdicts => VERDICTS,
    };
    cache.entry_dir(run_id).join(name)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::ingest::find::list_run_settled;
    use crate::ingest::input::Root;

    #[test]
    fn small_reads_give_every_byte_of_files_of_any_size() {
        let dir = tempfile::tempdir().unwrap();
        for len in [0, 1, SMALL_FILE - 1, SMALL_FILE, SMALL_FILE + 1, 3 * SMALL_FILE + 7] {
            let bytes: Vec<u8> = (0..len).map(|i| (i * 31 % 251) as u8).collect();
            let path = dir.path().join(format!("f{len}"));
            fs::write(&path, &bytes).unwrap();
            assert_eq!(read_small(&path).unwrap(), bytes, "{len} bytes");
        }
        assert!(read_small(&dir.path().join("missing")).is_err());
    }

    #[test]
    fn the_inputs_of_a_rechecked_layout_are_those_of_the_listing_it_stands_for() {
        let dir = tempfile::tempdir().unwrap();
        let runs = dir.path().join("runs");
        for rel in ["manifest.txt", "raw/nccl_tests_g2.stdout", "raw/results/world2_full/rank0_async.csv"] {
            let path = runs.join("r1").join(rel);
            fs::create_dir_all(path.parent().unwrap()).unwrap();
            fs::write(&path, rel).unwrap();
        }
        let cache = Cache::open(&dir.path().join("site"), b"notes").unwrap();
        let canonical = runs.canonicalize().unwrap();
        let inputs = |edit: Option<&str>| {
            if let Some(text) = edit {
                fs::write(runs.join("r1/raw/results/world2_full/rank0_async.csv"), text).unwrap();
            }
            let run = list_run_settled("r1", runs.join("r1"), &canonical, i128::MAX);
            let layout = run.layout.clone().unwrap();
            let stamps = layout.recheck(&Beneath::new(Root::new(&canonical), "r1")).unwrap();
            (cache.inputs(&run), cache.inputs_of_layout("r1", &layout, &stamps))
        };
        let (listed, rechecked) = inputs(None);
        assert_eq!(rechecked, listed);
        let (edited, rechecked) = inputs(Some("an edit of another length"));
        assert_eq!(rechecked, edited);
        assert_ne!(edited, listed);
    }

    /// A file's hash read in blocks (`hash_input`, for a key) is the hash of its bytes read
    /// whole (`hash_bytes`, for a key completed from the bytes a build read).
    #[test]
    fn a_file_hashed_in_blocks_or_whole_has_one_hash() {
        let dir = tempfile::tempdir().unwrap();
        for len in [0, 1, 1 << 17, (1 << 17) + 1, 300_007] {
            let bytes: Vec<u8> = (0..len).map(|i| (i * 7 % 251) as u8).collect();
            let path = dir.path().join(format!("f{len}.log"));
            fs::write(&path, &bytes).unwrap();
            let at = Beneath::file(&path).unwrap();
            assert_eq!(hash_input(&at).unwrap(), hash_bytes(&bytes), "{len} bytes");
            let stored = crate::ingest::input::read_stored(&at, u64::MAX).unwrap();
            assert_eq!(hash_bytes(&stored), hash_bytes(&bytes));
        }
    }

    /// The key made with some hashes left for later is `key`'s once they are given, or read
    /// then (a file the build did not read whole); `None` when such a file is gone by then.
    #[test]
    fn a_key_completed_later_is_the_key() {
        let dir = tempfile::tempdir().unwrap();
        let runs = dir.path().join("runs");
        for rel in ["manifest.txt", "raw/nccl/a.log", "raw/nccl/b.log", "raw/results/world2_full/rank0_async.csv"] {
            let path = runs.join("r1").join(rel);
            fs::create_dir_all(path.parent().unwrap()).unwrap();
            fs::write(&path, format!("{rel}\n")).unwrap();
        }
        let cache = Cache::open(&dir.path().join("site"), b"notes").unwrap();
        let run = list_run_settled("r1", runs.join("r1"), &runs.canonicalize().unwrap(), i128::MAX);
        let whole = cache.key(&run, None).unwrap();
        let (stamps, pending) = cache.stamps(&run, None, |_, is_log| is_log).unwrap();
        assert_eq!(pending.len(), 2);
        assert!(pending.iter().all(|&at| stamps[at].hash.is_empty()));
        let read: std::collections::HashMap<String, String> =
            [("raw/nccl/a.log".to_string(), hash_bytes(b"raw/nccl/a.log\n"))].into_iter().collect();
        assert_eq!(cache.complete_key(&run, stamps.clone(), &pending, &read), Some(whole.clone()), "b.log read now");
        fs::remove_file(runs.join("r1/raw/nccl/b.log")).unwrap();
        assert_eq!(cache.complete_key(&run, stamps, &pending, &read), None);
    }

    /// A cached run of a live site updated in place: a file whose entry moved on since the
    /// last commit (a comparison re-rendered it in a build that never committed) is put back
    /// although its recorded stamp still holds, and a file edited by hand is put back although
    /// another file of the run has its bytes; the files left as committed (in two folders) are
    /// not written.
    #[test]
    fn the_live_files_put_back_are_those_whose_own_record_does_not_hold() {
        use std::os::unix::fs::MetadataExt as _;
        let dir = tempfile::tempdir().unwrap();
        let runs = dir.path().join("runs");
        fs::create_dir_all(runs.join("r1")).unwrap();
        let lock = crate::pipeline::out_dir::OutputLock::acquire(&dir.path().join("site")).unwrap();
        let live = lock.out().to_path_buf();
        let cache = Cache::open(&live, b"notes").unwrap();
        let card = RunCard {
            id: "r1".into(),
            timestamp_utc: None,
            status: crate::analysis::summarize::RunStatus::Ok,
            sections: 0,
            configuration_key: "key".into(),
            configuration: "configuration".into(),
            baseline: crate::site::card::BaselineVerdict::Pending,
            warnings: 0,
            reason: None,
        };
        let files = [
            OutputFile::new("runs/r1/index.html", "page"),
            OutputFile::new("runs/r1/a.csv", "same"),
            OutputFile::new("runs/r1/b.csv", "same"),
            OutputFile::new("runs/r1/charts/c.svg", "<svg/>"),
        ];
        let keyed = Keyed { key: "k1".into(), inputs: "inputs".into(), stamps: Vec::new() };
        cache.store("r1", keyed, card.clone(), None, &files, &[]).unwrap();
        fs::create_dir_all(live.join("runs/r1/charts")).unwrap();
        fs::write(live.join(crate::pipeline::out_dir::MARKER), "").unwrap();
        for file in &files {
            fs::write(live.join(&file.path), &file.bytes).unwrap();
        }
        cache.record_site("r1", &live).unwrap();
        let compared = [OutputFile::new("runs/r1/index.html", "page, compared")];
        let entry = cache.update_compared("r1", &compared, card, "stamp".into()).unwrap();
        fs::write(live.join("runs/r1/b.csv"), "edit").unwrap();
        let inode = |rel: &str| fs::metadata(live.join(rel)).unwrap().ino();
        let kept = [inode("runs/r1/a.csv"), inode("runs/r1/charts/c.svg")];
        let run = Beneath::new(Root::new(runs.canonicalize().unwrap()), "r1");
        let staging = Staging::in_place(&lock, None);
        let found = cache.repair_live("r1", Some("k1"), entry.files_print(), &run, &staging, &live);
        assert_eq!(found, Some(LiveRun::Checked { repaired: 2 }));
        assert_eq!(fs::read(live.join("runs/r1/index.html")).unwrap(), b"page, compared");
        assert_eq!(fs::read(live.join("runs/r1/b.csv")).unwrap(), b"same");
        assert_eq!([inode("runs/r1/a.csv"), inode("runs/r1/charts/c.svg")], kept, "the files as committed");
    }

    /// An archived input is put back from its run folder only as it was published: the same
    /// length and hash, by a plain relative path in the run folder (not another run's file,
    /// not an absolute path, even with the same bytes), and only where that folder is given.
    #[test]
    fn an_archived_input_is_read_back_only_as_it_was_published() {
        let dir = tempfile::tempdir().unwrap();
        let runs = dir.path().join("runs");
        fs::create_dir_all(runs.join("r1/raw")).unwrap();
        fs::create_dir_all(runs.join("r2")).unwrap();
        let published = b"NCCL INFO one\nNCCL INFO two\n".to_vec();
        fs::write(runs.join("r1/raw/a.log"), &published).unwrap();
        fs::write(runs.join("r2/b.log"), &published).unwrap();
        let file = OutputFile { path: "runs/r1/evidence/raw/a.log".into(), bytes: published.clone() };
        let record = |source: &str| CachedFile { source: Some(source.into()), ..record(&file, 0).unwrap() };
        let run = Beneath::new(Root::new(runs.canonicalize().unwrap()), "r1");
        let mut pack = Pack::new(dir.path(), Some(&run));
        assert_eq!(pack.bytes_of(&record("raw/a.log")), Some(published.clone()));
        assert_eq!(Pack::new(dir.path(), None).bytes_of(&record("raw/a.log")), None, "no run folder");
        assert_eq!(pack.bytes_of(&record("../r2/b.log")), None, "out of the run folder");
        let absolute = runs.join("r2/b.log").canonicalize().unwrap();
        assert_eq!(pack.bytes_of(&record(absolute.to_str().unwrap())), None, "an absolute path");
        assert_eq!(pack.bytes_of(&record("raw/missing.log")), None);
        for edit in [&b"NCCL INFO one\nNCCL INFO tw0\n"[..], b"NCCL INFO one\n", b"NCCL INFO one\nNCCL INFO two\n\n"] {
            fs::write(runs.join("r1/raw/a.log"), edit).unwrap();
            assert_eq!(pack.bytes_of(&record("raw/a.log")), None, "{}", String::from_utf8_lossy(edit));
        }
    }
}
