//! Comparisons on the site: each run's page says how it compares with its baseline (the rule
//! of `compare`), its compare page lists every case and is linked from both runs, the index
//! has the verdict; builds that add or remove runs update exactly what changed and give the
//! site a clean build gives.

use crate::common::{build, copy_tree, nccl_report, text, tree};
use crate::compare::{bundled_run, two_runs, EARLIER, LATER, REAL};
use serde_json::Value;
use std::path::Path;

fn page(out: &Path, rel: &str) -> String {
    std::fs::read_to_string(out.join(rel)).unwrap_or_else(|e| panic!("{rel}: {e}"))
}

#[test]
fn a_planted_regression_is_on_the_run_page_the_compare_page_and_the_index() {
    let (dir, runs) = two_runs(1.5);
    let out = dir.path().join("site");
    let output = build(&runs, &out, &[]);
    assert!(output.status.success(), "{}", text(&output));
    let compare_page = format!("compare/{REAL}..{LATER}.html");
    let link = format!("../../{compare_page}");

    let later = page(&out, &format!("runs/{LATER}/index.html"));
    assert!(
        later.contains(&format!("Compared with {REAL} (newest earlier ok run of the configuration): 1 slower")),
        "{later}"
    );
    assert!(later.contains("Flagged cases") && later.contains("tokens=1;bytes=8192;calls=160"), "{later}");
    assert!(later.contains(&format!("href=\"{link}\"")), "candidate links its compare page");
    let real = page(&out, &format!("runs/{REAL}/index.html"));
    assert!(
        real.contains("Runs compared with this run as their baseline") && real.contains(&format!("href=\"{link}\""))
    );
    let failed = page(&out, "runs/synth-nccl-wrong/index.html");
    assert!(failed.contains("Not compared: this run is failed"), "failed runs are left out");

    let index = page(&out, "index.html");
    let cell = format!(
        "<td class=\"failed\" data-label=\"compared with baseline\"><a href=\"{compare_page}\">vs {REAL}: 1 slower · 51 no evidence of change</a></td>"
    );
    assert!(index.contains(&cell), "{index}");

    // The site's verdicts are the command line's.
    let json = nccl_report(&["compare", "--runs", runs.to_str().unwrap(), LATER, "--format", "json"]);
    let json: Value = serde_json::from_slice(&json.stdout).unwrap();
    assert_eq!((json["counts"]["slower"].as_u64(), json["counts"]["no_change"].as_u64()), (Some(1), Some(51)));

    let html =
        page(&out, &compare_page).replace(concat!("nccl-report ", env!("CARGO_PKG_VERSION")), "nccl-report [version]");
    insta::assert_snapshot!("compare_page", html);
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
    built("2 runs");
    assert!(out.join(format!("compare/{REAL}..{LATER}.html")).is_file());

    // A newer run: compared with LATER, which now lists it; REAL..LATER stays.
    const NEWER: &str = "20261203T100000Z";
    copy_tree(&bundled_run(), &runs.join(NEWER));
    built("; 2 from cache");
    assert!(page(&out, &format!("runs/{LATER}/index.html")).contains(&format!("compare/{LATER}..{NEWER}.html")));
    assert!(out.join(format!("compare/{REAL}..{LATER}.html")).is_file());

    // LATER removed: NEWER's baseline is REAL, and LATER's compare pages are gone.
    std::fs::remove_dir_all(runs.join(LATER)).unwrap();
    built("2 runs");
    let names: Vec<String> = std::fs::read_dir(out.join("compare"))
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .collect();
    assert_eq!(names, [format!("{REAL}..{NEWER}.html")]);

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
