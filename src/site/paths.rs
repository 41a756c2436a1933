//! Every path of the built site, from the site root: the one place that knows the layout
//! (`index.html`, `pages/<shard>.html`, `sections/<slug>[-<shard>].html`,
//! `data/runs[/<shard>].json`, `data/cases/month=<month>/`, `runs/<id>/...`,
//! `compare/<base>..<cand>.html` with dots escaped so names never collide, `charts/`).
//! Links from a page add the page's root prefix (`""` or `"../"`). Uses `crate::core::format` only.

use crate::core::format::url_segment;

/// The `--site-url` prefix normalized to start and end with `/` (`nccl-report` ->
/// `/nccl-report/`, `` -> `/`), empty segments dropped (so never `//host`); refused when it
/// holds a character that would need escaping in a URL or an HTML attribute, or a `.`/`..`
/// segment.
pub(crate) fn site_url(text: &str) -> Result<String, String> {
    if let Some(c) = text.chars().find(|c| !(c.is_ascii_alphanumeric() || "-._~/".contains(*c))) {
        return Err(format!(
            "{c:?} is not allowed in a site URL path: use letters, digits, '-', '.', '_', '~' and '/' (e.g. /nccl-report/)"
        ));
    }
    let segments: Vec<&str> = text.split('/').filter(|s| !s.is_empty()).collect();
    if segments.iter().any(|s| *s == "." || *s == "..") {
        return Err("a site URL path has no '.' or '..' segment".to_string());
    }
    Ok(segments.iter().fold("/".to_string(), |url, s| format!("{url}{s}/")))
}

/// The first index page (`None`) or a shard's (`Some(name)`: `pages/2026-04-1.html`).
pub(crate) fn index(shard: Option<&str>) -> String {
    match shard {
        None => "index.html".to_string(),
        Some(name) => format!("pages/{name}.html"),
    }
}

/// Section `slug`'s first page (`None`) or a shard's (`sections/<slug>-2026-04-1.html`).
pub(crate) fn section(slug: &str, shard: Option<&str>) -> String {
    match shard {
        None => format!("sections/{slug}.html"),
        Some(name) => format!("sections/{slug}-{name}.html"),
    }
}

/// The top-level `runs.json`: the list of its shards.
pub(crate) const RUNS_JSON: &str = "data/runs.json";

/// A Parquet file of case-level results, in its month's Hive-style partition folder.
pub(crate) fn cases_file(month: &str, hash: &str) -> String {
    format!("data/cases/month={month}/part-{hash}.parquet")
}

/// A shard of `runs.json` (`data/runs/2026-04-1.json`).
pub(crate) fn runs_json_shard(name: &str) -> String {
    format!("data/runs/{name}.json")
}

/// The folder of the section pages' charts.
pub(crate) const SECTION_CHARTS: &str = "sections/charts";

/// A file in a run's folder (its page, its charts folder, its seed files).
pub(crate) fn run_file(id: &str, name: &str) -> String {
    format!("runs/{id}/{name}")
}

/// Where archived input `rel` (run-relative, as stored) of run `id` is published.
pub(crate) fn evidence_file(id: &str, rel: &str) -> String {
    format!("runs/{id}/evidence/{rel}")
}

/// A link to that file from the run's page (every segment URL-encoded).
pub(crate) fn evidence_link(rel: &str) -> String {
    let segments: Vec<String> = rel.split('/').map(url_segment).collect();
    format!("evidence/{}", segments.join("/"))
}

/// A link to a run's page from a page whose root prefix is `root` (the id URL-encoded).
pub(crate) fn run_link(root: &str, id: &str) -> String {
    format!("{root}runs/{}/index.html", url_segment(id))
}

/// A run id as it is written in a compare page name: `%` as `%25`, and a `.` that ends the
/// id or touches another `.` as `%2E`. Ids never start with `.`, so an escaped id neither
/// starts nor ends with `.` and holds no `..`: in `<base>..<cand>` the first `..` is the
/// separator, and `(a, b..c)` and `(a..b, c)` name two pages. Ids without such dots (the
/// seed's timestamps) are written as they are.
fn compare_id(id: &str) -> String {
    let chars: Vec<char> = id.chars().collect();
    let mut out = String::with_capacity(id.len());
    for (i, &c) in chars.iter().enumerate() {
        let dot_run = c == '.' && (i + 1 == chars.len() || chars[i + 1] == '.' || (i > 0 && chars[i - 1] == '.'));
        match c {
            '%' => out.push_str("%25"),
            '.' if dot_run => out.push_str("%2E"),
            other => out.push(other),
        }
    }
    out
}

/// The longest compare page file name written as `<base>..<cand>.html`; a longer one (ids
/// are up to 128 bytes, escaping can triple them, and a file name has at most 255) is
/// `<hash>.html`, the xxh3-64 of both ids.
const MAX_COMPARE_NAME: usize = 200;

/// The file name of the page comparing `cand` with `base`.
fn compare_name(base: &str, cand: &str) -> String {
    let name = format!("{}..{}", compare_id(base), compare_id(cand));
    if name.len() <= MAX_COMPARE_NAME {
        return format!("{name}.html");
    }
    let hash = xxhash_rust::xxh3::xxh3_64(format!("{base}\0{cand}").as_bytes());
    format!("{hash:016x}.html")
}

/// The page comparing run `cand` with its baseline `base`.
pub(crate) fn compare_page(base: &str, cand: &str) -> String {
    format!("compare/{}", compare_name(base, cand))
}

/// A link to that page from a page whose root prefix is `root` (the name URL-encoded).
pub(crate) fn compare_link(root: &str, base: &str, cand: &str) -> String {
    format!("{root}compare/{}", url_segment(&compare_name(base, cand)))
}

/// Whether `rel`, one of candidate `cand`'s own files, is one of its compare pages (against
/// any base): `<base>..<cand>.html` with an escaped base, or a hashed name (only the
/// candidate writes its compare pages, so a hashed name among its files is its own).
pub(crate) fn is_compare_page_of(rel: &str, cand: &str) -> bool {
    let Some(name) = rel.strip_prefix("compare/").and_then(|name| name.strip_suffix(".html")) else {
        return false;
    };
    let hashed = name.len() == 16 && name.bytes().all(|b| b.is_ascii_hexdigit());
    let named = name
        .strip_suffix(&compare_id(cand))
        .and_then(|base| base.strip_suffix(".."))
        .is_some_and(|base| !base.is_empty() && !base.contains("..") && !base.ends_with('.') && !base.contains('/'));
    hashed || named
}

/// A chart's SVG, relative to the page that shows it (in its `charts/` folder).
pub(crate) fn chart_svg(chart_id: &str) -> String {
    format!("charts/{chart_id}.svg")
}

/// The one CSV of the data of every chart of the page at `page` (its site path), a `chart`
/// column naming each chart's rows: `runs/<id>/charts.csv`, `sections/charts/<page>.csv`,
/// `history/<slug>/charts.csv` (one file a page, not one a chart: issue 27's footprint).
pub(crate) fn charts_csv(page: &str) -> String {
    let stem = page.strip_suffix(".html").unwrap_or(page);
    if let Some(dir) = stem.strip_suffix("/index") {
        return format!("{dir}/charts.csv");
    }
    match stem.strip_prefix("sections/") {
        Some(name) => format!("{SECTION_CHARTS}/{name}.csv"),
        None => format!("{stem}/charts.csv"),
    }
}

/// `charts_csv(page)` as the page links it (it lies in the page's folder or below).
pub(crate) fn charts_csv_href(page: &str) -> String {
    let csv = charts_csv(page);
    match page.rsplit_once('/') {
        Some((dir, _)) => csv[dir.len() + 1..].to_string(),
        None => csv,
    }
}

/// A configuration's history page slug: six hex digits of its key text's hash, as its label
/// ends (`key 3f2a91`).
pub(crate) fn history_slug(key_text: &str) -> String {
    format!("{:06x}", xxhash_rust::xxh3::xxh3_64(key_text.as_bytes()) >> 40)
}

/// `history/<slug>.html`, from the site root.
pub(crate) fn history_page(slug: &str) -> String {
    format!("history/{slug}.html")
}

/// The permalink anchor of a case (`case-decode-1-tokens-1-...-<hash>`): letters, digits and
/// `-` from its key, cut to 60 characters, and eight hex digits of the whole key's hash, so
/// two cases never share one.
pub(crate) fn case_anchor(case_key: &str) -> String {
    let readable: String = case_key
        .chars()
        .map(|c| if c.is_ascii_alphanumeric() { c.to_ascii_lowercase() } else { '-' })
        .collect::<String>()
        .split('-')
        .filter(|p| !p.is_empty())
        .collect::<Vec<_>>()
        .join("-");
    let cut: String = readable.chars().take(60).collect();
    format!("case-{cut}-{:08x}", xxhash_rust::xxh3::xxh3_64(case_key.as_bytes()) >> 32)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_page_has_one_charts_csv_in_its_folder() {
        let cases = [
            ("runs/r1/index.html", "runs/r1/charts.csv", "charts.csv"),
            ("sections/decode-2026-04-1.html", "sections/charts/decode-2026-04-1.csv", "charts/decode-2026-04-1.csv"),
            ("history/3f2a91.html", "history/3f2a91/charts.csv", "3f2a91/charts.csv"),
            ("regressions.html", "regressions/charts.csv", "regressions/charts.csv"),
        ];
        for (page, csv, href) in cases {
            assert_eq!((charts_csv(page), charts_csv_href(page)), (csv.to_string(), href.to_string()), "{page}");
        }
    }

    #[test]
    fn compare_page_names_never_collide() {
        assert_eq!(
            compare_page("20250101T000000Z", "20250102T000000Z"),
            "compare/20250101T000000Z..20250102T000000Z.html"
        );
        assert_eq!(compare_page("v1.2", "v1.3"), "compare/v1.2..v1.3.html");
        // (a, b..c) and (a..b, c): one file before, two now.
        let one = compare_page("a", "b..c");
        let two = compare_page("a..b", "c");
        assert_ne!(one, two);
        assert_eq!((one.as_str(), two.as_str()), ("compare/a..b%2E%2Ec.html", "compare/a%2E%2Eb..c.html"));
        let ids = ["a", "a.", "a..", "b", ".b", "a..b", "b..c", "a.b", "a%2E", "a%2E%2Eb", "x...y", "c"];
        let mut names = std::collections::BTreeSet::new();
        for base in ids {
            for cand in ids {
                assert!(names.insert(compare_page(base, cand)), "({base}, {cand}) collides");
                assert!(is_compare_page_of(&compare_page(base, cand), cand), "({base}, {cand})");
            }
        }
        assert_eq!(compare_link("../", "a..b", "c"), "../compare/a%252E%252Eb..c.html");
        let long = "x".repeat(128);
        let hashed = compare_page(&long, &long);
        assert!(hashed.len() < 40 && is_compare_page_of(&hashed, &long), "{hashed}");
        assert_ne!(hashed, compare_page(&long, &"y".repeat(128)));
    }

    #[test]
    fn site_urls_are_normalized_or_refused() {
        for (given, expected) in [
            ("/", "/"),
            ("", "/"),
            ("nccl-report", "/nccl-report/"),
            ("/nccl-report", "/nccl-report/"),
            ("//a//b.c_d~e/", "/a/b.c_d~e/"),
        ] {
            assert_eq!(site_url(given).as_deref(), Ok(expected), "{given:?}");
        }
        for bad in ["/a b/", "/a\"/", "/<x>/", "/a?b", "/a#b", "/%2e/", "https://x/", "/a/../b/", "/./", "/é/"] {
            assert!(site_url(bad).is_err(), "{bad:?}");
        }
    }
}
