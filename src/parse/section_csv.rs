//! Per-rank section CSVs -> typed rows, with csv (csv_core for quoted files) + serde. Required columns are those the
//! seed reads; extra columns are ignored; a missing column, a non-number, a short row or
//! invalid UTF-8 is a `ParseError` naming the line and the column.

use crate::model::sections::{
    AsyncRow, Columns, ContractRecord, ContractRow, DecodeRow, DecompositionRow, FragmentationRow, NumericsRow,
    Section, SectionRows,
};
use crate::parse::fields::{from_fields, FieldError};
use crate::parse::ParseError;
use csv_core::ReadRecordResult;
use serde::de::DeserializeOwned;
use std::cell::RefCell;

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

/// A record could not be read: invalid UTF-8 in field `field` (0-based), or another error.
enum RecordError {
    Utf8 { line: u64, field: usize },
    Other(ParseError),
}

impl From<ParseError> for RecordError {
    fn from(error: ParseError) -> Self {
        RecordError::Other(error)
    }
}

type Each<'f> = dyn FnMut(u64, &[&str]) -> Result<(), RecordError> + 'f;

/// Calls `each` with every record (header first) as text fields, with the 1-based line it
/// starts on; blank lines are skipped. Files without quotes (what workers write) are split on
/// `\n` and `,` with memchr; a file with any `"` goes through csv_core, which handles quoted
/// fields, embedded separators and newlines.
fn for_each_record(bytes: &[u8], each: &mut Each) -> Result<(), RecordError> {
    if memchr::memchr(b'"', bytes).is_some() {
        return quoted_records(bytes, each);
    }
    let mut fields: Vec<&str> = Vec::with_capacity(32);
    let mut line = 0u64;
    for raw in bytes.split(|&b| b == b'\n') {
        line += 1;
        let raw = raw.strip_suffix(b"\r").unwrap_or(raw);
        if raw.is_empty() {
            continue;
        }
        let text = std::str::from_utf8(raw).map_err(|e| RecordError::Utf8 {
            line,
            field: memchr::memchr_iter(b',', &raw[..e.valid_up_to()]).count(),
        })?;
        fields.clear();
        fields.extend(text.split(','));
        each(line, &fields)?;
    }
    Ok(())
}

thread_local! {
    /// csv_core builds a sizeable DFA per reader; one per thread is reset for every file.
    static CORE: RefCell<csv_core::Reader> = RefCell::new(csv_core::Reader::new());
}

fn quoted_records(bytes: &[u8], each: &mut Each) -> Result<(), RecordError> {
    CORE.with(|core| {
        let mut core = core.borrow_mut();
        core.reset();
        let (mut out, mut ends) = (vec![0u8; 1024], vec![0usize; 32]);
        let (mut consumed, mut line, mut counted) = (0usize, 1u64, 0usize);
        loop {
            let start = consumed + bytes[consumed..].iter().take_while(|b| matches!(b, b'\r' | b'\n')).count();
            line += memchr::memchr_iter(b'\n', &bytes[counted..start]).count() as u64;
            counted = start;
            let (mut out_len, mut ends_len) = (0, 0);
            loop {
                let (result, nin, nout, nend) =
                    core.read_record(&bytes[consumed..], &mut out[out_len..], &mut ends[ends_len..]);
                consumed += nin;
                out_len += nout;
                ends_len += nend;
                match result {
                    ReadRecordResult::InputEmpty => {}
                    ReadRecordResult::OutputFull => out.resize(out.len() * 2, 0),
                    ReadRecordResult::OutputEndsFull => ends.resize(ends.len() * 2, 0),
                    ReadRecordResult::Record => break,
                    ReadRecordResult::End => return Ok(()),
                }
            }
            let mut fields = Vec::with_capacity(ends_len);
            let mut field_start = 0;
            for (index, &field_end) in ends[..ends_len].iter().enumerate() {
                let text = std::str::from_utf8(&out[field_start..field_end])
                    .map_err(|_| RecordError::Utf8 { line, field: index })?;
                fields.push(text);
                field_start = field_end;
            }
            each(line, &fields)?;
        }
    })
}

/// Reads the header, then calls `each` with every row that has the header's number of fields.
fn for_each_row(
    bytes: &[u8],
    mut each: impl FnMut(u64, &[&str], &[String]) -> Result<(), ParseError>,
) -> Result<(), ParseError> {
    let mut header: Option<Vec<String>> = None;
    let result = for_each_record(bytes, &mut |line, fields| {
        let Some(header) = &header else {
            header = Some(fields.iter().map(|f| f.to_string()).collect());
            return Ok(());
        };
        if fields.len() != header.len() {
            return Err(ParseError::new(
                Some(line),
                format!(
                    "expected {} fields as in the header, found {} (truncated or malformed row)",
                    header.len(),
                    fields.len()
                ),
            )
            .into());
        }
        Ok(each(line, fields, header)?)
    });
    match result {
        Err(RecordError::Other(error)) => Err(error),
        Err(RecordError::Utf8 { line, field }) => {
            let column = header.as_ref().and_then(|h| h.get(field)).map_or("header", String::as_str);
            Err(ParseError::new(Some(line), format!("column {column}: invalid UTF-8")))
        }
        Ok(()) if header.is_none() => Err(ParseError::new(Some(1), "empty file: expected a header row")),
        Ok(()) => Ok(()),
    }
}

/// Where each of `T`'s columns sits in the header (`None`: an optional column that is absent).
fn projection<T: Columns>(header: &[String]) -> Result<Vec<Option<usize>>, ParseError> {
    T::COLUMNS
        .iter()
        .map(|name| match header.iter().position(|h| h == name) {
            Some(i) => Ok(Some(i)),
            None if T::OPTIONAL.contains(name) => Ok(None),
            None => Err(ParseError::new(Some(1), format!("missing column `{name}`"))),
        })
        .collect()
}

/// The most columns any row type reads.
const MAX_COLUMNS: usize = 16;

/// Rows of `T`: each row projected onto `T`'s columns and deserialized by position (serde).
fn parse_rows<T: DeserializeOwned + Columns>(bytes: &[u8]) -> Result<Vec<T>, ParseError> {
    let mut rows = Vec::new();
    let mut order: Option<Vec<Option<usize>>> = None;
    for_each_row(bytes, |line, fields, header| {
        let order = match &order {
            Some(order) => order,
            None => order.insert(projection::<T>(header)?),
        };
        let mut projected = [""; MAX_COLUMNS];
        for (slot, column) in projected.iter_mut().zip(order) {
            *slot = column.and_then(|i| fields.get(i).copied()).unwrap_or("");
        }
        let row = from_fields::<T>(&projected[..order.len()]).map_err(|e| typed_error::<T>(e, line))?;
        rows.push(row);
        Ok(())
    })?;
    Ok(rows)
}

fn parse_contracts(bytes: &[u8]) -> Result<Vec<ContractRecord>, ParseError> {
    let mut correct: Option<usize> = None;
    let mut rows = Vec::new();
    for_each_row(bytes, |line, fields, header| {
        let column = match correct {
            Some(column) => column,
            None => *correct.insert(projection::<ContractRow>(header)?[0].unwrap_or(0)),
        };
        let value = [fields.get(column).copied().unwrap_or("")];
        let row = from_fields::<ContractRow>(&value).map_err(|e| typed_error::<ContractRow>(e, line))?;
        let fields = header.iter().zip(fields).map(|(k, v)| (k.clone(), v.to_string())).collect();
        rows.push(ContractRecord { line, row, fields });
        Ok(())
    })?;
    Ok(rows)
}

/// A typed-value error as "line N: column X: what was expected".
fn typed_error<T: Columns>(error: FieldError, line: u64) -> ParseError {
    match error.field.and_then(|i| T::COLUMNS.get(i)) {
        Some(column) => ParseError::new(Some(line), format!("column {column}: {}", error.message)),
        None => ParseError::new(Some(line), error.message),
    }
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
        assert_eq!(err.line, Some(1), "the header lacks it");
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
    fn quoted_fields_crlf_and_line_numbers() {
        let text = b"correct,detail\r\nTrue,\"a,b\r\nc\"\r\n\r\nFalse,x\r\n";
        let SectionRows::Contracts(rows) = parse_section(Section::Contracts, text).unwrap() else { panic!() };
        assert_eq!(rows.len(), 2);
        assert_eq!(rows[0].line, 2);
        assert_eq!(rows[0].fields[1].1, "a,b\r\nc");
        assert_eq!(rows[1].line, 5);
        assert!(!rows[1].row.correct);
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
