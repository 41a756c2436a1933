//! Every path of the built site, from the site root: the one place that knows the layout
//! (`index.html`, `pages/<shard>.html`, `sections/<slug>[-<shard>].html`,
//! `data/runs[/<shard>].json`, `data/cases/month=<month>/`, `runs/<id>/...` with its
//! comparison at `#baseline`, `charts/`).
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

/// The id (anchor) of a run page's "Compared with baseline" block.
pub(crate) const COMPARISON_ID: &str = "baseline";

/// A link to a run's comparison with its baseline (that block of its page) from a page whose
/// root prefix is `root`.
pub(crate) fn comparison_link(root: &str, id: &str) -> String {
    format!("{}#{COMPARISON_ID}", run_link(root, id))
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

/// A configuration's history page slug: the 16 hex digits of its key text's 64-bit hash, of
/// which its label shows the first six (`key 3f2a91`). Two configurations of a site share one
/// by chance with odds under one in 10^11 at 10,000 configurations (six digits gave 3 % at
/// 1,000, and one configuration's history then overwrote the other's); one made to share it
/// on purpose is caught where the pages are made (`histories::write`, `section_pages`).
pub(crate) fn history_slug(key_text: &str) -> String {
    format!("{:016x}", xxhash_rust::xxh3::xxh3_64(key_text.as_bytes()))
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
    fn a_comparison_is_linked_on_its_run_page() {
        assert_eq!(comparison_link("../", "a..b"), "../runs/a..b/index.html#baseline");
        assert_eq!(comparison_link("", "x y"), "runs/x%20y/index.html#baseline");
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
