//! The comparison report as text, Markdown, JSON (schema `SCHEMA_VERSION`) or CSV.
//! Numbers print with Rust's shortest round-trip form (JSON) or fixed digits (text, md).

use super::engine::{CaseResult, Shift};
use super::Report;
use crate::core::format::{count, terminal_safe};

#[derive(Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
pub enum Format {
    Text,
    Md,
    Json,
    Csv,
}

pub fn render(report: &Report, format: Format) -> anyhow::Result<String> {
    Ok(match format {
        Format::Json => serde_json::to_string_pretty(report)? + "\n",
        Format::Csv => csv(&report.shifts, &report.cases)?,
        Format::Text => text(report, false),
        Format::Md => text(report, true),
    })
}

fn opt(value: Option<f64>, digits: usize) -> String {
    value.map_or_else(|| "-".to_string(), |v| format!("{v:.digits$}"))
}

fn headline(report: &Report) -> Vec<String> {
    let mut lines = vec![
        format!("base:      {} ({}, {})", report.base.id, report.base.status, report.base.configuration),
        format!("candidate: {} ({}, {})", report.candidate.id, report.candidate.status, report.candidate.configuration),
        format!("baseline:  {}", report.baseline_source),
    ];
    if !report.key_differences.is_empty() {
        lines.push("NOT COMPARABLE: the configurations differ in".to_string());
        for d in &report.key_differences {
            lines.push(format!("  {}: base {:?}, candidate {:?}", d.part, d.base, d.candidate));
        }
    }
    for (side, unknown) in [("base", &report.base.unknown), ("candidate", &report.candidate.unknown)] {
        if !unknown.is_empty() {
            lines.push(format!("{side} does not state: {} (unknown in the key)", unknown.join(", ")));
        }
    }
    if !report.caveats.is_empty() {
        lines.push("caveats:   the candidate differs from the base in (not part of the key):".to_string());
        for d in &report.caveats {
            lines.push(format!("  {}: base {:?}, candidate {:?}", d.part, d.base, d.candidate));
        }
    }
    lines.push(format!("history:   {} earlier ok runs of the configuration", report.history_runs));
    for s in &report.shifts {
        let verdict = match (s.verdict, &s.reason) {
            (super::engine::Verdict::Slower, _) => "SLOWER OVERALL",
            (super::engine::Verdict::Faster, _) => "faster overall",
            (super::engine::Verdict::InsufficientHistory, _) => "not judged",
            (_, Some(reason)) => reason,
            (_, None) => "within the noise",
        };
        lines.push(format!(
            "shift:     {} {:.4}x over {} cases, floor ±{:.1} % from {} runs{}: {verdict}{}",
            s.family.as_str(),
            s.ratio,
            s.cases,
            s.effect_floor * 100.0,
            s.history_runs,
            if s.history_left_out > 0 { format!(" ({})", left_out(s.history_left_out)) } else { String::new() },
            if matches!(s.verdict, super::engine::Verdict::Slower | super::engine::Verdict::Faster) {
                format!(" ({})", s.sentence())
            } else {
                String::new()
            }
        ));
    }
    let counts: Vec<String> = report.counts.iter().map(|(k, v)| format!("{k} {v}")).collect();
    lines.push(format!("verdicts:  {}", counts.join(", ")));
    lines
}

fn row(c: &CaseResult) -> [String; 11] {
    [
        c.section.to_string(),
        c.world_size.to_string(),
        c.case_label(),
        c.metric.to_string(),
        format!("{}/{}", c.base_cycles, c.candidate_cycles),
        opt(c.ratio, 4),
        format!("[{}, {}]", opt(c.ci_low, 4), opt(c.ci_high, 4)),
        opt(c.history_ratio, 4),
        format!("±{:.1} %", c.effect_floor * 100.0),
        c.verdict.as_str().to_string(),
        match (&c.reason, c.history_left_out) {
            (reason, 0) => reason.clone().unwrap_or_default(),
            (Some(reason), n) => format!("{reason}; {}", left_out(n)),
            (None, n) => left_out(n),
        },
    ]
}

/// `1 earlier run left out as a change` (`rule::without_changes`).
fn left_out(runs: usize) -> String {
    format!("{} left out as {}", count(runs, "earlier run"), if runs == 1 { "a change" } else { "changes" })
}

const COLUMNS: [&str; 11] =
    ["section", "ws", "case", "metric", "cycles", "ratio", "95% CI (cycles)", "vs history", "floor", "verdict", "why"];

/// Text and Markdown are read on a terminal: every field (ids, configurations, case names come
/// from runs) has its control characters escaped (`\u{1b}`), so a run cannot drive it.
fn text(report: &Report, markdown: bool) -> String {
    let mut out = String::new();
    let rows: Vec<[String; 11]> = report.cases.iter().map(|c| row(c).map(|cell| terminal_safe(&cell))).collect();
    let headline: Vec<String> = headline(report).iter().map(|line| terminal_safe(line)).collect();
    if markdown {
        let title = terminal_safe(&format!("# {} vs {}", report.candidate.id, report.base.id));
        out.push_str(&format!("{title}\n\n"));
        for line in &headline {
            out.push_str(&format!("- {}\n", md_escape(line)));
        }
        out.push_str(&format!("\n| {} |\n|{}\n", COLUMNS.join(" | "), "---|".repeat(COLUMNS.len())));
        for r in &rows {
            let cells: Vec<String> = r.iter().map(|c| md_escape(c)).collect();
            out.push_str(&format!("| {} |\n", cells.join(" | ")));
        }
        return out;
    }
    for line in &headline {
        out.push_str(line);
        out.push('\n');
    }
    let mut widths: Vec<usize> = COLUMNS.iter().map(|c| c.chars().count()).collect();
    for r in &rows {
        // The last column's padding goes with the line's trailing spaces (`trim_end`).
        for (w, cell) in widths.iter_mut().zip(r.iter()) {
            *w = (*w).max(cell.chars().count());
        }
    }
    out.push('\n');
    for cells in std::iter::once(COLUMNS.map(String::from)).chain(rows) {
        let line: Vec<String> = cells.iter().zip(&widths).map(|(c, w)| format!("{c:<w$}")).collect();
        out.push_str(line.join("  ").trim_end());
        out.push('\n');
    }
    out
}

fn md_escape(text: &str) -> String {
    text.replace('\\', "\\\\").replace('|', "\\|").replace('<', "&lt;").replace('>', "&gt;")
}

/// The CSV's columns: every field of a JSON case (`CaseResult`), `case_folder` after `case`;
/// `history_left_out`, then `scope` and `family_cases`, the newest, last, so that the columns
/// before them keep their places.
const CSV_FIELDS: [&str; 21] = [
    "section",
    "world_size",
    "case",
    "case_folder",
    "metric",
    "base_cycles",
    "candidate_cycles",
    "ratio",
    "ci_low",
    "ci_high",
    "cost_ratio",
    "family",
    "history_runs",
    "history_ratio",
    "effect_floor",
    "timer_step",
    "verdict",
    "reason",
    "history_left_out",
    "scope",
    "family_cases",
];

/// One row a family shift (`scope` `family`, first, as the other formats list them first: exit
/// 1 can come from a shift alone), then one a case (`scope` `case`). A shift's row fills the
/// columns a shift has (`family`, `history_runs`, `history_ratio` its ratio to its history,
/// `effect_floor`, `verdict`, `reason`, `history_left_out`, `family_cases` the cases it is the
/// median of) and leaves the case columns empty.
fn csv(shifts: &[Shift], cases: &[CaseResult]) -> anyhow::Result<String> {
    let mut writer = csv::Writer::from_writer(Vec::new());
    writer.write_record(CSV_FIELDS)?;
    let number = |v: Option<f64>| v.map(|v| v.to_string()).unwrap_or_default();
    for s in shifts {
        let none = String::new;
        writer.write_record([
            none(),
            none(),
            none(),
            none(),
            none(),
            none(),
            none(),
            none(),
            none(),
            none(),
            none(),
            s.family.as_str().to_string(),
            s.history_runs.to_string(),
            s.ratio.to_string(),
            s.effect_floor.to_string(),
            none(),
            s.verdict.as_str().to_string(),
            s.reason.clone().unwrap_or_default(),
            s.history_left_out.to_string(),
            "family".to_string(),
            s.cases.to_string(),
        ])?;
    }
    for c in cases {
        writer.write_record([
            c.section.to_string(),
            c.world_size.to_string(),
            c.case.clone(),
            c.case_folder.clone().unwrap_or_default(),
            c.metric.to_string(),
            c.base_cycles.to_string(),
            c.candidate_cycles.to_string(),
            number(c.ratio),
            number(c.ci_low),
            number(c.ci_high),
            number(c.cost_ratio),
            c.family.as_str().to_string(),
            c.history_runs.to_string(),
            number(c.history_ratio),
            c.effect_floor.to_string(),
            number(c.timer_step),
            c.verdict.as_str().to_string(),
            c.reason.clone().unwrap_or_default(),
            c.history_left_out.to_string(),
            "case".to_string(),
            String::new(),
        ])?;
    }
    Ok(String::from_utf8(writer.into_inner()?)?)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::analysis::comparison::engine::Verdict;
    use crate::analysis::comparison::key::KeyDifference;
    use crate::analysis::comparison::samples::Family;
    use crate::analysis::comparison::RunSide;

    /// A case with every field set.
    fn case() -> CaseResult {
        CaseResult {
            section: "decode",
            world_size: 2,
            case: "tokens=1".to_string(),
            case_folder: Some("world2_decode".to_string()),
            metric: "replay_total_us",
            family: Family::Host,
            base_cycles: 10,
            candidate_cycles: 11,
            ratio: Some(1.5),
            ci_low: Some(1.25),
            ci_high: Some(1.75),
            cost_ratio: Some(2.5),
            history_runs: 4,
            history_left_out: 2,
            history_ratio: Some(3.5),
            effect_floor: 0.125,
            timer_step: Some(0.001),
            verdict: Verdict::Slower,
            reason: Some("why".to_string()),
        }
    }

    /// The CSV has a column for every field of a JSON case and no other but `scope` and
    /// `family_cases`, and each row puts a case's values under their own columns.
    #[test]
    fn the_csv_has_the_fields_of_a_json_case() {
        let case = case();
        let json = serde_json::to_value(&case).unwrap();
        let mut json_fields: Vec<&str> = json.as_object().unwrap().keys().map(String::as_str).collect();
        json_fields.extend(["scope", "family_cases"]);
        let mut csv_fields = CSV_FIELDS.to_vec();
        json_fields.sort_unstable();
        csv_fields.sort_unstable();
        assert_eq!(csv_fields, json_fields);
        let rows = rows(&csv(&[], std::slice::from_ref(&case)).unwrap());
        assert_eq!(rows.len(), 1);
        for field in CSV_FIELDS {
            let expected = match (field, &json[field]) {
                ("scope", _) => "case".to_string(),
                ("family_cases", _) => String::new(),
                // The CSV names a family as the text report does (`host-side`), the JSON by its key.
                ("family", _) => "host-side".to_string(),
                (_, serde_json::Value::String(text)) => text.clone(),
                (_, other) => other.to_string(),
            };
            assert_eq!(rows[0][field], expected, "{field}");
        }
    }

    /// A family shift is a row of its own, before the cases: every field of its JSON under a
    /// column (its ratio as `history_ratio`, its case count as `family_cases`), the case
    /// columns empty. (`compare` exits 1 for a slower shift alone.)
    #[test]
    fn a_family_shift_is_a_row_before_the_cases() {
        let shift = Shift {
            family: Family::Device,
            ratio: 1.875,
            effect_floor: 0.25,
            cases: 7,
            history_runs: 15,
            history_left_out: 1,
            verdict: Verdict::Slower,
            reason: Some("why".to_string()),
        };
        let json = serde_json::to_value(&shift).unwrap();
        fn column(field: &str) -> &str {
            match field {
                "ratio" => "history_ratio",
                "cases" => "family_cases",
                field => field,
            }
        }
        let mapped: Vec<&str> = json.as_object().unwrap().keys().map(|k| column(k)).collect();
        assert!(mapped.iter().all(|field| CSV_FIELDS.contains(field)), "{mapped:?}");
        let case = case();
        let rows = rows(&csv(std::slice::from_ref(&shift), std::slice::from_ref(&case)).unwrap());
        let scopes: Vec<&str> = rows.iter().map(|row| row["scope"].as_str()).collect();
        assert_eq!(scopes, ["family", "case"]);
        for field in CSV_FIELDS {
            let key = json.as_object().unwrap().keys().find(|k| column(k) == field);
            let expected = match (field, key.map(|k| &json[k])) {
                ("scope", _) => "family".to_string(),
                ("family", _) => "device-side".to_string(),
                (_, Some(serde_json::Value::String(text))) => text.clone(),
                (_, Some(other)) => other.to_string(),
                (_, None) => String::new(),
            };
            assert_eq!(rows[0][field], expected, "{field}");
        }
    }

    /// A report of two cases and a slower shift, with run text that a terminal or Markdown
    /// would act on (`|`, `<`, an escape character).
    fn report() -> Report {
        let side = |id: &str| RunSide {
            id: id.to_string(),
            status: "ok",
            configuration: "1x H100 | <b>".to_string(),
            key: String::new(),
            unknown: vec!["topology".to_string()],
        };
        let mut other = case();
        (other.case, other.ratio, other.ci_low, other.reason, other.history_left_out) =
            ("tokens=4096|x\u{1b}[31m".to_string(), Some(0.5), None, None, 1);
        Report {
            schema_version: 2,
            base: side("base-run"),
            candidate: side("cand-run"),
            baseline_source: "given".to_string(),
            key_differences: vec![],
            caveats: vec![KeyDifference {
                part: "host".to_string(),
                base: "a".to_string(),
                candidate: "b".to_string(),
            }],
            history_runs: 4,
            shifts: vec![Shift {
                family: Family::Host,
                ratio: 1.875,
                effect_floor: 0.25,
                cases: 7,
                history_runs: 4,
                history_left_out: 0,
                verdict: Verdict::Slower,
                reason: None,
            }],
            counts: [("slower", 1), ("no_change", 1)].into_iter().collect(),
            cases: vec![case(), other],
        }
    }

    /// Text: the headline, then the header and one line a case, every column but the last
    /// padded to its widest cell, with two spaces between; run text cannot drive the terminal.
    #[test]
    fn the_text_report_is_a_headline_and_an_aligned_table() {
        let out = render(&report(), Format::Text).unwrap();
        let lines: Vec<&str> = out.lines().collect();
        assert_eq!(lines[0], "base:      base-run (ok, 1x H100 | <b>)");
        assert_eq!(lines[2], "baseline:  given");
        assert!(lines.contains(&"base does not state: topology (unknown in the key)"), "{out}");
        assert!(lines.contains(&"  host: base \"a\", candidate \"b\""), "{out}");
        assert!(out.contains("shift:     host-side 1.8750x over 7 cases, floor ±25.0 % from 4 runs: SLOWER OVERALL ("));
        assert!(lines.contains(&"verdicts:  no_change 1, slower 1"), "{out}");
        assert!(!out.contains("NOT COMPARABLE"), "{out}");
        assert!(!out.contains('\u{1b}') && out.contains("\\u{1b}[31m"), "{out}");
        let table: Vec<&str> = lines.iter().skip_while(|l| !l.is_empty()).skip(1).copied().collect();
        assert_eq!(table.len(), 3, "{out}");
        assert!(table[0].starts_with("section  ws  case "), "{}", table[0]);
        // Every column starts where the header's does (in characters: the floor has a `±`).
        let starts: Vec<usize> = COLUMNS.iter().map(|c| table[0].find(c).unwrap()).collect();
        let cell = |line: &str, column: usize| -> String {
            let end = starts.get(column + 1).map_or(usize::MAX, |next| next - starts[column]);
            line.chars().skip(starts[column]).take(end).collect::<String>().trim_end().to_string()
        };
        for (row, why) in
            table[1..].iter().zip(["why; 2 earlier runs left out as changes", "1 earlier run left out as a change"])
        {
            assert!(row.starts_with("decode   2   world2_decode: tokens="), "{row}");
            assert_eq!(cell(row, 10), why, "{row}");
            assert_eq!(cell(row, 9), "slower", "{row}");
            assert_eq!(cell(row, 8), "±12.5 %", "{row}");
        }
        assert_eq!(cell(table[1], 6), "[1.2500, 1.7500]");
        assert_eq!(cell(table[2], 6), "[-, 1.7500]");
    }

    /// Markdown: a title, the headline as a list and one table row a case, with `|`, `\\`,
    /// `<` and `>` of run text escaped (so no cell splits and no HTML passes).
    #[test]
    fn the_markdown_report_escapes_run_text() {
        let out = render(&report(), Format::Md).unwrap();
        let lines: Vec<&str> = out.lines().collect();
        assert_eq!(lines[0], "# cand-run vs base-run");
        assert_eq!(lines[2], "- base:      base-run (ok, 1x H100 \\| &lt;b&gt;)");
        assert_eq!(lines.iter().filter(|l| l.starts_with("| ")).count(), 3, "{out}");
        let header = lines.iter().find(|l| l.starts_with("| section |")).unwrap();
        assert_eq!(header.matches(" | ").count(), COLUMNS.len() - 1);
        let last = lines.last().unwrap();
        assert!(
            last.starts_with("| decode | 2 | world2_decode: tokens=4096\\|x\\\\u{1b}[31m | replay_total_us |"),
            "{last}"
        );
        assert_eq!(last.matches(" | ").count(), COLUMNS.len() - 1, "{last}");
        assert_eq!(md_escape("a\\b|<c>"), "a\\\\b\\|&lt;c&gt;");
    }

    /// Every row of a CSV as a map from column to value.
    fn rows(text: &str) -> Vec<std::collections::BTreeMap<String, String>> {
        let mut reader = csv::Reader::from_reader(text.as_bytes());
        let header = reader.headers().unwrap().clone();
        reader
            .records()
            .map(|row| header.iter().map(String::from).zip(row.unwrap().iter().map(String::from)).collect())
            .collect()
    }
}
