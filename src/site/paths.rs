//! Every path of the built site, from the site root: the one place that knows the layout
//! (`index.html`, `pages/<shard>.html`, `sections/<slug>[-<shard>].html`, `data/runs[/<shard>].json`, `runs/<id>/...`,
//! `compare/<base>..<cand>.html`, `charts/`).
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

/// A link to a run's page from a page whose root prefix is `root` (the id URL-encoded).
pub(crate) fn run_link(root: &str, id: &str) -> String {
    format!("{root}runs/{}/index.html", url_segment(id))
}

/// The page comparing run `cand` with its baseline `base`.
pub(crate) fn compare_page(base: &str, cand: &str) -> String {
    format!("compare/{base}..{cand}.html")
}

/// A link to that page from a page whose root prefix is `root` (the ids URL-encoded).
pub(crate) fn compare_link(root: &str, base: &str, cand: &str) -> String {
    format!("{root}compare/{}..{}.html", url_segment(base), url_segment(cand))
}

/// Whether `rel` is a compare page of candidate `cand` (against any base).
pub(crate) fn is_compare_page_of(rel: &str, cand: &str) -> bool {
    rel.strip_prefix("compare/")
        .and_then(|name| name.strip_suffix(".html"))
        .and_then(|name| name.strip_suffix(cand))
        .is_some_and(|base| base.ends_with("..") && !base[..base.len() - 2].contains('/'))
}

/// A chart's SVG and CSV, relative to the page that shows it (in its `charts/` folder).
pub(crate) fn chart_files(chart_id: &str) -> (String, String) {
    (format!("charts/{chart_id}.svg"), format!("charts/{chart_id}.csv"))
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

/// The phone-sized variant of the chart at `svg` (`charts/x.svg` -> `charts/x.phone.svg`).
pub(crate) fn phone_chart(svg: &str) -> String {
    format!("{}.phone.svg", svg.strip_suffix(".svg").unwrap_or(svg))
}

#[cfg(test)]
mod tests {
    use super::site_url;

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
