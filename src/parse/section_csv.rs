//! Per-rank section CSVs -> typed rows, with csv + serde. Required columns are those the
//! seed reads; extra columns are ignored; a missing column, a non-number, a short row or
//! invalid UTF-8 is a `ParseError` naming the line and the column.

use crate::model::sections::{
    AsyncRow, ContractRecord, ContractRow, DecodeRow, DecompositionRow, FragmentationRow, NumericsRow, Section,
    SectionRows,
};
use crate::parse::ParseError;
use serde::de::DeserializeOwned;

/// Parses one `rank<N>_<section>.csv`.
pub fn parse_section(section: Section, bytes: &[u8]) -> Result<SectionRows, ParseError> {
    if bytes.iter().all(|b| b.is_ascii_whitespace()) {
        return Err(ParseError::new(Some(1), "empty file: expected a header row"));
    }
    Ok(match section {
        Section::Contracts => SectionRows::Contracts(parse_contracts(bytes)?),
        Section::Async => SectionRows::Async(parse_rows::<AsyncRow>(bytes)?),
        Section::Decomposition => SectionRows::Decomposition(parse_rows::<DecompositionRow>(bytes)?),
        Section::Fragmentation => SectionRows::Fragmentation(parse_rows::<FragmentationRow>(bytes)?),
        Section::Decode => SectionRows::Decode(parse_rows::<DecodeRow>(bytes)?),
        Section::Numerics => SectionRows::Numerics(parse_rows::<NumericsRow>(bytes)?),
    })
}

fn reader(bytes: &[u8]) -> csv::Reader<&[u8]> {
    csv::ReaderBuilder::new().has_headers(true).from_reader(bytes)
}

fn headers(reader: &mut csv::Reader<&[u8]>) -> Result<csv::StringRecord, ParseError> {
    reader.headers().cloned().map_err(|e| csv_error(&e, None))
}

fn parse_rows<T: DeserializeOwned>(bytes: &[u8]) -> Result<Vec<T>, ParseError> {
    let mut reader = reader(bytes);
    let header = headers(&mut reader)?;
    let mut rows = Vec::new();
    let mut record = csv::StringRecord::new();
    loop {
        match reader.read_record(&mut record) {
            Ok(false) => break,
            Ok(true) => {}
            Err(e) => return Err(csv_error(&e, Some(&header))),
        }
        let line = record.position().map(|p| p.line());
        let row = record
            .deserialize::<T>(Some(&header))
            .map_err(|e| with_line(csv_error(&e, Some(&header)), line))
            .map_err(|e| name_column(e, &header, &record))?;
        rows.push(row);
    }
    Ok(rows)
}

fn parse_contracts(bytes: &[u8]) -> Result<Vec<ContractRecord>, ParseError> {
    let mut reader = reader(bytes);
    let header = headers(&mut reader)?;
    let mut rows = Vec::new();
    let mut record = csv::StringRecord::new();
    loop {
        match reader.read_record(&mut record) {
            Ok(false) => break,
            Ok(true) => {}
            Err(e) => return Err(csv_error(&e, Some(&header))),
        }
        let line = record.position().map_or(0, |p| p.line());
        let row = record
            .deserialize::<ContractRow>(Some(&header))
            .map_err(|e| with_line(csv_error(&e, Some(&header)), Some(line)))
            .map_err(|e| name_column(e, &header, &record))?;
        let fields = header.iter().zip(record.iter()).map(|(k, v)| (k.to_string(), v.to_string())).collect();
        rows.push(ContractRecord { line, row, fields });
    }
    Ok(rows)
}

/// Our typed-value errors start with the offending value quoted (`"abc" is not a number`);
/// csv does not say which column a custom deserializer failed on, so find it by value.
fn name_column(mut error: ParseError, header: &csv::StringRecord, record: &csv::StringRecord) -> ParseError {
    if error.message.starts_with("column ") || error.message.starts_with("missing column") {
        return error;
    }
    if let Some(column) =
        record.iter().position(|value| error.message.starts_with(&format!("{value:?} "))).and_then(|i| header.get(i))
    {
        error.message = format!("column {column}: {}", error.message);
    }
    error
}

fn with_line(mut error: ParseError, line: Option<u64>) -> ParseError {
    if error.line.is_none() {
        error.line = line;
    }
    error
}

/// Turns a csv error into "line N: column X: what was expected".
fn csv_error(error: &csv::Error, header: Option<&csv::StringRecord>) -> ParseError {
    let line = error.position().map(|p| p.line());
    let message = match error.kind() {
        csv::ErrorKind::Utf8 { err, .. } => {
            let column = header.and_then(|h| h.get(err.field())).unwrap_or("?");
            format!("column {column}: invalid UTF-8")
        }
        csv::ErrorKind::UnequalLengths { expected_len, len, .. } => {
            format!("expected {expected_len} fields as in the header, found {len} (truncated or malformed row)")
        }
        csv::ErrorKind::Deserialize { err, .. } => {
            let column = err.field().and_then(|i| header.and_then(|h| h.get(i as usize)));
            let detail = match err.kind() {
                csv::DeserializeErrorKind::Message(m) => m.clone(),
                other => other.to_string(),
            };
            match column {
                Some(column) => format!("column {column}: {detail}"),
                None => detail.replace("missing field", "missing column"),
            }
        }
        csv::ErrorKind::Io(e) => format!("read error: {e}"),
        _ => error.to_string(),
    };
    ParseError::new(line, message)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn reads_rows_and_ignores_extra_columns() {
        let text = b"world_size,rank,size_bytes,mode,cycle,duration_us,extra\n4,0,1024,direct,0,12.5,x\n";
        let SectionRows::Decomposition(rows) = parse_section(Section::Decomposition, text).unwrap() else {
            panic!("wrong section")
        };
        assert_eq!(rows.len(), 1);
        assert_eq!(rows[0].mode, "direct");
        assert_eq!(rows[0].duration_us, 12.5);
    }

    #[test]
    fn non_number_names_line_and_column() {
        let text = b"world_size,size_bytes,mode,cycle,duration_us\n4,1024,direct,0,12.5\n4,1024,direct,1,abc\n";
        let err = parse_section(Section::Decomposition, text).unwrap_err();
        assert_eq!(err.line, Some(3));
        assert!(err.message.contains("column duration_us"), "{}", err.message);
        assert!(err.message.contains("\"abc\" is not a number"), "{}", err.message);
    }

    #[test]
    fn missing_column_is_named() {
        let text = b"world_size,size_bytes,cycle\n4,1024,0\n";
        let err = parse_section(Section::Decomposition, text).unwrap_err();
        assert!(err.message.contains("missing column `mode`"), "{}", err.message);
        assert_eq!(err.line, Some(2));
    }

    #[test]
    fn truncated_row_and_empty_file_and_bad_utf8() {
        let text = b"world_size,size_bytes,mode,cycle,duration_us\n4,1024,direct,0,12.5\n4,1024,dir";
        let err = parse_section(Section::Decomposition, text).unwrap_err();
        assert_eq!(err.line, Some(3));
        assert!(err.message.contains("expected 5 fields"), "{}", err.message);

        let err = parse_section(Section::Async, b"").unwrap_err();
        assert!(err.message.contains("empty file"));

        let err =
            parse_section(Section::Decomposition, b"world_size,size_bytes,mode,cycle,duration_us\n4,1,\xff,0,1\n")
                .unwrap_err();
        assert_eq!(err.line, Some(2));
        assert!(err.message.contains("invalid UTF-8"), "{}", err.message);
    }

    #[test]
    fn python_booleans() {
        let text = b"correct,detail\nTrue,a\nfalse,b\n";
        let SectionRows::Contracts(rows) = parse_section(Section::Contracts, text).unwrap() else { panic!() };
        assert!(rows[0].row.correct);
        assert!(!rows[1].row.correct);
        assert_eq!(rows[1].line, 3);
        assert_eq!(rows[1].fields[1], ("detail".to_string(), "b".to_string()));
        let err = parse_section(Section::Contracts, b"correct\nyes\n").unwrap_err();
        assert!(err.message.contains("not True or False"), "{}", err.message);
    }
}
