//! The top navigation of every page: the index, each section's first page and `runs.json`,
//! with the link of the page's own place (`aria-current="page"`) marked.

use crate::site::paths;
use crate::site::sections::Section;

/// Where a page sits in the top navigation.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Place {
    /// Every page of the index (`index.html`, `pages/<shard>.html`).
    Index,
    /// Every page of one section (its slug).
    Section(&'static str),
    /// The regressions page.
    Regressions,
    /// A run page, a history page, the 404 page.
    Elsewhere,
}

#[derive(Debug, Clone, PartialEq)]
pub(crate) struct NavLink {
    pub text: &'static str,
    pub href: String,
    /// The site's name (the index), styled apart.
    pub brand: bool,
    /// The link to the page's own place.
    pub current: bool,
}

/// The navigation of a page whose root prefix is `root` (`""`, `"../"`, or the absolute
/// `--site-url` on 404.html) and whose place is `place`.
pub(crate) fn links(root: &str, place: Place) -> Vec<NavLink> {
    let mut links = vec![NavLink {
        text: "nccl-report",
        href: format!("{root}index.html"),
        brand: true,
        current: place == Place::Index,
    }];
    links.extend(Section::ALL.iter().map(|s| NavLink {
        text: s.slug(),
        href: format!("{root}{}", paths::section(s.slug(), None)),
        brand: false,
        current: place == Place::Section(s.slug()),
    }));
    links.push(NavLink {
        text: "regressions",
        href: format!("{root}regressions.html"),
        brand: false,
        current: place == Place::Regressions,
    });
    links.push(NavLink { text: "runs.json", href: format!("{root}data/runs.json"), brand: false, current: false });
    links
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn only_the_page_s_own_place_is_current() {
        let current =
            |place| -> Vec<&str> { links("../", place).into_iter().filter(|l| l.current).map(|l| l.text).collect() };
        assert_eq!(current(Place::Index), ["nccl-report"]);
        assert_eq!(current(Place::Section("decode")), ["decode"]);
        assert!(current(Place::Elsewhere).is_empty());
        let all = links("../", Place::Elsewhere);
        assert_eq!(all[0].href, "../index.html");
        assert_eq!(all.last().unwrap().href, "../data/runs.json");
        assert!(all.iter().any(|l| l.href == "../sections/nccl-tests.html"));
    }
}
