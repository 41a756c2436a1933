//! The per-rank view of a run (the seed keeps only the slowest rank): per case, how often
//! each rank was the critical (slowest) one, the median skew (slowest minus fastest rank per
//! cycle), and a straggler: a rank critical in most cycles. For the run pages; knows `model`
//! and `stats` only.

use crate::analysis::stats::median;
use crate::core::model::run::RawRun;
use crate::core::model::sections::SectionRows;
use serde::Serialize;
use std::collections::BTreeMap;
use std::fmt::Write as _;

#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct RankView {
    pub section: &'static str,
    /// The case folder the rows came from (`world4_full`).
    pub folder: String,
    pub world_size: i64,
    /// The case text of the seed's `summary.csv`.
    pub case: String,
    pub cycles: usize,
    /// (rank, cycles in which it was the slowest), every rank listed, by rank.
    pub critical_counts: Vec<(u64, usize)>,
    /// Median over cycles of slowest minus fastest rank (0 with one rank).
    pub median_skew_us: f64,
    /// A rank that was the slowest in more than half of the cycles (only with 2+ ranks).
    pub straggler: Option<u64>,
}

type CaseId = (&'static str, String, i64, String);

/// The per-rank view of every timed case, in section, folder and case order.
pub fn of(raw: &RawRun) -> Vec<RankView> {
    cases(raw).into_iter().map(|(id, cycles)| view(id, &cycles)).collect()
}

/// The same view with the ranks grouped (by host, say): a group's value in a cycle is its
/// slowest rank's, so `critical_counts` counts per group the cycles in which it held the
/// slowest rank, the skew is slowest minus fastest group, and the straggler is a group. Ranks
/// that `group` maps to `None` are left out.
pub fn by_group(raw: &RawRun, group: impl Fn(u64) -> Option<u64>) -> Vec<RankView> {
    let mut views = Vec::new();
    for (id, cycles) in cases(raw) {
        let mut grouped: BTreeMap<i64, Vec<(u64, f64)>> = BTreeMap::new();
        for (cycle, values) in cycles {
            let mut slowest: BTreeMap<u64, f64> = BTreeMap::new();
            for (g, value) in values.into_iter().filter_map(|(rank, v)| Some((group(rank)?, v))) {
                let entry = slowest.entry(g).or_insert(value);
                *entry = entry.max(value);
            }
            if !slowest.is_empty() {
                grouped.insert(cycle, slowest.into_iter().collect());
            }
        }
        if !grouped.is_empty() {
            views.push(view(id, &grouped));
        }
    }
    views
}

/// `args` written into `text` (emptied first).
fn written<'t>(text: &'t mut String, args: std::fmt::Arguments) -> &'t str {
    text.clear();
    let _ = text.write_fmt(args);
    text
}

/// cycle -> [(rank, value)] of one case.
type Cycles = BTreeMap<i64, Vec<(u64, f64)>>;

/// Every timed case with its cycles, in case id order. Rows are gathered under borrowed
/// (section, folder, world size) keys and their case text made in one reused buffer: a run's
/// thousands of rows allocate only for each new case.
fn cases(raw: &RawRun) -> Vec<(CaseId, Cycles)> {
    let mut cases: BTreeMap<(&'static str, &str, i64), BTreeMap<String, Cycles>> = BTreeMap::new();
    let mut text = String::new();
    for data in &raw.sections {
        let mut add = |section, world_size, case: &str, cycle, value| {
            let by_case = cases.entry((section, data.case.as_str(), world_size)).or_default();
            let cycles = match by_case.get_mut(case) {
                Some(cycles) => cycles,
                None => by_case.entry(case.to_string()).or_default(),
            };
            cycles.entry(cycle).or_default().push((data.rank, value));
        };
        match &data.rows {
            SectionRows::Async(rows) => rows.iter().for_each(|r| {
                add(
                    "async",
                    r.world_size,
                    written(&mut text, format_args!("bytes={}", r.size_bytes)),
                    r.cycle,
                    r.gpu_dependency_us,
                )
            }),
            SectionRows::Decomposition(rows) => rows.iter().for_each(|r| {
                let case = written(&mut text, format_args!("bytes={};mode={}", r.size_bytes, r.mode));
                add("decomposition", r.world_size, case, r.cycle, r.duration_us)
            }),
            SectionRows::Fragmentation(rows) => rows.iter().for_each(|r| {
                let case =
                    written(&mut text, format_args!("count={};fragment_bytes={}", r.fragment_count, r.fragment_bytes));
                add("fragmentation", r.world_size, case, r.cycle, r.duration_us)
            }),
            SectionRows::Decode(rows) => rows.iter().for_each(|r| {
                let case = written(
                    &mut text,
                    format_args!("tokens={};bytes={};calls={}", r.tokens, r.message_bytes, r.collectives),
                );
                add("decode", r.world_size, case, r.cycle, r.duration_us)
            }),
            SectionRows::Contracts(_) | SectionRows::Numerics(_) => {}
        }
    }
    cases
        .into_iter()
        .flat_map(|((section, folder, world_size), by_case)| {
            by_case.into_iter().map(move |(case, cycles)| ((section, folder.to_string(), world_size, case), cycles))
        })
        .collect()
}

fn view((section, folder, world_size, case): CaseId, cycles: &BTreeMap<i64, Vec<(u64, f64)>>) -> RankView {
    let mut counts: BTreeMap<u64, usize> = BTreeMap::new();
    let mut skews = Vec::new();
    for values in cycles.values() {
        for (rank, _) in values {
            counts.entry(*rank).or_insert(0);
        }
        // The slowest rank (the lowest rank among equals), as the critical path takes the max.
        let slowest = values.iter().fold(values[0], |m, &x| if x.1 > m.1 { x } else { m });
        *counts.entry(slowest.0).or_insert(0) += 1;
        let fastest = values.iter().map(|x| x.1).fold(f64::INFINITY, f64::min);
        skews.push(slowest.1 - fastest);
    }
    let straggler =
        (counts.len() > 1).then(|| counts.iter().find(|(_, &n)| 2 * n > cycles.len()).map(|(&rank, _)| rank)).flatten();
    RankView {
        section,
        folder,
        world_size,
        case,
        cycles: cycles.len(),
        critical_counts: counts.into_iter().collect(),
        median_skew_us: if skews.is_empty() { 0.0 } else { median(&skews) },
        straggler,
    }
}

#[cfg(test)]
pub(crate) mod tests {
    use super::*;
    use crate::core::model::run::SectionData;
    use crate::core::model::sections::DecodeRow;

    /// Decode rows of `rank` in case folder `world2_decode`, one per cycle (also for other tests).
    pub(crate) fn decode(rank: u64, values: &[f64]) -> SectionData {
        let rows = values
            .iter()
            .enumerate()
            .map(|(cycle, &duration_us)| DecodeRow {
                world_size: 2,
                tokens: 1,
                message_bytes: 8192,
                collectives: 160,
                cycle: cycle as i64,
                duration_us,
                host_issue_us: None,
                device_us: None,
                device_queued: None,
            })
            .collect();
        SectionData {
            case: "world2_decode".into(),
            rank,
            file: format!("rank{rank}_decode.csv"),
            rows: SectionRows::Decode(rows),
        }
    }

    #[test]
    fn counts_critical_ranks_skew_and_straggler() {
        let raw = RawRun {
            sections: vec![decode(0, &[10.0, 10.0, 13.0]), decode(1, &[12.0, 11.0, 12.0])],
            ..RawRun::default()
        };
        let views = of(&raw);
        assert_eq!(views.len(), 1);
        let v = &views[0];
        assert_eq!((v.section, v.world_size, v.case.as_str()), ("decode", 2, "tokens=1;bytes=8192;calls=160"));
        assert_eq!(v.critical_counts, vec![(0, 1), (1, 2)]);
        assert_eq!(v.median_skew_us, 1.0);
        assert_eq!(v.straggler, Some(1));
    }

    #[test]
    fn grouped_ranks_take_their_slowest_member() {
        let raw = RawRun {
            sections: vec![
                decode(0, &[10.0, 10.0, 13.0]),
                decode(1, &[12.0, 11.0, 12.0]),
                decode(2, &[20.0, 9.0, 9.0]),
            ],
            ..RawRun::default()
        };
        // Ranks 0 and 1 on group 0, rank 2 on group 1; a rank without group is left out.
        let views = by_group(&raw, |rank| (rank < 2).then_some(0).or(Some(1)));
        let v = &views[0];
        assert_eq!(v.critical_counts, vec![(0, 2), (1, 1)]);
        assert_eq!(v.median_skew_us, 4.0, "skews 8, 2, 4");
        assert_eq!(v.straggler, Some(0));
        let only_first = by_group(&raw, |rank| (rank == 0).then_some(0));
        assert_eq!(only_first[0].critical_counts, vec![(0, 3)]);
        assert_eq!(only_first[0].straggler, None, "one group: no straggler");
        assert!(by_group(&raw, |_| None).is_empty());
    }
}
