//! Cross-run pages come in bounded shards, so that adding a run rewrites only the pages that
//! list it and no file grows with the history. Runs are ordered newest first; the first page
//! (`index.html`, `sections/<slug>.html`) shows the newest `page_size` runs and links every
//! shard. A shard is a month of runs (UTC, from the manifest's timestamp; `undated` for runs
//! without a readable one) cut into parts of `page_size` runs counted from the month's oldest
//! run, so a new run changes only its own part (the newest part of its month when it is the
//! newest run). Shard pages (`pages/<month>-<part>.html`, `sections/<slug>-<month>-<part>.html`)
//! exist once the runs outnumber one page; `data/runs.json` always lists its shards
//! (`data/runs/<month>-<part>.json`). Knows paths, not content.

use crate::site::card::RunCard;
use crate::site::view::{Link, Pager};
use std::ops::Range;

/// Runs per cross-run page unless `build --page-size` says otherwise.
pub(crate) const DEFAULT_PAGE_SIZE: usize = 100;

/// One shard: a part of a month's runs.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Shard {
    /// `YYYY-MM` (UTC), or `undated`.
    pub month: String,
    /// 1 for the month's oldest `page_size` runs, 2 for the next, ...
    pub part: usize,
    /// Positions of its runs in the newest-first order.
    pub window: Range<usize>,
}

impl Shard {
    /// `2026-04-2`: the shard's name in its file names.
    pub(crate) fn name(&self) -> String {
        format!("{}-{}", self.month, self.part)
    }
}

/// A page of the cross-run pages.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Page {
    /// The newest runs, with links to every shard.
    First,
    /// Shard `i` of `Paging::shards` (newest first).
    Shard(usize),
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Paging {
    pub runs: usize,
    pub size: usize,
    /// Every shard, newest first.
    pub shards: Vec<Shard>,
}

/// The shard month of a run: `YYYY-MM` of its timestamp in UTC, or `undated`.
pub(crate) fn month_of(timestamp_utc: Option<&str>) -> String {
    let Some(seconds) = timestamp_utc.and_then(crate::core::calendar::iso_seconds) else {
        return "undated".to_string();
    };
    let (year, month, _) = crate::core::calendar::civil_from_days(seconds.div_euclid(86_400));
    format!("{year:04}-{month:02}")
}

impl Paging {
    /// The paging of `cards`, in the newest-first order of `card::order` (months are then
    /// contiguous).
    pub(crate) fn new(cards: &[RunCard], size: usize) -> Paging {
        let size = size.max(1);
        let months: Vec<String> = cards.iter().map(|c| month_of(c.timestamp_utc.as_deref())).collect();
        let mut shards = Vec::new();
        let mut start = 0;
        while start < months.len() {
            let end = start + months[start..].iter().take_while(|m| **m == months[start]).count();
            // Parts counted from the month's oldest run (the end of its newest-first block).
            let parts = (end - start).div_ceil(size);
            for part in (1..=parts).rev() {
                let newest_end = end - (part - 1) * size;
                let window = newest_end.saturating_sub(size).max(start)..newest_end;
                shards.push(Shard { month: months[start].clone(), part, window });
            }
            start = end;
        }
        Paging { runs: cards.len(), size, shards }
    }

    /// Whether the runs need shard pages (more runs than one page holds).
    pub(crate) fn has_shard_pages(&self) -> bool {
        self.runs > self.size
    }

    /// The page that lists the run at `position` (newest first) and draws what is drawn for
    /// it: the first page for the newest runs, else its shard's page.
    pub(crate) fn page_of(&self, position: usize) -> Page {
        if position < self.size || !self.has_shard_pages() {
            return Page::First;
        }
        Page::Shard(self.shards.partition_point(|s| s.window.end <= position))
    }

    /// How a page is named in a sentence: `the first page`, `2026-04 part 2`.
    pub(crate) fn page_label(&self, page: Page) -> String {
        match page {
            Page::First => "the first page".to_string(),
            Page::Shard(i) => format!("{} part {}", self.shards[i].month, self.shards[i].part),
        }
    }

    /// The positions (in newest-first order) of the runs on `page`.
    pub(crate) fn window(&self, page: Page) -> Range<usize> {
        match page {
            Page::First => 0..self.size.min(self.runs),
            Page::Shard(i) => self.shards[i].window.clone(),
        }
    }

    /// The index page's path from the site root.
    pub(crate) fn index_path(&self, page: Page) -> String {
        match page {
            Page::First => crate::site::paths::index(None),
            Page::Shard(i) => crate::site::paths::index(Some(&self.shards[i].name())),
        }
    }

    /// A section page's path from the site root.
    pub(crate) fn section_path(&self, slug: &str, page: Page) -> String {
        match page {
            Page::First => crate::site::paths::section(slug, None),
            Page::Shard(i) => crate::site::paths::section(slug, Some(&self.shards[i].name())),
        }
    }

    /// The root-relative prefix of an index page (`""` or `"../"`).
    pub(crate) fn index_root(page: Page) -> &'static str {
        match page {
            Page::First => "",
            Page::Shard(_) => "../",
        }
    }

    /// Links from an index page: on the first, to every shard; on a shard, back to the first.
    pub(crate) fn index_pager(&self, page: Page) -> Option<Pager> {
        let root = Self::index_root(page);
        self.pager(page, |p| format!("{root}{}", self.index_path(p)))
    }

    /// Links from a section page (all in `sections/`).
    pub(crate) fn section_pager(&self, slug: &str, page: Page) -> Option<Pager> {
        self.pager(page, |p| self.section_path(slug, p).trim_start_matches("sections/").to_string())
    }

    fn pager(&self, page: Page, href: impl Fn(Page) -> String) -> Option<Pager> {
        if !self.has_shard_pages() {
            return None;
        }
        let window = self.window(page);
        Some(match page {
            Page::First => Pager {
                label: format!(
                    "Runs 1–{} of {}, newest first. Every run, by month (parts of at most {} runs):",
                    window.end, self.runs, self.size
                ),
                pages: (0..self.shards.len())
                    .map(|i| {
                        let shard = &self.shards[i];
                        let text = format!("{} part {} ({})", shard.month, shard.part, shard.window.len());
                        (Link { text, href: href(Page::Shard(i)) }, false)
                    })
                    .collect(),
            },
            Page::Shard(i) => {
                let shard = &self.shards[i];
                Pager {
                    label: format!(
                        "Runs of {}, part {}: {}, newest first.",
                        shard.month,
                        shard.part,
                        crate::core::format::count(window.len(), "run")
                    ),
                    pages: vec![(Link { text: "newest runs and every month".into(), href: href(Page::First) }, false)],
                }
            }
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::analysis::summarize::RunStatus;
    use crate::site::card::BaselineVerdict;

    fn cards(timestamps: &[Option<&str>]) -> Vec<RunCard> {
        timestamps
            .iter()
            .enumerate()
            .map(|(i, t)| RunCard {
                id: format!("r{i}"),
                timestamp_utc: t.map(str::to_string),
                status: RunStatus::Ok,
                sections: 0,
                configuration_key: "".into(),
                configuration: "".into(),
                baseline: BaselineVerdict::Pending,
                warnings: 0,
                reason: None,
            })
            .collect()
    }

    #[test]
    fn shards_are_parts_of_months_counted_from_the_oldest_run() {
        // Newest first: three runs of May, two of April (one at 23:30 -01:00, i.e. May in UTC),
        // one undated.
        let runs = cards(&[
            Some("2026-05-20T10:00:00Z"),
            Some("2026-05-10T10:00:00Z"),
            Some("2026-04-30T23:30:00-01:00"),
            Some("2026-04-20T10:00:00Z"),
            Some("2026-04-10T10:00:00Z"),
            None,
        ]);
        let paging = Paging::new(&runs, 2);
        let shards: Vec<(String, usize, Range<usize>)> =
            paging.shards.iter().map(|s| (s.name(), s.part, s.window.clone())).collect();
        assert_eq!(
            shards,
            [
                ("2026-05-2".to_string(), 2, 0..1),
                ("2026-05-1".to_string(), 1, 1..3),
                ("2026-04-1".to_string(), 1, 3..5),
                ("undated-1".to_string(), 1, 5..6),
            ]
        );
        assert!(paging.has_shard_pages());
        assert_eq!(paging.window(Page::First), 0..2);
        // The newest runs are drawn on the first page, the others on their shard's.
        let pages: Vec<Page> = (0..6).map(|p| paging.page_of(p)).collect();
        assert_eq!(pages, [Page::First, Page::First, Page::Shard(1), Page::Shard(2), Page::Shard(2), Page::Shard(3)]);
        assert_eq!(paging.page_label(Page::Shard(1)), "2026-05 part 1");
        assert_eq!(paging.page_label(Page::First), "the first page");
        assert_eq!(paging.index_path(Page::Shard(1)), "pages/2026-05-1.html");
        assert_eq!(paging.section_path("nccl-tests", Page::Shard(3)), "sections/nccl-tests-undated-1.html");
        // A newer run of May joins the newest part; the older parts keep their runs.
        let mut more = cards(&[Some("2026-05-21T10:00:00Z")]);
        more.extend(runs);
        more.iter_mut().enumerate().for_each(|(i, c)| c.id = format!("s{i}"));
        let grown = Paging::new(&more, 2);
        assert_eq!(grown.shards[0].window, 0..2);
        assert_eq!(grown.shards[1].window, 2..4);
        assert_eq!(grown.shards[2].window.len(), paging.shards[2].window.len());
    }

    #[test]
    fn one_page_has_no_shard_pages_and_no_pager() {
        let paging = Paging::new(&cards(&[Some("2026-05-20T10:00:00Z"); 3]), 3);
        assert!(!paging.has_shard_pages());
        assert_eq!(paging.page_of(2), Page::First);
        assert_eq!(paging.shards.len(), 1, "runs.json still has its shard");
        assert_eq!(paging.index_pager(Page::First), None);
        assert_eq!(Paging::new(&[], 3).window(Page::First), 0..0);
    }

    #[test]
    fn pagers_link_relative_to_the_page() {
        let paging = Paging::new(&cards(&[Some("2026-05-20T10:00:00Z"); 5]), 2);
        let first = paging.index_pager(Page::First).unwrap();
        let hrefs: Vec<&str> = first.pages.iter().map(|(l, _)| l.href.as_str()).collect();
        assert_eq!(hrefs, ["pages/2026-05-3.html", "pages/2026-05-2.html", "pages/2026-05-1.html"]);
        assert!(first.label.starts_with("Runs 1–2 of 5, newest first."), "{}", first.label);
        let shard = paging.index_pager(Page::Shard(2)).unwrap();
        assert_eq!(shard.label, "Runs of 2026-05, part 1: 2 runs, newest first.");
        assert_eq!(shard.pages[0].0.href, "../index.html");
        let section = paging.section_pager("decode", Page::Shard(0)).unwrap();
        assert_eq!(section.pages[0].0.href, "decode.html");
        let first = paging.section_pager("decode", Page::First).unwrap();
        assert_eq!(first.pages[0].0.href, "decode-2026-05-3.html");
    }
}
