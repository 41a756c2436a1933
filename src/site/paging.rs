//! Cross-run pages come in pages of runs (newest first, `page_size` runs each), so that a
//! build renders them from one page of digests at a time and a browser never gets a table
//! of thousands of runs. Page 1 keeps the usual names (`index.html`, `sections/<slug>.html`);
//! page k > 1 is `pages/<k>.html` or `sections/<slug>-<k>.html`. Knows paths, not content.

use crate::site::view::{Link, Pager};
use std::ops::Range;

/// Runs per cross-run page unless `build --page-size` says otherwise.
pub(crate) const DEFAULT_PAGE_SIZE: usize = 100;

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct Paging {
    pub runs: usize,
    pub size: usize,
}

impl Paging {
    pub(crate) fn new(runs: usize, size: usize) -> Paging {
        Paging { runs, size: size.max(1) }
    }

    /// How many pages (at least one, even without runs).
    pub(crate) fn pages(&self) -> usize {
        self.runs.div_ceil(self.size).max(1)
    }

    /// The positions (in newest-first order) of the runs on 1-based `page`.
    pub(crate) fn window(&self, page: usize) -> Range<usize> {
        let start = ((page - 1) * self.size).min(self.runs);
        start..(start + self.size).min(self.runs)
    }

    /// The index page's path from the site root.
    pub(crate) fn index_path(page: usize) -> String {
        crate::site::paths::index(page)
    }

    /// A section page's path from the site root.
    pub(crate) fn section_path(slug: &str, page: usize) -> String {
        crate::site::paths::section(slug, page)
    }

    /// The root-relative prefix of index page `page` (`""` or `"../"`).
    pub(crate) fn index_root(page: usize) -> &'static str {
        if page == 1 {
            ""
        } else {
            "../"
        }
    }

    /// Links to every page of the index, relative to index page `page`.
    pub(crate) fn index_pager(&self, page: usize) -> Option<Pager> {
        self.pager(page, |k| format!("{}{}", Self::index_root(page), Self::index_path(k)))
    }

    /// Links to every page of a section, relative to its page `page` (all in `sections/`).
    pub(crate) fn section_pager(&self, slug: &str, page: usize) -> Option<Pager> {
        self.pager(page, |k| Self::section_path(slug, k).trim_start_matches("sections/").to_string())
    }

    fn pager(&self, page: usize, href: impl Fn(usize) -> String) -> Option<Pager> {
        if self.pages() == 1 {
            return None;
        }
        let window = self.window(page);
        Some(Pager {
            label: format!("Runs {}–{} of {}, newest first.", window.start + 1, window.end, self.runs),
            pages: (1..=self.pages()).map(|k| (Link { text: k.to_string(), href: href(k) }, k == page)).collect(),
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn windows_cover_every_run_once() {
        let paging = Paging::new(250, 100);
        assert_eq!(paging.pages(), 3);
        assert_eq!([paging.window(1), paging.window(2), paging.window(3)], [0..100, 100..200, 200..250]);
        assert_eq!(Paging::new(0, 100).pages(), 1);
        assert_eq!(Paging::new(0, 100).window(1), 0..0);
        assert_eq!(Paging::new(100, 100).pages(), 1);
    }

    #[test]
    fn pagers_link_relative_to_the_page() {
        let paging = Paging::new(5, 2);
        assert_eq!(Paging::new(5, 5).index_pager(1), None);
        let first = paging.index_pager(1).unwrap();
        assert_eq!(first.label, "Runs 1–2 of 5, newest first.");
        let hrefs: Vec<&str> = first.pages.iter().map(|(l, _)| l.href.as_str()).collect();
        assert_eq!(hrefs, ["index.html", "pages/2.html", "pages/3.html"]);
        let last = paging.index_pager(3).unwrap();
        assert_eq!(last.label, "Runs 5–5 of 5, newest first.");
        let hrefs: Vec<&str> = last.pages.iter().map(|(l, _)| l.href.as_str()).collect();
        assert_eq!(hrefs, ["../index.html", "../pages/2.html", "../pages/3.html"]);
        assert!(last.pages[2].1 && !last.pages[0].1);
        let hrefs: Vec<String> =
            paging.section_pager("nccl-tests", 2).unwrap().pages.into_iter().map(|(l, _)| l.href).collect();
        assert_eq!(hrefs, ["nccl-tests.html", "nccl-tests-2.html", "nccl-tests-3.html"]);
    }
}
