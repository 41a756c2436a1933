//! nccl-tests control (`nccl_tests_raw.csv`, `nccl_tests_summary.csv`): every AllReduce row
//! of every nccl-tests output of the run, and statistics over cycles for the decode-sized
//! messages. `#wrong` > 0, out-of-bounds counts and an output without any result row (the
//! seed raises "produced no parseable rows") make the run failed.
//!
//! The seed reads every 13-field row of `nccl_tests_g2/g4.stdout`; nccl-report reads every
//! era through the header, keeps the AllReduce tables (or tables that do not name their
//! collective) for these two files, and treats `N/A` as unchecked rather than crashing.

use crate::analysis::stats::{median, Spread};
use crate::core::diag::{Code, Diagnostic};
use crate::core::model::run::NcclTestsFile;
use crate::core::model::summary::{NcclTestsRawRow, NcclTestsSummary};
use std::collections::BTreeMap;

/// The message sizes the seed summarizes (decode-sized AllReduces).
pub const SELECTED_SIZES: [u64; 4] = [8192, 65536, 262144, 1048576];

/// Picks the outputs the seed would read: text outputs, ordered by world size then name;
/// a JSON output only where no text output of the same name exists.
pub fn control_files(files: &[NcclTestsFile]) -> Vec<&NcclTestsFile> {
    let mut chosen: Vec<&NcclTestsFile> = files
        .iter()
        .filter(|f| !f.file.contains(".json") || !files.iter().any(|o| o.name == f.name && !o.file.contains(".json")))
        .collect();
    chosen.sort_by(|a, b| (a.world_size, &a.name, &a.file).cmp(&(b.world_size, &b.name, &b.file)));
    chosen
}

fn is_allreduce(collective: Option<&str>) -> bool {
    collective.is_none_or(|c| c.starts_with("all_reduce"))
}

pub fn raw_rows(files: &[NcclTestsFile], diagnostics: &mut Vec<Diagnostic>) -> Vec<NcclTestsRawRow> {
    let mut rows = Vec::new();
    for file in control_files(files) {
        let Some(world_size) = file.world_size else {
            diagnostics.push(Diagnostic::warning(
                Code::NcclTestsWorldSize,
                &file.file,
                None,
                "world size unknown (no g<N> name, no device lines); not summarized",
            ));
            continue;
        };
        if file.output.tables.iter().all(|table| table.rows.is_empty()) {
            diagnostics.push(Diagnostic::failure(
                Code::NcclTestsNoRows,
                &file.file,
                None,
                "nccl-tests produced no result rows (empty or cut-off output; the seed stops here)",
            ));
        }
        for table in &file.output.tables {
            check_table_failures(file, table, diagnostics);
            if !is_allreduce(table.collective.as_deref()) {
                continue;
            }
            for row in &table.rows {
                let Some(in_place) = &row.in_place else { continue };
                rows.push(NcclTestsRawRow {
                    cycle: row.cycle,
                    size_bytes: row.size_bytes,
                    time_us: row.out_of_place.time_us,
                    algbw_gbs: row.out_of_place.algbw_gbs,
                    busbw_gbs: row.out_of_place.busbw_gbs,
                    wrong: row.out_of_place.wrong,
                    inplace_time_us: in_place.time_us,
                    inplace_algbw_gbs: in_place.algbw_gbs,
                    inplace_busbw_gbs: in_place.busbw_gbs,
                    inplace_wrong: in_place.wrong,
                    world_size,
                });
            }
        }
    }
    rows
}

fn check_table_failures(
    file: &NcclTestsFile,
    table: &crate::core::model::nccl_tests::NcclTestsTable,
    diagnostics: &mut Vec<Diagnostic>,
) {
    for row in &table.rows {
        let wrong = row.out_of_place.wrong.unwrap_or(0) + row.in_place.as_ref().and_then(|p| p.wrong).unwrap_or(0);
        if wrong > 0 {
            diagnostics.push(Diagnostic::failure(
                Code::NcclTestsWrong,
                &file.file,
                (row.line > 0).then_some(row.line),
                format!("nccl-tests correctness failure: {wrong} wrong values at size {}", row.size_bytes),
            ));
        }
    }
    if let Some(count) = table.out_of_bounds.filter(|&n| n > 0) {
        diagnostics.push(Diagnostic::failure(
            Code::NcclTestsOutOfBounds,
            &file.file,
            None,
            format!("nccl-tests reports {count} out-of-bounds values"),
        ));
    }
}

pub fn summarize(raw: &[NcclTestsRawRow]) -> Vec<NcclTestsSummary> {
    let mut groups: BTreeMap<(u64, u64), Vec<&NcclTestsRawRow>> = BTreeMap::new();
    for row in raw.iter().filter(|r| SELECTED_SIZES.contains(&r.size_bytes)) {
        groups.entry((row.world_size, row.size_bytes)).or_default().push(row);
    }
    groups
        .into_iter()
        .filter_map(|((world_size, size_bytes), rows)| {
            let values: Vec<f64> = rows.iter().map(|r| r.time_us).collect();
            let algbw: Vec<f64> = rows.iter().map(|r| r.algbw_gbs).collect();
            let busbw: Vec<f64> = rows.iter().map(|r| r.busbw_gbs).collect();
            let spread = Spread::of(&values)?;
            Some(NcclTestsSummary {
                world_size,
                size_bytes,
                cycles: spread.n,
                median_time_us: spread.median,
                p95_time_us: spread.p95,
                min_time_us: spread.min,
                max_time_us: spread.max,
                cv_percent: spread.cv_percent,
                median_algbw_gbs: median(&algbw),
                median_busbw_gbs: median(&busbw),
                wrong_total: rows.iter().map(|r| r.wrong.unwrap_or(0) + r.inplace_wrong.unwrap_or(0)).sum(),
                unchecked: rows.iter().any(|r| r.wrong.is_none() || r.inplace_wrong.is_none()),
                cycle_values: values,
            })
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn raw(
        world_size: u64,
        size_bytes: u64,
        time_us: f64,
        algbw: f64,
        busbw: f64,
        wrong: [Option<u64>; 2],
    ) -> NcclTestsRawRow {
        NcclTestsRawRow {
            cycle: 0,
            size_bytes,
            time_us,
            algbw_gbs: algbw,
            busbw_gbs: busbw,
            wrong: wrong[0],
            inplace_time_us: time_us,
            inplace_algbw_gbs: algbw,
            inplace_busbw_gbs: busbw,
            inplace_wrong: wrong[1],
            world_size,
        }
    }

    #[test]
    fn decode_sizes_per_world_size_as_the_seed() {
        let rows = [
            raw(4, 8192, 30.5, 0.27, 0.4, [Some(0), Some(0)]),
            raw(2, 8192, 20.0, 0.41, 0.41, [Some(0), Some(0)]),
            raw(4, 8192, 29.0, 0.28, 0.42, [Some(1), Some(0)]),
            raw(4, 1024, 9.0, 0.1, 0.1, [Some(5), Some(5)]),
            raw(4, 8192, 41.25, 0.2, 0.3, [Some(0), Some(2)]),
            raw(2, 8192, 22.5, 0.36, 0.36, [Some(0), Some(0)]),
            raw(2, 65536, 50.0, 1.3, 1.3, [Some(0), Some(0)]),
        ];
        let out = summarize(&rows);
        // Expected values: tests/fixtures/summarizer_oracle.py (the seed's nccl-tests loop);
        // size 1024 is not a decode size and is left out, wrong values included.
        let expect = [
            (2, 8192, vec![20.0, 22.5], 21.25, 22.5, 20.0, 22.5, 5.88235294117647, 0.385, 0.385, 0),
            (2, 65536, vec![50.0], 50.0, 50.0, 50.0, 50.0, 0.0, 1.3, 1.3, 0),
            (4, 8192, vec![30.5, 29.0, 41.25], 30.5, 41.25, 29.0, 41.25, 16.245049432588495, 0.27, 0.4, 3),
        ];
        assert_eq!(out.len(), 3);
        for (world, size, values, median, p95, min, max, cv, algbw, busbw, _) in &expect {
            let numbers = [values.as_slice(), &[*median, *p95, *min, *max, *cv, *algbw, *busbw]].concat();
            super::super::assert_in_oracle(&format!("nccl_tests {world} {size} "), &numbers);
        }
        for (s, (world, size, values, median, p95, min, max, cv, algbw, busbw, wrong)) in out.iter().zip(expect) {
            assert_eq!((s.world_size, s.size_bytes, s.cycles), (world, size, values.len()));
            assert_eq!(s.cycle_values, values);
            assert_eq!((s.median_time_us, s.p95_time_us, s.min_time_us, s.max_time_us), (median, p95, min, max));
            assert_eq!((s.median_algbw_gbs, s.median_busbw_gbs, s.wrong_total), (algbw, busbw, wrong));
            assert!(!s.unchecked);
            // CV only within 1e-12: the seed's pstdev sums exact rationals, ours f64.
            assert!((s.cv_percent - cv).abs() <= 1e-12 * cv.max(1.0), "{} vs {cv}", s.cv_percent);
        }
    }

    #[test]
    fn an_unchecked_row_marks_its_case_unchecked() {
        let rows = [raw(2, 8192, 20.0, 0.4, 0.4, [None, Some(0)]), raw(2, 8192, 21.0, 0.4, 0.4, [Some(0), Some(0)])];
        let out = summarize(&rows);
        assert!(out[0].unchecked);
        assert_eq!(out[0].wrong_total, 0);
    }
}
