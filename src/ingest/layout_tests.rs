//! `layout`'s tests: walks of real folders, changed in every way a layout must notice.
use crate::ingest::find::{list_run_settled, RunDir};
use crate::ingest::input::{Beneath, Root};
use crate::ingest::layout::{moves_folder_times, settled_before_now, Layout, Recorder};
use crate::ingest::stamp::FileStamp;
use std::fs;
use std::path::{Path, PathBuf};

/// A change made to a run folder (or, for two tests, to one file's path), and what it is.
type Change = (&'static str, fn(&Path));

/// `artifacts-old.txt` sorts before `artifacts/…` by path (`-` before `/`) but after it in a
/// walk, which reads the folder `artifacts` first: a layout's order is its paths'.
const FILES: [&str; 7] = [
    "manifest.txt",
    "artifacts-old.txt",
    "artifacts/nvidia_smi_query.txt",
    "raw/nccl_tests_g2.stdout",
    "raw/nccl/world2_full_1.log",
    "raw/results/world2_full/rank0_async.csv",
    "raw/results/world2_full/rank1_async.csv",
];

/// A runs folder holding run `r1`: files in the run folder and three levels below it.
fn runs() -> (tempfile::TempDir, PathBuf) {
    let dir = tempfile::tempdir().unwrap();
    let run = dir.path().join("r1");
    for rel in FILES {
        let path = run.join(rel);
        fs::create_dir_all(path.parent().unwrap()).unwrap();
        fs::write(&path, rel).unwrap();
    }
    (dir, run)
}

/// Run `r1` walked, its folders taken as settled before `settled_before`.
fn walk(runs: &Path, settled_before: i128) -> RunDir {
    list_run_settled("r1", runs.join("r1"), &runs.canonicalize().unwrap(), settled_before)
}

/// A layout of run `r1` as it is now.
fn layout(runs: &Path) -> Layout {
    walk(runs, i128::MAX).layout.expect("a layout of plain folders and files")
}

fn recheck(runs: &Path, layout: &Layout) -> Option<Vec<FileStamp>> {
    layout.recheck(&Beneath::new(Root::new(runs.canonicalize().unwrap()), "r1"))
}

/// Every file's run-relative path, in the layout's order.
fn paths(layout: &Layout) -> Vec<String> {
    let mut paths = Vec::new();
    layout.visit_files(|folder, name| {
        paths.push(if folder.is_empty() { name.to_string() } else { format!("{folder}/{name}") })
    });
    paths
}

#[test]
fn a_layout_rechecks_to_the_paths_and_stamps_of_a_listing_in_path_order() {
    let (dir, _) = runs();
    let walked = walk(dir.path(), i128::MAX);
    let layout = walked.layout.clone().unwrap();
    let mut listed: Vec<(String, FileStamp)> = walked.files.all().map(|f| (f.rel.clone(), f.stamp)).collect();
    listed.sort_by(|a, b| a.0.cmp(&b.0));
    let rechecked: Vec<(String, FileStamp)> =
        paths(&layout).into_iter().zip(recheck(dir.path(), &layout).unwrap()).collect();
    assert_eq!(rechecked, listed);
    assert_eq!(listed.len(), FILES.len());
}

#[test]
fn no_layout_of_folders_changed_after_the_settle_time() {
    let (dir, _) = runs();
    assert_eq!(walk(dir.path(), 0).layout, None);
    assert_eq!(walk(dir.path(), settled_before_now()).layout, None, "folders made just now");
}

/// A copy that keeps times (`cp -a`, `rsync -t`, an import) sets every folder's modification
/// time back, and so moves its change time to now: the change time alone keeps it unsettled.
#[test]
fn folders_whose_modification_times_were_set_back_are_not_settled() {
    let (dir, run) = runs();
    let hour_ago = std::time::SystemTime::now() - std::time::Duration::from_secs(3600);
    for folder in walkdir::WalkDir::new(&run).into_iter().map(Result::unwrap).filter(|e| e.file_type().is_dir()) {
        fs::File::open(folder.path()).unwrap().set_modified(hour_ago).unwrap();
    }
    assert_eq!(walk(dir.path(), settled_before_now()).layout, None);
    assert!(walk(dir.path(), i128::MAX).layout.is_some());
}

/// A local file system is trusted to move a folder's times when a name in it changes; others
/// (here procfs) are not, and their runs are listed on every build.
#[test]
#[cfg(target_os = "linux")]
fn only_local_file_systems_are_trusted_to_move_folder_times() {
    assert!(!moves_folder_times(&fs::File::open("/proc").unwrap()));
}

#[test]
fn any_name_added_removed_or_renamed_fails_the_recheck() {
    let changes: [Change; 7] = [
        ("a file added three levels down", |run| {
            fs::write(run.join("raw/results/world2_full/rank2_async.csv"), "x").unwrap()
        }),
        ("a file added to the run folder itself", |run| fs::write(run.join("NOTES.md"), "x").unwrap()),
        ("a file removed", |run| fs::remove_file(run.join("raw/nccl/world2_full_1.log")).unwrap()),
        ("a file renamed", |run| {
            fs::rename(run.join("manifest.txt"), run.join("manifest.old")).unwrap();
        }),
        ("a file moved between folders", |run| {
            fs::rename(run.join("raw/nccl_tests_g2.stdout"), run.join("raw/nccl/nccl_tests_g2.stdout")).unwrap()
        }),
        ("a folder added", |run| fs::create_dir(run.join("raw/results/world4_full")).unwrap()),
        ("a folder swapped for a symlink to its copy", |run| {
            let folder = run.join("raw/results");
            fs::create_dir_all(run.join("copy/world2_full")).unwrap();
            for name in ["rank0_async.csv", "rank1_async.csv"] {
                fs::copy(folder.join("world2_full").join(name), run.join("copy/world2_full").join(name)).unwrap();
            }
            fs::remove_dir_all(&folder).unwrap();
            std::os::unix::fs::symlink(run.join("copy"), &folder).unwrap();
        }),
    ];
    for (what, change) in changes {
        let (dir, run) = runs();
        let before = layout(dir.path());
        assert!(recheck(dir.path(), &before).is_some(), "{what}: unchanged first");
        change(&run);
        assert_eq!(recheck(dir.path(), &before), None, "{what}");
    }
}

#[test]
fn an_edited_file_rechecks_to_its_new_stamp() {
    let (dir, run) = runs();
    let before = layout(dir.path());
    let old = recheck(dir.path(), &before).unwrap();
    fs::write(run.join("raw/results/world2_full/rank0_async.csv"), "an edit of another length").unwrap();
    let new = recheck(dir.path(), &before).unwrap();
    let changed: Vec<usize> = (0..old.len()).filter(|&i| old[i] != new[i]).collect();
    let edited = paths(&before).iter().position(|rel| rel == "raw/results/world2_full/rank0_async.csv").unwrap();
    assert_eq!(changed, [edited]);
}

/// A layout recorded by hand of run `r1`'s folders as they are now and of `files` (each its
/// folder's path and its name).
fn recorded(run: &Path, files: &[(&str, &str)]) -> Layout {
    let stamp = |rel: &str| FileStamp::of(&fs::symlink_metadata(run.join(rel)).unwrap());
    let mut recorder = Recorder::start(stamp(""), i128::MAX);
    let mut folders = vec![""];
    for rel in ["artifacts", "raw", "raw/nccl", "raw/results", "raw/results/world2_full"] {
        let (parent, name) = rel.rsplit_once('/').unwrap_or(("", rel));
        let parent = folders.iter().position(|f| *f == parent).unwrap() as u32;
        recorder.folder(parent, std::ffi::OsStr::new(name), stamp(rel));
        folders.push(rel);
    }
    for (folder, name) in files {
        recorder.file(folders.iter().position(|f| f == folder).unwrap() as u32, std::ffi::OsStr::new(name));
    }
    recorder.finish(false).unwrap()
}

#[test]
fn a_file_now_a_folder_a_symlink_or_a_fifo_fails_the_recheck_whatever_the_folder_stamps() {
    let changes: [Change; 3] = [
        ("a folder", |file| fs::create_dir(file).unwrap()),
        ("a symlink", |file| std::os::unix::fs::symlink(file.with_file_name("rank0_async.csv"), file).unwrap()),
        ("a FIFO", |file| assert!(std::process::Command::new("mkfifo").arg(file).status().unwrap().success())),
    ];
    let all: Vec<(&str, &str)> = FILES.iter().map(|rel| rel.rsplit_once('/').unwrap_or(("", rel))).collect();
    for (what, swap) in changes {
        let (dir, run) = runs();
        let before = layout(dir.path());
        assert_eq!(recorded(&run, &all), before, "{what}: recorded by hand as a walk records it");
        let file = run.join("raw/results/world2_full/rank1_async.csv");
        fs::remove_file(&file).unwrap();
        swap(&file);
        assert_eq!(recheck(dir.path(), &before), None, "{what}");
        // The folders' stamps now, the files as before: only the entry's kind tells.
        let others: Vec<(&str, &str)> = all.iter().copied().filter(|(_, name)| *name != "rank1_async.csv").collect();
        assert!(recheck(dir.path(), &recorded(&run, &others)).is_some(), "{what}: the folders hold");
        assert_eq!(recheck(dir.path(), &recorded(&run, &all)), None, "{what}");
    }
}

#[test]
fn walks_that_meet_a_symlink_a_fifo_a_compressed_twin_or_a_non_utf8_name_keep_no_layout() {
    let changes: [Change; 4] = [
        ("a symlink to a file of the run", |run| {
            std::os::unix::fs::symlink(run.join("manifest.txt"), run.join("raw/link.txt")).unwrap()
        }),
        ("a FIFO", |run| {
            let fifo = run.join("raw/results/world2_full/rank2_async.csv");
            assert!(std::process::Command::new("mkfifo").arg(&fifo).status().unwrap().success());
        }),
        ("a compressed twin", |run| fs::write(run.join("manifest.txt.gz"), "twin").unwrap()),
        ("a name that is not UTF-8", |run| {
            use std::os::unix::ffi::OsStrExt;
            let name = std::ffi::OsStr::from_bytes(b"notes-\xff.txt");
            fs::write(run.join("artifacts").join(name), "x").unwrap();
        }),
    ];
    for (what, change) in changes {
        let (dir, run) = runs();
        change(&run);
        assert_eq!(walk(dir.path(), i128::MAX).layout, None, "{what}");
    }
}

/// A layout's shape as MessagePack holds it (`rmp_serde::to_vec`: a struct as an array).
#[derive(serde::Serialize, serde::Deserialize)]
struct Raw {
    folders: Vec<(u32, String, FileStamp)>,
    files: Vec<(u32, String)>,
}

#[test]
fn a_layout_with_an_index_out_of_place_does_not_hold_together() {
    let (dir, _) = runs();
    let good = layout(dir.path());
    assert!(good.holds_together());
    let bytes = rmp_serde::to_vec(&good).unwrap();
    let edited = |edit: fn(&mut Raw)| -> Layout {
        let mut raw: Raw = rmp_serde::from_slice(&bytes).unwrap();
        edit(&mut raw);
        rmp_serde::from_slice(&rmp_serde::to_vec(&raw).unwrap()).unwrap()
    };
    assert_eq!(edited(|_| {}), good, "the shape read back is the layout's");
    assert!(!edited(|raw| raw.files[0].0 = 99).holds_together(), "a file of a folder not recorded");
    let past_the_last = |raw: &mut Raw| raw.files[0].0 = raw.folders.len() as u32;
    assert!(!edited(past_the_last).holds_together(), "a file of the folder one past the last");
    assert!(!edited(|raw| raw.folders[1].0 = 1).holds_together(), "a folder its own parent");
    assert!(!edited(|raw| raw.folders[1].0 = 5).holds_together(), "a parent recorded after its folder");
    assert!(!edited(|raw| raw.folders.clear()).holds_together(), "no run folder");
    assert!(!edited(|raw| raw.folders[1].1 = "..".into()).holds_together(), "a folder named ..");
    assert!(!edited(|raw| raw.files[0].1 = "../../x".into()).holds_together(), "a file name with a /");
    assert!(!edited(|raw| raw.files[0].1 = String::new()).holds_together(), "an empty file name");
}
