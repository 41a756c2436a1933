//! Site-wide notes (`runs/NOTES.md` and `runs/notes/*.md`) and the runs they are about: a note
//! may start with front matter naming them,
//!
//! ```text
//! ---
//! applies_to: ["20261203T08*", "1x H200 *"]
//! ---
//! ```
//!
//! (or one glob, or a `- glob` per line), globs (`*` any text, `?` one character) over run ids
//! and configuration labels. A note without `applies_to` is about every run. A run page shows
//! the notes that apply to it; a section page those that apply to a run it lists; the index
//! those about every run. Knows text only (the files are read by the build).

/// One note file: its title (where it comes from), the globs it applies to (empty: every
/// run) and its markdown body without the front matter.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Note {
    pub title: String,
    pub applies_to: Vec<String>,
    pub body: String,
}

/// Every site-wide note, in file-name order (`runs/NOTES.md` first).
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub(crate) struct SiteNotes {
    pub notes: Vec<Note>,
}

impl Note {
    /// A note from its file's text; `title` says where it comes from.
    pub(crate) fn parse(title: &str, text: &str) -> Note {
        let (applies_to, body) = front_matter(text);
        Note { title: title.to_string(), applies_to, body: body.to_string() }
    }

    /// Whether the note is about the run `id` of configuration `configuration`.
    pub(crate) fn applies(&self, id: &str, configuration: &str) -> bool {
        self.applies_to.is_empty() || self.applies_to.iter().any(|g| glob(g, id) || glob(g, configuration))
    }

    /// The note as a page shows it: a title saying whom it is about, and its markdown.
    pub(crate) fn shown(&self) -> (String, String) {
        let title = if self.applies_to.is_empty() {
            format!("All runs ({})", self.title)
        } else {
            format!("{} (about {})", self.title, self.applies_to.join(", "))
        };
        (title, self.body.clone())
    }
}

impl SiteNotes {
    /// The notes about run `id` of configuration `configuration`, as shown.
    pub(crate) fn for_run(&self, id: &str, configuration: &str) -> Vec<(String, String)> {
        self.notes.iter().filter(|n| n.applies(id, configuration)).map(Note::shown).collect()
    }

    /// The notes about every run (no `applies_to`), as markdown one after the other.
    pub(crate) fn for_all(&self) -> Option<String> {
        let all: Vec<&str> = self.notes.iter().filter(|n| n.applies_to.is_empty()).map(|n| n.body.as_str()).collect();
        (!all.is_empty()).then(|| all.join("\n\n"))
    }

    /// Every note's text, for the build cache's key.
    pub(crate) fn key_text(&self) -> String {
        self.notes.iter().map(|n| format!("{}\0{}\0{}\0", n.title, n.applies_to.join("\u{1}"), n.body)).collect()
    }
}

/// The `applies_to` globs of a leading `---` front matter block and the text after it; no
/// block (or no closing `---`): no globs and the whole text.
fn front_matter(text: &str) -> (Vec<String>, &str) {
    let Some(rest) = text.strip_prefix("---\n").or_else(|| text.strip_prefix("---\r\n")) else {
        return (Vec::new(), text);
    };
    let Some(end) = rest.find("\n---").filter(|&at| matches!(rest[at + 4..].chars().next(), None | Some('\n' | '\r')))
    else {
        return (Vec::new(), text);
    };
    let body = rest[end + 4..].trim_start_matches(['\r', '\n']);
    let mut globs = Vec::new();
    let mut in_list = false;
    for line in rest[..end].lines() {
        let line = line.trim_end();
        if let Some(value) = line.strip_prefix("applies_to:") {
            let value = value.trim();
            in_list = value.is_empty();
            let value = value.strip_prefix('[').and_then(|v| v.strip_suffix(']')).unwrap_or(value);
            globs.extend(value.split(',').map(unquote).filter(|g| !g.is_empty()));
        } else if let (true, Some(item)) = (in_list, line.trim_start().strip_prefix("- ")) {
            globs.push(unquote(item));
        } else {
            in_list = false;
        }
    }
    (globs, body)
}

fn unquote(value: &str) -> String {
    let v = value.trim();
    let quoted =
        v.len() >= 2 && ((v.starts_with('"') && v.ends_with('"')) || (v.starts_with('\'') && v.ends_with('\'')));
    if quoted {
        v[1..v.len() - 1].to_string()
    } else {
        v.to_string()
    }
}

/// Whether `text` matches `pattern` whole: `*` any run of characters, `?` one character.
fn glob(pattern: &str, text: &str) -> bool {
    let (p, t): (Vec<char>, Vec<char>) = (pattern.chars().collect(), text.chars().collect());
    let (mut pi, mut ti, mut star, mut mark) = (0, 0, None, 0);
    while ti < t.len() {
        if pi < p.len() && (p[pi] == '?' || p[pi] == t[ti]) {
            pi += 1;
            ti += 1;
        } else if pi < p.len() && p[pi] == '*' {
            star = Some(pi);
            mark = ti;
            pi += 1;
        } else if let Some(s) = star {
            pi = s + 1;
            mark += 1;
            ti = mark;
        } else {
            return false;
        }
    }
    p[pi..].iter().all(|c| *c == '*')
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn front_matter_scopes_a_note_to_runs_or_configurations() {
        let note = Note::parse("notes/h200.md", "---\napplies_to: [\"2026*\", '1x H200 *']\n---\n# H200\nbody\n");
        assert_eq!(note.applies_to, ["2026*", "1x H200 *"]);
        assert_eq!(note.body, "# H200\nbody\n");
        assert!(note.applies("20261203T081106Z", "4x V100 · key 1"));
        assert!(note.applies("h200-rdzv", "1x H200 · NCCL 2.28.9 · key d168e2"));
        assert!(!note.applies("v100-a", "4x V100 · key 1"));

        let listed = Note::parse("n", "---\ntitle: x\napplies_to:\n  - v100-?\n  - \"synth-*\"\nother: y\n---\ntext");
        assert_eq!(listed.applies_to, ["v100-?", "synth-*"]);
        assert!(listed.applies("v100-a", "") && !listed.applies("v100-ab", ""));

        let everyone = Note::parse("NOTES.md", "# All\n---\nnot front matter\n");
        assert!(everyone.applies_to.is_empty() && everyone.applies("anything", ""));
        assert_eq!(everyone.body, "# All\n---\nnot front matter\n");
        let unclosed = Note::parse("n", "---\napplies_to: x\nno end");
        assert!(unclosed.applies_to.is_empty());

        let notes = SiteNotes { notes: vec![everyone, note] };
        assert_eq!(notes.for_run("v100-a", "4x V100").len(), 1);
        assert_eq!(notes.for_run("h200-rdzv", "1x H200 · x").len(), 2);
        assert_eq!(notes.for_all().as_deref(), Some("# All\n---\nnot front matter\n"));
    }

    #[test]
    fn globs_match_whole_text() {
        assert!(glob("*", "") && glob("a*c", "abbbc") && glob("a?c", "abc") && glob("*Z", "20261203T081106Z"));
        assert!(!glob("a*c", "abcd") && !glob("a?c", "ac") && !glob("", "x"));
        assert!(glob("é*", "é1") && glob("*x*", "axb"));
    }
}
