//! What the site shows of a run's comparison with its baseline (`comparison::Report`): the
//! run page's "Compared with baseline" block, the compare page
//! (`compare/<base>..<cand>.html`) and the index's verdict cell. Uses `comparison` and the
//! site's view types; computes nothing.

use crate::analysis::comparison::engine::{CaseResult, Verdict};
use crate::analysis::comparison::Report;
use crate::core::format::pct2;
use crate::site::card::{BaselineVerdict, VerdictCounts};
use crate::site::paths;
use crate::site::view::{Block, Cell, Column, ComparePage, Link, Table};

/// Id of the run page's comparison block (its anchor).
pub(crate) const BLOCK_ID: &str = "baseline";

/// What a run's comparison came to: a report, or why there is none; plus the runs that have
/// this run as their baseline (their ids), and a note on `baselines.json` if it is unusable.
pub(crate) struct RunComparison<'a> {
    pub id: &'a str,
    pub outcome: Result<&'a Report, String>,
    pub compared_by: &'a [String],
    pub pinned_error: Option<&'a str>,
}

/// The index's summary of a comparison.
pub(crate) fn verdict(outcome: &Result<&Report, String>) -> BaselineVerdict {
    match outcome {
        Ok(report) => {
            let count = |v: Verdict| report.counts.get(v.as_str()).copied().unwrap_or(0);
            BaselineVerdict::Compared(VerdictCounts {
                baseline: report.base.id.clone(),
                slower: count(Verdict::Slower),
                faster: count(Verdict::Faster),
                no_change: count(Verdict::NoChange),
                not_comparable: count(Verdict::NotComparable),
                too_few_cycles: count(Verdict::TooFewCycles),
                drift: report.drift.as_ref().map(|d| percent_change(d.ratio)),
            })
        }
        Err(why) => BaselineVerdict::NotCompared(why.clone()),
    }
}

/// `+4.10 %` / `-0.52 %`: a cost ratio as a change.
fn percent_change(ratio: f64) -> String {
    let change = (ratio - 1.0) * 100.0;
    if change >= 0.0 {
        format!("+{}", pct2(change))
    } else {
        pct2(change)
    }
}

/// The counts in words, e.g. `1 slower · 37 no evidence of change`.
pub(crate) fn counts_text(v: &VerdictCounts) -> String {
    let parts = [
        (v.slower, "slower"),
        (v.faster, "faster"),
        (v.no_change, "no evidence of change"),
        (v.not_comparable, "not comparable"),
        (v.too_few_cycles, "too few cycles"),
    ];
    let shown: Vec<String> = parts.iter().filter(|(n, _)| *n > 0).map(|(n, what)| format!("{n} {what}")).collect();
    if shown.is_empty() {
        "no cases".to_string()
    } else {
        shown.join(" · ")
    }
}

/// The run page's block (links relative to `runs/<id>/index.html`).
pub(crate) fn block(c: &RunComparison) -> Block {
    let root = "../../";
    let mut intro = Vec::new();
    let mut tables = Vec::new();
    if let Some(error) = c.pinned_error {
        intro.push(format!("{error}. Baselines are the newest earlier ok run of each configuration."));
    }
    match &c.outcome {
        Ok(report) => {
            let BaselineVerdict::Compared(counts) = verdict(&c.outcome) else { unreachable!("a report has counts") };
            intro.push(format!(
                "Compared with {} ({}): {}.",
                report.base.id,
                report.baseline_source,
                counts_text(&counts)
            ));
            intro.extend(drift_line(report));
            if !report.key_differences.is_empty() {
                let parts: Vec<&str> = report.key_differences.iter().map(|d| d.part.as_str()).collect();
                intro.push(format!("Not comparable: the configurations differ in {}.", parts.join(", ")));
            }
            intro.push(rule_line());
            let mut links = Table::new("The comparison", &[("baseline run", false), ("every case", false)]);
            links.push(vec![
                Cell::link(report.base.id.clone(), paths::run_link(root, &report.base.id)),
                Cell::link(
                    "compare page".to_string(),
                    paths::compare_link(root, &report.base.id, &report.candidate.id),
                ),
            ]);
            tables.push(links);
            let flagged: Vec<&CaseResult> =
                report.cases.iter().filter(|r| matches!(r.verdict, Verdict::Slower | Verdict::Faster)).collect();
            if flagged.is_empty() {
                intro.push("No case is flagged slower or faster.".to_string());
            } else {
                let mut table = cases_table("Flagged cases (slower or faster than the baseline)");
                for case in flagged {
                    table.push(case_row(case));
                }
                tables.push(table);
            }
        }
        Err(why) => intro.push(format!("Not compared: {why}.")),
    }
    if !c.compared_by.is_empty() {
        let mut table =
            Table::new("Runs compared with this run as their baseline", &[("run", false), ("comparison", false)]);
        for candidate in c.compared_by {
            table.push(vec![
                Cell::link(candidate.clone(), paths::run_link(root, candidate)),
                Cell::link("compare page".to_string(), paths::compare_link(root, c.id, candidate)),
            ]);
        }
        tables.push(table);
    }
    Block { id: BLOCK_ID.into(), title: "Compared with baseline".into(), intro, tables, ..Block::default() }
}

/// The compare page of a report (links relative to `compare/`).
pub(crate) fn compare_page(report: &Report) -> ComparePage {
    let root = "../";
    let (base, cand) = (&report.base, &report.candidate);
    let mut intro = vec![
        format!(
            "Candidate {} ({}) compared with base {} ({}); the base is the {}.",
            cand.id, cand.status, base.id, base.status, report.baseline_source
        ),
        format!("Configuration: {}.", cand.configuration),
    ];
    let BaselineVerdict::Compared(counts) = verdict(&Ok(report)) else { unreachable!("a report has counts") };
    intro.push(format!("Verdicts: {}.", counts_text(&counts)));
    intro.extend(drift_line(report));
    intro.push(rule_line());
    let mut tables = Vec::new();
    if !report.key_differences.is_empty() {
        let mut table = Table::new(
            "Not comparable: the configurations differ",
            &[("key part", false), ("base", false), ("candidate", false)],
        );
        for d in &report.key_differences {
            table.push(vec![Cell::text(&d.part), Cell::text(&d.base), Cell::text(&d.candidate)]);
        }
        tables.push(table);
    }
    let mut cases = cases_table("Every case (ratio = median candidate / median base, as measured)");
    cases.columns.push(Column { label: "why".into(), numeric: false });
    for case in &report.cases {
        let mut row = case_row(case);
        row.push(Cell::text(case.reason.clone().unwrap_or_default()));
        cases.push(row);
    }
    tables.push(cases);
    ComparePage {
        path: paths::compare_page(&base.id, &cand.id),
        title: format!("{} compared with {}", cand.id, base.id),
        runs: vec![
            ("base".into(), Link { text: base.id.clone(), href: paths::run_link(root, &base.id) }),
            ("candidate".into(), Link { text: cand.id.clone(), href: paths::run_link(root, &cand.id) }),
        ],
        block: Block { id: "cases".into(), title: "Verdicts".into(), intro, tables, ..Block::default() },
    }
}

fn drift_line(report: &Report) -> Option<String> {
    let d = report.drift.as_ref()?;
    let interval = match (d.ci_low, d.ci_high) {
        (Some(low), Some(high)) => format!(" (95 % interval {} to {})", percent_change(low), percent_change(high)),
        _ => String::new(),
    };
    let applied = if d.applied {
        "divided out before the per-case verdicts"
    } else {
        "not divided out: too few comparable cases"
    };
    Some(format!(
        "Run-wide drift: {}{interval} over {}, {applied}.",
        percent_change(d.ratio),
        crate::core::format::count(d.cases, "case")
    ))
}

fn rule_line() -> String {
    "A case is slower or faster only when it is significant after Benjamini-Hochberg (q ≤ 0.05, Mann-Whitney U on the per-cycle critical-path samples) and its drift-corrected effect, with its whole 95 % bootstrap interval, is at least max(3 %, the noise between repeated runs of the configuration).".to_string()
}

fn cases_table(caption: &str) -> Table {
    Table::new(
        caption,
        &[
            ("section", false),
            ("ranks", true),
            ("case", false),
            ("metric", false),
            ("cycles (base / candidate)", true),
            ("ratio", true),
            ("95 % interval", true),
            ("p", true),
            ("q", true),
            ("verdict", false),
        ],
    )
}

fn case_row(c: &CaseResult) -> Vec<Cell> {
    let opt = |v: Option<f64>| v.map_or_else(|| "n/a".to_string(), |v| format!("{v:.4}"));
    let p = |v: Option<f64>| v.map_or_else(|| "n/a".to_string(), |v| format!("{v:.2e}"));
    let verdict = match c.verdict {
        Verdict::Slower => Cell { text: "slower".into(), href: None, class: "failed" },
        Verdict::Faster => Cell { text: "faster".into(), href: None, class: "ok" },
        Verdict::NoChange => Cell::text("no evidence of change"),
        Verdict::NotComparable => Cell { text: "not comparable".into(), href: None, class: "na" },
        Verdict::TooFewCycles => Cell { text: "too few cycles".into(), href: None, class: "na" },
    };
    let interval = match (c.ci_low, c.ci_high) {
        (Some(low), Some(high)) => format!("{low:.4} to {high:.4}"),
        _ => "n/a".into(),
    };
    vec![
        Cell::text(c.section),
        Cell::text(c.world_size.to_string()),
        Cell::text(c.case_label()),
        Cell::text(c.metric),
        Cell::text(format!("{} / {}", c.base_cycles, c.candidate_cycles)),
        Cell::text(opt(c.ratio)),
        Cell::text(interval),
        Cell::text(p(c.p)),
        Cell::text(p(c.q)),
        verdict,
    ]
}

/// The index's cell for a run (links relative to the index page's `root`).
pub(crate) fn index_cell(root: &str, id: &str, verdict: &BaselineVerdict) -> Cell {
    match verdict {
        BaselineVerdict::Compared(v) => {
            let mut cell = Cell::link(
                format!("vs {}: {}", v.baseline, counts_text(v)),
                paths::compare_link(root, &v.baseline, id),
            );
            if v.slower > 0 {
                cell.class = "failed";
            }
            cell
        }
        BaselineVerdict::NotCompared(_) => Cell { text: "not compared".into(), href: None, class: "na" },
        BaselineVerdict::Pending => Cell::text(""),
    }
}
