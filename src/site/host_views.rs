//! The per-host view of a multi-node run's timed cases: per case, the share of cycles in which
//! each host held the slowest rank (its ranks from the NCCL rank map), the median skew between
//! the slowest and the fastest host, and a slow host: one that held the slowest rank in more
//! than half of the cycles (`comparison::ranks::by_group`). Knows the summaries and the site's
//! view types only.

use crate::analysis::comparison::ranks;
use crate::analysis::summarize::RunSummary;
use crate::core::format::{measured, rate};
use crate::core::model::hosts::rank_map;
use crate::site::view::{Cell, Table};
use std::collections::BTreeMap;

/// The table (empty when the logs place no rank on a host, or on one host only).
pub(crate) fn table(run: &RunSummary) -> Table {
    let communicators = run.raw.nccl_log.as_ref().map_or(&[][..], |l| l.communicators.as_slice());
    let placed = rank_map(communicators);
    let mut hosts: Vec<&str> = placed.iter().filter_map(|p| p.host.as_deref()).collect();
    hosts.sort_unstable();
    hosts.dedup();
    let host_of: BTreeMap<u64, u64> = placed
        .iter()
        .filter_map(|p| Some((p.rank, hosts.iter().position(|h| Some(*h) == p.host.as_deref())? as u64)))
        .collect();
    let mut columns = vec![("section", false), ("case folder", false), ("case", false), ("cycles", true)];
    let labels: Vec<String> = hosts.iter().map(|h| format!("{h}: slowest")).collect();
    columns.extend(labels.iter().map(|l| (l.as_str(), true)));
    columns.extend([("median skew across hosts (µs)", true), ("slow host", false)]);
    let mut table = Table::new("Per host: share of cycles holding the slowest rank (timed cases)", &columns);
    if hosts.len() < 2 {
        return table;
    }
    for view in ranks::by_group(&run.raw, |rank| host_of.get(&rank).copied()) {
        let mut row = vec![
            Cell::text(view.section),
            Cell::text(view.folder),
            Cell::text(view.case),
            Cell::text(view.cycles.to_string()),
        ];
        for index in 0..hosts.len() as u64 {
            let count = view.critical_counts.iter().find(|(g, _)| *g == index).map_or(0, |(_, n)| *n);
            row.push(Cell::text(if view.cycles == 0 {
                String::new()
            } else {
                rate(count as f64 / view.cycles as f64)
            }));
        }
        row.push(Cell::text(measured(view.median_skew_us, None)));
        let slow = view.straggler.and_then(|g| hosts.get(g as usize));
        row.push(match slow {
            Some(host) => Cell { text: host.to_string(), href: None, class: "warning" },
            None => Cell::text(""),
        });
        table.push(row);
    }
    table
}
