//! The crate's layers, enforced: every `crate::` and `super::` path in `src/` is an edge from
//! the module that writes it to the module it names, and each edge must run down this order
//! (README, "Code map"):
//!
//! ```text
//! core <- ingest <- analysis <- {export, site} <- render <- pipeline <- output <- cli
//! collect, synth <- cli            (they use core, ingest and export; synth uses collect)
//! ```
//!
//! `cli` dispatches to every group; nothing but `cli` uses `collect` or `synth`; `export` and
//! `site` do not use each other. Inside a group the modules (`site::sections`, `collect::launch`,
//! ...) form no cycle: edges to and from a group's own `mod.rs` (its shared types and its
//! dispatch) are not counted, deeper modules count as the group module they are in.
//! Paths are read from the source text with comments, strings and characters removed; inline
//! `mod name { ... }` blocks are followed so that `super::` resolves as rustc resolves it.

use std::collections::{BTreeMap, BTreeSet};
use std::fs;
use std::path::{Path, PathBuf};

/// The groups below `cli` in layer order; a group may use only groups of a lower rank.
const LAYERS: &[(&str, u8)] = &[
    ("core", 0),
    ("ingest", 1),
    ("analysis", 2),
    ("export", 3),
    ("site", 3),
    ("render", 4),
    ("pipeline", 5),
    ("output", 6),
];
/// Groups beside the layers: what each may use.
const SIDE: &[(&str, &[&str])] =
    &[("collect", &["core", "ingest", "export"]), ("synth", &["core", "ingest", "export", "collect"])];

/// Whether group `from` may use group `to`; `None` when either is unknown.
fn allowed(from: &str, to: &str) -> Option<bool> {
    let rank = |g: &str| LAYERS.iter().find(|(name, _)| *name == g).map(|(_, r)| *r);
    let side = |g: &str| SIDE.iter().find(|(name, _)| *name == g).map(|(_, uses)| *uses);
    let known = |g: &str| g == "cli" || rank(g).is_some() || side(g).is_some();
    if !known(from) || !known(to) {
        return None;
    }
    Some(if from == "cli" {
        to != "cli"
    } else if let Some(uses) = side(from) {
        uses.contains(&to)
    } else if to == "cli" || side(to).is_some() {
        false
    } else {
        rank(to) < rank(from)
    })
}

#[derive(Debug, Clone, PartialEq, Eq)]
enum Token {
    Ident(String),
    Path, // `::`
    Open,
    Close,
    Comma,
    Star,
    Other,
}

/// The tokens of Rust source that matter for paths: comments, string, byte-string, raw-string
/// and character literals are dropped, lifetimes are skipped.
fn tokens(source: &str) -> Vec<Token> {
    let chars: Vec<char> = source.chars().collect();
    let mut out = Vec::new();
    let mut i = 0;
    let at = |i: usize| chars.get(i).copied().unwrap_or('\0');
    while i < chars.len() {
        let c = chars[i];
        if c.is_whitespace() {
            i += 1;
        } else if c == '/' && at(i + 1) == '/' {
            while i < chars.len() && chars[i] != '\n' {
                i += 1;
            }
        } else if c == '/' && at(i + 1) == '*' {
            let mut depth = 0;
            while i < chars.len() {
                if chars[i] == '/' && at(i + 1) == '*' {
                    depth += 1;
                    i += 2;
                } else if chars[i] == '*' && at(i + 1) == '/' {
                    depth -= 1;
                    i += 2;
                    if depth == 0 {
                        break;
                    }
                } else {
                    i += 1;
                }
            }
        } else if let Some(open) = raw_string(&chars, i) {
            // r"...", r#"..."#, br"...": ends at a quote followed by as many #.
            let hashes = open - i - if c == 'b' { 2 } else { 1 };
            let mut j = open + 1;
            while j < chars.len() && !(chars[j] == '"' && (0..hashes).all(|k| at(j + 1 + k) == '#')) {
                j += 1;
            }
            i = j + 1 + hashes;
        } else if c == '"' || (c == 'b' && at(i + 1) == '"') {
            let mut j = if c == 'b' { i + 2 } else { i + 1 };
            while j < chars.len() && chars[j] != '"' {
                j += if chars[j] == '\\' { 2 } else { 1 };
            }
            i = j + 1;
        } else if c == '\'' || (c == 'b' && at(i + 1) == '\'') {
            let j = if c == 'b' { i + 1 } else { i };
            if at(j + 1) == '\\' {
                let mut k = j + 3;
                while k < chars.len() && chars[k] != '\'' {
                    k += 1;
                }
                i = k + 1;
            } else if at(j + 2) == '\'' {
                i = j + 3;
            } else {
                i = j + 1; // a lifetime: its name follows as an identifier and is harmless
            }
        } else if c.is_alphabetic() || c == '_' {
            let start = i;
            while i < chars.len() && (chars[i].is_alphanumeric() || chars[i] == '_') {
                i += 1;
            }
            out.push(Token::Ident(chars[start..i].iter().collect()));
        } else {
            out.push(match c {
                ':' if at(i + 1) == ':' => {
                    i += 1;
                    Token::Path
                }
                '{' => Token::Open,
                '}' => Token::Close,
                ',' => Token::Comma,
                '*' => Token::Star,
                _ => Token::Other,
            });
            i += 1;
        }
    }
    out
}

/// Where the opening quote of a raw string starting at `chars[i]` is, if one starts there.
fn raw_string(chars: &[char], i: usize) -> Option<usize> {
    let mut j = i + usize::from(chars[i] == 'b');
    if chars.get(j) != Some(&'r') {
        return None;
    }
    j += 1;
    while chars.get(j) == Some(&'#') {
        j += 1;
    }
    (chars.get(j) == Some(&'"')).then_some(j)
}

/// The paths of a use tree (or a plain path) starting at `tokens[i]`, each prefixed with
/// `prefix`; returns the position after it.
fn path_tree(tokens: &[Token], mut i: usize, prefix: Vec<String>, out: &mut Vec<Vec<String>>) -> usize {
    let mut path = prefix;
    loop {
        match tokens.get(i) {
            Some(Token::Ident(name)) => {
                if name != "self" {
                    path.push(name.clone());
                }
                i += 1;
                if tokens.get(i) == Some(&Token::Path) {
                    i += 1;
                    continue;
                }
                out.push(path);
                if tokens.get(i) == Some(&Token::Ident("as".into())) {
                    i += 2;
                }
                return i;
            }
            Some(Token::Open) => {
                i += 1;
                loop {
                    match tokens.get(i) {
                        Some(Token::Close) => return i + 1,
                        Some(Token::Comma) => i += 1,
                        None => return i,
                        Some(_) => {
                            let before = i;
                            i = path_tree(tokens, i, path.clone(), out);
                            if i == before {
                                i += 1;
                            }
                        }
                    }
                }
            }
            _ => {
                out.push(path);
                return i;
            }
        }
    }
}

/// Every path a file names through `crate::` or `super::`, resolved to a path from the crate
/// root; `module` is the file's module path.
fn paths_of(source: &str, module: &[String]) -> Vec<Vec<String>> {
    let tokens = tokens(source);
    let mut out = Vec::new();
    // The inline modules the position is in, with the brace depth each was opened at.
    let mut inline: Vec<(String, usize)> = Vec::new();
    let mut depth = 0;
    let mut i = 0;
    while i < tokens.len() {
        let after_path = i > 0 && tokens[i - 1] == Token::Path;
        match &tokens[i] {
            Token::Open => depth += 1,
            Token::Close => {
                depth -= 1;
                if inline.last().is_some_and(|(_, d)| *d == depth) {
                    inline.pop();
                }
            }
            Token::Ident(word) if word == "mod" => {
                if let (Some(Token::Ident(name)), Some(Token::Open)) = (tokens.get(i + 1), tokens.get(i + 2)) {
                    inline.push((name.clone(), depth));
                    depth += 1;
                    i += 3;
                    continue;
                }
            }
            Token::Ident(word) if (word == "crate" || word == "super") && !after_path => {
                if tokens.get(i + 1) != Some(&Token::Path) {
                    i += 1;
                    continue;
                }
                let mut base: Vec<String> = if word == "crate" {
                    Vec::new()
                } else {
                    let mut here: Vec<String> = module.to_vec();
                    here.extend(inline.iter().map(|(name, _)| name.clone()));
                    here.pop();
                    here
                };
                let mut j = i + 2;
                while tokens.get(j) == Some(&Token::Ident("super".into())) && tokens.get(j + 1) == Some(&Token::Path) {
                    base.pop();
                    j += 2;
                }
                i = path_tree(&tokens, j, base, &mut out);
                continue;
            }
            _ => {}
        }
        i += 1;
    }
    out
}

fn rust_files(dir: &Path, out: &mut Vec<PathBuf>) {
    for entry in fs::read_dir(dir).unwrap() {
        let path = entry.unwrap().path();
        if path.is_dir() {
            rust_files(&path, out);
        } else if path.extension().is_some_and(|e| e == "rs") {
            out.push(path);
        }
    }
}

/// `src/site/sections/decode.rs` -> `["site", "sections", "decode"]`; `mod.rs` is its folder.
fn module_of(src: &Path, file: &Path) -> Vec<String> {
    let rel = file.strip_prefix(src).unwrap().with_extension("");
    let mut parts: Vec<String> = rel.components().map(|c| c.as_os_str().to_string_lossy().into_owned()).collect();
    if parts.last().is_some_and(|p| p == "mod" || p == "lib" || p == "main") {
        parts.pop();
    }
    parts
}

/// A module's place for the checks: (group, module inside the group); the module is empty for
/// the group's own `mod.rs` or an item declared there.
type Node = (String, String);

fn node(path: &[String], submodules: &BTreeMap<String, BTreeSet<String>>) -> Option<Node> {
    let group = path.first()?;
    let module = path.get(1).filter(|m| submodules.get(group).is_some_and(|s| s.contains(*m)));
    Some((group.clone(), module.cloned().unwrap_or_default()))
}

/// Every edge between two different modules of the crate at `src`, with one file that makes it.
fn edges(src: &Path) -> BTreeMap<(Node, Node), String> {
    let mut files = Vec::new();
    rust_files(src, &mut files);
    files.sort();
    let mut submodules: BTreeMap<String, BTreeSet<String>> = BTreeMap::new();
    for file in &files {
        let module = module_of(src, file);
        if module.len() >= 2 {
            submodules.entry(module[0].clone()).or_default().insert(module[1].clone());
        }
    }
    let mut edges = BTreeMap::new();
    for file in &files {
        let module = module_of(src, file);
        let Some(from) = node(&module, &submodules) else { continue };
        let source = fs::read_to_string(file).unwrap();
        for path in paths_of(&source, &module) {
            let Some(to) = node(&path, &submodules) else { continue };
            if to != from {
                let rel = file.strip_prefix(src.parent().unwrap()).unwrap().display().to_string();
                edges.entry((from.clone(), to)).or_insert(rel);
            }
        }
    }
    edges
}

fn name((group, module): &Node) -> String {
    if module.is_empty() {
        group.clone()
    } else {
        format!("{group}::{module}")
    }
}

/// Every violation of the layers in the crate at `src`, one line each.
fn violations(src: &Path) -> Vec<String> {
    let edges = edges(src);
    let mut found = Vec::new();
    let mut inside: BTreeMap<Node, BTreeSet<Node>> = BTreeMap::new();
    for ((from, to), file) in &edges {
        if from.0 != to.0 {
            match allowed(&from.0, &to.0) {
                Some(true) => {}
                Some(false) => found.push(format!("{} -> {} ({file}) runs against the layers", name(from), name(to))),
                None => found.push(format!("{} -> {} ({file}): a group the layers do not name", name(from), name(to))),
            }
        } else if !from.1.is_empty() && !to.1.is_empty() {
            inside.entry(from.clone()).or_default().insert(to.clone());
        }
    }
    for cycle in cycles(&inside) {
        let names: Vec<String> = cycle.iter().map(name).collect();
        found.push(format!("a cycle inside a group: {}", names.join(" -> ")));
    }
    found
}

/// The strongly connected components of more than one module (Tarjan), each sorted.
fn cycles(graph: &BTreeMap<Node, BTreeSet<Node>>) -> Vec<Vec<Node>> {
    struct State<'a> {
        graph: &'a BTreeMap<Node, BTreeSet<Node>>,
        index: BTreeMap<Node, usize>,
        low: BTreeMap<Node, usize>,
        stack: Vec<Node>,
        found: Vec<Vec<Node>>,
    }
    fn visit(v: &Node, s: &mut State) {
        let n = s.index.len();
        s.index.insert(v.clone(), n);
        s.low.insert(v.clone(), n);
        s.stack.push(v.clone());
        for w in s.graph.get(v).into_iter().flatten() {
            if !s.index.contains_key(w) {
                visit(w, s);
                let low = s.low[v].min(s.low[w]);
                s.low.insert(v.clone(), low);
            } else if s.stack.contains(w) {
                let low = s.low[v].min(s.index[w]);
                s.low.insert(v.clone(), low);
            }
        }
        if s.low[v] == s.index[v] {
            let at = s.stack.iter().position(|x| x == v).unwrap();
            let mut component: Vec<Node> = s.stack.split_off(at);
            if component.len() > 1 {
                component.sort();
                s.found.push(component);
            }
        }
    }
    let mut state = State { graph, index: BTreeMap::new(), low: BTreeMap::new(), stack: Vec::new(), found: Vec::new() };
    for v in graph.keys() {
        if !state.index.contains_key(v) {
            visit(v, &mut state);
        }
    }
    state.found
}

fn src() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("src")
}

#[test]
fn every_edge_runs_down_the_layers_and_no_group_has_a_cycle() {
    let found = violations(&src());
    assert!(found.is_empty(), "{} layer violations:\n{}", found.len(), found.join("\n"));
    assert!(edges(&src()).len() > 100, "too few edges found: the parser missed paths");
}

/// Every top-level module of the crate is a group the layers name.
#[test]
fn every_group_has_a_layer() {
    let lib = fs::read_to_string(src().join("lib.rs")).unwrap();
    let groups: Vec<&str> = lib
        .lines()
        .filter_map(|l| l.trim().strip_suffix(';'))
        .filter_map(|l| l.rsplit_once("mod ").map(|(_, name)| name))
        .collect();
    assert!(groups.len() >= 11, "{groups:?}");
    for group in groups {
        assert!(allowed(group, "core").is_some(), "{group} has no layer");
    }
}

/// The checker itself: a planted back-edge, a cycle, `super::` out of an inline module, use
/// trees, and paths in comments and strings (not edges).
#[test]
fn the_checker_finds_what_is_planted() {
    let dir = tempfile::tempdir().unwrap();
    let src = dir.path().join("src");
    let write = |rel: &str, text: &str| {
        let path = src.join(rel);
        fs::create_dir_all(path.parent().unwrap()).unwrap();
        fs::write(path, text).unwrap();
    };
    write("lib.rs", "pub mod core; pub mod site; pub mod render;");
    write("core/mod.rs", "pub mod diag;\npub(crate) use crate::render::X; // the back-edge");
    write(
        "core/diag.rs",
        "// crate::pipeline::x in a comment\nconst S: &str = \"crate::cli::y\";\nconst C: char = '{';",
    );
    write("site/mod.rs", "pub mod a; pub mod b; pub mod c;");
    write("site/a.rs", "use crate::{core::diag::D, site::b::B};\nmod tests { use super::super::c::C; }");
    write("site/b.rs", "use super::a::A;");
    write(
        "site/c.rs",
        "use crate::core::{self, diag::{D, E as F}};\nfn f<'a>(x: &'a str) { let r = r#\"crate::cli\"#; }",
    );
    write("render/mod.rs", "use crate::site::a;");
    let mut found = violations(&src);
    found.sort();
    assert_eq!(
        found,
        ["a cycle inside a group: site::a -> site::b", "core -> render (src/core/mod.rs) runs against the layers",]
    );
    let edges: Vec<String> = edges(&src).into_keys().map(|(a, b)| format!("{} -> {}", name(&a), name(&b))).collect();
    assert_eq!(
        edges,
        [
            "core -> render",
            "render -> site::a",
            "site::a -> core::diag",
            "site::a -> site::b",
            "site::a -> site::c",
            "site::b -> site::a",
            "site::c -> core",
            "site::c -> core::diag",
        ]
    );
}
