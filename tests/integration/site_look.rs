//! Issue 16, how the site looks: every table scrolls inside its own box, every chart comes
//! as one SVG for every screen that follows the colour scheme with its CSV beside it, the run
//! list stacks into cards on phones. Built from the fixture runs plus the bundled `runs/`
//! and a run whose NOTES.md holds a markdown table.

use crate::common::{build, copy_tree, runs_dir, tree};
use std::collections::BTreeMap;
use std::fs;
use std::path::Path;

/// The built site (path -> text of every `.html` and `.svg`) and every file's path.
fn built_site() -> (BTreeMap<String, String>, Vec<String>) {
    let (dir, runs) = runs_dir(&[]);
    let bundled = Path::new(env!("CARGO_MANIFEST_DIR")).join("runs");
    copy_tree(&bundled, &runs);
    let one_run = fs::read_dir(&runs).unwrap().map(|e| e.unwrap().path()).find(|p| p.is_dir()).unwrap();
    fs::write(one_run.join("NOTES.md"), "# Notes\n\n| case | note |\n|---|---|\n| a | b |\n").unwrap();
    let out = dir.path().join("site");
    assert!(build(&runs, &out, &[]).status.success());
    let files = tree(&out);
    let paths = files.keys().cloned().collect();
    let texts = files
        .into_iter()
        .filter(|(path, _)| [".html", ".svg", ".csv", ".css"].iter().any(|e| path.ends_with(e)))
        .map(|(path, bytes)| (path, String::from_utf8(bytes).unwrap()))
        .collect();
    (texts, paths)
}

#[test]
fn every_table_sits_in_the_scroll_wrapper() {
    let (texts, _) = built_site();
    let mut tables = 0;
    let mut from_notes = 0;
    for (path, html) in texts.iter().filter(|(p, _)| p.ends_with(".html")) {
        for (at, _) in html.match_indices("<table") {
            let before = html[..at].trim_end();
            let opener = before.rfind("<div").map(|i| &before[i..]).unwrap_or_default();
            // The wrapper's opening tag is the last tag before the table.
            assert!(
                opener.starts_with("<div class=\"table-wrap") && opener.ends_with('>') && !opener[1..].contains('<'),
                "{path}: a table outside the scroll wrapper: …{}",
                &before[before.len().saturating_sub(120)..]
            );
            tables += 1;
        }
        from_notes += html.matches("<td>b</td>").count();
    }
    assert!(tables > 50, "only {tables} tables");
    assert!(from_notes > 0, "the NOTES.md table was not rendered");
}

#[test]
fn every_chart_is_one_svg_with_a_dark_style_and_its_rows_in_the_page_charts_csv() {
    let (texts, paths) = built_site();
    let mut figures = 0;
    for (path, html) in texts.iter().filter(|(p, _)| p.ends_with(".html")) {
        let page_dir = Path::new(path).parent().unwrap();
        for figure in html.split("<figure>").skip(1) {
            let figure = &figure[..figure.find("</figure>").unwrap()];
            let attr = |name: &str| {
                let start =
                    figure.find(&format!("{name}=\"")).unwrap_or_else(|| panic!("{path}: no {name}")) + name.len() + 2;
                figure[start..start + figure[start..].find('"').unwrap()].to_string()
            };
            let (chart, csv) = (attr("data"), attr("href"));
            assert!(figure.starts_with("\n<object data="), "{path}: {figure}");
            assert!(!figure.contains("<picture"), "{path}: one SVG serves every screen");
            // One CSV a page (issue 27): the link goes to it, and it holds this chart's rows.
            assert!(csv.ends_with(".csv") && !csv.contains(".svg"), "{path}: {csv}");
            assert!(figure.contains("<figcaption>"), "{path}");
            for file in [&chart, &csv] {
                let site_path = page_dir.join(file).to_string_lossy().replace('\\', "/");
                assert!(paths.contains(&site_path), "{path}: {file} missing");
            }
            let svg = &texts[&page_dir.join(&chart).to_string_lossy().replace('\\', "/")];
            let rows = &texts[&page_dir.join(&csv).to_string_lossy().replace('\\', "/")];
            let id = chart.rsplit('/').next().unwrap().trim_end_matches(".svg");
            assert!(
                rows.lines().any(|l| l.split(',').next() == Some(id)) || svg.contains(">no data</text>"),
                "{path}: {csv} has no rows of {id}"
            );
            assert!(svg.starts_with("<svg width=\"480\" height=\"440\" viewBox=\"0 0 480 440\""), "{chart}");
            // A value on hover for every point drawn: one <title> per median marker.
            assert!(svg.contains("\" r=\"7\"><title>") || svg.contains(">no data</text>"), "{chart}: no hover values");
            figures += 1;
        }
    }
    assert!(figures > 20, "only {figures} figures");
    assert!(!paths.iter().any(|p| p.ends_with(".phone.svg")), "no second copy of any chart");
    for (path, svg) in texts.iter().filter(|(p, _)| p.ends_with(".svg")) {
        assert!(svg.contains("@media (prefers-color-scheme: dark)"), "{path}: no dark style");
    }
}

#[test]
fn the_run_list_labels_every_cell_for_the_stacked_phone_layout() {
    let (texts, _) = built_site();
    let index = &texts["index.html"];
    let wrapper = &index[index.find("<div class=\"table-wrap cards runs\">").expect("the run list is a card table")..];
    let body = &wrapper[wrapper.find("<tbody>").unwrap()..wrapper.find("</tbody>").unwrap()];
    let rows = body.matches("<tr>").count();
    // The run id names its row: a row header, labelled like the other cells.
    assert_eq!(body.matches("<tr><th scope=\"row\"").count(), rows, "a run without its row header");
    let cells = body.matches("<td").count() + rows;
    assert!(cells > 20, "{cells} cells");
    // Each column's label is stated once, on the <table> (a custom property the stylesheet's
    // `::before` shows on a phone), not on each of its cells.
    let table = &wrapper[..wrapper.find("<caption>").unwrap()];
    let columns = wrapper[..wrapper.find("</thead>").unwrap()].matches("<th scope=\"col\"").count();
    assert_eq!(columns, 8);
    for k in 2..=columns {
        assert!(table.contains(&format!("--l{k}:&#39;")), "column {k} without its label: {table}");
    }
    assert!(table.contains("--l4:&#39;status&#39;;"), "{table}");
    assert!(!body.contains(" data-label=\""), "labels repeated on the cells");
    let css = &texts["static/style.css"];
    assert!(css.contains("content: attr(data-label)"));
    for k in 2..=columns {
        assert!(
            css.contains(&format!(".cards td:nth-child({k})::before {{ content: var(--l{k}, attr(data-label)); }}"))
        );
    }
    // Numeric columns are the table's classes, right-aligned by the stylesheet.
    assert!(table.contains("class=\"n7 n8\""), "{table}");
    assert!(css.contains(":where(.n8 tbody tr) > :nth-child(8)") && !body.contains("class=\"num\""));
    // Other tables keep their markup lean.
    let run_page = texts.iter().find(|(p, _)| p.starts_with("runs/") && p.ends_with("/index.html")).unwrap().1;
    assert!(!run_page.contains("data-label") && !run_page.contains("--l2:"));
}

/// The page text reads right on every page of the bundled runs: counted nouns agree, one date
/// format, no number with more decimals than the formatter gives, chart alt text that is not
/// the caption again, and no sentence about charts on a page that draws none.
#[test]
fn pages_read_well() {
    let (texts, _) = built_site();
    let visible = |html: &str| -> String {
        // The text between tags (attribute values other than alt are not read by people),
        // without `<pre>` blocks: they quote a run's artifacts as recorded (`lscpu` says
        // "CPU(s)"), not our sentences.
        let mut out = String::new();
        let mut in_tag = false;
        let mut quoted = String::new();
        let mut rest = html;
        while let Some(start) = rest.find("<pre>") {
            quoted.push_str(&rest[..start]);
            rest = rest[start..].find("</pre>").map_or("", |end| &rest[start + end..]);
        }
        quoted.push_str(rest);
        for c in quoted.chars() {
            match c {
                '<' => in_tag = true,
                '>' => {
                    in_tag = false;
                    out.push(' ');
                }
                _ if !in_tag => out.push(c),
                _ => {}
            }
        }
        out
    };
    let (mut pages, mut charted) = (0, 0);
    for (path, html) in texts.iter().filter(|(p, _)| p.ends_with(".html")) {
        // A run's own text shown verbatim (`<pre>`: lscpu's "Thread(s) per core") is not ours.
        let ours: String = html
            .split("<pre>")
            .enumerate()
            .map(|(i, part)| if i == 0 { part } else { part.split_once("</pre>").map_or("", |(_, rest)| rest) })
            .collect();
        let text = visible(&ours);
        for bad in ["(s)", " 1 ranks", " 1 runs", " 1 cycles", " 1 files", " 1 cases", "1 timed cycles"] {
            assert!(!text.contains(bad), "{path}: says {bad:?}");
        }
        // Dates are `YYYY-MM-DD HH:MM:SS UTC`: never the manifest's ISO form with microseconds.
        assert!(!text.contains("+00:00"), "{path}: a raw ISO date");
        // No number with a fraction in a table cell shows more than 6 significant figures (the
        // formatter's most; the seed's fixed 3 decimals gave `1230.756`).
        for cell in html.split("<td").skip(1) {
            let cell = &cell[cell.find('>').unwrap() + 1..];
            let value = cell[..cell.find('<').unwrap()].split(' ').next().unwrap_or_default();
            // One decimal point: a number (a driver version, 580.159.04, is not one).
            let number = value.matches('.').count() == 1;
            if number && value.chars().all(|c| c.is_ascii_digit() || c == '.' || c == '-') {
                let figures = value.replace(['-', '.'], "").trim_start_matches('0').len();
                assert!(figures <= 6, "{path}: {value:?} has {figures} significant figures");
            }
        }
        for figure in html.split("<figure>").skip(1) {
            let alt = figure.split("aria-label=\"").nth(1).and_then(|a| a.split('"').next()).unwrap();
            let caption = figure.split("<figcaption>").nth(1).and_then(|c| c.split(" <a ").next()).unwrap();
            assert!(!alt.contains(caption), "{path}: the alt text repeats the caption");
            assert!(alt.contains(" series, ") || alt.ends_with("No data to draw."), "{path}: {alt}");
        }
        // The section pages' sentence about their charts (`section_pages::CHART_RULE`).
        let speaks_of_charts = text.contains("One panel of charts per configuration");
        if html.contains("<figure>") {
            charted += usize::from(speaks_of_charts);
        } else {
            assert!(!speaks_of_charts, "{path}: speaks of charts it does not draw");
        }
        pages += 1;
    }
    assert!(pages > 10, "only {pages} pages");
    assert!(charted > 0, "no page with charts says what they overlay");
    let numerics = &texts["sections/numerics.html"];
    assert!(
        !numerics.contains("<figure>") && !numerics.contains("One panel of charts per configuration"),
        "numerics has no chart to speak of"
    );
    let index = &texts["index.html"];
    assert!(index.contains("2026-12-03 08:11:06 UTC"), "the index's date of 20261203T081106Z");
}
