//! What the site shows of a run's comparison with its baseline (`comparison::Report`): the
//! run page's "Compared with baseline" block (every case in it: one page a run, not a compare
//! page besides, issue 27's footprint) and the index's verdict cell. Uses `comparison` and
//! the site's view types; computes nothing.

use crate::analysis::comparison::engine::{CaseResult, Verdict};
use crate::analysis::comparison::Report;
use crate::core::format::{count, natural_cmp, pct2};
use crate::site::card::{BaselineVerdict, VerdictCounts};
use crate::site::paths;
use crate::site::verdict_look::{look, run_look};
use crate::site::view::{Block, Cell, Column, Table};

/// What a run's comparison came to: a report, or why there is none; plus the runs that have
/// this run as their baseline (their ids), and a note on `baselines.json` if it is unusable.
pub(crate) struct RunComparison<'a> {
    pub outcome: Result<&'a Report, String>,
    pub compared_by: &'a [String],
    pub pinned_error: Option<&'a str>,
}

/// The index's summary of a comparison.
pub(crate) fn verdict(outcome: &Result<&Report, String>) -> BaselineVerdict {
    match outcome {
        Ok(report) => {
            let mut counts: Vec<(String, usize)> =
                report.counts.iter().filter(|(_, n)| **n > 0).map(|(v, n)| (v.to_string(), *n)).collect();
            counts.sort_by_key(|(v, _)| look(v).rank);
            BaselineVerdict::Compared(Box::new(VerdictCounts {
                baseline: report.base.id.clone(),
                counts,
                shifts: report
                    .shifts
                    .iter()
                    .filter(|s| matches!(s.verdict, Verdict::Slower | Verdict::Faster))
                    .map(|s| s.short())
                    .collect(),
                regression: report.has_regression(false),
                slower_cases: report
                    .cases
                    .iter()
                    .filter(|c| c.verdict == Verdict::Slower)
                    .map(|c| (c.key(), c.history_ratio.unwrap_or(f64::NAN)))
                    .collect(),
            }))
        }
        Err(why) => BaselineVerdict::NotCompared(why.clone()),
    }
}

/// The run-wide shifts, then the counts in words, worst first, e.g. `host-side 1.9x slower
/// overall · ▲ 1 slower · = 37 no change`.
pub(crate) fn counts_text(v: &VerdictCounts) -> String {
    let mut shown: Vec<String> = v.shifts.clone();
    shown.extend(v.counts.iter().map(|(verdict, n)| {
        let l = look(verdict);
        format!("{} {n} {}", l.marker, l.words)
    }));
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
            intro.extend(shift_lines(report));
            intro.extend(caveat_line(report));
            if !report.key_differences.is_empty() {
                let parts: Vec<&str> = report.key_differences.iter().map(|d| d.part.as_str()).collect();
                intro.push(format!("Not comparable: the configurations differ in {}.", parts.join(", ")));
            }
            intro.push(rule_line());
            let mut links = Table::new("The comparison", &[("baseline run", false), ("configuration", false)]);
            links.push(vec![
                Cell::link(report.base.id.clone(), paths::run_link(root, &report.base.id)),
                Cell::text(report.candidate.configuration.clone()),
            ]);
            tables.push(links);
            tables.extend(differences_table(report));
            let flagged: Vec<&CaseResult> =
                worst_first(&report.cases).into_iter().filter(|r| look(r.verdict.as_str()).rank <= 1).collect();
            if flagged.is_empty() {
                intro.push("No case is flagged slower or faster.".to_string());
            } else {
                let mut table = cases_table("Flagged cases, worst first (slower or faster than the baseline)");
                for case in flagged {
                    table.push(case_row(case));
                }
                tables.push(table);
            }
            tables.push(every_case_table(report));
        }
        Err(why) => intro.push(format!("Not compared: {why}.")),
    }
    if !c.compared_by.is_empty() {
        let mut table =
            Table::new("Runs compared with this run as their baseline", &[("run", false), ("comparison", false)]);
        for candidate in c.compared_by {
            table.push(vec![
                Cell::link(candidate.clone(), paths::run_link(root, candidate)),
                Cell::link("its verdicts".to_string(), paths::comparison_link(root, candidate)),
            ]);
        }
        tables.push(table);
    }
    Block { id: paths::COMPARISON_ID.into(), title: "Compared with baseline".into(), intro, tables, ..Block::default() }
}

/// The base and candidate configurations side by side where they differ (the comparison is
/// then refused).
fn differences_table(report: &Report) -> Option<Table> {
    if report.key_differences.is_empty() {
        return None;
    }
    let mut table = Table::new(
        "Not comparable: the configurations differ",
        &[("key part", false), ("base", false), ("candidate", false)],
    );
    for d in &report.key_differences {
        table.push(vec![Cell::text(&d.part), Cell::text(&d.base), Cell::text(&d.candidate)]);
    }
    Some(table)
}

/// Every case, worst first, with why it got its verdict: folded under its caption (a run has
/// tens to hundreds of cases).
fn every_case_table(report: &Report) -> Table {
    let mut cases = cases_table(&format!(
        "Every case, worst first ({}; ratio = median candidate / median base, as measured)",
        count(report.cases.len(), "case")
    ));
    cases.columns.push(Column { label: "why".into(), numeric: false });
    for case in worst_first(&report.cases) {
        let mut row = case_row(case);
        row.push(Cell::text(case.reason.clone().unwrap_or_default()));
        cases.push(row);
    }
    cases.with_folded()
}

/// One line per family: its shift against the history and whether it is beyond the noise.
fn shift_lines(report: &Report) -> Vec<String> {
    report
        .shifts
        .iter()
        .map(|s| match s.verdict {
            Verdict::InsufficientHistory => format!(
                "{} shift: {:.2}x, not judged ({}).",
                s.family.as_str(),
                s.ratio,
                s.reason.as_deref().unwrap_or("too little history")
            ),
            _ => format!(
                "Run-wide, {} (over {}, noise floor {} from {}{}).",
                s.sentence(),
                crate::core::format::count(s.cases, "case"),
                pct2(s.effect_floor * 100.0),
                crate::core::format::count(s.history_runs, "earlier run"),
                match s.history_left_out {
                    0 => String::new(),
                    1 => "; 1 more left out as a change".to_string(),
                    n => format!("; {n} more left out as changes"),
                }
            ),
        })
        .collect()
}

/// The soft facts in which the candidate differs from the base, in one line.
fn caveat_line(report: &Report) -> Option<String> {
    if report.caveats.is_empty() {
        return None;
    }
    let parts: Vec<String> =
        report.caveats.iter().map(|d| format!("{} {} → {}", d.part, d.base, d.candidate)).collect();
    Some(format!("Caveat: the candidate differs from the base in {}.", parts.join("; ")))
}

fn rule_line() -> String {
    format!(
        "The run is the replicate: a case is slower or faster only when its run-level value (median over cycles) is beyond the noise floor of the earlier ok runs of its configuration (a {} % prediction interval of their spread, widened {}x for the heavy tails real runs have, at least 3 % and two timer steps) and beyond every one of them, and its ratio to the base is beyond that floor too. An earlier run far beyond the others (beyond their floor at 1 in 100,000,000 and at least 1.34x, as a 40x regression is) is a change, not noise, and is left out of the history (at most a quarter of it; the newest earlier run too, so the second run of a new level is judged against the old level, and the base run decides). The same rule judges each family's run-wide shift, and its shift from the base must be beyond the floor too. The 95 % interval beside a ratio is over the two runs' cycles only: it says how precisely those two runs were measured, not how far runs of the configuration vary, and decides nothing.",
        100.0 - crate::analysis::comparison::rule::ALPHA * 100.0,
        crate::analysis::comparison::rule::TAIL
    )
}

/// The cases worst first: by verdict (`verdict_look`); slower and faster cases by the size of
/// the change (the cost against the history, else against the base: its distance from 1), the
/// others in the natural order of their case (`tokens=1` before `tokens=128`).
pub(crate) fn worst_first(cases: &[CaseResult]) -> Vec<&CaseResult> {
    let size = |c: &CaseResult| {
        let rank = look(c.verdict.as_str()).rank;
        let ratio = c.history_ratio.or(c.cost_ratio).filter(|r| *r > 0.0 && rank <= 1);
        ratio.map_or(0.0, |r| r.ln().abs())
    };
    // Each case's key made once, not twice a comparison.
    let mut sorted: Vec<(&CaseResult, String)> = cases.iter().map(|c| (c, c.key())).collect();
    sorted.sort_by(|(a, a_key), (b, b_key)| {
        look(a.verdict.as_str())
            .rank
            .cmp(&look(b.verdict.as_str()).rank)
            .then(size(b).total_cmp(&size(a)))
            .then_with(|| natural_cmp(a_key, b_key))
    });
    sorted.into_iter().map(|(c, _)| c).collect()
}

/// Verdict first, then the case, its ratio with the interval and the noise floor; details
/// after. One card per case on a phone (the verdict on top).
fn cases_table(caption: &str) -> Table {
    Table::new(
        caption,
        &[
            ("verdict", false),
            ("case", false),
            ("ratio (95 % interval)", true),
            ("noise floor", true),
            ("vs history", true),
            ("cycles base / cand.", true),
        ],
    )
    .with_cards()
}

fn case_row(c: &CaseResult) -> Vec<Cell> {
    let history = match c.history_ratio {
        Some(r) if c.history_left_out > 0 => {
            format!("{r:.3} ({}, {} left out)", count(c.history_runs, "run"), c.history_left_out)
        }
        Some(r) => format!("{r:.3} ({})", count(c.history_runs, "run")),
        None => "n/a".to_string(),
    };
    let ratio = match (c.ratio, c.ci_low, c.ci_high) {
        (Some(r), Some(low), Some(high)) => format!("{r:.3} ({low:.3}–{high:.3})"),
        (Some(r), _, _) => format!("{r:.3}"),
        _ => "n/a".into(),
    };
    vec![
        look(c.verdict.as_str()).cell(),
        Cell {
            class: "case",
            ..Cell::text(format!(
                "{} · {} · {} · {}",
                c.section,
                count(c.world_size.max(0) as usize, "rank"),
                c.case_label(),
                c.metric
            ))
        },
        Cell::text(ratio),
        Cell::text(pct2(c.effect_floor * 100.0)),
        Cell::text(history),
        Cell::text(format!("{} / {}", c.base_cycles, c.candidate_cycles)),
    ]
}

/// The index's cell for a run (links relative to the index page's `root`): the counts with
/// the regression colour and marker when a case is slower.
pub(crate) fn index_cell(root: &str, id: &str, verdict: &BaselineVerdict) -> Cell {
    match verdict {
        BaselineVerdict::Compared(v) => {
            let mut cell =
                Cell::link(format!("vs {}: {}", v.baseline, counts_text(v)), paths::comparison_link(root, id));
            // A slower family counts as a regression as a slower case does (`has_regression`).
            if let Some(l) = run_look(v.of("slower") + usize::from(v.regression), v.of("faster")) {
                cell.class = l.class;
            }
            cell
        }
        BaselineVerdict::NotCompared(_) => Cell { text: "not compared".into(), href: None, class: "na" },
        BaselineVerdict::Pending => Cell::text(""),
    }
}
