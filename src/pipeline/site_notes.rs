//! The site-wide notes (`runs/NOTES.md`, `runs/notes/*.md`), read beneath the runs folder
//! within the notes limit; what keeps one off the site is a line of the build summary.

use super::BuildOptions;
use crate::site::notes::{Note, SiteNotes};
use crate::{ingest::find, ingest::input};

/// The site-wide notes: `runs/NOTES.md`, then `runs/notes/*.md` by name (`site::notes`: each
/// may say which runs it is about). Each is read beneath the runs folder like every run input
/// (a symlink leading outside it is not read); `X.md.gz` is the compressed twin of `X.md`,
/// read when there is no plain file (both: the plain one, with a warning naming both). The
/// `notes` folder is read only when it is not a run. Anything that keeps a notes file off the
/// site (a FIFO, over the notes limit, unreadable) is a line of the build summary naming the
/// file and why.
pub(super) fn read_site_notes(options: &BuildOptions) -> (SiteNotes, Vec<String>) {
    let mut problems = Vec::new();
    let Ok(root) = options.runs.canonicalize() else { return (SiteNotes::default(), problems) };
    let root = input::Root::new(root);
    let runs = root.path.as_path();
    let mut notes: Vec<Note> = read_notes_file(&root, "NOTES.md", options.limits.notes, &mut problems)
        .map(|t| Note::parse("runs/NOTES.md", &t))
        .into_iter()
        .collect();
    let folder = runs.join(find::NOTES_FOLDER);
    let is_run = folder.join("manifest.txt").exists() || folder.join("raw").exists();
    if !is_run && find::stays_inside(&folder, runs) {
        let mut names: Vec<String> = std::fs::read_dir(&folder)
            .into_iter()
            .flatten()
            .flatten()
            .filter_map(|e| e.file_name().into_string().ok())
            .filter_map(|n| n.strip_suffix(".gz").map_or(Some(n.clone()), |plain| Some(plain.to_string())))
            .filter(|n| n.ends_with(".md") && !n.starts_with('.'))
            .collect();
        names.sort();
        names.dedup();
        for name in names {
            let rel = format!("{}/{name}", find::NOTES_FOLDER);
            if let Some(text) = read_notes_file(&root, &rel, options.limits.notes, &mut problems) {
                notes.push(Note::parse(&format!("runs/{rel}"), &text));
            }
        }
    }
    (SiteNotes { notes }, problems)
}

/// One notes file `rel` (`NOTES.md`, `notes/x.md`) beneath the runs folder `root`, or its
/// `.gz` twin; `None` (and a line in `problems` when it is there but not read) without it.
fn read_notes_file(
    root: &std::sync::Arc<input::Root>,
    rel: &str,
    limit: u64,
    problems: &mut Vec<String>,
) -> Option<String> {
    let present = |name: &str| std::fs::symlink_metadata(root.path.join(name)).is_ok();
    let gz = format!("{rel}.gz");
    let name = match (present(rel), present(&gz)) {
        (false, false) => return None,
        (true, true) => {
            problems.push(format!("warning: runs/{rel}: both {rel} and {gz} present; only {rel} read"));
            rel.to_string()
        }
        (true, false) => rel.to_string(),
        (false, true) => gz,
    };
    match input::read_all(&input::Beneath::new(root.clone(), &name), limit) {
        Ok(bytes) => Some(String::from_utf8_lossy(&bytes).into_owned()),
        Err(error) => {
            problems.push(format!("warning: runs/{name}: cannot read: {error}; the site does not show these notes"));
            None
        }
    }
}
