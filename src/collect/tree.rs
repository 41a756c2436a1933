//! A run folder as a tree of entries: walked in sorted order, checked, hashed and copied.
//!
//! The content hash is xxh3-128 over the sorted list of (relative path, kind, size, xxh3-128
//! of the bytes or of the link target), so two trees with the same files hash alike wherever
//! they live. Symlinks are copied as links only when their target is relative and resolves
//! inside the tree; any other link, and any special file (FIFO, socket, device), stops the
//! walk with an error naming it. Links are never followed.

use anyhow::{bail, Context, Result};
use std::fs::{self, File};
use std::io::{Read, Write};
use std::path::{Path, PathBuf};
use walkdir::WalkDir;
use xxhash_rust::xxh3::{xxh3_128, Xxh3Default};

/// A file that is not in the source but belongs to the copy (a derived `manifest.txt`).
#[derive(Debug, Clone)]
pub struct ExtraFile {
    pub rel: PathBuf,
    pub bytes: Vec<u8>,
}

/// What a walk saw: the content hash and the size of the tree.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct TreeStats {
    pub hash: u128,
    pub files: u64,
    pub bytes: u64,
}

impl TreeStats {
    /// The first 16 hex digits of the hash, for messages.
    pub fn short_hash(&self) -> String {
        format!("{:032x}", self.hash)[..16].to_string()
    }
}

/// One hashed entry; sorted by `rel` before the tree hash is taken.
struct Leaf {
    rel: Vec<u8>,
    kind: u8,
    len: u64,
    hash: u128,
}

/// Hashes the tree at `root` (plus `extra` files) without writing anything.
pub fn hash(root: &Path, extra: &[ExtraFile]) -> Result<TreeStats> {
    walk(root, None, extra)
}

/// Copies the tree at `root` (plus `extra` files) into the existing empty folder `dest`,
/// hashing it on the way. On error `dest` holds a partial copy: the caller removes it.
pub fn copy(root: &Path, dest: &Path, extra: &[ExtraFile]) -> Result<TreeStats> {
    walk(root, Some(dest), extra)
}

fn walk(root: &Path, dest: Option<&Path>, extra: &[ExtraFile]) -> Result<TreeStats> {
    let canonical_root = fs::canonicalize(root).with_context(|| format!("cannot resolve {}", root.display()))?;
    let mut leaves = Vec::new();
    for entry in WalkDir::new(&canonical_root).min_depth(1).sort_by_file_name() {
        let entry = entry.with_context(|| format!("cannot walk {}", root.display()))?;
        let rel = entry.path().strip_prefix(&canonical_root)?.to_path_buf();
        let target = dest.map(|d| d.join(&rel));
        let file_type = entry.file_type();
        let leaf = if file_type.is_dir() {
            visit_dir(&rel, target.as_deref())?
        } else if file_type.is_file() {
            visit_file(&canonical_root, entry.path(), &rel, target.as_deref())?
        } else if file_type.is_symlink() {
            visit_symlink(entry.path(), &canonical_root, &rel, target.as_deref())?
        } else {
            bail!(
                "{} is a special file (FIFO, socket or device), not a regular file; refusing to copy it",
                entry.path().display()
            );
        };
        leaves.push(leaf);
    }
    for file in extra {
        leaves.push(visit_extra(file, dest)?);
    }
    Ok(finish(leaves))
}

fn visit_dir(rel: &Path, target: Option<&Path>) -> Result<Leaf> {
    if let Some(target) = target {
        fs::create_dir(target).with_context(|| format!("cannot create {}", target.display()))?;
    }
    Ok(Leaf { rel: rel_bytes(rel), kind: b'd', len: 0, hash: 0 })
}

/// Copies (or only hashes) one file, opened like every build input (`input::open_regular`,
/// beneath the run's descriptor: a file swapped for a FIFO or a link out is refused).
fn visit_file(root: &Path, path: &Path, rel: &Path, target: Option<&Path>) -> Result<Leaf> {
    let at = crate::ingest::input::Beneath::new(crate::ingest::input::Root::new(root), rel);
    let mut input =
        crate::ingest::input::open_regular(&at).with_context(|| format!("cannot open {}", path.display()))?;
    let mut output = match target {
        Some(target) => Some(File::create(target).with_context(|| format!("cannot create {}", target.display()))?),
        None => None,
    };
    let mut hasher = Xxh3Default::new();
    let mut buffer = vec![0u8; 1 << 16];
    let mut len = 0u64;
    loop {
        let n = input.read(&mut buffer).with_context(|| format!("cannot read {}", path.display()))?;
        if n == 0 {
            break;
        }
        hasher.update(&buffer[..n]);
        len += n as u64;
        if let (Some(output), Some(target)) = (output.as_mut(), target) {
            output.write_all(&buffer[..n]).with_context(|| format!("cannot write {}", target.display()))?;
        }
    }
    if let Some(target) = target {
        let permissions = input.metadata()?.permissions();
        fs::set_permissions(target, permissions)
            .with_context(|| format!("cannot set permissions of {}", target.display()))?;
    }
    Ok(Leaf { rel: rel_bytes(rel), kind: b'f', len, hash: hasher.digest128() })
}

fn visit_symlink(path: &Path, canonical_root: &Path, rel: &Path, target: Option<&Path>) -> Result<Leaf> {
    let link = fs::read_link(path).with_context(|| format!("cannot read link {}", path.display()))?;
    let resolved = fs::canonicalize(path).ok();
    let inside = resolved.is_some_and(|r| r.starts_with(canonical_root));
    if link.is_absolute() || !inside {
        bail!(
            "{} is a symlink to {} which {}; refusing to copy it (links are never followed out of a run)",
            path.display(),
            link.display(),
            if link.is_absolute() { "is an absolute path" } else { "does not resolve inside the run" }
        );
    }
    if let Some(target) = target {
        make_symlink(&link, target)?;
    }
    let link_bytes = link.as_os_str().as_encoded_bytes();
    Ok(Leaf { rel: rel_bytes(rel), kind: b'l', len: link_bytes.len() as u64, hash: xxh3_128(link_bytes) })
}

fn visit_extra(file: &ExtraFile, dest: Option<&Path>) -> Result<Leaf> {
    if let Some(dest) = dest {
        let target = dest.join(&file.rel);
        fs::write(&target, &file.bytes).with_context(|| format!("cannot write {}", target.display()))?;
    }
    Ok(Leaf { rel: rel_bytes(&file.rel), kind: b'f', len: file.bytes.len() as u64, hash: xxh3_128(&file.bytes) })
}

#[cfg(unix)]
fn make_symlink(link: &Path, target: &Path) -> Result<()> {
    std::os::unix::fs::symlink(link, target).with_context(|| format!("cannot create symlink {}", target.display()))
}

#[cfg(not(unix))]
fn make_symlink(_link: &Path, target: &Path) -> Result<()> {
    bail!("cannot create symlink {}: symlinks are copied on Unix only", target.display())
}

/// `/`-separated relative path bytes, the same on every platform.
fn rel_bytes(rel: &Path) -> Vec<u8> {
    let parts: Vec<&[u8]> = rel.components().map(|c| c.as_os_str().as_encoded_bytes()).collect();
    parts.join(&b'/')
}

fn finish(mut leaves: Vec<Leaf>) -> TreeStats {
    leaves.sort_by(|a, b| a.rel.cmp(&b.rel));
    let mut hasher = Xxh3Default::new();
    let mut stats = TreeStats { hash: 0, files: 0, bytes: 0 };
    for leaf in &leaves {
        hasher.update(&(leaf.rel.len() as u64).to_le_bytes());
        hasher.update(&leaf.rel);
        hasher.update(&[leaf.kind]);
        hasher.update(&leaf.len.to_le_bytes());
        hasher.update(&leaf.hash.to_le_bytes());
        if leaf.kind == b'f' {
            stats.files += 1;
            stats.bytes += leaf.len;
        }
    }
    stats.hash = hasher.digest128();
    stats
}

#[cfg(test)]
mod tests {
    use super::*;

    fn tree(files: &[(&str, &str)]) -> tempfile::TempDir {
        let dir = tempfile::tempdir().unwrap();
        for (rel, text) in files {
            let path = dir.path().join(rel);
            fs::create_dir_all(path.parent().unwrap()).unwrap();
            fs::write(path, text).unwrap();
        }
        dir
    }

    #[test]
    fn hash_depends_on_paths_and_bytes_only() {
        let a = tree(&[("manifest.txt", "run_id=x\n"), ("raw/a.csv", "1\n")]);
        let b = tree(&[("manifest.txt", "run_id=x\n"), ("raw/a.csv", "1\n")]);
        let c = tree(&[("manifest.txt", "run_id=x\n"), ("raw/a.csv", "2\n")]);
        let d = tree(&[("manifest.txt", "run_id=x\n"), ("raw/b.csv", "1\n")]);
        let ha = hash(a.path(), &[]).unwrap();
        assert_eq!(ha, hash(b.path(), &[]).unwrap());
        assert_ne!(ha.hash, hash(c.path(), &[]).unwrap().hash);
        assert_ne!(ha.hash, hash(d.path(), &[]).unwrap().hash);
        assert_eq!((ha.files, ha.bytes), (2, 11));
    }

    #[test]
    fn extra_file_hashes_like_a_real_one() {
        let real = tree(&[("manifest.txt", "m\n"), ("raw/a.csv", "1\n")]);
        let virt = tree(&[("raw/a.csv", "1\n")]);
        let extra = [ExtraFile { rel: "manifest.txt".into(), bytes: b"m\n".to_vec() }];
        assert_eq!(hash(real.path(), &[]).unwrap(), hash(virt.path(), &extra).unwrap());
    }

    #[test]
    fn copy_reproduces_the_tree() {
        let src = tree(&[("manifest.txt", "m\n"), ("raw/results/c/rank0_x.csv", "a,b\n")]);
        #[cfg(unix)]
        std::os::unix::fs::symlink("../manifest.txt", src.path().join("raw/link")).unwrap();
        let dest = tempfile::tempdir().unwrap();
        let copied = copy(src.path(), dest.path(), &[]).unwrap();
        assert_eq!(copied, hash(src.path(), &[]).unwrap());
        assert_eq!(hash(dest.path(), &[]).unwrap(), copied);
    }

    #[cfg(unix)]
    #[test]
    fn links_leading_out_are_refused() {
        let src = tree(&[("manifest.txt", "m\n")]);
        std::os::unix::fs::symlink("../../etc", src.path().join("up")).unwrap();
        let err = hash(src.path(), &[]).unwrap_err().to_string();
        assert!(err.contains("does not resolve inside the run"), "{err}");
        fs::remove_file(src.path().join("up")).unwrap();
        std::os::unix::fs::symlink(src.path().join("manifest.txt"), src.path().join("abs")).unwrap();
        let err = hash(src.path(), &[]).unwrap_err().to_string();
        assert!(err.contains("is an absolute path"), "{err}");
    }
}
