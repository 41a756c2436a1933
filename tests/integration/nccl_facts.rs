//! The run page's NCCL log facts read as a person would write them: CUDA driver `13.0`,
//! graph-search patterns by name, channels explained, each tree once.

use crate::common::{build, runs_dir, text};
use std::fs;

#[test]
fn run_page_states_nccl_facts_in_words_once() {
    let (dir, runs) = runs_dir(&["synth-gzip-logs"]);
    let site = dir.path().join("site");
    let output = build(&runs, &site, &[]);
    let page = fs::read_to_string(site.join("runs/synth-gzip-logs/index.html"))
        .unwrap_or_else(|_| panic!("{}", text(&output)));
    let page = page.replace("&#62;", ">").replace("&gt;", ">");
    for phrase in [
        "CUDA driver: 13.0.",
        "Channels: 32 per communicator: the ring graph search found 16, which NCCL duplicated (x2).",
        "balanced tree (1)",
        "ring (4)",
    ] {
        assert!(page.contains(phrase), "{phrase:?} missing");
    }
    assert!(!page.contains("CUDA driver: 13000"));
    assert_eq!(page.matches("\n1/-1/-1->0->-1\n").count(), 1, "each tree once");
    assert!(!page.contains("-1 -> 0 -> 1/"), "no tree in the Tree line's order");
}
