//! Per-rank section CSVs -> typed rows: a memchr record splitter (RFC 4180 quoting) + serde.
//! Required columns are those the seed reads; extra columns are ignored; a missing column, a
//! non-number, a short row, invalid UTF-8 or a field over its length limit is a `ParseError`
//! naming the line and the column.

use crate::core::model::sections::{
    AsyncRow, Columns, ContractRecord, ContractRow, DecodeRow, DecompositionRow, FragmentationRow, NumericsRow,
    SectionRows, WorkerSection,
};
use crate::ingest::parse::fields::{from_fields, FieldError};
use crate::ingest::parse::ParseError;
use serde::de::DeserializeOwned;

/// Parses one `rank<N>_<section>.csv`.
pub(crate) fn parse_section(section: WorkerSection, bytes: &[u8]) -> Result<SectionRows, ParseError> {
    if bytes.iter().all(|b| b.is_ascii_whitespace()) {
        return Err(ParseError::new(Some(1), "empty file: expected a header row"));
    }
    Ok(match section {
        WorkerSection::Contracts => SectionRows::Contracts(parse_contracts(bytes)?),
        WorkerSection::Async => SectionRows::Async(parse_rows::<AsyncRow>(bytes)?),
        WorkerSection::Decomposition => SectionRows::Decomposition(parse_rows::<DecompositionRow>(bytes)?),
        WorkerSection::Fragmentation => SectionRows::Fragmentation(parse_rows::<FragmentationRow>(bytes)?),
        WorkerSection::Decode => SectionRows::Decode(parse_rows::<DecodeRow>(bytes)?),
        WorkerSection::Numerics => SectionRows::Numerics(parse_rows::<NumericsRow>(bytes)?),
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
/// starts on; blank lines are skipped. One pass over the separators found by memchr (`,`,
/// `\n`, and `"` when the file has any): RFC 4180 quoting (separators, `""` and newlines
/// inside quotes); `\n`, `\r\n` and a bare `\r` each end a record, as the seed's
/// `csv.DictReader` reads a file opened with `newline=''` (each bare `\r` counts as a line).
/// Fields must be UTF-8: a field that is not stops the reading there (earlier records were
/// passed on, so an earlier error wins) with its record's line and its index.
fn for_each_record(bytes: &[u8], each: &mut Each) -> Result<(), RecordError> {
    let normalized = bare_cr_as_newline(bytes);
    let bytes = normalized.as_deref().unwrap_or(bytes);
    let source = Source { bytes, text: std::str::from_utf8(bytes).ok() };
    if memchr::memchr(b'"', bytes).is_some() {
        quoted_records(&source, each)
    } else {
        plain_records(&source, each)
    }
}

/// A copy of `bytes` in which every bare `\r` (not followed by `\n`) outside a quoted field
/// is a `\n`, or `None` when there is none (the usual case: one memchr pass). Inside quotes
/// a `\r` stays text, as Python's csv module keeps it.
fn bare_cr_as_newline(bytes: &[u8]) -> Option<Vec<u8>> {
    let is_bare = |at: usize| bytes.get(at + 1) != Some(&b'\n');
    memchr::memchr_iter(b'\r', bytes).find(|&at| is_bare(at))?;
    let mut out = bytes.to_vec();
    let (mut in_quotes, mut field_start) = (false, true);
    let mut at = 0;
    while at < out.len() {
        match out[at] {
            b'"' if in_quotes && out.get(at + 1) == Some(&b'"') => at += 1,
            b'"' if in_quotes => in_quotes = false,
            b'"' if field_start => in_quotes = true,
            _ if in_quotes => {}
            b'\r' if is_bare(at) => {
                out[at] = b'\n';
                field_start = true;
                at += 1;
                continue;
            }
            b',' | b'\n' => {
                field_start = true;
                at += 1;
                continue;
            }
            _ => {}
        }
        field_start = false;
        at += 1;
    }
    Some(out)
}

/// A file's bytes, and the same as text when all of it is UTF-8 (checked once, the usual
/// case); otherwise each field is checked on its own.
struct Source<'a> {
    bytes: &'a [u8],
    text: Option<&'a str>,
}

impl<'a> Source<'a> {
    /// The field `bytes[start..end]` (bounds at separators, so at character boundaries).
    fn field(&self, start: usize, end: usize, line: u64, index: usize) -> Result<&'a str, RecordError> {
        let field = match self.text {
            Some(text) => text.get(start..end),
            None => std::str::from_utf8(&self.bytes[start..end]).ok(),
        };
        field.ok_or(RecordError::Utf8 { line, field: index })
    }
}

/// The fast path: no quotes, so every `,` and `\n` is a separator.
fn plain_records<'a>(source: &Source<'a>, each: &mut Each) -> Result<(), RecordError> {
    let bytes = source.bytes;
    let mut fields: Vec<&'a str> = Vec::with_capacity(32);
    let (mut start, mut line) = (0usize, 1u64);
    for at in memchr::memchr2_iter(b',', b'\n', bytes) {
        let ends_record = bytes[at] == b'\n';
        let end = if ends_record { trim_cr(bytes, start, at) } else { at };
        fields.push(source.field(start, end, line, fields.len())?);
        if ends_record {
            emit(line, &fields, false, each)?;
            fields.clear();
            line += 1;
        }
        start = at + 1;
    }
    let end = trim_cr(bytes, start, bytes.len());
    fields.push(source.field(start, end, line, fields.len())?);
    emit(line, &fields, false, each)
}

/// `end`, or `end - 1` when `bytes[start..end]` ends with the `\r` of a `\r\n`.
fn trim_cr(bytes: &[u8], start: usize, end: usize) -> usize {
    if end > start && bytes[end - 1] == b'\r' {
        end - 1
    } else {
        end
    }
}

/// Passes a record on, unless it is a blank line (one empty field that was not quoted).
fn emit(line: u64, fields: &[&str], quoted: bool, each: &mut Each) -> Result<(), RecordError> {
    if fields.len() == 1 && fields[0].is_empty() && !quoted {
        return Ok(());
    }
    each(line, fields)
}

/// Where one field's bytes are: in the file, or (a quoted field with `""` or text after its
/// closing quote) in a scratch buffer.
enum Piece {
    Text(usize, usize),
    Scratch(usize, usize),
}

/// The quoting path: a `"` at the start of a field opens it until the next lone `"`; `""`
/// inside stands for one quote; text after the closing quote is kept, a `"` elsewhere is
/// plain text (as the csv crate reads it).
fn quoted_records<'a>(source: &Source<'a>, each: &mut Each) -> Result<(), RecordError> {
    let bytes = source.bytes;
    let mut pieces: Vec<Piece> = Vec::with_capacity(32);
    let mut fields: Vec<&'a str> = Vec::with_capacity(32);
    let mut scratch: Vec<u8> = Vec::new();
    let (mut start, mut line, mut record_line) = (0usize, 1u64, 1u64);
    let (mut quoted, mut escaped, mut in_quotes, mut any_quoted) = (false, false, false, false);
    let mut close = None;
    let mut separators = memchr::memchr3_iter(b',', b'\n', b'"', bytes).peekable();
    while let Some(at) = separators.next() {
        match bytes[at] {
            b'"' if in_quotes => {
                if bytes.get(at + 1) == Some(&b'"') {
                    escaped = true;
                    separators.next();
                } else {
                    in_quotes = false;
                    close = Some(at);
                    // A bare `\r` inside the quotes is text, but a line to Python's reader
                    // (`line_num`), as a `\n` there is; outside quotes none is left.
                    line += bare_crs(&bytes[start..at]);
                }
            }
            b'"' => {
                if at == start {
                    (in_quotes, quoted, any_quoted) = (true, true, true);
                }
            }
            b'\n' if in_quotes => line += 1,
            _ if in_quotes => {}
            separator => {
                let field = Field { start, end: at, quoted, escaped, close, last: separator == b'\n' };
                pieces.push(field.piece(bytes, &mut scratch));
                (quoted, escaped, close) = (false, false, None);
                start = at + 1;
                if separator == b'\n' {
                    emit_pieces(record_line, &pieces, any_quoted, source, &scratch, &mut fields, each)?;
                    pieces.clear();
                    scratch.clear();
                    any_quoted = false;
                    line += 1;
                    record_line = line;
                }
            }
        }
    }
    let field = Field { start, end: bytes.len(), quoted, escaped, close, last: true };
    pieces.push(field.piece(bytes, &mut scratch));
    emit_pieces(record_line, &pieces, any_quoted, source, &scratch, &mut fields, each)
}

/// How many `\r` in `bytes` are not followed by a `\n` (each a line to Python's reader).
fn bare_crs(bytes: &[u8]) -> u64 {
    memchr::memchr_iter(b'\r', bytes).filter(|&at| bytes.get(at + 1) != Some(&b'\n')).count() as u64
}

/// One field as found by the scan.
struct Field {
    start: usize,
    end: usize,
    /// Opened by a `"`; `close` is where its closing `"` is (none: cut at the end).
    quoted: bool,
    close: Option<usize>,
    /// Holds `""`.
    escaped: bool,
    /// The record's last field (a trailing `\r` is the line end's).
    last: bool,
}

impl Field {
    /// Quotes removed and `""` read as `"` (written to `scratch` when the bytes change).
    fn piece(&self, bytes: &[u8], scratch: &mut Vec<u8>) -> Piece {
        let cut_in_quotes = self.quoted && self.close.is_none();
        let end = if self.last && !cut_in_quotes { trim_cr(bytes, self.start, self.end) } else { self.end };
        if !self.quoted {
            return Piece::Text(self.start, end);
        }
        let close = self.close.unwrap_or(end).min(end);
        let (body, tail) = (&bytes[self.start + 1..close], &bytes[(close + 1).min(end)..end]);
        if !self.escaped && tail.is_empty() {
            return Piece::Text(self.start + 1, close);
        }
        let from = scratch.len();
        // Inside the quotes every `"` is one of a `""` pair: keep the first of each.
        let mut second = false;
        for &byte in body {
            if byte == b'"' {
                second = !second;
                if !second {
                    continue;
                }
            }
            scratch.push(byte);
        }
        scratch.extend_from_slice(tail);
        Piece::Scratch(from, scratch.len())
    }
}

/// Passes on a record of pieces: through `fields` (kept from record to record) when they all
/// lie in the file, through a new list when some are in `scratch`.
fn emit_pieces<'a>(
    line: u64,
    pieces: &[Piece],
    quoted: bool,
    source: &Source<'a>,
    scratch: &[u8],
    fields: &mut Vec<&'a str>,
    each: &mut Each,
) -> Result<(), RecordError> {
    if scratch.is_empty() {
        fields.clear();
        for (index, piece) in pieces.iter().enumerate() {
            if let Piece::Text(a, b) = *piece {
                fields.push(source.field(a, b, line, index)?);
            }
        }
        if fields.len() == pieces.len() {
            return emit(line, fields, quoted, each);
        }
    }
    let fields = pieces
        .iter()
        .enumerate()
        .map(|(index, piece)| match *piece {
            Piece::Text(a, b) => source.field(a, b, line, index),
            Piece::Scratch(a, b) => {
                std::str::from_utf8(&scratch[a..b]).map_err(|_| RecordError::Utf8 { line, field: index })
            }
        })
        .collect::<Result<Vec<&str>, _>>()?;
    emit(line, &fields, quoted, each)
}

/// Reads the header, then calls `each` with every row that has the header's number of fields;
/// returns the header. A field of a row over `max_field` bytes is an error (a long header name
/// matches no column: it is only read where it is kept, `parse_contracts`).
fn for_each_row(
    bytes: &[u8],
    max_field: usize,
    mut each: impl FnMut(u64, &[&str], &[String]) -> Result<(), ParseError>,
) -> Result<Vec<String>, ParseError> {
    let mut header: Option<Vec<String>> = None;
    let result = for_each_record(bytes, &mut |line, fields| {
        let Some(header) = &header else {
            header = Some(fields.iter().map(|f| f.to_string()).collect());
            return Ok(());
        };
        if let Some((i, field)) = fields.iter().enumerate().find(|(_, f)| f.len() > max_field) {
            let column = header.get(i).map_or("?", String::as_str);
            let message = format!("column {column}: a field of {} bytes (at most {max_field})", field.len());
            return Err(ParseError::new(Some(line), message).into());
        }
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
        Ok(()) => header.ok_or_else(|| ParseError::new(Some(1), "empty file: expected a header row")),
    }
}

/// Where each of `T`'s columns sits in the header (`None`: an optional column that is absent).
/// A column named twice is read from its last occurrence, as `csv.DictReader` does.
fn projection<T: Columns>(header: &[String]) -> Result<Vec<Option<usize>>, ParseError> {
    T::COLUMNS
        .iter()
        .map(|name| match header.iter().rposition(|h| h == name) {
            Some(i) => Ok(Some(i)),
            None if T::OPTIONAL.contains(name) => Ok(None),
            None => Err(ParseError::new(Some(1), format!("missing column `{name}`"))),
        })
        .collect()
}

/// The longest field of a timing or numerics row (and header name of a contracts file, which
/// is kept with each of its rows): the worker writes at most 38 bytes (a numerics `values`
/// repr). Its text keys (`mode`, `scenario`) label every
/// chart, table and page of their case: a fuzzed 5 MB `mode` made a 105 MB run page and a
/// 76 s build before there was a limit.
const MAX_FIELD_BYTES: usize = 1024;
/// The longest field of a contracts row: its `detail` may hold a failed section's exception.
const MAX_DETAIL_BYTES: usize = 64 * 1024;

/// The most columns any row type reads.
const MAX_COLUMNS: usize = 16;

/// Rows of `T`: each row projected onto `T`'s columns and deserialized by position (serde).
fn parse_rows<T: DeserializeOwned + Columns>(bytes: &[u8]) -> Result<Vec<T>, ParseError> {
    let mut rows = Vec::new();
    let mut order: Option<Vec<Option<usize>>> = None;
    let header = for_each_row(bytes, MAX_FIELD_BYTES, |line, fields, header| {
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
    if order.is_none() {
        projection::<T>(&header)?;
    }
    Ok(rows)
}

fn parse_contracts(bytes: &[u8]) -> Result<Vec<ContractRecord>, ParseError> {
    let mut correct: Option<usize> = None;
    let mut rows = Vec::new();
    let header = for_each_row(bytes, MAX_DETAIL_BYTES, |line, fields, header| {
        let column = match correct {
            Some(column) => column,
            None => {
                if let Some((i, name)) = header.iter().enumerate().find(|(_, h)| h.len() > MAX_FIELD_BYTES) {
                    let message =
                        format!("header field {}: a name of {} bytes (at most {MAX_FIELD_BYTES})", i + 1, name.len());
                    return Err(ParseError::new(Some(1), message));
                }
                *correct.insert(projection::<ContractRow>(header)?[0].unwrap_or(0))
            }
        };
        let value = [fields.get(column).copied().unwrap_or("")];
        let row = from_fields::<ContractRow>(&value).map_err(|e| typed_error::<ContractRow>(e, line))?;
        let fields = header.iter().zip(fields).map(|(k, v)| (k.clone(), v.to_string())).collect();
        rows.push(ContractRecord { line, row, fields });
        Ok(())
    })?;
    if correct.is_none() {
        projection::<ContractRow>(&header)?;
    }
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
    fn a_field_over_its_limit_is_an_error_naming_line_and_column() {
        let row = |mode: &str| format!("world_size,rank,size_bytes,mode,cycle,duration_us\n4,0,1024,{mode},0,12.5\n");
        let at_limit = "d".repeat(MAX_FIELD_BYTES);
        assert!(parse_section(WorkerSection::Decomposition, row(&at_limit).as_bytes()).is_ok());
        let over = format!("{at_limit}d");
        let error = parse_section(WorkerSection::Decomposition, row(&over).as_bytes()).unwrap_err();
        assert_eq!(error.to_string(), "line 2: column mode: a field of 1025 bytes (at most 1024)");
        // Quoted, and in the header.
        let quoted = format!("\"{over}\"");
        let error = parse_section(WorkerSection::Decomposition, row(&quoted).as_bytes()).unwrap_err();
        assert_eq!(error.to_string(), "line 2: column mode: a field of 1025 bytes (at most 1024)");
        // A long header name matches no column; a contract keeps its header's names with each row.
        let header = format!("world_size,{over}\n4,0\n");
        let error = parse_section(WorkerSection::Async, header.as_bytes()).unwrap_err();
        assert_eq!(error.to_string(), "line 1: missing column `size_bytes`");
        let header = format!("world_size,rank,section,check,correct,detail,{over}\n1,0,async,c,True,d,e\n");
        let error = parse_section(WorkerSection::Contracts, header.as_bytes()).unwrap_err();
        assert_eq!(error.to_string(), "line 1: header field 7: a name of 1025 bytes (at most 1024)");
        let header = format!("world_size,rank,section,check,correct,detail,{at_limit}\n1,0,async,c,True,d,e\n");
        assert!(parse_section(WorkerSection::Contracts, header.as_bytes()).is_ok(), "a name at the limit");
        // A contract's detail may hold an exception: 64 KiB.
        let contract =
            |detail: &str| format!("world_size,rank,section,check,correct,detail\n1,0,async,c,False,{detail}\n");
        let long = "x".repeat(MAX_DETAIL_BYTES);
        assert!(parse_section(WorkerSection::Contracts, contract(&long).as_bytes()).is_ok());
        let error = parse_section(WorkerSection::Contracts, contract(&format!("{long}x")).as_bytes()).unwrap_err();
        assert_eq!(error.to_string(), "line 2: column detail: a field of 65537 bytes (at most 65536)");
    }

    #[test]
    fn reads_rows_and_ignores_extra_columns() {
        let text = b"world_size,rank,size_bytes,mode,cycle,duration_us,extra\n4,0,1024,direct,0,12.5,x\n";
        let SectionRows::Decomposition(rows) = parse_section(WorkerSection::Decomposition, text).unwrap() else {
            panic!("wrong section")
        };
        assert_eq!(rows.len(), 1);
        assert_eq!(rows[0].mode, "direct");
        assert_eq!(rows[0].duration_us, 12.5);
    }

    #[test]
    fn reads_the_worker_clocks_when_present() {
        let text =
            b"world_size,tokens,message_bytes,collectives,cycle,duration_us,host_issue_us,device_us,device_queued\n\
            1,1,8192,160,0,4122.0,4068.4,1.3,True\n1,1,8192,160,1,4100.0,4050.0,1.2,False\n";
        let SectionRows::Decode(rows) = parse_section(WorkerSection::Decode, text).unwrap() else {
            panic!("wrong section")
        };
        assert_eq!(
            (rows[0].host_issue_us, rows[0].device_us, rows[0].device_queued),
            (Some(4068.4), Some(1.3), Some(true))
        );
        assert_eq!(rows[1].device_queued, Some(false));
        let old = b"world_size,tokens,message_bytes,collectives,cycle,duration_us\n1,1,8192,160,0,4122.0\n";
        let SectionRows::Decode(rows) = parse_section(WorkerSection::Decode, old).unwrap() else {
            panic!("wrong section")
        };
        assert_eq!((rows[0].host_issue_us, rows[0].device_us, rows[0].device_queued), (None, None, None));
        let bad =
            b"world_size,tokens,message_bytes,collectives,cycle,duration_us,device_queued\n1,1,8192,160,0,4.0,maybe\n";
        let err = parse_section(WorkerSection::Decode, bad).unwrap_err();
        assert!(err.message.contains("column device_queued"), "{}", err.message);
    }

    #[test]
    fn non_number_names_line_and_column() {
        let text = b"world_size,size_bytes,mode,cycle,duration_us\n4,1024,direct,0,12.5\n4,1024,direct,1,abc\n";
        let err = parse_section(WorkerSection::Decomposition, text).unwrap_err();
        assert_eq!(err.line, Some(3));
        assert!(err.message.contains("column duration_us"), "{}", err.message);
        assert!(err.message.contains("\"abc\" is not a number"), "{}", err.message);
    }

    #[test]
    fn missing_column_is_named() {
        let text = b"world_size,size_bytes,cycle\n4,1024,0\n";
        let err = parse_section(WorkerSection::Decomposition, text).unwrap_err();
        assert!(err.message.contains("missing column `mode`"), "{}", err.message);
        assert_eq!(err.line, Some(1), "the header lacks it");
    }

    #[test]
    fn truncated_row_and_empty_file_and_bad_utf8() {
        let text = b"world_size,size_bytes,mode,cycle,duration_us\n4,1024,direct,0,12.5\n4,1024,dir";
        let err = parse_section(WorkerSection::Decomposition, text).unwrap_err();
        assert_eq!(err.line, Some(3));
        assert!(err.message.contains("expected 5 fields"), "{}", err.message);

        let err = parse_section(WorkerSection::Async, b"").unwrap_err();
        assert!(err.message.contains("empty file"));

        let err = parse_section(
            WorkerSection::Decomposition,
            b"world_size,size_bytes,mode,cycle,duration_us\n4,1,\xff,0,1\n",
        )
        .unwrap_err();
        assert_eq!(err.line, Some(2));
        assert!(err.message.contains("invalid UTF-8"), "{}", err.message);
    }

    #[test]
    fn quoted_fields_crlf_and_line_numbers() {
        let text = b"correct,detail\r\nTrue,\"a,b\r\nc\"\r\n\r\nFalse,x\r\n";
        let SectionRows::Contracts(rows) = parse_section(WorkerSection::Contracts, text).unwrap() else { panic!() };
        assert_eq!(rows.len(), 2);
        assert_eq!(rows[0].line, 2);
        assert_eq!(rows[0].fields[1].1, "a,b\r\nc");
        assert_eq!(rows[1].line, 5);
        assert!(!rows[1].row.correct);
    }

    /// Every record as the splitter reads it, as (line, fields).
    fn records(bytes: &[u8]) -> Vec<(u64, Vec<String>)> {
        let mut out = Vec::new();
        let result = for_each_record(bytes, &mut |line, fields| {
            out.push((line, fields.iter().map(|f| f.to_string()).collect()));
            Ok(())
        });
        assert!(result.is_ok());
        out
    }

    #[test]
    fn splitter_reads_as_the_csv_crate() {
        let cases: [&[u8]; 12] = [
            b"a,b,c\n1,2,3\n",
            b"a,b\r\n1,2\r\n\r\n3,4",
            b"a,\"b,c\",d\n\"x\"\"y\",z,\"\"\n",
            b"h\n\"multi\nline\",\"a\"\"\"\"b\"\n",
            b"h,i\nab\"c,d\"\n\"q\"tail,e\n",
            b"h\n\"\"\"\"\n\"cut at the end",
            b",\n,,\n\"\",\"\"\n",
            b"(0, 1, 2, 3),\"(0, 1, 2, 3)\",\"[2048.0, 1.0]\"\r\n",
            b"\n\n\na\n\n",
            b"h\n\"\"\n\"\n",
            b"x,\"a\r",
            b"\"a\"\"b\"c\"\"d,e\r\n\"\",",
        ];
        for case in cases {
            let mut reader = csv::ReaderBuilder::new().has_headers(false).flexible(true).from_reader(case);
            let expected: Vec<Vec<String>> =
                reader.records().map(|r| r.unwrap().iter().map(str::to_string).collect()).collect();
            let fields: Vec<Vec<String>> = records(case).into_iter().map(|(_, f)| f).collect();
            assert_eq!(fields, expected, "{}", String::from_utf8_lossy(case));
        }
    }

    #[test]
    fn record_lines_count_newlines_inside_quotes() {
        let lines: Vec<u64> = records(b"h\n\"a\nb\"\n\nx\r\n\"\"\"\n\"\n").iter().map(|r| r.0).collect();
        assert_eq!(lines, [1, 2, 5, 6]);
    }

    #[test]
    fn invalid_utf8_comes_after_earlier_rows() {
        let text = b"world_size,size_bytes,mode,cycle,duration_us\n4,1,x,0,bad\n4,1,\xff,0,1\n";
        let err = parse_section(WorkerSection::Decomposition, text).unwrap_err();
        assert_eq!(err.line, Some(2), "the earlier bad number wins");
        let text = b"world_size,size_bytes,mode,cycle,duration_us\n4,1,x,0,1\n4,1,\"\xff\",0,1\n";
        let err = parse_section(WorkerSection::Decomposition, text).unwrap_err();
        assert_eq!(err.line, Some(3));
        assert!(err.message.contains("column mode: invalid UTF-8"), "{}", err.message);
        // Inside a quoted field: after a quoted comma, and on a quoted field's second line.
        for text in [
            &b"world_size,size_bytes,mode,cycle,duration_us\n4,1,\"a,\xff\",0,1\n"[..],
            &b"world_size,size_bytes,mode,cycle,duration_us\n4,1,\"x\n\xff\",0,1\n"[..],
        ] {
            let err = parse_section(WorkerSection::Decomposition, text).unwrap_err();
            assert_eq!(err.line, Some(2));
            assert!(err.message.contains("column mode: invalid UTF-8"), "{}", err.message);
        }
    }

    #[test]
    fn line_ends_and_duplicated_columns_as_dict_reader() {
        // Python 3.11: csv.DictReader over `open(newline='')` gives 2 rows for each of these,
        // keeps a `\r` inside quotes, and takes a duplicated column's last value.
        for text in [&b"a,b\r1,2\r3,4\r"[..], b"a,b\r\r\n1,2\r\r\n3,4\r\r\n", b"a,b\n1,2\r\n3,4"] {
            let fields: Vec<Vec<String>> = records(text).into_iter().map(|(_, f)| f).collect();
            assert_eq!(fields, [["a", "b"], ["1", "2"], ["3", "4"]], "{}", String::from_utf8_lossy(text));
        }
        // A bare `\r` inside quotes is a line to Python (`line_num`), as a `\n` there is: the
        // second record starts on line 3 (Python's `line_num` after the first record is 2).
        assert_eq!(records(b"a,\"x\ry\"\r1,2").iter().map(|r| r.0).collect::<Vec<_>>(), [1, 3]);
        assert_eq!(records(b"a,\"x\ny\"\n1,2").iter().map(|r| r.0).collect::<Vec<_>>(), [1, 3]);
        assert_eq!(records(b"h\n\"\r\r\n\r\"\r\"x\"\r1").iter().map(|r| r.0).collect::<Vec<_>>(), [1, 2, 6, 7]);
        assert_eq!(records(b"a,\"x\ry\"\r1,2")[0].1[1], "x\ry");
        // Python 3.11 again: a doubled quote inside quotes is one quote and keeps the field
        // open (the bare `\r` after it is text); a quote inside a field is text and opens
        // nothing (the bare `\r` after it ends the record); a `\r\n` beside bare `\r`s is one
        // line end (the records start on lines 1 to 4).
        let fields = |text: &[u8]| -> Vec<Vec<String>> { records(text).into_iter().map(|(_, f)| f).collect() };
        assert_eq!(fields(b"a,\"x\"\"\ry\"\r1,2"), [vec!["a", "x\"\ry"], vec!["1", "2"]]);
        assert_eq!(fields(b"h1,h2\rx\"y,z\r1,2"), [["h1", "h2"], ["x\"y", "z"], ["1", "2"]]);
        let lines: Vec<u64> = records(b"a,b\r\n1,2\r3,4\r\n5,6").iter().map(|r| r.0).collect();
        assert_eq!(lines, [1, 2, 3, 4]);
        let text = b"world_size,size_bytes,mode,cycle,duration_us,duration_us\n4,1024,direct,0,x,12.5\n";
        let SectionRows::Decomposition(rows) = parse_section(WorkerSection::Decomposition, text).unwrap() else {
            panic!()
        };
        assert_eq!(rows[0].duration_us, 12.5);
    }

    #[test]
    fn a_header_without_the_columns_is_refused_even_without_rows() {
        for text in [&[0u8; 64][..], b"\x01,zz\n", b"world_size,size_bytes\r\n"] {
            let err = parse_section(WorkerSection::Decomposition, text).unwrap_err();
            assert!(err.message.contains("missing column"), "{}", err.message);
        }
        let err = parse_section(WorkerSection::Contracts, b"detail\n").unwrap_err();
        assert!(err.message.contains("missing column `correct`"), "{}", err.message);
        let header_only =
            parse_section(WorkerSection::Decomposition, b"world_size,size_bytes,mode,cycle,duration_us\n");
        assert!(header_only.unwrap().is_empty());
    }

    #[test]
    fn python_booleans() {
        let text = b"correct,detail\nTrue,a\nfalse,b\n";
        let SectionRows::Contracts(rows) = parse_section(WorkerSection::Contracts, text).unwrap() else { panic!() };
        assert!(rows[0].row.correct);
        assert!(!rows[1].row.correct);
        assert_eq!(rows[1].line, 3);
        assert_eq!(rows[1].fields[1], ("detail".to_string(), "b".to_string()));
        let err = parse_section(WorkerSection::Contracts, b"correct\nyes\n").unwrap_err();
        assert!(err.message.contains("not True or False"), "{}", err.message);
    }
}
