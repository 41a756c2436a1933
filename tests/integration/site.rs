//! The site: every link resolves, hostile text is escaped, no absolute path of the building
//! machine leaks, page snapshots, publishing to a git branch, serving over HTTP.

use crate::common::{build, runs_dir, text, tree};
use std::collections::BTreeMap;
use std::fs;
use std::path::Path;

/// Values of `attribute` in the tags of `html` (not in escaped text).
fn attribute_values<'a>(html: &'a str, attribute: &str) -> Vec<&'a str> {
    let needle = format!(" {attribute}=\"");
    let mut values = Vec::new();
    for tag in tags(html) {
        for (i, _) in tag.match_indices(&needle) {
            let rest = &tag[i + needle.len()..];
            values.push(&rest[..rest.find('"').unwrap_or(rest.len())]);
        }
    }
    values
}

fn percent_decode(text: &str) -> String {
    let bytes = text.as_bytes();
    let mut out = Vec::new();
    let mut i = 0;
    while i < bytes.len() {
        if bytes[i] == b'%' && i + 2 < bytes.len() {
            out.push(u8::from_str_radix(&text[i + 1..i + 3], 16).unwrap());
            i += 3;
        } else {
            out.push(bytes[i]);
            i += 1;
        }
    }
    String::from_utf8(out).unwrap()
}

fn unescape(text: &str) -> String {
    text.replace("&#38;", "&")
        .replace("&amp;", "&")
        .replace("&#39;", "'")
        .replace("&quot;", "\"")
        .replace("&#34;", "\"")
}

/// Checks that every href/src of every page but 404.html (absolute under `--site-url` by
/// design) is relative and names a file of the site.
fn assert_links_resolve(site: &Path) {
    let files = tree(site);
    let mut checked = 0;
    for (path, bytes) in &files {
        if !path.ends_with(".html") || path == "404.html" {
            continue;
        }
        checked += assert_page_links_resolve(&files, path, &String::from_utf8(bytes.clone()).unwrap());
    }
    assert!(checked > 50, "only {checked} links checked");
}

/// Checks that every href/src of the page at `path` (with its `html`) is relative and names a
/// file of the site (`files`), and that a `#fragment` of the page itself names one of its ids;
/// returns how many links named a file.
fn assert_page_links_resolve(files: &BTreeMap<String, Vec<u8>>, path: &str, html: &str) -> usize {
    let page_dir = Path::new(path).parent().unwrap().to_path_buf();
    let mut checked = 0;
    for link in attribute_values(html, "href").into_iter().chain(attribute_values(html, "src")) {
        let link = unescape(link);
        if link.starts_with("https://") || link.starts_with("http://") || link.starts_with("mailto:") {
            continue;
        }
        assert!(!link.starts_with('/'), "{path}: absolute link {link}");
        let target = link.split('#').next().unwrap();
        if target.is_empty() {
            let id = &link[1..];
            assert!(attribute_values(html, "id").contains(&id), "{path}: no element with id {id}");
            continue;
        }
        let mut resolved = page_dir.clone();
        for part in percent_decode(target).split('/') {
            match part {
                ".." => assert!(resolved.pop() || resolved.as_os_str().is_empty(), "{path}: {link} leaves the site"),
                "." | "" => {}
                other => resolved.push(other),
            }
        }
        let key = resolved.to_string_lossy().replace('\\', "/");
        assert!(files.contains_key(&key), "{path}: broken link {link} -> {key}");
        checked += 1;
    }
    checked
}

/// Issue 16: every link of every run page of the bundled runs names a file the site publishes
/// (the seed-format files, the charts and their data, other pages, the archived inputs
/// published as evidence) or an element of the page.
#[test]
fn run_pages_of_the_bundled_runs_link_only_to_files_of_the_site() {
    let dir = tempfile::tempdir().unwrap();
    let runs = dir.path().join("runs");
    crate::common::copy_tree(&Path::new(env!("CARGO_MANIFEST_DIR")).join("runs"), &runs);
    let out = dir.path().join("site");
    assert!(build(&runs, &out, &[]).status.success());
    let files = tree(&out);
    let mut pages = 0;
    for (path, bytes) in files.iter().filter(|(p, _)| p.starts_with("runs/") && p.ends_with("/index.html")) {
        let html = String::from_utf8(bytes.clone()).unwrap();
        assert!(assert_page_links_resolve(&files, path, &html) > 20, "{path}");
        let block = &html[html.find("<section id=\"files\">").unwrap()..];
        let block = &block[..block.find("</section>").unwrap()];
        let (published, archived) = block.split_at(block.find("<caption>Evidence:").unwrap());
        let run_dir = path.trim_end_matches("index.html");
        // Every file of the run's folder on the site but its page and SVGs is listed, linked:
        // the evidence (its archived inputs) in the evidence table.
        for file in files.keys().filter_map(|f| f.strip_prefix(run_dir)) {
            let link = format!("<a href=\"{file}\">");
            if file.starts_with("evidence/") {
                assert!(archived.contains(&link), "{path}: {file} not in the evidence list");
            } else if file != "index.html" && !file.ends_with(".svg") {
                assert!(published.contains(&link), "{path}: {file} not listed");
            }
        }
        assert!(archived.contains("<a href=\"evidence/manifest.txt\">manifest.txt</a>"), "{path}");
        pages += 1;
    }
    assert_eq!(pages, fs::read_dir(&runs).unwrap().filter(|e| e.as_ref().unwrap().path().is_dir()).count());
}

#[test]
fn every_link_and_image_resolves_to_a_file() {
    let (dir, runs) = runs_dir(&[]);
    let out = dir.path().join("site");
    assert!(build(&runs, &out, &[]).status.success());
    assert_links_resolve(&out);
    for required in ["index.html", "404.html", ".nojekyll", "data/runs.json", "static/style.css", "static/table.js"] {
        assert!(out.join(required).is_file(), "{required}");
    }
    for section in ["async", "decomposition", "fragmentation", "decode", "nccl-tests", "numerics"] {
        assert!(out.join(format!("sections/{section}.html")).is_file(), "{section}");
    }
}

/// 404.html is served for any missing URL, so its links are absolute under `--site-url`;
/// changing the prefix rebuilds it even when every run comes from the cache.
#[test]
fn the_404_page_links_under_the_site_url() {
    let (dir, runs) = runs_dir(&["synth-basic"]);
    let out = dir.path().join("site");
    assert!(build(&runs, &out, &[]).status.success());
    let not_found = || fs::read_to_string(out.join("404.html")).unwrap();
    assert!(not_found().contains("href=\"/static/style.css\""), "{}", not_found());
    assert!(build(&runs, &out, &["--site-url", "nccl-report"]).status.success());
    let page = not_found();
    assert!(page.contains("href=\"/nccl-report/static/style.css\""), "{page}");
    assert!(page.contains("href=\"/nccl-report/index.html\""), "{page}");
    for link in attribute_values(&page, "href").into_iter().filter(|l| !l.starts_with('#')) {
        assert!(link.starts_with("/nccl-report/"), "{link}");
    }
    let before = tree(&out);
    let again = build(&runs, &out, &["--site-url", "/other/path/"]);
    assert!(text(&again).contains("1 from cache"), "{}", text(&again));
    assert!(not_found().contains("href=\"/other/path/index.html\""), "{}", not_found());
    assert!(!not_found().contains("nccl-report/"));
    // Every other page is relative: the prefix changes nothing else.
    let after = tree(&out);
    for (path, bytes) in before.iter().filter(|(p, _)| p.as_str() != "404.html" && !p.starts_with('.')) {
        assert_eq!(after.get(path), Some(bytes), "{path}");
    }
    for bad in ["/a b/", "/x\"y/", "/<p>/", "https://example.org/", "/a/../b/", "/%20/"] {
        let output = build(&runs, &out, &["--site-url", bad]);
        assert_eq!(output.status.code(), Some(2), "{bad}: {}", text(&output));
        assert!(text(&output).contains("site URL"), "{bad}: {}", text(&output));
    }
    assert!(not_found().contains("/other/path/"), "a refused prefix leaves the site as it was");
}

#[test]
fn cross_run_pages_come_in_shards_of_months() {
    let (dir, runs) = runs_dir(&[]);
    let (paged, whole) = (dir.path().join("paged"), dir.path().join("whole"));
    assert!(build(&runs, &paged, &["--page-size", "3"]).status.success());
    assert!(build(&runs, &whole, &[]).status.success());
    assert_links_resolve(&paged);
    let json = |site: &Path, rel: &str| -> serde_json::Value {
        serde_json::from_str(&fs::read_to_string(site.join(rel)).unwrap()).unwrap()
    };
    // 8 runs in parts of at most 3 runs of each month, each with its index and section pages.
    let index = json(&paged, "data/runs.json");
    let shards = index["shards"].as_array().unwrap();
    assert!(shards.len() >= 3, "{index}");
    let names: Vec<String> = shards
        .iter()
        .map(|s| s["path"].as_str().unwrap().trim_start_matches("data/runs/").trim_end_matches(".json").to_string())
        .collect();
    for name in &names {
        for page in [format!("pages/{name}.html"), format!("sections/decode-{name}.html")] {
            assert!(paged.join(&page).is_file(), "{page}");
        }
    }
    assert_eq!(fs::read_dir(paged.join("pages")).unwrap().count(), names.len());
    assert!(!whole.join("pages").exists(), "one page of runs has no shard pages");
    let first = fs::read_to_string(paged.join("index.html")).unwrap();
    assert!(first.contains("Runs 1–3 of 8, newest first."), "{first}");
    let shard_page = fs::read_to_string(paged.join(format!("pages/{}.html", names[0]))).unwrap();
    assert!(shard_page.contains(&format!("part {}:", shards[0]["part"])), "{shard_page}");

    // Every run is on exactly one shard page, in the single page's order.
    let run_links = |page: &Path| -> Vec<String> {
        let html = fs::read_to_string(page).unwrap();
        let table = &html[html.find("<table").unwrap()..];
        attribute_values(table, "href")
            .into_iter()
            .filter(|h| h.contains("runs/") && h.ends_with("/index.html"))
            .map(|h| h.trim_start_matches("../").to_string())
            .collect()
    };
    let all_pages: Vec<String> =
        names.iter().flat_map(|name| run_links(&paged.join(format!("pages/{name}.html")))).collect();
    assert_eq!(all_pages.len(), 8);
    assert_eq!(all_pages, run_links(&whole.join("index.html")));

    // The shards of runs.json hold the same runs in the same order, and the run folders do
    // not depend on the paging.
    let entries = |site: &Path| -> Vec<serde_json::Value> {
        let index = json(site, "data/runs.json");
        index["shards"]
            .as_array()
            .unwrap()
            .iter()
            .flat_map(|s| json(site, s["path"].as_str().unwrap())["runs"].as_array().unwrap().clone())
            .collect()
    };
    assert_eq!(entries(&paged), entries(&whole));
    let (paged_tree, whole_tree) = (tree(&paged), tree(&whole));
    for (path, bytes) in whole_tree.iter().filter(|(p, _)| p.starts_with("runs/")) {
        assert_eq!(&paged_tree[path], bytes, "{path}");
    }
    // A rebuild carries every page over; another page size renders them again (in place:
    // the shard pages that are gone are removed).
    let again = build(&runs, &paged, &["--page-size", "3"]);
    assert!(text(&again).contains("8 from cache"), "{}", text(&again));
    assert_eq!(tree(&paged), paged_tree);
    let resized = build(&runs, &paged, &["--page-size", "100"]);
    assert!(text(&resized).contains("in place"), "{}", text(&resized));
    assert_eq!(tree(&paged), whole_tree);
    assert!(!build(&runs, &paged, &["--page-size", "0"]).status.success());
}

/// The top navigation's link of the page's own place (index pages, every page of a section)
/// says `aria-current="page"`, and no other; every page starts with a skip link to `<main>`.
#[test]
fn navigation_marks_the_current_page_and_skips_to_content() {
    let (dir, runs) = runs_dir(&[]);
    let out = dir.path().join("site");
    assert!(build(&runs, &out, &["--page-size", "3"]).status.success());
    let current = |html: &str| -> Vec<String> {
        let nav = &html[html.find("<nav aria-label=\"site\">").unwrap()..];
        let nav = &nav[..nav.find("</nav>").unwrap()];
        tags(nav).into_iter().filter(|t| t.contains(" aria-current=\"page\"")).map(str::to_string).collect()
    };
    let mut pages = 0;
    for (path, bytes) in tree(&out).iter().filter(|(p, _)| p.ends_with(".html")) {
        let html = String::from_utf8(bytes.clone()).unwrap();
        let expected = if path == "index.html" || path.starts_with("pages/") {
            Some("index.html\"".to_string())
        } else if path == "regressions.html" {
            Some("regressions.html\"".to_string())
        } else if let Some(name) = path.strip_prefix("sections/") {
            // sections/<slug>.html or sections/<slug>-<YYYY-MM|undated>-<part>.html
            let stem = name.trim_end_matches(".html");
            let slugs = ["numerics", "nccl-tests", "decode", "fragmentation", "async", "decomposition"];
            let slug = slugs.iter().filter(|s| stem.starts_with(*s)).max_by_key(|s| s.len()).unwrap();
            Some(format!("sections/{slug}.html\""))
        } else {
            None
        };
        let marked = current(&html);
        match &expected {
            Some(href) => assert!(marked.len() == 1 && marked[0].contains(href.as_str()), "{path}: {marked:?}"),
            None => assert!(marked.is_empty(), "{path}: {marked:?}"),
        }
        let body = &html[html.find("<body>").unwrap() + "<body>".len()..];
        assert!(body.starts_with("\n<a class=\"skip-link\" href=\"#content\">Skip to content</a>"), "{path}");
        assert_eq!(html.matches("<main id=\"content\">").count(), 1, "{path}");
        pages += 1;
    }
    assert!(pages > 20, "{pages} pages");
    assert!(fs::read_dir(out.join("sections"))
        .unwrap()
        .flatten()
        .any(|e| e.file_name().to_string_lossy().starts_with("decode-20")));
    let css = fs::read_to_string(Path::new(env!("CARGO_MANIFEST_DIR")).join("static/style.css")).unwrap();
    assert!(css.contains(".skip-link:focus"), "the skip link shows on focus");
}

/// The run page's contents list names its parts in the order the page shows them.
#[test]
fn the_run_page_contents_follow_the_page_order() {
    let (dir, runs) = runs_dir(&["synth-basic"]);
    let out = dir.path().join("site");
    assert!(build(&runs, &out, &[]).status.success());
    let html = fs::read_to_string(out.join("runs/synth-basic/index.html")).unwrap();
    let toc = &html[html.find("<nav class=\"toc\"").unwrap()..];
    let toc = &toc[..toc.find("</nav>").unwrap()];
    let ids: Vec<&str> = attribute_values(toc, "href").into_iter().map(|h| h.trim_start_matches('#')).collect();
    assert!(ids.len() > 10 && ids[..3] == ["baseline", "evidence", "diagnostics"], "{ids:?}");
    let positions: Vec<usize> = ids
        .iter()
        .map(|id| html.find(&format!(" id=\"{id}\"")).unwrap_or_else(|| panic!("no element with id {id}")))
        .collect();
    assert!(positions.windows(2).all(|w| w[0] < w[1]), "{ids:?} at {positions:?}");
    // Every block of the page is in the list.
    assert_eq!(html.matches("<section id=\"").count(), ids.len(), "{ids:?}");
}

#[test]
fn no_absolute_path_of_the_building_machine_appears() {
    let (dir, runs) = runs_dir(&[]);
    let out = dir.path().join("site");
    assert!(build(&runs, &out, &[]).status.success());
    let temp = dir.path().to_string_lossy().into_owned();
    let manifest = env!("CARGO_MANIFEST_DIR");
    for (path, bytes) in tree(&out) {
        let content = String::from_utf8_lossy(&bytes);
        assert!(!content.contains(&temp), "{path} holds the build folder path");
        assert!(!content.contains(manifest), "{path} holds the source path");
    }
}

/// The markup of every tag (`<a href=...>`), where an unsafe URL could act; escaped text
/// never holds a raw `<`, so what this finds are real tags.
fn tags(html: &str) -> Vec<&str> {
    html.match_indices('<')
        .filter_map(|(i, _)| {
            let rest = &html[i..];
            rest[1..]
                .starts_with(|c: char| c.is_ascii_alphabetic())
                .then(|| &rest[..rest.find('>').unwrap_or(rest.len())])
        })
        .collect()
}

const HOSTILE: &str = "<script>alert(1)</script>";

#[test]
fn hostile_run_ids_notes_and_manifest_values_are_escaped() {
    let (dir, runs) = runs_dir(&[]);
    let source = fs::read_dir(&runs).unwrap().next().unwrap().unwrap().path();
    let hostile_id = "x<script>alert(1)<\\script>\"'&";
    let hostile_id = hostile_id.replace('\\', "");
    let hostile_run = runs.join(&hostile_id);
    crate::common::copy_tree(&source, &hostile_run);
    let manifest = fs::read_to_string(hostile_run.join("manifest.txt")).unwrap();
    fs::write(
        hostile_run.join("manifest.txt"),
        manifest.replacen("hostname=", &format!("hostname={HOSTILE}<img src=x onerror=alert(2)>"), 1),
    )
    .unwrap();
    fs::write(
        hostile_run.join("NOTES.md"),
        format!("# Notes\n\n{HOSTILE}\n\n<iframe src=\"javascript:alert(3)\"></iframe>\n\n[click](javascript:alert(4)) [fine](https://example.org)\n"),
    )
    .unwrap();
    fs::write(runs.join("NOTES.md"), format!("Site notes {HOSTILE} [x](vbscript:msgbox)\n")).unwrap();
    let out = dir.path().join("site");
    let output = build(&runs, &out, &[]);
    assert!(output.status.success(), "{}", text(&output));
    let mut pages = 0;
    for (path, bytes) in tree(&out) {
        if !(path.ends_with(".html") || path.ends_with(".svg")) {
            continue;
        }
        pages += 1;
        let content = String::from_utf8_lossy(&bytes).to_lowercase();
        // The one script of the site: the optional table enhancer, from the site itself.
        let content = ["", "../", "../../", "/"]
            .iter()
            .fold(content, |c, root| c.replace(&format!("<script src=\"{root}static/table.js\" defer></script>"), ""));
        assert!(!content.contains("<script"), "{path}: unescaped <script");
        assert!(!content.contains("<iframe"), "{path}: unescaped <iframe");
        assert!(!content.contains("<img src=x"), "{path}: unescaped <img");
        for tag in tags(&content) {
            for scheme in ["javascript:", "vbscript:", "data:"] {
                assert!(!tag.contains(scheme), "{path}: {scheme} inside the tag {tag}");
            }
        }
    }
    assert!(pages > 10);
    let run_dir = out.join("runs").join(&hostile_id);
    let page = fs::read_to_string(run_dir.join("index.html")).unwrap();
    assert!(page.contains("&lt;script&gt;alert(1)&lt;/script&gt;"), "the hostile text is shown, escaped");
    assert!(
        ["&lt;img src=x onerror=alert(2)&gt;", "&#60;img src=x onerror=alert(2)&#62;"].iter().any(|e| page.contains(e)),
        "the hostile host name is shown, escaped"
    );
    assert!(page.contains("href=\"https://example.org\""));
    let index = fs::read_to_string(out.join("index.html")).unwrap();
    assert!(
        index.contains("runs/x%3Cscript%3Ealert%281%29%3Cscript%3E%22%27%26/index.html"),
        "run id is URL-encoded in links"
    );
    assert_links_resolve(&out);
}

#[test]
fn run_ids_that_could_escape_are_skipped() {
    let (dir, runs) = runs_dir(&[]);
    let source = fs::read_dir(&runs).unwrap().next().unwrap().unwrap().path();
    crate::common::copy_tree(&source, &runs.join(".hidden"));
    crate::common::copy_tree(&source, &runs.join("bad\u{1b}[31mid"));
    let out = dir.path().join("site");
    let output = build(&runs, &out, &[]);
    assert!(output.status.success(), "{}", text(&output));
    assert!(text(&output).contains("not a valid run id"), "{}", text(&output));
    let json = crate::common::runs_json(&out).to_string();
    assert!(!json.contains(".hidden") && !json.contains("\\u001b"), "{json}");
}

#[test]
fn page_snapshots() {
    let names = ["synth-basic"];
    let (dir, runs) = runs_dir(&names);
    let out = dir.path().join("site");
    assert!(build(&runs, &out, &[]).status.success());
    // The version is redacted, so that a release does not rewrite every snapshot.
    let page = |path: &str| {
        let text = fs::read_to_string(out.join(path)).unwrap();
        let version = concat!("nccl-report ", env!("CARGO_PKG_VERSION"));
        text.replace(version, "nccl-report [version]")
    };
    insta::assert_snapshot!("index", page("index.html"));
    insta::assert_snapshot!("run_page", page("runs/synth-basic/index.html"));
    insta::assert_snapshot!("decode_section", page("sections/decode.html"));
    insta::assert_snapshot!("summary_md", page("runs/synth-basic/summary.md"));
}

fn git(dir: &Path, args: &[&str]) -> String {
    let output = std::process::Command::new("git").current_dir(dir).args(args).output().unwrap();
    assert!(output.status.success(), "git {args:?}: {}", String::from_utf8_lossy(&output.stderr));
    String::from_utf8_lossy(&output.stdout).trim().to_string()
}

#[test]
fn publish_commits_the_site_to_a_branch_and_pushes_it() {
    let (dir, runs) = runs_dir(&["synth-basic"]);
    let repo = dir.path().join("repo");
    let remote = dir.path().join("remote.git");
    fs::create_dir(&repo).unwrap();
    git(dir.path(), &["init", "--quiet", "--bare", remote.to_str().unwrap()]);
    git(&repo, &["init", "--quiet"]);
    git(&repo, &["-c", "user.name=t", "-c", "user.email=t@t", "commit", "--quiet", "--allow-empty", "-m", "init"]);
    git(&repo, &["remote", "add", "origin", remote.to_str().unwrap()]);
    let out = repo.join("site");
    assert!(build(&runs, &out, &[]).status.success());

    let publish = |args: &[&str]| {
        assert_cmd::Command::cargo_bin("nccl-report").unwrap().current_dir(&repo).args(args).output().unwrap()
    };
    let state = |repo: &Path| {
        ["rev-parse HEAD", "symbolic-ref HEAD", "status --porcelain --untracked-files=all", "diff --cached --name-only"]
            .map(|args| git(repo, &args.split(' ').collect::<Vec<_>>()))
    };
    let before = state(&repo);
    let output = publish(&["publish"]);
    assert!(output.status.success(), "{}", text(&output));
    let files = git(&remote, &["ls-tree", "-r", "--name-only", "gh-pages"]);
    assert!(files.lines().any(|f| f == "index.html"), "{files}");
    assert!(files.lines().any(|f| f == ".nojekyll"), "{files}");
    assert!(files.lines().any(|f| f == "runs/synth-basic/summary.md"), "{files}");
    assert!(!files.contains(".nccl-report-site"), "{files}");
    // The user's branch, index and working tree are untouched.
    assert_eq!(git(&repo, &["log", "--format=%s", "-1"]), "init");
    assert_eq!(state(&repo), before);
    // Publishing again adds a commit on top of the previous one.
    let output = publish(&["publish", "--branch", "gh-pages"]);
    assert!(output.status.success(), "{}", text(&output));
    assert_eq!(git(&remote, &["rev-list", "--count", "gh-pages"]), "2");

    let empty = dir.path().join("empty");
    fs::create_dir(&empty).unwrap();
    let output = assert_cmd::Command::cargo_bin("nccl-report")
        .unwrap()
        .current_dir(&repo)
        .args(["publish", "--out", empty.to_str().unwrap()])
        .output()
        .unwrap();
    assert!(!output.status.success());
    assert!(text(&output).contains("not a site built by nccl-report"), "{}", text(&output));
}

#[test]
fn serve_answers_pages_and_404() {
    use std::io::{Read, Write};
    let (dir, runs) = runs_dir(&["synth-basic"]);
    let out = dir.path().join("site");
    assert!(build(&runs, &out, &[]).status.success());
    let port = std::net::TcpListener::bind("127.0.0.1:0").unwrap().local_addr().unwrap().port();
    let mut child = std::process::Command::new(assert_cmd::cargo::cargo_bin("nccl-report"))
        .args(["serve", "--out", out.to_str().unwrap(), "--port", &port.to_string()])
        .stderr(std::process::Stdio::null())
        .spawn()
        .unwrap();
    let get = |path: &str| -> Option<String> {
        let mut stream = std::net::TcpStream::connect(("127.0.0.1", port)).ok()?;
        stream.set_read_timeout(Some(std::time::Duration::from_secs(5))).ok()?;
        write!(stream, "GET {path} HTTP/1.0\r\nHost: localhost\r\n\r\n").ok()?;
        let mut response = String::new();
        stream.read_to_string(&mut response).ok()?;
        Some(response)
    };
    let mut index = None;
    for _ in 0..50 {
        index = get("/");
        if index.is_some() {
            break;
        }
        std::thread::sleep(std::time::Duration::from_millis(100));
    }
    let missing = get("/nope.html");
    // A file beside the site, which a path climbing out of it would reach.
    std::fs::write(dir.path().join("secret.txt"), "SECRET-BESIDE-THE-SITE").unwrap();
    let escapes: Vec<String> =
        ["/../secret.txt", "/%2e%2e/secret.txt", "/runs/../../secret.txt"].iter().filter_map(|p| get(p)).collect();
    child.kill().unwrap();
    child.wait().unwrap();
    let index = index.expect("server answered");
    assert!(index.starts_with("HTTP/1.0 200") || index.starts_with("HTTP/1.1 200"), "{index}");
    assert!(index.contains("NCCL experiment runs"));
    assert!(missing.unwrap().contains(" 404 "));
    assert_eq!(escapes.len(), 3, "every request answered");
    for escape in &escapes {
        assert!(escape.contains(" 404 ") && !escape.contains("SECRET-BESIDE-THE-SITE"), "{escape}");
    }
}

/// Issue 13: every series of every chart is identifiable. With all fixture runs on the
/// section pages, no chart has more than 6 series (so colour + marker pairs cannot repeat:
/// the palette has 8 colours), no legend says "+N more" and no label is cut with "…".
#[test]
fn charts_keep_every_series_identifiable() {
    let (dir, runs) = runs_dir(&[]);
    let out = dir.path().join("site");
    assert!(build(&runs, &out, &[]).status.success());
    let mut charts = 0;
    for (path, bytes) in tree(&out) {
        if path.ends_with(".svg") {
            let svg = String::from_utf8(bytes.clone()).unwrap();
            assert!(!svg.contains("more</text>") && !svg.contains(" more\n</text>"), "{path}: {svg}");
            assert!(!svg.contains('…'), "{path}: a label is cut");
            charts += 1;
        }
        if path.ends_with("charts.csv") || (path.ends_with(".csv") && path.contains("/charts/")) {
            // One CSV a page: its charts' series by the chart column.
            let mut series: std::collections::BTreeMap<String, std::collections::BTreeSet<String>> = Default::default();
            for record in csv::Reader::from_reader(bytes.as_slice()).records() {
                let record = record.unwrap();
                series.entry(record[0].to_string()).or_default().insert(record[1].to_string());
            }
            assert!(!series.is_empty(), "{path}");
            for (chart, names) in series {
                assert!(names.len() <= 6, "{path}, {chart}: {} series: {names:?}", names.len());
            }
        }
    }
    assert!(charts > 10, "{charts} charts");
    // Decode series are per case folder (two folders of one TP size are two lines).
    let decode: Vec<String> = tree(&out.join("sections/charts"))
        .into_iter()
        .filter(|(name, _)| name.ends_with(".csv"))
        .flat_map(|(_, bytes)| {
            let csv = String::from_utf8(bytes).unwrap();
            let charts: std::collections::BTreeSet<String> =
                csv.lines().filter_map(|l| l.split(',').next()).map(str::to_string).collect();
            charts
                .into_iter()
                .filter(|c| c.starts_with("cfg-") && c.ends_with("-decode-per-call"))
                .map(|c| crate::common::chart_rows(&csv, &c))
                .collect::<Vec<_>>()
        })
        .collect();
    assert!(decode.iter().any(|d| d.contains("TP=2 · world2_decode") && d.contains("· world4_full")), "{decode:?}");
}

/// Issue 13: a one-cycle run shows no P95, CV or "slower in every cycle" that looks
/// measured, and its charts draw no whiskers.
#[test]
fn a_one_cycle_run_shows_no_spread_numbers() {
    let (dir, runs) = runs_dir(&["synth-one-cycle"]);
    let out = dir.path().join("site");
    assert!(build(&runs, &out, &[]).status.success());
    let page = fs::read_to_string(out.join("runs/synth-one-cycle/index.html")).unwrap();
    assert!(page.contains("n/a (n = 1: no spread)"), "{page}");
    // Every cell under a P95 or CV header says n/a.
    let mut spread_columns: Vec<usize> = Vec::new();
    let mut checked = 0;
    for line in page.lines() {
        if line.contains("<thead>") {
            let heads: Vec<&str> = line.split("</th>").collect();
            spread_columns =
                (0..heads.len()).filter(|&i| heads[i].ends_with("CV") || heads[i].contains("P95")).collect();
        } else if line.starts_with("<tr><td") {
            let cells: Vec<&str> = line.split("</td>").collect();
            for &i in &spread_columns {
                assert!(cells[i].ends_with("n/a (n = 1: no spread)"), "column {i} of {line}");
                checked += 1;
            }
        }
    }
    assert!(checked > 10, "{checked}");
    let charts = fs::read_to_string(out.join("runs/synth-one-cycle/charts.csv")).unwrap();
    let csv = crate::common::chart_rows(&charts, "decode-per-call");
    assert!(!csv.is_empty(), "{charts}");
    for line in csv.lines() {
        let fields: Vec<&str> = line.rsplitn(4, ',').collect();
        assert_eq!((fields[1], fields[2]), ("", ""), "whiskers from one cycle: {line}");
    }
}

/// Issue 13: a section page with runs of two configurations (another dtype; the cycles alone
/// would not make another configuration) charts each configuration apart and shows both
/// configurations with their full keys.
#[test]
fn section_page_with_two_configurations() {
    let (dir, runs) = runs_dir(&["synth-basic", "synth-one-cycle"]);
    let manifest = runs.join("synth-one-cycle/manifest.txt");
    let text = fs::read_to_string(&manifest).unwrap();
    assert!(text.contains("\ndtype="), "{text}");
    let edited: String = text
        .lines()
        .map(|l| if l.starts_with("dtype=") { "dtype=BF16 everywhere\n".to_string() } else { format!("{l}\n") })
        .collect();
    fs::write(&manifest, edited).unwrap();
    let out = dir.path().join("site");
    assert!(build(&runs, &out, &[]).status.success());
    let html = fs::read_to_string(out.join("sections/decode.html")).unwrap();
    let html = html.replace(concat!("nccl-report ", env!("CARGO_PKG_VERSION")), "nccl-report [version]");
    // One panel per configuration, its charts named by the configuration's key digits.
    let panels: Vec<String> = tree(&out.join("sections/charts"))
        .into_keys()
        .filter(|name| name.starts_with("cfg-") && name.ends_with("-decode-per-call.svg"))
        .collect();
    assert_eq!(panels.len(), 2, "{panels:?}");
    for id in ["synth-basic", "synth-one-cycle"] {
        let run = fs::read_to_string(out.join(format!("runs/{id}/index.html"))).unwrap();
        assert!(run.contains("<h2 id=\"configuration\"") || run.contains("id=\"configuration\""), "{run}");
    }
    insta::assert_snapshot!("section_two_configurations", html);
}

/// Issue 26: every configuration with ok runs is charted on its section pages (one panel per
/// configuration, on the page that lists its newest ok run), however many runs and pages:
/// the fixture runs and the bundled runs, two runs a page.
#[test]
fn every_configuration_with_ok_runs_is_charted_on_its_section_pages() {
    let (dir, runs) = runs_dir(&[]);
    crate::common::copy_tree(&Path::new(env!("CARGO_MANIFEST_DIR")).join("runs"), &runs);
    let out = dir.path().join("site");
    let output = build(&runs, &out, &["--page-size", "2"]);
    assert!(output.status.success(), "{}", text(&output));
    let json = crate::common::runs_json(&out);
    let files = tree(&out);
    let pages_of = |slug: &str| -> Vec<String> {
        files
            .keys()
            .filter(|p| {
                p.strip_prefix(&format!("sections/{slug}"))
                    .is_some_and(|rest| rest == ".html" || (rest.starts_with('-') && rest.ends_with(".html")))
            })
            .map(|p| String::from_utf8(files[p].clone()).unwrap())
            .collect()
    };
    let mut checked = 0;
    let mut configurations = std::collections::BTreeSet::new();
    for run in json["runs"].as_array().unwrap().iter().filter(|r| r["status"] == "ok") {
        let id = run["run_id"].as_str().unwrap();
        let page = String::from_utf8(files[&format!("runs/{id}/index.html")].clone()).unwrap();
        let at = page.find("<p>Configuration: ").expect("the run page names its configuration") + 18;
        let label = page[at..at + page[at..].find(".</p>").unwrap()].to_string();
        configurations.insert(label.clone());
        for section in run["facts"]["sections"].as_array().unwrap() {
            let slug = match section.as_str().unwrap() {
                "contracts" | "numerics" => continue,
                slug => slug,
            };
            let charted =
                pages_of(slug).iter().any(|html| html.contains(&format!("<figcaption>Configuration {label}: ")));
            assert!(charted, "configuration {label} (run {id}) has no chart on the {slug} pages");
            checked += 1;
        }
    }
    assert!(checked > 20 && configurations.len() >= 3, "{checked} {configurations:?}");
}

/// Issue 26: a note in `runs/notes/` scoped with `applies_to:` front matter is shown on the
/// pages of the runs it names (by id or configuration label glob) and nowhere else; a note
/// without front matter is about every run; the notes folder is not taken for a run.
#[test]
fn scoped_notes_show_only_on_the_runs_they_apply_to() {
    let (dir, runs) = runs_dir(&["synth-basic", "synth-one-cycle"]);
    fs::create_dir(runs.join("notes")).unwrap();
    fs::write(runs.join("notes/a-one-cycle.md"), "---\napplies_to: [\"*-one-*\"]\n---\nONLY-ONE-CYCLE note\n").unwrap();
    fs::write(runs.join("notes/b-everyone.md"), "EVERY-RUN note\n").unwrap();
    fs::write(runs.join("notes/c-nobody.md"), "---\napplies_to:\n  - \"9x V100 *\"\n---\nNOBODY note\n").unwrap();
    let out = dir.path().join("site");
    let output = build(&runs, &out, &[]);
    assert!(output.status.success() && !text(&output).contains("notes:"), "{}", text(&output));
    let page = |rel: &str| fs::read_to_string(out.join(rel)).unwrap();
    let one = page("runs/synth-one-cycle/index.html");
    let basic = page("runs/synth-basic/index.html");
    assert!(one.contains("ONLY-ONE-CYCLE note") && one.contains("(about *-one-*)"), "{one}");
    assert!(!basic.contains("ONLY-ONE-CYCLE"), "{basic}");
    for html in [&one, &basic] {
        assert!(html.contains("EVERY-RUN note") && !html.contains("NOBODY"));
    }
    assert!(page("index.html").contains("EVERY-RUN note") && !page("index.html").contains("ONLY-ONE-CYCLE"));
    assert!(!out.join("runs/notes").exists());
}

/// Issue 26: every archived input is published beside its run page, byte for byte as stored
/// (a `.gz` stays gzipped) and linked with its size; a file that sets a secret-named variable
/// is withheld and says why; `--no-evidence` leaves them all out. A long artifact is shown
/// once: linked to its evidence copy, or on the page without evidence.
#[test]
fn archived_inputs_are_published_as_evidence_unless_withheld() {
    let (dir, runs) = runs_dir(&["synth-gzip-logs"]);
    let run = runs.join("synth-gzip-logs");
    let long = "GPU 00000000:18:00.0\n    Product Name : NVIDIA H200\n".repeat(60);
    fs::write(run.join("artifacts/nvidia_smi_q.txt"), &long).unwrap();
    fs::write(run.join("raw/world4_full.stdout"), "step 1\nexport HF_TOKEN=hf_supersecret\n").unwrap();
    fs::write(run.join("artifacts/evil.html"), "<script>alert(1)</script>").unwrap();
    // Artifacts are also shown on the run page: set with blanks, or as JSON, a secret is
    // neither published nor shown.
    fs::write(run.join("artifacts/env.json"), "{\"HF_TOKEN\": \"hf_jsonsecret\"}\n").unwrap();
    fs::write(run.join("artifacts/cfg.txt"), "HF_TOKEN = hf_spacedsecret\n").unwrap();
    let out = dir.path().join("site");
    let output = build(&runs, &out, &["--timings"]);
    assert!(output.status.success(), "{}", text(&output));
    let site = tree(&out);
    let inputs = tree(&run);
    let page = String::from_utf8(site["runs/synth-gzip-logs/index.html"].clone()).unwrap();
    let mut published = 0;
    for (rel, bytes) in &inputs {
        let copy = site.get(&format!("runs/synth-gzip-logs/evidence/{rel}"));
        if rel == "artifacts/evil.html" {
            assert!(copy.is_none() && page.contains("withheld: a .html file could be taken for a page"), "{page}");
            continue;
        }
        if rel == "artifacts/env.json" || rel == "artifacts/cfg.txt" {
            assert!(copy.is_none(), "{rel} sets a secret: not published");
            assert!(page.contains(&format!("withheld: line 1 of {rel} sets a variable named like a secret")), "{rel}");
            continue;
        }
        if rel == "raw/world4_full.stdout" {
            assert!(copy.is_none(), "a file setting a secret is not published");
            assert!(page.contains("withheld: line 2 of raw/world4_full.stdout sets a variable named like a secret"));
            continue;
        }
        assert_eq!(copy, Some(bytes), "{rel} published as stored");
        assert!(page.contains(&format!("<a href=\"evidence/{rel}\">{rel}</a>")), "{rel} linked");
        published += 1;
    }
    assert!(published > 10 && inputs.keys().any(|p| p.ends_with(".log.gz")), "{published}");
    for secret in [&b"hf_supersecret"[..], b"hf_jsonsecret", b"hf_spacedsecret"] {
        let found = site.values().any(|b| b.windows(secret.len()).any(|w| w == secret));
        assert!(!found, "{} is nowhere", String::from_utf8_lossy(secret));
    }
    assert!(!page.contains("<h3>artifacts/nvidia_smi_q.txt</h3>"), "a long artifact is not repeated on the page");
    assert!(page.contains("Longer artifacts, as recorded (evidence copies)"), "{page}");

    let bare = dir.path().join("bare");
    let bare_output = build(&runs, &bare, &["--no-evidence", "--timings"]);
    assert!(bare_output.status.success());
    let bare_site = tree(&bare);
    // Each copy written once: the build with evidence writes those files more, no others.
    let written = |output: &std::process::Output| {
        let said = text(output);
        let json: serde_json::Value = serde_json::from_str(said.lines().find(|l| l.starts_with('{')).unwrap()).unwrap();
        json["files_written"].as_u64().unwrap()
    };
    assert_eq!(written(&output) - written(&bare_output), published as u64);
    assert_eq!(site.len() - bare_site.len(), published);
    assert!(!bare_site.keys().any(|p| p.contains("/evidence/")));
    let page = String::from_utf8(bare_site["runs/synth-gzip-logs/index.html"].clone()).unwrap();
    assert!(page.contains("In the archive only") && page.contains("--no-evidence"));
    assert!(
        page.contains("<h3>artifacts/nvidia_smi_q.txt</h3>\n<pre>GPU 00000000:18:00.0"),
        "shown where it is the only copy"
    );
}

/// The run page and `runs.json` list diagnostics in the one order (worst severity first, then
/// file, line, code, message), archived-output differences included: a `summary.csv` warning
/// found after summarizing does not land between two warnings of `raw/`.
#[test]
fn diagnostics_are_listed_in_one_order() {
    let (dir, runs) = runs_dir(&["synth-contract-failure"]);
    let run = runs.join("synth-contract-failure");
    for twin in ["raw/results/world2_decode/rank0_decode.csv", "raw/results/world4_full/rank0_async.csv"] {
        let mut encoder = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::fast());
        std::io::Write::write_all(&mut encoder, &fs::read(run.join(twin)).unwrap()).unwrap();
        fs::write(run.join(format!("{twin}.gz")), encoder.finish().unwrap()).unwrap();
    }
    fs::write(run.join("summary.csv"), "x\n").unwrap();
    let out = dir.path().join("site");
    let output = build(&runs, &out, &[]);
    assert!(output.status.success(), "{}", text(&output));

    let expected = [
        ("failure", "NR301", "raw/results/world4_full/rank3_contracts.csv"),
        ("warning", "NR105", "raw/results/world2_decode/rank0_decode.csv.gz"),
        ("warning", "NR105", "raw/results/world4_full/rank0_async.csv.gz"),
        ("warning", "NR341", "summary.csv"),
    ];
    let html = fs::read_to_string(out.join("runs/synth-contract-failure/index.html")).unwrap();
    let table = &html[html.find("<caption>Diagnostics").unwrap()..];
    let table = &table[..table.find("</tbody>").unwrap()];
    let rows: Vec<Vec<&str>> = table
        .split("<tr>")
        .skip(2)
        .map(|row| row.split("</td>").filter_map(|cell| cell.rsplit_once('>').map(|(_, text)| text)).collect())
        .collect();
    let listed: Vec<(&str, &str, &str)> = rows.iter().map(|r| (r[0], r[1], r[2])).collect();
    assert_eq!(listed, expected);

    let json = crate::common::runs_json(&out);
    let listed: Vec<(&str, &str, &str)> = json["runs"][0]["diagnostics"]
        .as_array()
        .unwrap()
        .iter()
        .map(|d| (d["severity"].as_str().unwrap(), d["code"].as_str().unwrap(), d["file"].as_str().unwrap()))
        .collect();
    assert_eq!(listed, expected);
}
