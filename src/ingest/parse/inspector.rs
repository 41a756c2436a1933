//! NCCL Inspector dumps (`<dir>/<hostname>-pid<pid>.log`) -> `InspectorRecord`s. The format is
//! the plugin's writer (`ext-profiler/inspector/inspector_json.cc`, NCCL 2.28): a stream of
//! objects `{"header":{"id","comm_name","rank","n_ranks","nnodes"},"metadata":{...,"hostname",
//! "pid"},"coll_perf":{"coll","coll_sn","coll_msg_size_bytes","coll_exec_time_us",
//! "coll_timing_source","coll_algobw_gbs","coll_busbw_gbs"}}` (or `p2p_perf` with `p2p`,
//! `p2p_sn`, `p2p_peer`, `p2p_msg_size_bytes`, ...), one per line or pretty-printed: both are
//! read. Objects of other kinds (verbose traces without a perf block) are skipped; a malformed
//! object stops the file with an error naming its line, keeping the records before it.

use super::{More, ParseError, MAX_WARNINGS};
use crate::core::model::inspector::InspectorRecord;
use serde_json::value::RawValue;
use serde_json::{Deserializer, Value};

/// The largest object read as a record (one is a few hundred bytes): a larger one is left out
/// unparsed, as a tree of it takes many times its size (a 50 MB array took 1.4 GB).
const MAX_OBJECT_BYTES: usize = 64 * 1024;

/// What a dump holds: its records, the records left out for a value out of range (each a
/// warning naming its line, the first `MAX_WARNINGS`; then one line counting the rest), and
/// the error that stopped the file, if any.
#[derive(Debug, Default, PartialEq)]
pub(crate) struct InspectorDump {
    pub records: Vec<InspectorRecord>,
    pub left_out: Vec<ParseError>,
    pub error: Option<ParseError>,
}

/// The longest time a record may report, in µs (a day): beyond it, or negative, it is not a
/// measurement.
const MAX_EXEC_TIME_US: f64 = 86_400e6;
/// The highest bandwidth a record may report, in GB/s (50 times NVLink 5's 1.8 TB/s).
const MAX_GBS: f64 = 100_000.0;

/// Records read, those out of range, and the error that stopped the file, if any.
pub(crate) fn parse_inspector(bytes: &[u8]) -> InspectorDump {
    let mut dump = InspectorDump::default();
    let mut lines = Lines::default();
    let mut more = More::default();
    let mut stream = Deserializer::from_slice(bytes).into_iter::<&RawValue>();
    loop {
        let start = stream.byte_offset();
        let parsed = match stream.next() {
            None => break,
            Some(Ok(raw)) if raw.get().len() > MAX_OBJECT_BYTES => {
                let why = format!("an object of {} bytes, larger than any record; left out", raw.get().len());
                match dump.left_out.len() < MAX_WARNINGS {
                    true => dump.left_out.push(ParseError::new(Some(lines.at(bytes, start)), why)),
                    false => more.note(lines.at(bytes, start)),
                }
                continue;
            }
            Some(Ok(raw)) => serde_json::from_str::<Value>(raw.get()).map_err(|e| (lines.at(bytes, start), e)),
            Some(Err(e)) => Err((e.line() as u64, e)),
        };
        match parsed {
            Err((line, e)) => {
                dump.error = Some(ParseError::new(Some(line), e.to_string()));
                break;
            }
            Ok(value) => match record(&value) {
                Ok(Some(r)) => match out_of_range(&r) {
                    Some(why) if dump.left_out.len() < MAX_WARNINGS => {
                        dump.left_out.push(ParseError::new(Some(lines.at(bytes, start)), why))
                    }
                    Some(_) => more.note(lines.at(bytes, start)),
                    None => dump.records.push(r),
                },
                Ok(None) => {}
                Err(message) => {
                    dump.error = Some(ParseError::new(Some(lines.at(bytes, start)), message));
                    break;
                }
            },
        }
    }
    if more.count() > 0 {
        let message = format!("{} more records out of range left out (not listed; up to this line)", more.count());
        dump.left_out.push(ParseError::new(Some(more.last_line()), message));
    }
    dump
}

/// Why a record's numbers cannot be a measurement: a time negative or over a day, a bandwidth
/// negative or over `MAX_GBS`, anything not finite.
fn out_of_range(record: &InspectorRecord) -> Option<String> {
    let checks = [
        ("exec_time_us", record.exec_time_us, MAX_EXEC_TIME_US),
        ("algobw_gbs", record.algbw_gbs, MAX_GBS),
        ("busbw_gbs", record.busbw_gbs, MAX_GBS),
    ];
    checks.iter().find(|(_, value, max)| !(value.is_finite() && *value >= 0.0 && value <= max)).map(
        |(name, value, max)| {
            let prefix = if record.p2p { "p2p" } else { "coll" };
            format!("{prefix}_{name} {value:.6e} is not a measurement (outside 0 to {max:e}); record left out")
        },
    )
}

/// Line numbers of offsets met in increasing order, counted on from the last one asked (the
/// whole file is read once, not once per record).
#[derive(Default)]
struct Lines {
    /// Bytes counted so far, and the newlines among them.
    counted: usize,
    newlines: u64,
}

impl Lines {
    /// 1-based line of the first non-blank byte at or after `offset` (at or after the last
    /// offset asked).
    fn at(&mut self, bytes: &[u8], offset: usize) -> u64 {
        let skip = bytes.get(offset..).unwrap_or_default().iter().take_while(|b| b.is_ascii_whitespace()).count();
        let end = (offset + skip).min(bytes.len()).max(self.counted);
        self.newlines += memchr::memchr_iter(b'\n', &bytes[self.counted..end]).count() as u64;
        self.counted = end;
        1 + self.newlines
    }
}

fn record(value: &Value) -> Result<Option<InspectorRecord>, String> {
    let (perf, prefix, p2p) = match (value.get("coll_perf"), value.get("p2p_perf")) {
        (Some(perf), _) => (perf, "coll", false),
        (None, Some(perf)) => (perf, "p2p", true),
        (None, None) => return Ok(None),
    };
    let header = value.get("header").ok_or("record without \"header\"")?;
    let metadata = value.get("metadata").ok_or("record without \"metadata\"")?;
    let text = |v: &Value, key: &str| v.get(key).and_then(Value::as_str).map(str::to_string);
    let unsigned =
        |v: &Value, key: &str| v.get(key).and_then(Value::as_u64).ok_or(format!("\"{key}\" is not a whole number"));
    let number = |v: &Value, key: &str| v.get(key).and_then(Value::as_f64).ok_or(format!("\"{key}\" is not a number"));
    let field = |name: &str| format!("{prefix}_{name}");
    Ok(Some(InspectorRecord {
        comm_id: text(header, "id").unwrap_or_default(),
        rank: unsigned(header, "rank")?,
        n_ranks: unsigned(header, "n_ranks")?,
        nnodes: unsigned(header, "nnodes")?,
        hostname: text(metadata, "hostname").unwrap_or_default(),
        pid: unsigned(metadata, "pid").unwrap_or_default(),
        operation: text(perf, prefix).ok_or(format!("\"{prefix}\" is missing"))?,
        p2p,
        peer: if p2p { perf.get("p2p_peer").and_then(Value::as_i64) } else { None },
        sequence: unsigned(perf, &field("sn"))?,
        msg_size_bytes: unsigned(perf, &field("msg_size_bytes"))?,
        exec_time_us: number(perf, &field("exec_time_us"))?,
        timing_source: text(perf, &field("timing_source")).unwrap_or_default(),
        algbw_gbs: number(perf, &field("algobw_gbs"))?,
        busbw_gbs: number(perf, &field("busbw_gbs"))?,
    }))
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Records as `inspector_json.cc` writes them: key order and types of its `jsonKey` /
    /// `jsonUint64` / `jsonDouble` calls (exec time a whole number of microseconds).
    const DUMP: &str = concat!(
        r#"{"header":{"id":"0x7f8c496ae9f661","comm_name":"unknown","rank":2,"n_ranks":8,"nnodes":1},"#,
        r#""metadata":{"inspector_output_format_version":"v4.0","git_rev":"","rec_mechanism":"nccl_profiler_interface","dump_timestamp_us":1748030377748202,"hostname":"h200-a","pid":1639453},"#,
        r#""coll_perf":{"coll":"AllReduce","coll_sn":1407,"coll_msg_size_bytes":17179869184,"coll_exec_time_us":61974,"coll_timing_source":"kernel_gpu","coll_algobw_gbs":277.210914,"coll_busbw_gbs":485.119099}}"#,
        "\n",
        r#"{"header":{"id":"0x7f8c496ae9f661","comm_name":"unknown","rank":2,"n_ranks":8,"nnodes":1},"#,
        r#""metadata":{"inspector_output_format_version":"v4.0","git_rev":"","rec_mechanism":"nccl_profiler_interface","dump_timestamp_us":1748030377748300,"hostname":"h200-a","pid":1639453},"#,
        r#""p2p_perf":{"p2p":"Send","p2p_sn":3,"p2p_peer":3,"p2p_msg_size_bytes":1048576,"p2p_exec_time_us":12,"p2p_timing_source":"kernel_gpu","p2p_algobw_gbs":87.381333,"p2p_busbw_gbs":87.381333}}"#,
        "\n"
    );

    #[test]
    fn coll_and_p2p_records() {
        let InspectorDump { records, left_out, error } = parse_inspector(DUMP.as_bytes());
        assert_eq!((error, left_out), (None, Vec::new()));
        assert_eq!(records.len(), 2);
        let coll = &records[0];
        assert_eq!((coll.operation.as_str(), coll.rank, coll.n_ranks, coll.sequence), ("AllReduce", 2, 8, 1407));
        assert_eq!((coll.msg_size_bytes, coll.exec_time_us, coll.busbw_gbs), (17179869184, 61974.0, 485.119099));
        assert_eq!((coll.timing_source.as_str(), coll.hostname.as_str(), coll.peer), ("kernel_gpu", "h200-a", None));
        let p2p = &records[1];
        assert_eq!((p2p.operation.as_str(), p2p.p2p, p2p.peer, p2p.msg_size_bytes), ("Send", true, Some(3), 1048576));
    }

    #[test]
    fn pretty_printed_empty_and_broken() {
        let pretty =
            serde_json::to_string_pretty(&serde_json::from_str::<Value>(DUMP.lines().next().unwrap()).unwrap())
                .unwrap();
        assert_eq!(parse_inspector(pretty.as_bytes()).records.len(), 1);
        assert_eq!(parse_inspector(b""), InspectorDump::default());
        let broken = format!(
            "{DUMP}{{\"header\":{{\"rank\":1}},\"metadata\":{{}},\"coll_perf\":{{\"coll\":\"AllReduce\"}}}}\n{{\"x\":"
        );
        let InspectorDump { records, error, .. } = parse_inspector(broken.as_bytes());
        assert_eq!(records.len(), 2);
        let error = error.unwrap();
        assert_eq!(error.line, Some(3));
        assert!(error.message.contains("n_ranks"), "{error}");
        let cut = parse_inspector(&DUMP.as_bytes()[..40]).error;
        assert_eq!(cut.unwrap().line, Some(1));
    }

    /// An object far larger than any record is left out unparsed, with a warning naming its
    /// line; the records after it are read.
    #[test]
    fn an_object_larger_than_any_record_is_left_out_unparsed() {
        let huge = format!("[{}0]", "0,".repeat(MAX_OBJECT_BYTES));
        let text = format!("{huge}\n{DUMP}");
        let dump = parse_inspector(text.as_bytes());
        assert_eq!((dump.records.len(), dump.error), (2, None));
        assert_eq!(dump.left_out.len(), 1);
        assert_eq!(dump.left_out[0].line, Some(1));
        assert!(dump.left_out[0].message.contains("larger than any record; left out"), "{:?}", dump.left_out);
    }

    #[test]
    fn values_out_of_range_are_left_out_with_a_warning() {
        let first = DUMP.lines().next().unwrap();
        let bad = [
            first.replace("\"coll_exec_time_us\":61974", "\"coll_exec_time_us\":-5"),
            first.replace("\"coll_busbw_gbs\":485.119099", "\"coll_busbw_gbs\":1e308"),
            first.replace("\"coll_algobw_gbs\":277.210914", "\"coll_algobw_gbs\":-0.5"),
        ];
        let text = format!("{}\n{DUMP}", bad.join("\n"));
        let dump = parse_inspector(text.as_bytes());
        assert_eq!((dump.records.len(), dump.error), (2, None));
        let lines: Vec<Option<u64>> = dump.left_out.iter().map(|w| w.line).collect();
        assert_eq!(lines, [Some(1), Some(2), Some(3)]);
        assert!(dump.left_out[0].message.contains("coll_exec_time_us -5.000000e0 is not a measurement"));
        assert!(dump.left_out[1].message.contains("coll_busbw_gbs 1.000000e308"), "{:?}", dump.left_out[1]);
        assert!(dump.left_out.iter().all(|w| w.message.ends_with("record left out")));
    }

    /// 5,000 records out of range (the fuzzer's 40,000 took 88 s when every warning counted
    /// the lines from the top): the first 20 are named by their lines, the rest counted.
    #[test]
    fn many_records_out_of_range_are_named_up_to_a_cap_then_counted() {
        let first = DUMP.lines().next().unwrap();
        let bad = first.replace("\"coll_exec_time_us\":61974", "\"coll_exec_time_us\":-1");
        let text = format!("{DUMP}{}\n", vec![bad.as_str(); 5000].join("\n"));
        let dump = parse_inspector(text.as_bytes());
        assert_eq!((dump.records.len(), dump.error), (2, None));
        assert_eq!(dump.left_out.len(), MAX_WARNINGS + 1);
        let lines: Vec<Option<u64>> = dump.left_out.iter().map(|w| w.line).collect();
        let named: Vec<Option<u64>> = (3..3 + MAX_WARNINGS as u64).map(Some).collect();
        assert_eq!(lines[..MAX_WARNINGS], named[..]);
        assert_eq!(lines[MAX_WARNINGS], Some(5002), "the count is shown at the last record it counts");
        let counted = "4980 more records out of range left out (not listed; up to this line)";
        assert_eq!(dump.left_out[MAX_WARNINGS].message, counted);
    }

    /// The cap is on the object's own bytes: a record of exactly 64 KiB is read, one byte more is
    /// left out with a warning. (The cap is written out, not taken from `MAX_OBJECT_BYTES`, so
    /// that a wrong constant fails too.)
    #[test]
    fn a_record_of_exactly_the_cap_is_read_one_byte_more_is_left_out() {
        const CAP: usize = 64 * 1024;
        let first = DUMP.lines().next().unwrap();
        let padded = |len: usize| {
            let pad = "x".repeat(len - first.len());
            first.replace("\"git_rev\":\"\"", &format!("\"git_rev\":\"{pad}\""))
        };
        let at_cap = padded(CAP);
        assert_eq!(at_cap.len(), CAP);
        let dump = parse_inspector(at_cap.as_bytes());
        assert_eq!((dump.records.len(), dump.left_out.len(), dump.error), (1, 0, None));
        let over = padded(CAP + 1);
        let dump = parse_inspector(format!("{over}\n{DUMP}").as_bytes());
        assert_eq!((dump.records.len(), dump.error), (2, None));
        assert_eq!(dump.left_out.len(), 1);
        assert_eq!(dump.left_out[0].line, Some(1));
        assert!(dump.left_out[0].message.contains(&format!("an object of {} bytes", CAP + 1)));
    }

    /// Objects too large to read share the warning cap with records out of range: the first
    /// `MAX_WARNINGS` are named by their lines, the rest counted on one line at the last of them.
    #[test]
    fn many_objects_larger_than_any_record_are_named_up_to_a_cap_then_counted() {
        let huge = format!("[{}0]", "0,".repeat(MAX_OBJECT_BYTES));
        let n = MAX_WARNINGS + 2;
        let text = format!("{}\n{DUMP}", vec![huge.as_str(); n].join("\n"));
        let dump = parse_inspector(text.as_bytes());
        assert_eq!((dump.records.len(), dump.error), (2, None));
        assert_eq!(dump.left_out.len(), MAX_WARNINGS + 1);
        let lines: Vec<Option<u64>> = dump.left_out.iter().map(|w| w.line).collect();
        let named: Vec<Option<u64>> = (1..=MAX_WARNINGS as u64).map(Some).collect();
        assert_eq!(lines[..MAX_WARNINGS], named[..]);
        assert!(dump.left_out[..MAX_WARNINGS].iter().all(|w| w.message.contains("larger than any record")));
        assert_eq!(lines[MAX_WARNINGS], Some(n as u64));
        assert!(dump.left_out[MAX_WARNINGS].message.starts_with("2 more records"), "{:?}", dump.left_out[MAX_WARNINGS]);
    }
}
