//! One nccl-tests table analysed: per size the busbw (median over cycles of the out-of-place
//! placement) and its share of an expected peak, the 50 %/90 % sizes, an alpha-beta fit per
//! algorithm/protocol segment (segments from NCCL's TUNING table joined on (collective,
//! bytes), else one "not logged" segment), and the headline: busbw at the largest size with
//! the size named. With NVLS the busbw is "NVLS-equivalent" (the NVLink bandwidth needed
//! without NVLS), never a share of the wire. Uses `model` and `stats`.

use super::fit::{fit_alpha_beta, AlphaBeta};
use super::reach::{percent_of_expected, size_reaching};
use crate::analysis::stats::median;
use crate::core::format::{bytes, gbs};
use crate::core::model::nccl_log::TuningChoice;
use crate::core::model::nccl_tests::NcclTestsTable;
use serde::{Deserialize, Serialize};
use std::collections::BTreeMap;

/// One size of the table.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct SizePoint {
    pub bytes: u64,
    pub time_us: f64,
    pub busbw_gbs: f64,
    pub percent_of_expected: Option<f64>,
    /// `Ring/Simple` from TUNING, or `not logged`.
    pub segment: String,
}

/// A fitted algorithm/protocol segment.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Segment {
    pub label: String,
    pub first_bytes: u64,
    pub last_bytes: u64,
    pub fit: Option<AlphaBeta>,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct TableAnalysis {
    pub points: Vec<SizePoint>,
    pub size_50: Option<u64>,
    pub size_90: Option<u64>,
    pub segments: Vec<Segment>,
    /// True when any segment ran NVLS or NVLSTree: its busbw is NVLS-equivalent.
    pub nvls_equivalent: bool,
}

/// NCCL's name of an nccl-tests binary's collective (`all_reduce_perf` -> `AllReduce`).
fn nccl_collective(binary: &str) -> String {
    let mut name = String::new();
    for word in binary.trim_end_matches("_perf").split('_') {
        let mut chars = word.chars();
        name.extend(chars.next().map(|c| c.to_ascii_uppercase()));
        name.extend(chars);
    }
    name.replace("Alltoall", "AllToAll")
}

/// Analyses `table` against `expected_gbs` (None: unknown peak), with `tuning` from the
/// run's NCCL logs (empty when not logged).
pub(crate) fn analyse(table: &NcclTestsTable, expected_gbs: Option<f64>, tuning: &[TuningChoice]) -> TableAnalysis {
    let collective = table.collective.as_deref().map(nccl_collective);
    let mut by_size: BTreeMap<u64, (Vec<f64>, Vec<f64>)> = BTreeMap::new();
    for row in &table.rows {
        let entry = by_size.entry(row.size_bytes).or_default();
        entry.0.push(row.out_of_place.time_us);
        entry.1.push(row.out_of_place.busbw_gbs);
    }
    let points: Vec<SizePoint> = by_size
        .into_iter()
        .map(|(bytes, (times, busbws))| {
            let busbw_gbs = median(&busbws);
            SizePoint {
                bytes,
                time_us: median(&times),
                busbw_gbs,
                percent_of_expected: percent_of_expected(busbw_gbs, expected_gbs),
                segment: segment_label(tuning, collective.as_deref(), bytes),
            }
        })
        .collect();
    let curve: Vec<(u64, f64)> = points.iter().map(|p| (p.bytes, p.busbw_gbs)).collect();
    let mut segments: Vec<Segment> = Vec::new();
    for point in &points {
        match segments.last_mut() {
            Some(last) if last.label == point.segment => last.last_bytes = point.bytes,
            _ => segments.push(Segment {
                label: point.segment.clone(),
                first_bytes: point.bytes,
                last_bytes: point.bytes,
                fit: None,
            }),
        }
    }
    for segment in &mut segments {
        let sample: Vec<(f64, f64)> = points
            .iter()
            .filter(|p| (segment.first_bytes..=segment.last_bytes).contains(&p.bytes))
            .map(|p| (p.bytes as f64, p.time_us))
            .collect();
        segment.fit = fit_alpha_beta(&sample);
    }
    TableAnalysis {
        nvls_equivalent: segments.iter().any(|s| s.label.starts_with("NVLS")),
        size_50: size_reaching(&curve, 0.5),
        size_90: size_reaching(&curve, 0.9),
        points,
        segments,
    }
}

/// The most frequent algorithm/protocol NCCL planned for (collective, bytes), as `Ring/LL`, or
/// `not logged`; lines of <= 2.22 name no collective and match any.
pub(crate) fn segment_label(tuning: &[TuningChoice], collective: Option<&str>, bytes: u64) -> String {
    tuning
        .iter()
        .filter(|t| t.bytes == bytes && (t.collective.is_none() || t.collective.as_deref() == collective))
        .max_by_key(|t| t.count)
        .map_or_else(|| "not logged".to_string(), |t| format!("{}/{}", t.algorithm, t.protocol))
}

/// The index headline: busbw at the largest size with the size named, e.g. `370.12 GB/s busbw
/// at 8 GiB`. `None` for a one-rank run (busbw is 0 by definition there: the caller shows the
/// decode latency instead) and for an empty table.
pub(crate) fn headline(analysis: &TableAnalysis, ranks: u64) -> Option<String> {
    let last = analysis.points.last().filter(|_| ranks > 1)?;
    let label = if analysis.nvls_equivalent { " (NVLS-equivalent)" } else { "" };
    Some(format!("{} GB/s busbw{label} at {}", gbs(last.busbw_gbs), bytes(last.bytes)))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::ingest::parse::nccl_tests::parse_text;

    fn tuning(bytes: u64, algorithm: &str, protocol: &str) -> TuningChoice {
        TuningChoice {
            collective: Some("AllReduce".into()),
            bytes,
            algorithm: algorithm.into(),
            protocol: protocol.into(),
            channels: Some(32),
            count: 1,
        }
    }

    /// An 8-GPU synthetic all_reduce table made with alpha = 10 us and beta = 400 GB/s:
    /// segments from TUNING, 50/90 % sizes, % of expected and the headline.
    #[test]
    fn synthetic_eight_gpu_all_reduce() {
        let mut text = String::from("# Collective test starting: all_reduce_perf\n#  size  count  type  redop  root  time  algbw  busbw  #wrong  time  algbw  busbw  #wrong\n#  (B)  (elements)  (us)  (GB/s)  (GB/s)  (us)  (GB/s)  (GB/s)\n");
        for k in 13..=33 {
            let bytes = 1u64 << k;
            let time = 10.0 + bytes as f64 / 400e3;
            let algbw = bytes as f64 / time / 1e3;
            let busbw = algbw * 1.75;
            // In place twice as slow: the analysis reads the out-of-place placement.
            let (slow, slow_algbw, slow_busbw) = (2.0 * time, algbw / 2.0, busbw / 2.0);
            text += &format!(
                "{bytes} {} float sum -1 {time:.2} {algbw:.2} {busbw:.2} 0 {slow:.2} {slow_algbw:.2} {slow_busbw:.2} 0\n",
                bytes / 4
            );
        }
        let out = parse_text(text.as_bytes());
        let table = &out.tables[0];
        assert_eq!(table.rows.len(), 21);
        let choices: Vec<TuningChoice> = (13..=33)
            .map(|k| if k < 20 { tuning(1 << k, "Ring", "LL") } else { tuning(1 << k, "Ring", "Simple") })
            .collect();
        let analysis = analyse(table, Some(700.0), &choices);
        assert_eq!(analysis.segments.len(), 2);
        assert_eq!((analysis.segments[0].label.as_str(), analysis.segments[0].last_bytes), ("Ring/LL", 1 << 19));
        let fit = analysis.segments[1].fit.unwrap();
        assert!((fit.beta_gbs.unwrap() - 400.0).abs() / 400.0 < 0.02, "{fit:?}");
        assert!((fit.alpha_us - 10.0).abs() / 10.0 < 0.02, "{fit:?}");
        // busbw = 1.75 x 400 x b / (b + 4e6): half of the best (~700) near 4 MiB, 90 % near 32 MiB.
        assert_eq!(analysis.size_50, Some(1 << 22));
        assert_eq!(analysis.size_90, Some(1 << 26));
        let last = analysis.points.last().unwrap();
        assert!((last.percent_of_expected.unwrap() - 100.0 * last.busbw_gbs / 700.0).abs() < 1e-9);
        assert!(!analysis.nvls_equivalent);
        assert_eq!(headline(&analysis, 8).unwrap(), format!("{:.2} GB/s busbw at 8 GiB", last.busbw_gbs));
        assert_eq!(headline(&analysis, 1), None);
        let untuned = analyse(table, None, &[]);
        assert_eq!(untuned.segments.len(), 1);
        assert_eq!(untuned.segments[0].label, "not logged");
        assert_eq!(untuned.points[0].percent_of_expected, None);
        let nvls = analyse(table, None, &[tuning(1 << 33, "NVLS", "Simple")]);
        assert!(nvls.nvls_equivalent);
        assert!(headline(&nvls, 8).unwrap().contains("(NVLS-equivalent) at 8 GiB"));
    }

    #[test]
    fn names() {
        assert_eq!(nccl_collective("all_reduce_perf"), "AllReduce");
        assert_eq!(nccl_collective("reduce_scatter_perf"), "ReduceScatter");
        assert_eq!(nccl_collective("alltoall_perf"), "AllToAll");
        assert_eq!(nccl_collective("__é_x"), "éX");
    }
}
