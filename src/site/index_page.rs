//! The index: every run in a table, newest first, with headline figures, a page of runs at a
//! time (`paging`); the site-wide notes on the first page.

use crate::site::digest::{RunCard, RunDigest};
use crate::site::format::num3;
use crate::site::paging::Paging;
use crate::site::paths;
use crate::site::sections::Section;
use crate::site::view::{Cell, IndexPage, Link, Table};
use crate::summarize::RunStatus;

/// Index page `page`: its runs (`window`, newest first) with headline figures, the counts of
/// every run (`cards`), and the pager.
pub fn build(window: &[&RunDigest], cards: &[RunCard], paging: &Paging, page: usize, notes: Option<&str>) -> IndexPage {
    let root = Paging::index_root(page);
    let mut table = Table::new(
        "All runs, newest first",
        &[
            ("run", false),
            ("date (UTC)", false),
            ("GPU", false),
            ("ranks", false),
            ("NCCL", false),
            ("PyTorch", false),
            ("CUDA", false),
            ("status", false),
            ("configuration", false),
            ("decode per call, 1 token (µs)", true),
            ("nccl-tests busbw at largest size (GB/s)", true),
        ],
    );
    for run in window {
        let f = &run.facts;
        let ranks: Vec<String> = f.world_sizes.iter().map(|w| w.to_string()).collect();
        table.push(vec![
            Cell::link(run.id.clone(), paths::run_link(root, &run.id)),
            Cell::text(
                f.timestamp_utc
                    .clone()
                    .map(|t| t.chars().take(19).collect::<String>().replace('T', " "))
                    .unwrap_or_default(),
            ),
            Cell::text(f.gpu.clone().unwrap_or_default()),
            Cell::text(ranks.join(", ")),
            Cell::text(f.nccl_version.clone().unwrap_or_default()),
            Cell::text(f.torch_version.clone().unwrap_or_default()),
            Cell::text(f.cuda_version.clone().unwrap_or_default()),
            Cell::status(run.status.as_str()),
            Cell::text(run.configuration.clone()),
            Cell::text(decode_headline(run)),
            Cell::text(busbw_headline(run)),
        ]);
    }
    let count = |s: RunStatus| cards.iter().filter(|r| r.status == s).count();
    IndexPage {
        root,
        pager: paging.index_pager(page),
        runs: table,
        sections: Section::ALL
            .iter()
            .map(|s| Link { text: s.title().to_string(), href: format!("{root}{}", paths::section(s.slug(), 1)) })
            .collect(),
        counts: format!(
            "{} runs: {} ok, {} failed, {} invalid.",
            cards.len(),
            count(RunStatus::Ok),
            count(RunStatus::Failed),
            count(RunStatus::Invalid)
        ),
        notes: notes.filter(|_| page == 1).map(str::to_string),
    }
}

/// Median per-call latency of the smallest-token decode step, per TP size: `TP2 12.345`.
fn decode_headline(run: &RunDigest) -> String {
    let rows = run.decode.iter().flatten();
    let Some(min_tokens) = rows.clone().map(|r| r.tokens).min() else { return String::new() };
    rows.filter(|r| r.tokens == min_tokens)
        .map(|r| format!("TP{} {}", r.world_size, num3(r.median_per_collective_us)))
        .collect::<Vec<_>>()
        .join(" · ")
}

/// Median out-of-place busbw at the largest nccl-tests size, per rank count.
fn busbw_headline(run: &RunDigest) -> String {
    let rows: Vec<_> = run.nccl_tests_raw.iter().flatten().collect();
    let mut sizes: Vec<u64> = rows.iter().map(|r| r.world_size).collect();
    sizes.sort();
    sizes.dedup();
    sizes
        .into_iter()
        .filter_map(|ws| {
            let largest = rows.iter().filter(|r| r.world_size == ws).map(|r| r.size_bytes).max()?;
            let values: Vec<f64> =
                rows.iter().filter(|r| r.world_size == ws && r.size_bytes == largest).map(|r| r.busbw_gbs).collect();
            Some(format!("{ws}r {}", num3(crate::stats::median(&values))))
        })
        .collect::<Vec<_>>()
        .join(" · ")
}
