//! nccl-tests control (`nccl_tests_raw.csv`, `nccl_tests_summary.csv`): every AllReduce row
//! of every nccl-tests output of the run, and statistics over cycles for the decode-sized
//! messages. `#wrong` > 0, out-of-bounds counts and an output without any result row (the
//! seed raises "produced no parseable rows") make the run failed.
//!
//! The seed reads every 13-field row of `nccl_tests_g2/g4.stdout`; nccl-report reads every
//! era through the header, keeps the AllReduce tables (or tables that do not name their
//! collective) for these two files, and treats `N/A` as unchecked rather than crashing.

use crate::diag::Diagnostic;
use crate::model::run::NcclTestsFile;
use crate::model::summary::{NcclTestsRawRow, NcclTestsSummary};
use crate::stats::{median, Spread};
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
                &file.file,
                None,
                "world size unknown (no g<N> name, no device lines); not summarized",
            ));
            continue;
        };
        if file.output.tables.iter().all(|table| table.rows.is_empty()) {
            diagnostics.push(Diagnostic::failure(
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
    table: &crate::model::nccl_tests::NcclTestsTable,
    diagnostics: &mut Vec<Diagnostic>,
) {
    for row in &table.rows {
        let wrong = row.out_of_place.wrong.unwrap_or(0) + row.in_place.as_ref().and_then(|p| p.wrong).unwrap_or(0);
        if wrong > 0 {
            diagnostics.push(Diagnostic::failure(
                &file.file,
                (row.line > 0).then_some(row.line),
                format!("nccl-tests correctness failure: {wrong} wrong values at size {}", row.size_bytes),
            ));
        }
    }
    if let Some(count) = table.out_of_bounds.filter(|&n| n > 0) {
        diagnostics.push(Diagnostic::failure(
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
        .map(|((world_size, size_bytes), rows)| {
            let values: Vec<f64> = rows.iter().map(|r| r.time_us).collect();
            let algbw: Vec<f64> = rows.iter().map(|r| r.algbw_gbs).collect();
            let busbw: Vec<f64> = rows.iter().map(|r| r.busbw_gbs).collect();
            let spread = Spread::of(&values);
            NcclTestsSummary {
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
            }
        })
        .collect()
}
