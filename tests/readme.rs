//! The README's code map against the tree: every path it names exists (and every `name.rs` a
//! folder's row names in backticks is a file of that folder), and every folder of `src/` has a
//! row of its own, so the map cannot name a file that moved or miss a new folder.

use std::collections::BTreeSet;
use std::fs;
use std::path::{Path, PathBuf};

fn root() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

/// The code map's rows: (the paths in the first column, the description with its
/// continuation lines).
fn code_map() -> Vec<(Vec<String>, String)> {
    let readme = fs::read_to_string(root().join("README.md")).unwrap();
    let start = readme.find("\n## Code map\n").expect("a Code map section");
    let section = &readme[start + 1..];
    let section = &section[..section[3..].find("\n## ").map_or(section.len(), |end| end + 3)];
    let mut rows: Vec<(Vec<String>, String)> = Vec::new();
    for line in section.lines().filter(|l| l.starts_with("    ")) {
        let text = line.trim_start();
        let indent = line.len() - text.len();
        if indent > 4 {
            if let Some((_, description)) = rows.last_mut() {
                description.push(' ');
                description.push_str(text);
            }
            continue;
        }
        let (first, description) = text.split_once("  ").unwrap_or((text, ""));
        let paths: Vec<String> = first.split(", ").map(str::to_string).collect();
        if paths.iter().all(|p| p.contains('/') || p.contains('.')) {
            rows.push((paths, description.trim().to_string()));
        }
    }
    rows
}

fn folders(dir: &Path, out: &mut BTreeSet<String>) {
    for entry in fs::read_dir(dir).unwrap() {
        let path = entry.unwrap().path();
        if path.is_dir() && path.file_name().is_some_and(|n| n != "snapshots") {
            out.insert(format!("{}/", path.strip_prefix(root()).unwrap().display()));
            folders(&path, out);
        }
    }
}

#[test]
fn every_path_of_the_code_map_exists() {
    let rows = code_map();
    assert!(rows.len() > 20, "{rows:?}");
    for (paths, description) in &rows {
        for path in paths {
            assert!(root().join(path).exists(), "the code map names {path}, which does not exist");
            if !path.ends_with('/') {
                continue;
            }
            for name in description.split('`').skip(1).step_by(2).filter(|n| n.ends_with(".rs")) {
                assert!(root().join(path).join(name).is_file(), "the code map names {name} in {path}: no such file");
            }
        }
    }
}

#[test]
fn every_folder_of_src_is_in_the_code_map() {
    let named: BTreeSet<String> = code_map().into_iter().flat_map(|(paths, _)| paths).collect();
    let mut all = BTreeSet::new();
    folders(&root().join("src"), &mut all);
    let missing: Vec<&String> = all.difference(&named).collect();
    assert!(missing.is_empty(), "folders of src/ the code map does not name: {missing:?}");
}
