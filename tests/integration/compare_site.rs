//! Comparisons on the site: each run's page says how it compares with its baseline (the rule
//! of `compare`) and lists every case, its baseline's page links there, the index has the
//! verdict; builds that add or remove runs update exactly what changed and give the site a
//! clean build gives.

use crate::common::{build, copy_tree, nccl_report, text, tree};
use crate::compare::{bundled_run, two_runs, EARLIER, LATER, REAL};
use serde_json::Value;
use std::path::Path;

fn page(out: &Path, rel: &str) -> String {
    std::fs::read_to_string(out.join(rel)).unwrap_or_else(|e| panic!("{rel}: {e}"))
}

#[test]
fn a_planted_regression_is_on_the_run_page_its_baseline_s_page_and_the_index() {
    let (dir, runs) = two_runs(1.5);
    let out = dir.path().join("site");
    let output = build(&runs, &out, &[]);
    assert!(output.status.success(), "{}", text(&output));
    let verdicts = format!("runs/{LATER}/index.html#baseline");
    let link = format!("../../{verdicts}");
    assert!(!out.join("compare").exists(), "no compare pages: every case is on the run page");

    let later = page(&out, &format!("runs/{LATER}/index.html"));
    assert!(
        later.contains(&format!("Compared with {REAL} (newest earlier ok run of the configuration): ▲ 1 slower")),
        "{later}"
    );
    assert!(later.contains("Flagged cases") && later.contains("tokens=1;bytes=8192;calls=160"), "{later}");
    let real = page(&out, &format!("runs/{REAL}/index.html"));
    assert!(
        real.contains("Runs compared with this run as their baseline") && real.contains(&format!("href=\"{link}\""))
    );
    let failed = page(&out, "runs/synth-nccl-wrong/index.html");
    assert!(failed.contains("Not compared: this run is failed"), "failed runs are left out");

    let index = page(&out, "index.html");
    let cell =
        format!("<td class=\"regression\"><a href=\"{verdicts}\">vs {REAL}: ▲ 1 slower · = 51 no change</a></td>");
    assert!(index.contains(&cell), "{index}");
    assert!(index.contains("<li class=\"regression\"><strong>▲ 1 run, slower than before</strong>"), "{index}");

    // The site's verdicts are the command line's.
    let json = nccl_report(&["compare", "--runs", runs.to_str().unwrap(), LATER, "--format", "json"]);
    let json: Value = serde_json::from_slice(&json.stdout).unwrap();
    assert_eq!((json["counts"]["slower"].as_u64(), json["counts"]["no_change"].as_u64()), (Some(1), Some(51)));

    // Verdict first, worst first: the slower case is the first row of every case, folded
    // under its caption on the run page.
    let block = &later[later.find("<section id=\"baseline\">").unwrap()..];
    let block = &block[..block.find("</section>").unwrap()];
    let every_case =
        &block[block.find("<details class=\"folded\"><summary>Every case, worst first (52 cases;").unwrap()..];
    let first_row = every_case.split("<tbody>").nth(1).unwrap_or_default();
    assert!(first_row.starts_with("\n<tr><td class=\"regression\">▲ slower</td>"), "{first_row}");
    assert_eq!(every_case.matches("<tr><td").count(), 52, "every case, once");
    for table in block.split("<table").skip(1) {
        let width = min_table_width_px(&table[..table.find("</table>").unwrap()]);
        assert!(width <= CONTENT_BOX_PX, "a comparison table needs {width} px, wider than the {CONTENT_BOX_PX} px box");
    }
    insta::assert_snapshot!("comparison_block", block);
}

/// The content box at a 1280 px window (`main`: 1200 px less 2 x 16 px padding).
const CONTENT_BOX_PX: f64 = 1168.0;

/// The narrowest a table can be laid out (the browser's min-content width of an auto-layout
/// table): per column, the widest unbreakable piece of any of its cells (a numeric cell does
/// not wrap; a text cell breaks at spaces; a `case` cell anywhere, down to its 12rem minimum),
/// plus padding and border. Text at 0.9rem of 15 px, 7.5 px a character (system-ui digits
/// and lower case are narrower).
fn min_table_width_px(table: &str) -> f64 {
    const CHAR: f64 = 7.5;
    const PAD: f64 = 2.0 * 0.55 * 15.0 + 1.0;
    // A numeric column K is the `<table>`'s class `nK` (or, beyond the stylesheet's columns,
    // its cells' class `num`).
    let open_tag = &table[..table.find('>').unwrap_or(0)];
    let classes = open_tag.split_once("class=\"").map_or("", |(_, rest)| &rest[..rest.find('"').unwrap()]);
    let numeric_column = |i: usize| classes.split(' ').any(|c| c == format!("n{}", i + 1));
    let mut widths: Vec<f64> = Vec::new();
    for row in table.split("<tr>").skip(1) {
        let cells = row.split("</t").filter_map(|c| c.rfind("<t").map(|at| &c[at..]));
        for (i, cell) in cells.enumerate() {
            let open_end = cell.find('>').unwrap_or(0);
            let tag = &cell[..open_end];
            let mut text = String::new();
            let mut in_tag = false;
            for ch in cell[open_end + 1..].chars() {
                match ch {
                    '<' => in_tag = true,
                    '>' => in_tag = false,
                    c if !in_tag => text.push(c),
                    _ => {}
                }
            }
            let chars = if numeric_column(i) || tag.contains("\"num") || tag.contains(" num") {
                text.chars().count()
            } else if tag.contains("case") {
                0
            } else {
                text.split_whitespace().map(|w| w.chars().count()).max().unwrap_or(0)
            };
            let min = if tag.contains("case") { 12.0 * 15.0 } else { 0.0 };
            let width = (chars as f64 * CHAR).max(min) + PAD;
            if widths.len() <= i {
                widths.push(width);
            } else {
                widths[i] = widths[i].max(width);
            }
        }
    }
    widths.iter().sum()
}

#[test]
fn the_table_width_estimate_fails_a_table_too_wide_for_the_box() {
    let number = "<td class=\"num\">1.0930 (1.0712 to 1.1180)</td>";
    let wide = format!("<thead><tr><th>x</th></tr></thead><tbody><tr>{}</tr></tbody>", number.repeat(7));
    assert!(min_table_width_px(&wide) > CONTENT_BOX_PX, "{}", min_table_width_px(&wide));
    let narrow = format!("<tbody><tr>{}<td class=\"case\">{}</td></tr></tbody>", number.repeat(2), "x".repeat(300));
    assert!(min_table_width_px(&narrow) < CONTENT_BOX_PX);
}

#[test]
fn builds_that_add_or_remove_runs_redo_only_the_comparisons_that_changed() {
    let (dir, runs) = two_runs(1.0);
    for name in ["synth-basic", "synth-nccl-wrong"].into_iter().chain(EARLIER) {
        std::fs::remove_dir_all(runs.join(name)).unwrap();
    }
    let out = dir.path().join("site");
    let clean = dir.path().join("clean");
    let built = |expect: &str| {
        let output = build(&runs, &out, &[]);
        let said = text(&output);
        assert!(output.status.success() && said.contains(expect), "{said}");
        let fresh = build(&runs, &clean, &["--no-cache"]);
        assert!(fresh.status.success(), "{}", text(&fresh));
        assert!(tree(&out) == tree(&clean), "an incremental build gives the site a clean build gives");
    };
    let compared_with = |id: &str| {
        let html = page(&out, &format!("runs/{id}/index.html"));
        html.split_once("<p>Compared with ")
            .and_then(|(_, rest)| rest.split_once(' '))
            .map(|(base, _)| base.to_string())
    };
    built("2 runs");
    assert_eq!(compared_with(LATER).as_deref(), Some(REAL));

    // A newer run: compared with LATER, whose page now links its verdicts; LATER's stay.
    const NEWER: &str = "20261203T100000Z";
    copy_tree(&bundled_run(), &runs.join(NEWER));
    built("; 2 from cache");
    assert!(page(&out, &format!("runs/{LATER}/index.html")).contains(&format!("runs/{NEWER}/index.html#baseline")));
    assert_eq!((compared_with(LATER).as_deref(), compared_with(NEWER).as_deref()), (Some(REAL), Some(LATER)));

    // LATER removed: NEWER's baseline is REAL.
    std::fs::remove_dir_all(runs.join(LATER)).unwrap();
    built("2 runs");
    assert_eq!(compared_with(NEWER).as_deref(), Some(REAL));

    // A pinned baseline changes every comparison of the configuration.
    let label = serde_json::from_slice::<Value>(
        &nccl_report(&["compare", "--runs", runs.to_str().unwrap(), REAL, NEWER, "--format", "json"]).stdout,
    )
    .unwrap()["base"]["configuration"]
        .as_str()
        .unwrap()
        .to_string();
    std::fs::write(runs.join("baselines.json"), serde_json::json!({ label: NEWER }).to_string()).unwrap();
    built("; 2 from cache");
    assert!(page(&out, &format!("runs/{REAL}/index.html")).contains("pinned in baselines.json"));
    assert!(page(&out, &format!("runs/{NEWER}/index.html")).contains("this run is the baseline pinned"));
    std::fs::write(runs.join("baselines.json"), "not json").unwrap();
    built("baselines.json: not a JSON object");
}
