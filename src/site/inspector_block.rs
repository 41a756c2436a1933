//! The run page's block of NCCL's own per-collective records (the Inspector profiler plugin),
//! per case folder and (operation, size), beside the TUNING choice for that size. Shown when
//! the run has records, or when its manifest says the plugin was enabled (then it says why
//! there are none). Knows summaries only.

use crate::analysis::summarize::RunSummary;
use crate::core::format::{bytes, gbs, measured};
use crate::site::view::{Block, Cell, Table};

pub(crate) fn inspector_block(run: &RunSummary) -> Option<Block> {
    let rows = &run.facts.inspector;
    let manifest = |key: &str| run.raw.manifest.as_ref().and_then(|m| m.get(key));
    let enabled = manifest("nccl_inspector").is_some();
    if rows.is_empty() && !enabled {
        return None;
    }
    let mut intro = vec![
        "One record per completed collective per rank, written by NCCL itself (kernel time as NCCL measured it, busbw with NCCL's factor); medians over every rank's records.".to_string(),
    ];
    if rows.is_empty() {
        // The rows' world sizes, else the manifest's `world_sizes=` (collect writes it).
        let one_rank = match run.facts.world_sizes.as_slice() {
            [] => manifest("world_sizes") == Some("1"),
            sizes => sizes.iter().all(|&w| w <= 1),
        };
        intro.push(if one_rank {
            "Not logged at one rank: the plugin was enabled, but NCCL launches no collective kernel for a single rank, so it wrote no record.".to_string()
        } else {
            "The plugin was enabled but wrote no record.".to_string()
        });
    }
    let mut table = Table::new(
        "NCCL Inspector records",
        &[
            ("case", false),
            ("operation", false),
            ("size", true),
            ("records", true),
            ("median kernel time (µs)", true),
            ("median busbw (GB/s)", true),
            ("TUNING algorithm / protocol", false),
        ],
    );
    for row in rows {
        let choice = match (&row.algorithm, &row.protocol) {
            (Some(a), Some(p)) => format!("{a} / {p}"),
            _ => "not logged".to_string(),
        };
        table.push(vec![
            Cell::text(row.case.clone()),
            Cell::text(row.operation.clone()),
            Cell::text(bytes(row.bytes)),
            Cell::text(row.count.to_string()),
            Cell::text(measured(row.median_exec_time_us, None)),
            Cell::text(gbs(row.median_busbw_gbs)),
            Cell::text(choice),
        ]);
    }
    let tables = if rows.is_empty() { Vec::new() } else { vec![table] };
    Some(Block {
        id: "nccl-inspector".into(),
        title: "NCCL's own records (Inspector)".into(),
        intro,
        tables,
        ..Block::default()
    })
}
