//! Case-level results as Apache Parquet, for engines (DuckDB, pandas, Polars, Spark): one row
//! per (run, case, metric) with the run's configuration key, the run-level value (median over
//! cycles) and spread (coefficient of variation over cycles, from 2 cycles), the cycle count
//! and the case's verdict against the run's baseline. `row` is the one place that maps the
//! comparison's types to a row (the verdict fields are being rebuilt: change them there).
//! Written uncompressed with the `parquet` crate's low-level writer (no arrow); the build
//! puts one file per shard of runs under `data/cases/month=YYYY-MM/` (`pipeline::cross_run`).

use crate::analysis::comparison::samples::CaseSamples;
use parquet::data_type::{ByteArray, ByteArrayType, DoubleType, Int64Type};
use parquet::file::properties::WriterProperties;
use parquet::file::writer::SerializedFileWriter;
use parquet::schema::parser::parse_message_type;
use std::collections::BTreeMap;
use std::sync::Arc;

/// The Parquet schema of the case files.
const SCHEMA: &str = "message cases {
    required binary run_id (STRING);
    required binary configuration_key (STRING);
    required binary section (STRING);
    required int64 world_size;
    required binary case (STRING);
    required binary metric (STRING);
    required double value;
    optional double spread;
    required int64 cycles;
    optional binary verdict (STRING);
}";

/// One row of the case files.
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct CaseRow {
    pub run_id: String,
    pub configuration_key: String,
    pub section: String,
    pub world_size: i64,
    /// `folder: case` for a decode case, else the seed's case text.
    pub case: String,
    pub metric: String,
    /// Median over cycles.
    pub value: f64,
    /// Sample standard deviation over mean (from 2 cycles).
    pub spread: Option<f64>,
    pub cycles: i64,
    /// The case's verdict against the run's baseline (`None`: not compared).
    pub verdict: Option<String>,
}

/// The row of one case of a run; `verdicts` are the run's case verdicts by case key
/// (`CaseResult::key` -> `Verdict::as_str`).
pub(crate) fn row(
    run_id: &str,
    configuration_key: &str,
    case: &CaseSamples,
    verdicts: &BTreeMap<String, String>,
) -> CaseRow {
    let values = &case.values;
    let n = values.len();
    let mean = values.iter().sum::<f64>() / n.max(1) as f64;
    let spread = (n >= 2 && mean != 0.0).then(|| {
        let var = values.iter().map(|v| (v - mean).powi(2)).sum::<f64>() / (n - 1) as f64;
        var.sqrt() / mean.abs()
    });
    CaseRow {
        run_id: run_id.to_string(),
        configuration_key: configuration_key.to_string(),
        section: case.section.to_string(),
        world_size: case.world_size,
        case: match &case.folder {
            Some(folder) => format!("{folder}: {}", case.case),
            None => case.case.clone(),
        },
        metric: case.metric.to_string(),
        value: if n == 0 { f64::NAN } else { crate::analysis::stats::median(values) },
        spread,
        cycles: n as i64,
        verdict: verdicts.get(&case.key()).cloned(),
    }
}

/// A Parquet file of `rows` (one row group).
pub(crate) fn write(rows: &[CaseRow]) -> parquet::errors::Result<Vec<u8>> {
    let schema = Arc::new(parse_message_type(SCHEMA)?);
    let props = Arc::new(WriterProperties::builder().set_created_by("nccl-report".to_string()).build());
    let mut writer = SerializedFileWriter::new(Vec::new(), schema, props)?;
    let mut group = writer.next_row_group()?;
    let text = |f: fn(&CaseRow) -> &str| -> Vec<ByteArray> { rows.iter().map(|r| ByteArray::from(f(r))).collect() };
    let mut column = 0;
    while let Some(mut col) = group.next_column()? {
        match column {
            0 => col.typed::<ByteArrayType>().write_batch(&text(|r| &r.run_id), None, None)?,
            1 => col.typed::<ByteArrayType>().write_batch(&text(|r| &r.configuration_key), None, None)?,
            2 => col.typed::<ByteArrayType>().write_batch(&text(|r| &r.section), None, None)?,
            3 => col.typed::<Int64Type>().write_batch(
                &rows.iter().map(|r| r.world_size).collect::<Vec<_>>(),
                None,
                None,
            )?,
            4 => col.typed::<ByteArrayType>().write_batch(&text(|r| &r.case), None, None)?,
            5 => col.typed::<ByteArrayType>().write_batch(&text(|r| &r.metric), None, None)?,
            6 => {
                col.typed::<DoubleType>().write_batch(&rows.iter().map(|r| r.value).collect::<Vec<_>>(), None, None)?
            }
            7 => {
                let values: Vec<f64> = rows.iter().filter_map(|r| r.spread).collect();
                let levels: Vec<i16> = rows.iter().map(|r| i16::from(r.spread.is_some())).collect();
                col.typed::<DoubleType>().write_batch(&values, Some(&levels), None)?
            }
            8 => {
                col.typed::<Int64Type>().write_batch(&rows.iter().map(|r| r.cycles).collect::<Vec<_>>(), None, None)?
            }
            _ => {
                let values: Vec<ByteArray> =
                    rows.iter().filter_map(|r| r.verdict.as_deref().map(ByteArray::from)).collect();
                let levels: Vec<i16> = rows.iter().map(|r| i16::from(r.verdict.is_some())).collect();
                col.typed::<ByteArrayType>().write_batch(&values, Some(&levels), None)?
            }
        };
        col.close()?;
        column += 1;
    }
    group.close()?;
    writer.into_inner()
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The rows of a case file, read back with the crate's reader.
    fn read(bytes: Vec<u8>) -> parquet::errors::Result<Vec<CaseRow>> {
        use parquet::file::reader::{FileReader, SerializedFileReader};
        use parquet::record::RowAccessor;
        let reader = SerializedFileReader::new(bytes::Bytes::from(bytes))?;
        let mut rows = Vec::new();
        for row in reader.get_row_iter(None)? {
            let row = row?;
            rows.push(CaseRow {
                run_id: row.get_string(0)?.clone(),
                configuration_key: row.get_string(1)?.clone(),
                section: row.get_string(2)?.clone(),
                world_size: row.get_long(3)?,
                case: row.get_string(4)?.clone(),
                metric: row.get_string(5)?.clone(),
                value: row.get_double(6)?,
                spread: row.get_double(7).ok(),
                cycles: row.get_long(8)?,
                verdict: row.get_string(9).ok().cloned(),
            });
        }
        Ok(rows)
    }

    fn case(folder: Option<&str>, values: Vec<f64>) -> CaseSamples {
        CaseSamples {
            section: "decode",
            world_size: 2,
            case: "tokens=1".into(),
            metric: "per_call_us",
            folder: folder.map(str::to_string),
            higher_is_better: false,
            family: crate::analysis::comparison::samples::Family::Device,
            values,
        }
    }

    #[test]
    fn case_files_read_back_as_written() {
        let one = case(Some("world2_decode"), vec![1.0, 2.0, 4.0]);
        let verdicts = BTreeMap::from([(one.key(), "slower".to_string())]);
        let rows = vec![
            row("r1", "gpu=H200", &one, &verdicts),
            row("r1 \"quoted\"", "gpu=H200", &case(None, vec![3.5]), &verdicts),
        ];
        assert_eq!(rows[0].value, 2.0);
        assert_eq!(rows[0].case, "world2_decode: tokens=1");
        assert_eq!(rows[0].verdict.as_deref(), Some("slower"));
        assert_eq!((rows[1].spread, rows[1].verdict.as_deref(), rows[1].cycles), (None, None, 1));
        let bytes = write(&rows).unwrap();
        assert_eq!(&bytes[..4], b"PAR1");
        assert_eq!(read(bytes).unwrap(), rows);
        assert_eq!(read(write(&[]).unwrap()).unwrap(), Vec::new());
    }
}
