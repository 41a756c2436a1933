//! The seed's CSV files, byte for byte as Python's `csv.DictWriter` writes them: header row,
//! `\r\n` line ends, minimal quoting, floats as `repr`, booleans `True`/`False`, empty cells
//! for values the seed could not have computed.

use crate::core::model::summary::*;
use crate::export::pyfmt::{py_bool, repr};

/// Renders a table with Python's `csv` dialect `excel`.
pub(crate) fn render(header: &[&str], rows: &[Vec<String>]) -> Vec<u8> {
    let mut out = String::new();
    push_row(&mut out, header);
    for row in rows {
        push_row(&mut out, row);
    }
    out.into_bytes()
}

/// Appends one row as Python's `csv.writer` writes it (minimal quoting, `\r\n`; a lone
/// empty field is written `""`).
pub(crate) fn push_row<S: AsRef<str>>(out: &mut String, cells: &[S]) {
    if let [only] = cells {
        if only.as_ref().is_empty() {
            out.push_str("\"\"\r\n");
            return;
        }
    }
    for (index, cell) in cells.iter().enumerate() {
        if index > 0 {
            out.push(',');
        }
        push_cell(out, cell.as_ref());
    }
    out.push_str("\r\n");
}

/// A cell, quoted (its quotes doubled) when it holds a comma, a quote or a line end.
fn push_cell(out: &mut String, cell: &str) {
    if !cell.contains([',', '"', '\r', '\n']) {
        return out.push_str(cell);
    }
    out.push('"');
    for (i, part) in cell.split('"').enumerate() {
        if i > 0 {
            out.push_str("\"\"");
        }
        out.push_str(part);
    }
    out.push('"');
}

fn f(x: f64) -> String {
    repr(x)
}

fn opt_f(x: Option<f64>) -> String {
    x.map(repr).unwrap_or_default()
}

fn b(x: bool) -> String {
    py_bool(x).to_string()
}

/// One column of a seed CSV: its header and the cell it writes for a row. Header and value
/// sit together, so two columns cannot be swapped in one list and not in the other.
type SeedColumn<R> = (&'static str, fn(&R) -> String);

/// Renders rows through their column table.
fn table<R>(columns: &[SeedColumn<R>], rows: &[R]) -> Vec<u8> {
    let header: Vec<&str> = columns.iter().map(|(name, _)| *name).collect();
    let rows: Vec<Vec<String>> = rows.iter().map(|r| columns.iter().map(|(_, value)| value(r)).collect()).collect();
    render(&header, &rows)
}

/// nccl-tests' `#wrong`: a count, or `N/A` when the values were not checked.
fn count(x: Option<u64>) -> String {
    x.map(|n| n.to_string()).unwrap_or_else(|| "N/A".into())
}

const ASYNC_SUMMARY: &[SeedColumn<AsyncSummary>] = &[
    ("world_size", |r| r.world_size.to_string()),
    ("size_bytes", |r| r.size_bytes.to_string()),
    ("cycles", |r| r.cycles.to_string()),
    ("median_host_enqueue_us", |r| f(r.median_host_enqueue_us)),
    ("median_host_wait_us", |r| f(r.median_host_wait_us)),
    ("median_gpu_dependency_us", |r| f(r.median_gpu_dependency_us)),
    ("p95_gpu_dependency_us", |r| f(r.p95_gpu_dependency_us)),
    ("gpu_cv_percent", |r| f(r.gpu_cv_percent)),
    ("work_completed_after_return_rate", |r| f(r.work_completed_after_return_rate)),
    ("event_ready_after_wait_rate", |r| f(r.event_ready_after_wait_rate)),
    ("correct", |r| b(r.correct)),
];

pub(crate) fn async_summary(rows: &[AsyncSummary]) -> Vec<u8> {
    table(ASYNC_SUMMARY, rows)
}

const DECOMPOSITION_SUMMARY: &[SeedColumn<DecompositionSummary>] = &[
    ("world_size", |r| r.world_size.to_string()),
    ("size_bytes", |r| r.size_bytes.to_string()),
    ("mode", |r| r.mode.clone()),
    ("cycles", |r| r.cycles.to_string()),
    ("median_duration_us", |r| f(r.median_duration_us)),
    ("p95_duration_us", |r| f(r.p95_duration_us)),
    ("cv_percent", |r| f(r.cv_percent)),
    ("overhead_vs_allreduce_percent", |r| opt_f(r.overhead_vs_allreduce_percent)),
    ("correct", |r| b(r.correct)),
];

pub(crate) fn decomposition_summary(rows: &[DecompositionSummary]) -> Vec<u8> {
    table(DECOMPOSITION_SUMMARY, rows)
}

const FRAGMENTATION_SUMMARY: &[SeedColumn<FragmentationSummary>] = &[
    ("world_size", |r| r.world_size.to_string()),
    ("total_bytes", |r| r.total_bytes.to_string()),
    ("fragment_count", |r| r.fragment_count.to_string()),
    ("fragment_bytes", |r| r.fragment_bytes.to_string()),
    ("cycles", |r| r.cycles.to_string()),
    ("median_duration_us", |r| f(r.median_duration_us)),
    ("p95_duration_us", |r| f(r.p95_duration_us)),
    ("min_duration_us", |r| f(r.min_duration_us)),
    ("max_duration_us", |r| f(r.max_duration_us)),
    ("cv_percent", |r| f(r.cv_percent)),
    ("slowdown_vs_one_collective", |r| opt_f(r.slowdown_vs_one_collective)),
    ("median_per_collective_us", |r| f(r.median_per_collective_us)),
    ("strictly_slower_than_one_in_all_cycles", |r| r.strictly_slower_than_one_in_all_cycles.map(b).unwrap_or_default()),
    ("correct", |r| b(r.correct)),
];

pub(crate) fn fragmentation_summary(rows: &[FragmentationSummary]) -> Vec<u8> {
    table(FRAGMENTATION_SUMMARY, rows)
}

const DECODE_SUMMARY: &[SeedColumn<DecodeSummary>] = &[
    ("world_size", |r| r.world_size.to_string()),
    ("tokens", |r| r.tokens.to_string()),
    ("hidden_size", |r| r.hidden_size.to_string()),
    ("message_bytes", |r| r.message_bytes.to_string()),
    ("collectives", |r| r.collectives.to_string()),
    ("cycles", |r| r.cycles.to_string()),
    ("median_total_us", |r| f(r.median_total_us)),
    ("p95_total_us", |r| f(r.p95_total_us)),
    ("min_total_us", |r| f(r.min_total_us)),
    ("max_total_us", |r| f(r.max_total_us)),
    ("cv_percent", |r| f(r.cv_percent)),
    ("median_per_collective_us", |r| f(r.median_per_collective_us)),
    ("correct", |r| b(r.correct)),
];

pub(crate) fn decode_summary(rows: &[DecodeSummary]) -> Vec<u8> {
    table(DECODE_SUMMARY, rows)
}

const NCCL_TESTS_RAW: &[SeedColumn<NcclTestsRawRow>] = &[
    ("cycle", |r| r.cycle.to_string()),
    ("size_bytes", |r| r.size_bytes.to_string()),
    ("time_us", |r| f(r.time_us)),
    ("algbw_GBs", |r| f(r.algbw_gbs)),
    ("busbw_GBs", |r| f(r.busbw_gbs)),
    ("wrong", |r| count(r.wrong)),
    ("inplace_time_us", |r| f(r.inplace_time_us)),
    ("inplace_algbw_GBs", |r| f(r.inplace_algbw_gbs)),
    ("inplace_busbw_GBs", |r| f(r.inplace_busbw_gbs)),
    ("inplace_wrong", |r| count(r.inplace_wrong)),
    ("world_size", |r| r.world_size.to_string()),
];

pub(crate) fn nccl_tests_raw(rows: &[NcclTestsRawRow]) -> Vec<u8> {
    table(NCCL_TESTS_RAW, rows)
}

const NCCL_TESTS_SUMMARY: &[SeedColumn<NcclTestsSummary>] = &[
    ("world_size", |r| r.world_size.to_string()),
    ("size_bytes", |r| r.size_bytes.to_string()),
    ("cycles", |r| r.cycles.to_string()),
    ("median_time_us", |r| f(r.median_time_us)),
    ("p95_time_us", |r| f(r.p95_time_us)),
    ("min_time_us", |r| f(r.min_time_us)),
    ("max_time_us", |r| f(r.max_time_us)),
    ("cv_percent", |r| f(r.cv_percent)),
    ("median_algbw_GBs", |r| f(r.median_algbw_gbs)),
    ("median_busbw_GBs", |r| f(r.median_busbw_gbs)),
    ("wrong_total", |r| r.wrong_total.to_string()),
];

pub(crate) fn nccl_tests_summary(rows: &[NcclTestsSummary]) -> Vec<u8> {
    table(NCCL_TESTS_SUMMARY, rows)
}

const NUMERIC_SUMMARY: &[SeedColumn<NumericSummary>] = &[
    ("scenario", |r| r.scenario.clone()),
    ("cases", |r| r.cases.to_string()),
    ("fp16_mismatch_count", |r| r.fp16_mismatch_count.to_string()),
    ("fp16_nonfinite_count", |r| r.fp16_nonfinite_count.to_string()),
    ("fp32_mismatch_count", |r| r.fp32_mismatch_count.to_string()),
    ("unique_fp16_results", |r| r.unique_fp16_results.clone()),
    ("correct_replication_and_fp32_reference", |r| b(r.correct_replication_and_fp32_reference)),
];

pub(crate) fn numeric_summary(rows: &[NumericSummary]) -> Vec<u8> {
    table(NUMERIC_SUMMARY, rows)
}

const UNIFIED: &[SeedColumn<UnifiedRow>] = &[
    ("section", |r| r.section.to_string()),
    ("world_size", |r| r.world_size.map(|w| w.to_string()).unwrap_or_default()),
    ("case", |r| r.case.clone()),
    ("metric", |r| r.metric.to_string()),
    ("median", |r| match r.median {
        Number::Int(n) => n.to_string(),
        Number::Float(x) => f(x),
    }),
    ("p95", |r| opt_f(r.p95)),
    ("cv_percent", |r| opt_f(r.cv_percent)),
    ("samples", |r| r.samples.to_string()),
    ("correct", |r| b(r.correct)),
];

pub(crate) fn unified(rows: &[UnifiedRow]) -> Vec<u8> {
    table(UNIFIED, rows)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn python_csv_dialect() {
        let bytes = render(&["a", "b"], &[vec!["1,5".into(), "say \"hi\"".into()], vec!["x".into(), String::new()]]);
        assert_eq!(String::from_utf8(bytes).unwrap(), "a,b\r\n\"1,5\",\"say \"\"hi\"\"\"\r\nx,\r\n");
    }
}
