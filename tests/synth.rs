//! The synthetic run generator: committed fixtures regenerate byte for byte, their oracle
//! goldens agree with what each fixture expects, corpora are deterministic, run folders are
//! never overwritten, and gzip logs decompress to about the requested size.

use flate2::read::GzDecoder;
use nccl_report::synth::{fixtures, generate, generate_with, write_fixture, RunShape, SynthOptions};
use std::collections::BTreeMap;
use std::fs;
use std::io::Read;
use std::path::{Path, PathBuf};

fn fixtures_dir() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures")
}

/// Every file under `root` by relative path; `.gz` files decompressed, so the comparison
/// does not depend on the compressor's version.
fn tree(root: &Path) -> BTreeMap<String, Vec<u8>> {
    let mut files = BTreeMap::new();
    for entry in walkdir::WalkDir::new(root).sort_by_file_name() {
        let entry = entry.unwrap();
        if entry.file_type().is_file() {
            let relative = entry.path().strip_prefix(root).unwrap().to_string_lossy().replace('\\', "/");
            files.insert(relative, read_maybe_gz(entry.path()));
        }
    }
    files
}

fn read_maybe_gz(path: &Path) -> Vec<u8> {
    let bytes = fs::read(path).unwrap();
    if path.extension().is_some_and(|e| e == "gz") {
        let mut text = Vec::new();
        GzDecoder::new(bytes.as_slice()).read_to_end(&mut text).unwrap();
        text
    } else {
        bytes
    }
}

fn assert_same_tree(expected: &Path, actual: &Path) {
    let (want, got) = (tree(expected), tree(actual));
    assert_eq!(want.keys().collect::<Vec<_>>(), got.keys().collect::<Vec<_>>(), "{}", expected.display());
    for (path, bytes) in &want {
        assert!(bytes == &got[path], "{} differs from a fresh generation", expected.join(path).display());
    }
}

fn options(count: usize, seed: u64, log_bytes: u64, gzip_every: usize) -> SynthOptions {
    SynthOptions { count, seed, log_bytes, gzip_every, tuning: false }
}

#[test]
fn fixtures_regenerate_byte_for_byte() {
    let temp = tempfile::tempdir().unwrap();
    let committed = fixtures_dir().join("runs");
    for fixture in fixtures() {
        let fresh = write_fixture(temp.path(), &fixture).unwrap();
        assert_same_tree(&committed.join(fixture.id), &fresh);
    }
    let listed: Vec<String> = fixtures().iter().map(|f| f.id.to_string()).collect();
    let mut on_disk: Vec<String> =
        fs::read_dir(&committed).unwrap().map(|e| e.unwrap().file_name().to_string_lossy().into_owned()).collect();
    on_disk.sort();
    let mut listed_sorted = listed.clone();
    listed_sorted.sort();
    assert_eq!(on_disk, listed_sorted, "tests/fixtures/runs holds exactly the listed fixtures");
}

#[test]
fn goldens_agree_with_each_fixture() {
    let readme = fs::read_to_string(fixtures_dir().join("README.md")).unwrap();
    for fixture in fixtures() {
        let golden = fixtures_dir().join("golden").join(fixture.id);
        let status: serde_json::Value =
            serde_json::from_slice(&fs::read(golden.join("oracle_status.json")).unwrap()).unwrap();
        assert_eq!(status["input_unmodified"], true, "{}", fixture.id);
        match fixture.expect_error {
            None => {
                assert_eq!(status["status"], "ok", "{}", fixture.id);
                assert!(golden.join("summary.md").is_file() && golden.join("summary.csv").is_file());
            }
            Some(text) => {
                assert_eq!(status["status"], "error", "{}", fixture.id);
                assert!(status["error"].as_str().unwrap().contains(text), "{}: {}", fixture.id, status["error"]);
            }
        }
        assert!(!golden.join("manifest.txt").exists(), "the oracle's manifest holds its clock and host");
        for (name, bytes) in tree(&golden) {
            let text = String::from_utf8(bytes).unwrap();
            assert!(!text.contains("File \"/") && !text.contains("seed_oracle_"), "{name} holds a local path");
        }
        assert!(readme.contains(fixture.id), "tests/fixtures/README.md describes {}", fixture.id);
    }
}

#[test]
fn write_fixture_refuses_a_non_empty_folder() {
    let temp = tempfile::tempdir().unwrap();
    let fixture = &fixtures()[0];
    let dir = temp.path().join(fixture.id);
    fs::create_dir_all(&dir).unwrap();
    fs::write(dir.join("keep.txt"), "mine").unwrap();
    let error = write_fixture(temp.path(), fixture).unwrap_err();
    assert!(error.to_string().contains("non-empty"), "{error}");
    assert_eq!(fs::read_dir(&dir).unwrap().count(), 1);
}

#[test]
fn generate_is_deterministic_and_refuses_non_empty_run_folders() {
    let temp = tempfile::tempdir().unwrap();
    let (first, second) = (temp.path().join("a"), temp.path().join("b"));
    let ids = generate(&first, &options(2, 42, 20_000, 2)).unwrap();
    assert_eq!(ids.len(), 2);
    assert_ne!(ids[0], ids[1]);

    fs::create_dir_all(second.join(&ids[0])).unwrap();
    assert_eq!(generate(&second, &options(2, 42, 20_000, 2)).unwrap(), ids, "an empty run folder is fine");
    assert_same_tree(&first, &second);

    let prefix = temp.path().join("c");
    assert_eq!(generate(&prefix, &options(1, 42, 20_000, 2)).unwrap(), ids[..1]);
    assert_same_tree(&first.join(&ids[0]), &prefix.join(&ids[0]));
    let other = generate(&temp.path().join("d"), &options(1, 43, 0, 0)).unwrap();
    assert_ne!(other[0], ids[0]);

    let untouched = tree(&first);
    let error = generate(&first, &options(2, 42, 20_000, 2)).unwrap_err();
    assert!(error.to_string().contains("non-empty"), "{error}");
    assert!(untouched == tree(&first), "a refused generation writes nothing");
}

#[test]
fn other_world_sizes_follow_the_layout() {
    let temp = tempfile::tempdir().unwrap();
    let shape = |ranks| RunShape { cycles: 2, ranks, ..RunShape::default() };
    let eight = generate_with(temp.path(), &options(1, 5, 0, 0), &shape(8)).unwrap();
    let run = temp.path().join(&eight[0]);
    assert!(run.join("raw/results/world8_full/rank7_numerics.csv").is_file());
    assert!(run.join("raw/nccl_tests_g8.stdout").is_file());
    let numerics = fs::read_to_string(run.join("raw/results/world8_full/rank0_numerics.csv")).unwrap();
    assert_eq!(numerics.lines().count(), 1 + 3 * 24, "permutations are capped at 24");

    let two = generate_with(&temp.path().join("two"), &options(1, 5, 0, 0), &shape(2)).unwrap();
    let raw = temp.path().join("two").join(&two[0]).join("raw");
    assert!(raw.join("results/world2_full/rank1_async.csv").is_file());
    assert!(!raw.join("nccl_tests_g4.stdout").exists());

    for bad in [RunShape { ranks: 9, ..RunShape::default() }, RunShape { cycles: 0, ..RunShape::default() }] {
        assert!(generate_with(&temp.path().join("bad"), &options(1, 5, 0, 0), &bad).is_err());
    }
}

#[test]
fn gzip_logs_decompress_to_about_the_requested_size() {
    const LOG_BYTES: u64 = 60_000;
    let temp = tempfile::tempdir().unwrap();
    let ids = generate(temp.path(), &options(2, 7, LOG_BYTES, 2)).unwrap();
    for (index, id) in ids.iter().enumerate() {
        let nccl = temp.path().join(id).join("raw/nccl");
        let mut names: Vec<PathBuf> = fs::read_dir(&nccl).unwrap().map(|e| e.unwrap().path()).collect();
        names.sort();
        assert_eq!(names.len(), 4 + 2 + 2, "one log per torchrun rank and per nccl-tests process");
        let gzipped = index == 1;
        for path in names {
            let name = path.file_name().unwrap().to_string_lossy().into_owned();
            assert_eq!(name.ends_with(".log.gz"), gzipped, "{name}");
            assert!(gzipped || name.ends_with(".log"), "{name}");
            let text = String::from_utf8(read_maybe_gz(&path)).unwrap();
            let size = text.len() as u64;
            assert!((LOG_BYTES..LOG_BYTES + 4_096).contains(&size), "{name}: {size} bytes");
            assert!(text.contains("NCCL INFO Using network Socket"), "{name}");
            assert!(text.contains("- Init COMPLETE") && text.contains("- Destroy COMPLETE"), "{name}");
            assert!(text.contains("NCCL INFO AllReduce: opCount "), "{name}");
        }
    }
}

/// Rebuilds the committed fixture runs; `tests/fixtures/regen.sh` runs it after clearing
/// `tests/fixtures/runs` (a non-empty fixture folder is refused).
#[test]
#[ignore = "writes tests/fixtures/runs; run by tests/fixtures/regen.sh"]
fn write_fixture_runs() {
    let out = fixtures_dir().join("runs");
    for fixture in fixtures() {
        write_fixture(&out, &fixture).unwrap();
    }
}
