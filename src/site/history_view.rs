//! The history of every configuration (`history/<configuration>.html`): per case, the
//! run-level value of each of its newest ok runs in time order (`SEARCHED_RUNS`; the newest
//! `CHARTED_RUNS` charted), its change points (`comparison::change_points`) among them, each
//! with the runs on both sides and what differs between them; and the regressions page
//! (`regressions.html`): every open change point that made a case slower and every slower case of each configuration's newest run,
//! worst first, linked to the case's history (`#case-...`). Uses `comparison` and the site's
//! view types; computes no statistic of its own.

use crate::analysis::comparison::change_points::{self, ChangePoint};
use crate::analysis::comparison::key::KeyDifference;
use crate::analysis::comparison::rule;
use crate::core::model::nccl_log::TuningChoice;
use crate::site::chart::{ChartSpec, Point, Scale, Series};
use crate::site::paths;
use crate::site::view::{Block, Cell, Figure, Link, Table};
use rayon::prelude::*;
use std::collections::BTreeMap;
use std::sync::Arc;

/// Most series one history chart draws (the palette's distinct colours and markers).
const SERIES_PER_CHART: usize = 6;

/// Per (section, metric): each case's label and its run-level values by run (`None` where a
/// run lacks the case).
type SectionSeries<'a> = BTreeMap<(&'a str, &'a str), Vec<(&'a String, Vec<Option<f64>>)>>;

/// One ok run of a configuration, as its history needs it.
#[derive(Debug, Clone)]
pub(crate) struct HistoryRun {
    pub id: String,
    /// Run-level value per case, by the case's column (its position in
    /// `ConfigurationHistory::cases`), sorted by column: a few bytes a case, as a
    /// configuration's history can hold tens of thousands of runs.
    pub values: Vec<(u32, f64)>,
    /// The run's soft facts (host, machine, cycles...): what explains a change point
    /// (shared with the run before when equal, as most are).
    pub soft: Arc<Vec<(String, String)>>,
    /// NCCL's choices as its log says (`nccl_choices`): `AllReduce 1 MiB` -> `Ring/LL128 x16`
    /// (shared like `soft`).
    pub nccl_choices: Arc<BTreeMap<String, String>>,
    /// Case keys of the run's `slower` cases against its baseline, with their ratio to the
    /// history (for the newest run's entries on the regressions page).
    pub slower: Vec<(String, f64)>,
}

impl HistoryRun {
    /// The run's value of the case in `column`, if it has the case.
    pub(crate) fn value(&self, column: usize) -> Option<f64> {
        let column = u32::try_from(column).ok()?;
        self.values.binary_search_by_key(&column, |(c, _)| *c).ok().map(|i| self.values[i].1)
    }
}

/// What a case is, for labels.
#[derive(Debug, Clone, PartialEq, serde::Serialize, serde::Deserialize)]
pub(crate) struct CaseInfo {
    pub section: String,
    pub label: String,
    pub metric: String,
    pub higher_is_better: bool,
}

/// One configuration: its label, its newest ok runs oldest first (at most `SEARCHED_RUNS`),
/// how many older ok runs it has besides, and its cases by key (a case's column in
/// `HistoryRun::values` is its position here).
pub(crate) struct ConfigurationHistory {
    pub label: String,
    pub key_text: String,
    pub runs: Vec<HistoryRun>,
    /// Ok runs older than `runs`: neither searched nor charted (their values are in the
    /// Parquet history).
    pub older: usize,
    pub cases: BTreeMap<String, CaseInfo>,
}

/// A page of blocks (history and regressions pages).
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct HistoryPage {
    /// Where the page is written, from the site root.
    pub path: String,
    pub title: String,
    pub intro: Vec<String>,
    pub blocks: Vec<Block>,
}

/// What a configuration's history page gives the regressions page (its link and its
/// regressions): kept in the build cache with the page's unit, so that a page carried as it is
/// still counts there.
#[derive(Debug, Clone, PartialEq, serde::Serialize, serde::Deserialize)]
pub(crate) struct Gives {
    pub label: String,
    pub href: String,
    pub regressions: Vec<Regression>,
}

/// A line of the regressions page (kept in the cache with the history page it comes from).
#[derive(Debug, Clone, PartialEq, serde::Serialize, serde::Deserialize)]
pub(crate) struct Regression {
    /// The cost ratio (> 1: slower): the list is sorted by it, worst first.
    pub ratio: f64,
    pub configuration: String,
    pub case: String,
    pub what: String,
    /// Link to the case's history, relative to the site root.
    pub href: String,
}

/// One case of a history: its value in each run (`None` where the run lacks it), the runs
/// with a finite positive value (their indices), the change points found over those and how
/// many one-off runs the search left out.
struct CaseSearch {
    values: Vec<Option<f64>>,
    present: Vec<usize>,
    found: Vec<ChangePoint>,
    one_offs: usize,
}

/// Runs a history page charts: the newest ones. The page and its chart data stay bounded
/// however long a configuration's history grows (issue #27: no file grows with history); the
/// change points are found over the newest `SEARCHED_RUNS`, and every run's case values are
/// in the Parquet history (`data/cases/`).
pub(crate) const CHARTED_RUNS: usize = 200;
/// Change points listed per case, the newest ones (the count says how many there are).
pub(crate) const LISTED_CHANGE_POINTS: usize = 20;
/// Runs a history page searches for change points: its configuration's newest ones. A build
/// holds and reads the history rows of at most this many runs of a configuration, so its
/// memory and the work of adding a run stay bounded however long the history grows (issue
/// #27); a step older than the newest 2,000 runs is history, not news, and every run's values
/// stay in the Parquet history (`data/cases/`).
pub(crate) const SEARCHED_RUNS: usize = 2_000;

/// The history page of one configuration, and its entries for the regressions page.
pub(crate) fn history_page(history: &ConfigurationHistory) -> (HistoryPage, Vec<Regression>) {
    let charted_from = history.runs.len().saturating_sub(CHARTED_RUNS);
    let slug = paths::history_slug(&history.key_text);
    let path = paths::history_page(&slug);
    let root = "../";
    let mut regressions = Vec::new();
    let mut case_blocks = Vec::new();
    let mut by_section: SectionSeries = BTreeMap::new();
    // The change points of every case, searched in parallel (a configuration's history can
    // hold thousands of runs and dozens of cases); the page is then put together in order.
    let cases: Vec<&CaseInfo> = history.cases.values().collect();
    let searched: Vec<CaseSearch> = cases
        .par_iter()
        .enumerate()
        .map(|(column, info)| {
            let values: Vec<Option<f64>> = history.runs.iter().map(|r| r.value(column)).collect();
            let (present, costs): (Vec<usize>, Vec<f64>) = values
                .iter()
                .enumerate()
                .filter_map(|(i, v)| Some((i, change_points::log_cost((*v)?, info.higher_is_better)?)))
                .unzip();
            let (found, one_offs) = change_points::search(&costs);
            CaseSearch { values, present, found, one_offs }
        })
        .collect();
    for ((key, info), CaseSearch { values, present, found, one_offs }) in history.cases.iter().zip(searched) {
        let anchor = paths::case_anchor(key);
        let href = format!("{path}#{anchor}");
        let mut intro = vec![format!(
            "{} in {} of {}; {}{}.",
            info.metric,
            present.len(),
            crate::core::format::count(history.runs.len(), "run"),
            match found.len() {
                0 => "no change point".to_string(),
                n => crate::core::format::count(n, "change point"),
            },
            match one_offs {
                0 => String::new(),
                n => format!(" ({} left out of the search)", crate::core::format::count(n, "one-off run")),
            }
        )];
        let mut table = Table::new(
            "Change points (the first run after each step, and what differs from the run before it)",
            &[("after run", false), ("before run", false), ("step", true), ("Welch t", true), ("what differs", false)],
        );
        for change in found.iter().skip(found.len().saturating_sub(LISTED_CHANGE_POINTS)) {
            let (before, after) = (&history.runs[present[change.before]], &history.runs[present[change.at]]);
            let differs = differences(before, after);
            table.push(vec![
                Cell::link(after.id.clone(), paths::run_link(root, &after.id)),
                Cell::link(before.id.clone(), paths::run_link(root, &before.id)),
                Cell::text(step_text(change)),
                Cell::text(format!("{:.1}", change.t)),
                Cell::text(differs.clone()),
            ]);
        }
        if let Some(last) = found.last().filter(|c| c.ratio > 1.0) {
            let after = &history.runs[present[last.at]];
            regressions.push(Regression {
                ratio: last.ratio,
                configuration: history.label.clone(),
                case: format!("{}: {} ({})", info.section, info.label, info.metric),
                what: format!("open change point from run {}: {}", after.id, step_text(last)),
                href: href.clone(),
            });
        }
        if found.is_empty() {
            intro.push("Its runs stay within their noise: no step is confirmed by three runs on each side.".into());
        }
        let mut tables = Vec::new();
        if !found.is_empty() {
            tables.push(table);
        }
        case_blocks.push(Block {
            id: anchor,
            title: format!("{}: {} ({})", info.section, info.label, info.metric),
            intro,
            tables,
            ..Block::default()
        });
        by_section
            .entry((info.section.as_str(), info.metric.as_str()))
            .or_default()
            .push((&info.label, values[charted_from..].to_vec()));
    }
    if let Some(newest) = history.runs.last() {
        for (key, ratio) in &newest.slower {
            if let Some(info) = history.cases.get(key) {
                regressions.push(Regression {
                    ratio: *ratio,
                    configuration: history.label.clone(),
                    case: format!("{}: {} ({})", info.section, info.label, info.metric),
                    what: format!("slower in the newest run {} against its history", newest.id),
                    href: format!("{path}#{}", paths::case_anchor(key)),
                });
            }
        }
    }
    let mut blocks = chart_blocks(&slug, &by_section, history.runs.len() - charted_from);
    blocks.extend(case_blocks);
    blocks.push(Block {
        id: "key".into(),
        title: "The configuration".into(),
        pre: vec![("Full key".into(), history.key_text.replace(';', ";\n"))],
        ..Block::default()
    });
    let first = history.runs.first().map_or("", |r| r.id.as_str());
    let last = history.runs.last().map_or("", |r| r.id.as_str());
    let page = HistoryPage {
        path,
        title: format!("History of {}", history.label),
        intro: vec![
            format!(
                "{} of this configuration, oldest first ({first} to {last}){}; its full key is at the end of the page.",
                match history.older {
                    0 => crate::core::format::count(history.runs.len(), "ok run"),
                    older => format!(
                        "The newest {} of {} ok runs ({} not searched for change points)",
                        history.runs.len(),
                        history.runs.len() + older,
                        crate::core::format::count(older, "older one")
                    ),
                },
                if charted_from > 0 {
                    format!(
                        "; the charts show the newest {CHARTED_RUNS}, each case lists its newest {LISTED_CHANGE_POINTS} change points, and every run's values are in data/cases/ (Parquet)"
                    )
                } else {
                    String::new()
                }
            ),
            format!(
                "A change point is a step in a case's run-level values (median over cycles) that the runs on both sides confirm: binary segmentation with Welch's t ≥ {} and a step beyond the noise floor of the runs before it (at least {} %), at least {} runs on each side; a one-off run (a gross change, at least {:.2}x, against the {} runs on each side of it, that a later run contradicts) is left out of the search, so that it hides no step. What differs lists the soft facts (host, machine, cycles...) and NCCL's algorithm/protocol choices (where both runs logged them) of the runs on both sides.",
                change_points::MIN_T,
                change_points::MIN_MAGNITUDE * 100.0,
                change_points::MIN_SEGMENT,
                rule::gross_factor(),
                change_points::ONE_OFF_NEIGHBOURS
            ),
        ],
        blocks,
    };
    (page, regressions)
}

/// `1.52x slower` / `1.20x faster`.
fn step_text(change: &ChangePoint) -> String {
    if change.ratio >= 1.0 {
        format!("{:.2}x slower", change.ratio)
    } else {
        format!("{:.2}x faster", 1.0 / change.ratio)
    }
}

/// NCCL's choices of one run, per (collective, size): every distinct algorithm/protocol (and
/// channel count, where the log says it) it logged for that size, most used first.
pub(crate) fn nccl_choices(choices: &[TuningChoice]) -> BTreeMap<String, String> {
    let mut by_size: BTreeMap<(String, u64), BTreeMap<String, u64>> = BTreeMap::new();
    for c in choices {
        let collective = c.collective.clone().unwrap_or_else(|| "collective".to_string());
        let channels = c.channels.map(|n| format!(" x{n}")).unwrap_or_default();
        let choice = format!("{}/{}{channels}", c.algorithm, c.protocol);
        *by_size.entry((collective, c.bytes)).or_default().entry(choice).or_default() += c.count.max(1);
    }
    by_size
        .into_iter()
        .map(|((collective, bytes), counts)| {
            let mut counts: Vec<(String, u64)> = counts.into_iter().collect();
            counts.sort_by(|a, b| b.1.cmp(&a.1).then_with(|| a.0.cmp(&b.0)));
            let choice = counts.into_iter().map(|(c, _)| c).collect::<Vec<_>>().join(" + ");
            (format!("{collective} {}", crate::core::format::bytes(bytes)), choice)
        })
        .collect()
}

/// Most NCCL choice differences named in one change point's explanation.
const MAX_CHOICES_NAMED: usize = 4;

/// What differs between `before` and `after`, as one line: the soft facts (host, machine,
/// cycles...), then NCCL's algorithm/protocol choices where both runs logged them (the
/// configuration key, equal on both sides, holds the versions and settings).
fn differences(before: &HistoryRun, after: &HistoryRun) -> String {
    let key = |soft: &[(String, String)]| crate::analysis::comparison::key::ConfigKey::from_parts(&[], soft);
    let changed: Vec<KeyDifference> = key(&before.soft).caveats(&key(&after.soft));
    let mut parts: Vec<String> = changed.iter().map(|d| format!("{}: {} → {}", d.part, d.base, d.candidate)).collect();
    let choices: Vec<String> = before
        .nccl_choices
        .iter()
        .filter_map(|(size, was)| {
            let now = after.nccl_choices.get(size)?;
            (now != was).then(|| format!("NCCL {size}: {was} → {now}"))
        })
        .collect();
    let logged = |run: &HistoryRun| !run.nccl_choices.is_empty();
    if logged(before) != logged(after) {
        let says = |run: &HistoryRun| if logged(run) { "logged" } else { "not logged" };
        parts.push(format!("NCCL's choices: {} → {}", says(before), says(after)));
    }
    if choices.len() > MAX_CHOICES_NAMED {
        let more = choices.len() - MAX_CHOICES_NAMED;
        parts.extend(choices.into_iter().take(MAX_CHOICES_NAMED));
        parts.push(format!("{more} more NCCL choices"));
    } else {
        parts.extend(choices);
    }
    if parts.is_empty() {
        let choices = if logged(before) { ", NCCL's choices" } else { "" };
        return format!("nothing the runs record (same host, machine and settings{choices})");
    }
    parts.join("; ")
}

/// One block per (section, metric), a chart per `SERIES_PER_CHART` cases: each case's
/// run-level value over its median in the configuration, by run in time order.
fn chart_blocks(slug: &str, by_section: &SectionSeries, runs: usize) -> Vec<Block> {
    by_section
        .iter()
        .map(|((section, metric), cases)| {
            let figures = cases
                .chunks(SERIES_PER_CHART)
                .enumerate()
                .map(|(part, chunk)| {
                    let series: Vec<Series> = chunk
                        .iter()
                        .map(|(label, values)| {
                            let present: Vec<f64> = values.iter().flatten().copied().collect();
                            let centre = crate::analysis::stats::median(&present);
                            Series {
                                name: (*label).clone(),
                                points: values
                                    .iter()
                                    .enumerate()
                                    .filter_map(|(i, v)| {
                                        Some(Point {
                                            x: (i + 1) as f64,
                                            y: (*v)? / centre,
                                            low: None,
                                            high: None,
                                            samples: Vec::new(),
                                        })
                                    })
                                    .collect(),
                            }
                        })
                        .collect();
                    let ys = series.iter().flat_map(|s: &Series| s.points.iter().map(|p| p.y));
                    let (low, high) = ys.fold((f64::INFINITY, 0.0f64), |(lo, hi), y| (lo.min(y), hi.max(y)));
                    // Log where the runs span a decade (a planted 40x regression beside 1x).
                    let y_scale = if low > 0.0 && high / low >= 10.0 { Scale::Log10 } else { Scale::Linear };
                    let id = format!("{section}-{metric}-{}", part + 1);
                    let svg = paths::chart_svg(&id);
                    Figure {
                        spec: ChartSpec {
                            id,
                            title: format!("{section} {metric}: each run over the case's median"),
                            x_label: format!("run, oldest first (1 to {runs})"),
                            y_label: "run-level value / the case's median".into(),
                            x_scale: Scale::Linear,
                            y_scale,
                            series,
                            description: "One line per case: its run-level value (median over cycles) in each ok run, divided by the case's median over the configuration's runs; a step that stays is a change, a lone point is a run's own level.".into(),
                            x_names: Vec::new(),
                        },
                        dir: format!("history/{slug}/charts"),
                        svg_href: format!("{slug}/{svg}"),
                        csv_href: paths::charts_csv_href(&paths::history_page(slug)),
                    }
                })
                .collect();
            Block {
                id: format!("chart-{section}-{metric}"),
                title: format!("{section}: {metric}"),
                figures,
                ..Block::default()
            }
        })
        .collect()
}

/// The regressions page: every entry, worst first.
pub(crate) fn regressions_page(mut entries: Vec<Regression>, configurations: &[(String, String)]) -> HistoryPage {
    entries.sort_by(|a, b| b.ratio.total_cmp(&a.ratio).then_with(|| a.href.cmp(&b.href)));
    let mut table = Table::new(
        "Open change points that made a case slower, and slower cases of each configuration's newest run, worst first",
        &[("slower by", true), ("case", false), ("configuration", false), ("what", false)],
    );
    for e in &entries {
        table.push(vec![
            Cell {
                text: format!("{} {:.2}x", crate::site::verdict_look::look("slower").marker, e.ratio),
                href: None,
                class: crate::site::verdict_look::look("slower").class,
            },
            Cell::link(e.case.clone(), e.href.clone()),
            Cell::text(e.configuration.clone()),
            Cell::text(e.what.clone()),
        ]);
    }
    let mut histories = Table::new("Every configuration's history", &[("configuration", false)]);
    for (label, href) in configurations {
        histories.push(vec![Cell::link(label.clone(), href.clone())]);
    }
    let intro = if entries.is_empty() {
        vec!["Nothing is slower: no open change point made a case slower, and no configuration's newest run has a slower case.".to_string()]
    } else {
        vec![format!("{} to look at.", crate::core::format::count(entries.len(), "regression"))]
    };
    HistoryPage {
        path: "regressions.html".into(),
        title: "Regressions".into(),
        intro,
        blocks: vec![
            Block {
                id: "regressions".into(),
                title: "What got slower".into(),
                tables: vec![table],
                ..Block::default()
            },
            Block { id: "histories".into(), title: "Histories".into(), tables: vec![histories], ..Block::default() },
        ],
    }
}

/// Links to every configuration's history page, relative to the site root.
pub(crate) fn history_links(configurations: &[ConfigurationHistory]) -> Vec<Link> {
    configurations
        .iter()
        .map(|c| Link { text: c.label.clone(), href: paths::history_page(&paths::history_slug(&c.key_text)) })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn run(id: &str, value: f64, host: &str) -> HistoryRun {
        HistoryRun {
            id: id.into(),
            values: vec![(0, value)],
            soft: Arc::new(vec![("host".into(), host.into())]),
            nccl_choices: Default::default(),
            slower: Vec::new(),
        }
    }

    /// One configuration with one decode case over `runs`.
    fn one_case_history(runs: Vec<HistoryRun>) -> ConfigurationHistory {
        let info = CaseInfo {
            section: "decode".into(),
            label: "tokens=1".into(),
            metric: "replay_total_us".into(),
            higher_is_better: false,
        };
        ConfigurationHistory {
            label: "1x H200 · key abc".into(),
            key_text: "gpu=H200".into(),
            runs,
            older: 0,
            cases: [("decode|1|tokens=1|replay_total_us".to_string(), info)].into(),
        }
    }

    fn choice(algorithm: &str, protocol: &str, bytes: u64, count: u64) -> TuningChoice {
        TuningChoice {
            collective: Some("AllReduce".into()),
            bytes,
            algorithm: algorithm.into(),
            protocol: protocol.into(),
            channels: Some(16),
            count,
        }
    }

    #[test]
    fn a_long_history_charts_its_newest_runs_and_still_finds_old_change_points() {
        let n = CHARTED_RUNS + 50;
        let runs: Vec<HistoryRun> =
            (0..n).map(|i| run(&format!("r{i:04}"), if i < 10 { 100.0 } else { 200.0 }, "h")).collect();
        let history = one_case_history(runs);
        let (page, _) = history_page(&history);
        let points: Vec<usize> =
            page.blocks.iter().flat_map(|b| &b.figures).flat_map(|f| &f.spec.series).map(|s| s.points.len()).collect();
        assert_eq!(points, vec![CHARTED_RUNS]);
        assert!(page.intro[0].contains("the charts show the newest 200"), "{}", page.intro[0]);
        let case = page.blocks.iter().find(|b| b.id.starts_with("case-")).expect("a case block");
        assert_eq!(case.tables[0].rows[0][0].text, "r0010", "the step before the charted runs is still found");
    }

    #[test]
    fn nccl_choices_are_per_size_most_used_first() {
        let choices = nccl_choices(&[
            choice("Ring", "LL", 1 << 20, 2),
            choice("Tree", "LL128", 1 << 20, 5),
            choice("Ring", "Simple", 64 << 20, 1),
            TuningChoice { collective: None, channels: None, ..choice("Ring", "LL", 8192, 1) },
        ]);
        assert_eq!(
            choices.into_iter().collect::<Vec<_>>(),
            [
                ("AllReduce 1 MiB".to_string(), "Tree/LL128 x16 + Ring/LL x16".to_string()),
                ("AllReduce 64 MiB".to_string(), "Ring/Simple x16".to_string()),
                ("collective 8 KiB".to_string(), "Ring/LL".to_string()),
            ]
        );
    }

    #[test]
    fn a_change_point_names_the_nccl_choices_that_changed() {
        let mut before = run("a", 100.0, "h");
        let mut after = run("b", 150.0, "h");
        assert_eq!(differences(&before, &after), "nothing the runs record (same host, machine and settings)");
        before.nccl_choices =
            Arc::new(nccl_choices(&[choice("Ring", "LL128", 1 << 20, 1), choice("Ring", "Simple", 64 << 20, 1)]));
        after.nccl_choices =
            Arc::new(nccl_choices(&[choice("Tree", "Simple", 1 << 20, 1), choice("Ring", "Simple", 64 << 20, 1)]));
        assert_eq!(differences(&before, &after), "NCCL AllReduce 1 MiB: Ring/LL128 x16 → Tree/Simple x16");
        after.soft = Arc::new(vec![("host".into(), "other".into())]);
        assert_eq!(
            differences(&before, &after),
            "host: h → other; NCCL AllReduce 1 MiB: Ring/LL128 x16 → Tree/Simple x16"
        );
        after = run("b", 150.0, "h");
        assert_eq!(differences(&before, &after), "NCCL's choices: logged → not logged");
        after.nccl_choices = before.nccl_choices.clone();
        assert_eq!(
            differences(&before, &after),
            "nothing the runs record (same host, machine and settings, NCCL's choices)"
        );
        let many: Vec<TuningChoice> = (0..6).map(|i| choice("Ring", "LL", 1 << (10 + i), 1)).collect();
        let others: Vec<TuningChoice> = (0..6).map(|i| choice("Tree", "LL", 1 << (10 + i), 1)).collect();
        (before.nccl_choices, after.nccl_choices) = (Arc::new(nccl_choices(&many)), Arc::new(nccl_choices(&others)));
        let text = differences(&before, &after);
        assert_eq!(text.matches("NCCL AllReduce").count(), MAX_CHOICES_NAMED, "{text}");
        assert!(text.ends_with("; 2 more NCCL choices"), "{text}");
    }

    #[test]
    fn a_step_is_a_change_point_explained_and_listed_as_a_regression() {
        let mut runs: Vec<HistoryRun> = (0..4).map(|i| run(&format!("a{i}"), 100.0 + i as f64, "old")).collect();
        runs.extend((0..4).map(|i| run(&format!("b{i}"), 150.0 + i as f64, "new")));
        let history = one_case_history(runs);
        let (page, regressions) = history_page(&history);
        let case = page.blocks.iter().find(|b| b.id.starts_with("case-")).expect("a case block");
        let row = &case.tables[0].rows[0];
        assert_eq!((row[0].text.as_str(), row[1].text.as_str()), ("b0", "a3"));
        assert_eq!(row[4].text, "host: old → new");
        assert_eq!(regressions.len(), 1);
        assert!(regressions[0].href.ends_with(&format!("#{}", case.id)), "{:?}", regressions[0]);
        let listed = regressions_page(regressions, &[]);
        assert_eq!(listed.blocks[0].tables[0].rows.len(), 1);
        assert!(page.blocks.iter().any(|b| !b.figures.is_empty()), "a chart per section");
    }
}
