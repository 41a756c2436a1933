//! The seed's CSV files, byte for byte as Python's `csv.DictWriter` writes them: header row,
//! `\r\n` line ends, minimal quoting, floats as `repr`, booleans `True`/`False`, empty cells
//! for values the seed could not have computed.

use crate::export::pyfmt::{py_bool, repr};
use crate::model::summary::*;

/// Renders a table with Python's `csv` dialect `excel`.
pub fn render(header: &[&str], rows: &[Vec<String>]) -> Vec<u8> {
    let mut out = String::new();
    push_row(&mut out, header);
    for row in rows {
        push_row(&mut out, row);
    }
    out.into_bytes()
}

/// Appends one row as Python's `csv.writer` writes it (minimal quoting, `\r\n`; a lone
/// empty field is written `""`).
pub fn push_row<S: AsRef<str>>(out: &mut String, cells: &[S]) {
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
        out.push_str(&quote(cell.as_ref()));
    }
    out.push_str("\r\n");
}

fn quote(cell: &str) -> String {
    if cell.contains([',', '"', '\r', '\n']) {
        format!("\"{}\"", cell.replace('"', "\"\""))
    } else {
        cell.to_string()
    }
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

pub fn async_summary(rows: &[AsyncSummary]) -> Vec<u8> {
    let header = [
        "world_size",
        "size_bytes",
        "cycles",
        "median_host_enqueue_us",
        "median_host_wait_us",
        "median_gpu_dependency_us",
        "p95_gpu_dependency_us",
        "gpu_cv_percent",
        "work_completed_after_return_rate",
        "event_ready_after_wait_rate",
        "correct",
    ];
    let rows: Vec<Vec<String>> = rows
        .iter()
        .map(|r| {
            vec![
                r.world_size.to_string(),
                r.size_bytes.to_string(),
                r.cycles.to_string(),
                f(r.median_host_enqueue_us),
                f(r.median_host_wait_us),
                f(r.median_gpu_dependency_us),
                f(r.p95_gpu_dependency_us),
                f(r.gpu_cv_percent),
                f(r.work_completed_after_return_rate),
                f(r.event_ready_after_wait_rate),
                b(r.correct),
            ]
        })
        .collect();
    render(&header, &rows)
}

pub fn decomposition_summary(rows: &[DecompositionSummary]) -> Vec<u8> {
    let header = [
        "world_size",
        "size_bytes",
        "mode",
        "cycles",
        "median_duration_us",
        "p95_duration_us",
        "cv_percent",
        "overhead_vs_allreduce_percent",
        "correct",
    ];
    let rows: Vec<Vec<String>> = rows
        .iter()
        .map(|r| {
            vec![
                r.world_size.to_string(),
                r.size_bytes.to_string(),
                r.mode.clone(),
                r.cycles.to_string(),
                f(r.median_duration_us),
                f(r.p95_duration_us),
                f(r.cv_percent),
                opt_f(r.overhead_vs_allreduce_percent),
                b(r.correct),
            ]
        })
        .collect();
    render(&header, &rows)
}

pub fn fragmentation_summary(rows: &[FragmentationSummary]) -> Vec<u8> {
    let header = [
        "world_size",
        "total_bytes",
        "fragment_count",
        "fragment_bytes",
        "cycles",
        "median_duration_us",
        "p95_duration_us",
        "min_duration_us",
        "max_duration_us",
        "cv_percent",
        "slowdown_vs_one_collective",
        "median_per_collective_us",
        "strictly_slower_than_one_in_all_cycles",
        "correct",
    ];
    let rows: Vec<Vec<String>> = rows
        .iter()
        .map(|r| {
            vec![
                r.world_size.to_string(),
                r.total_bytes.to_string(),
                r.fragment_count.to_string(),
                r.fragment_bytes.to_string(),
                r.cycles.to_string(),
                f(r.median_duration_us),
                f(r.p95_duration_us),
                f(r.min_duration_us),
                f(r.max_duration_us),
                f(r.cv_percent),
                opt_f(r.slowdown_vs_one_collective),
                f(r.median_per_collective_us),
                r.strictly_slower_than_one_in_all_cycles.map(b).unwrap_or_default(),
                b(r.correct),
            ]
        })
        .collect();
    render(&header, &rows)
}

pub fn decode_summary(rows: &[DecodeSummary]) -> Vec<u8> {
    let header = [
        "world_size",
        "tokens",
        "hidden_size",
        "message_bytes",
        "collectives",
        "cycles",
        "median_total_us",
        "p95_total_us",
        "min_total_us",
        "max_total_us",
        "cv_percent",
        "median_per_collective_us",
        "correct",
    ];
    let rows: Vec<Vec<String>> = rows
        .iter()
        .map(|r| {
            vec![
                r.world_size.to_string(),
                r.tokens.to_string(),
                r.hidden_size.to_string(),
                r.message_bytes.to_string(),
                r.collectives.to_string(),
                r.cycles.to_string(),
                f(r.median_total_us),
                f(r.p95_total_us),
                f(r.min_total_us),
                f(r.max_total_us),
                f(r.cv_percent),
                f(r.median_per_collective_us),
                b(r.correct),
            ]
        })
        .collect();
    render(&header, &rows)
}

pub fn nccl_tests_raw(rows: &[NcclTestsRawRow]) -> Vec<u8> {
    let header = [
        "cycle",
        "size_bytes",
        "time_us",
        "algbw_GBs",
        "busbw_GBs",
        "wrong",
        "inplace_time_us",
        "inplace_algbw_GBs",
        "inplace_busbw_GBs",
        "inplace_wrong",
        "world_size",
    ];
    let count = |x: Option<u64>| x.map(|n| n.to_string()).unwrap_or_else(|| "N/A".into());
    let rows: Vec<Vec<String>> = rows
        .iter()
        .map(|r| {
            vec![
                r.cycle.to_string(),
                r.size_bytes.to_string(),
                f(r.time_us),
                f(r.algbw_gbs),
                f(r.busbw_gbs),
                count(r.wrong),
                f(r.inplace_time_us),
                f(r.inplace_algbw_gbs),
                f(r.inplace_busbw_gbs),
                count(r.inplace_wrong),
                r.world_size.to_string(),
            ]
        })
        .collect();
    render(&header, &rows)
}

pub fn nccl_tests_summary(rows: &[NcclTestsSummary]) -> Vec<u8> {
    let header = [
        "world_size",
        "size_bytes",
        "cycles",
        "median_time_us",
        "p95_time_us",
        "min_time_us",
        "max_time_us",
        "cv_percent",
        "median_algbw_GBs",
        "median_busbw_GBs",
        "wrong_total",
    ];
    let rows: Vec<Vec<String>> = rows
        .iter()
        .map(|r| {
            vec![
                r.world_size.to_string(),
                r.size_bytes.to_string(),
                r.cycles.to_string(),
                f(r.median_time_us),
                f(r.p95_time_us),
                f(r.min_time_us),
                f(r.max_time_us),
                f(r.cv_percent),
                f(r.median_algbw_gbs),
                f(r.median_busbw_gbs),
                r.wrong_total.to_string(),
            ]
        })
        .collect();
    render(&header, &rows)
}

pub fn numeric_summary(rows: &[NumericSummary]) -> Vec<u8> {
    let header = [
        "scenario",
        "cases",
        "fp16_mismatch_count",
        "fp16_nonfinite_count",
        "fp32_mismatch_count",
        "unique_fp16_results",
        "correct_replication_and_fp32_reference",
    ];
    let rows: Vec<Vec<String>> = rows
        .iter()
        .map(|r| {
            vec![
                r.scenario.clone(),
                r.cases.to_string(),
                r.fp16_mismatch_count.to_string(),
                r.fp16_nonfinite_count.to_string(),
                r.fp32_mismatch_count.to_string(),
                r.unique_fp16_results.clone(),
                b(r.correct_replication_and_fp32_reference),
            ]
        })
        .collect();
    render(&header, &rows)
}

pub fn unified(rows: &[UnifiedRow]) -> Vec<u8> {
    let header = ["section", "world_size", "case", "metric", "median", "p95", "cv_percent", "samples", "correct"];
    let rows: Vec<Vec<String>> = rows
        .iter()
        .map(|r| {
            vec![
                r.section.to_string(),
                r.world_size.map(|w| w.to_string()).unwrap_or_default(),
                r.case.clone(),
                r.metric.to_string(),
                match r.median {
                    Number::Int(n) => n.to_string(),
                    Number::Float(x) => f(x),
                },
                opt_f(r.p95),
                opt_f(r.cv_percent),
                r.samples.to_string(),
                b(r.correct),
            ]
        })
        .collect();
    render(&header, &rows)
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
