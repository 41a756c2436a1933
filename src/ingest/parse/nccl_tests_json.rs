//! nccl-tests `-J` JSON -> `NcclTestsOutput` (the `env` array is never kept).
//!
//! Reads the schema (file versions 1-3 and the earlier unversioned files) through typed serde
//! structs that do not declare `env`: the process environment is skipped unread, so it cannot
//! reach the output, a warning or an error message (errors name the position, never the text).
//! Quirks handled: booleans and `nan` written as strings, `root` as a padded string,
//! `nwrong: null` (checking off: unchecked), `cpu_time` for `time` (`-C 1`), and the misspelt
//! `average_bus_bandwidith` / `bandwidith` of early versions. The table's `columns` are the
//! names nccl-tests would print for the same data. Pure: bytes in, model out; uses `model` only.

use crate::core::model::nccl_tests::{
    DeviceLine, IterStats, LineWarning, NcclTestsFormat, NcclTestsOutput, NcclTestsRow, NcclTestsTable, Placement,
    TestConfig, TimeUnit,
};
use crate::ingest::parse::nccl_tests::{parse_count, warn_into, CycleCounter};
use crate::ingest::parse::{More, ParseError};
use serde::Deserialize;
use serde_json::error::Category;

pub(crate) fn parse_json(bytes: &[u8]) -> Result<NcclTestsOutput, ParseError> {
    let doc: Document = serde_json::from_slice(bytes).map_err(|e| json_error(&e))?;
    let results = doc
        .results
        .as_deref()
        .ok_or_else(|| ParseError::new(None, "no `results` array: not an nccl-tests JSON file"))?;
    let mut warnings = Vec::new();
    let mut more = More::default();
    let mut cycles = CycleCounter::default();
    let mut rows = Vec::with_capacity(results.len());
    for (index, entry) in results.iter().enumerate() {
        match entry.row(&mut cycles) {
            Some(row) => rows.push(row),
            None => warn_into(
                &mut warnings,
                &mut more,
                0,
                format!("result {} lacks size, time, alg_bw or bus_bw", index + 1),
            ),
        }
    }
    let skipped = doc.results.as_ref().map_or(0, |r| r.skipped);
    if skipped > 0 {
        warn_into(&mut warnings, &mut more, 0, format!("results past the first {MAX_ENTRIES} not read: {skipped}"));
    }
    let errors = doc.errors.iter().flatten().filter_map(Leaf::text);
    for error in errors.filter(|e| !e.is_empty()) {
        warn_into(&mut warnings, &mut more, 0, format!("nccl-tests error: {error}"));
    }
    if more.count() > 0 {
        // A JSON file has no lines to sort by: "results ..." sorts after "result N ...".
        let message = format!("results and errors like these not listed: {} more", more.count());
        warnings.push(LineWarning { line: 0, message });
    }
    let has_iter_stats = rows.iter().any(|r| r.out_of_place.iter_stats.is_some());
    let table = NcclTestsTable {
        collective: doc.collective(),
        config: doc.config.as_ref().map(Config::test_config),
        columns: column_names(has_iter_stats),
        time_unit: TimeUnit::Us,
        rows,
        out_of_bounds: doc.out_of_bounds.as_ref().and_then(|s| s.count.as_ref()?.u64()),
        avg_bus_bandwidth: doc.average_bus_bandwidth.as_ref().and_then(|s| s.bandwidth.as_ref()?.f64()),
        truncated: doc.out_of_bounds.is_none() && doc.average_bus_bandwidth.is_none(),
    };
    Ok(NcclTestsOutput {
        format: NcclTestsFormat::Json,
        version: None,
        nccl_library: doc.nccl_version.as_ref().and_then(Leaf::text),
        devices: doc.config.as_ref().map(Config::devices).unwrap_or_default(),
        tables: vec![table],
        warnings,
    })
}

/// Where and what kind of error, never the offending text (it may come from `env`).
fn json_error(error: &serde_json::Error) -> ParseError {
    let what = match error.classify() {
        Category::Io => "read error",
        Category::Syntax => "syntax error",
        Category::Eof => "unexpected end of file (output cut?)",
        Category::Data => "unexpected structure",
    };
    let message = format!("invalid nccl-tests JSON: {what} at column {}", error.column());
    ParseError::new(Some(error.line() as u64), message)
}

/// The names nccl-tests prints in a text header for the same data.
fn column_names(iter_stats: bool) -> Vec<String> {
    let placement: &[&str] = if iter_stats {
        &["time", "algbw", "busbw", "#wrong", "i_min", "i_max", "i_p99", "i_cv%"]
    } else {
        &["time", "algbw", "busbw", "#wrong"]
    };
    let leading = ["size", "count", "type", "redop", "root"];
    leading.iter().chain(placement).chain(placement).map(|n| n.to_string()).collect()
}

/// A scalar as nccl-tests writes it: a number, or a string holding a number, `nan` or a
/// boolean, or a boolean.
#[derive(Debug, Deserialize)]
#[serde(untagged)]
enum Leaf {
    Number(serde_json::Number),
    Text(String),
    Bool(bool),
}

impl Leaf {
    fn f64(&self) -> Option<f64> {
        match self {
            Leaf::Number(n) => n.as_f64(),
            Leaf::Text(t) => t.trim().parse().ok(),
            Leaf::Bool(_) => None,
        }
    }

    fn u64(&self) -> Option<u64> {
        match self {
            Leaf::Number(n) => n.as_u64().or_else(|| parse_count(&n.to_string())),
            Leaf::Text(t) => parse_count(t.trim()),
            Leaf::Bool(_) => None,
        }
    }

    fn i64(&self) -> Option<i64> {
        match self {
            Leaf::Number(n) => n.as_i64(),
            Leaf::Text(t) => t.trim().parse().ok(),
            Leaf::Bool(_) => None,
        }
    }

    fn text(&self) -> Option<String> {
        match self {
            Leaf::Number(n) => Some(n.to_string()),
            Leaf::Text(t) => Some(t.trim().to_string()),
            Leaf::Bool(b) => Some(b.to_string()),
        }
    }
}

fn u64_of(leaf: &Option<Leaf>) -> Option<u64> {
    leaf.as_ref()?.u64()
}

fn f64_of(leaf: &Option<Leaf>) -> Option<f64> {
    leaf.as_ref()?.f64()
}

/// The top level. `env` is deliberately not a field: serde skips it without keeping it.
#[derive(Debug, Deserialize)]
struct Document {
    args: Option<Capped<Leaf>>,
    nccl_version: Option<Leaf>,
    config: Option<Config>,
    results: Option<Capped<ResultEntry>>,
    out_of_bounds: Option<Summary>,
    #[serde(alias = "average_bus_bandwidith")]
    average_bus_bandwidth: Option<Summary>,
    errors: Option<Capped<Leaf>>,
}

/// The most entries of one array kept (`args`, `results`, `errors`): a real file has tens of
/// results. A parsed entry takes hundreds of bytes, so 2 million empty `{}` results of a
/// 6 MB file took 2.6 GB; the entries past these are skipped unparsed and counted.
const MAX_ENTRIES: usize = 10_000;

/// An array's first `MAX_ENTRIES` entries, and how many more it had.
#[derive(Debug)]
struct Capped<T> {
    kept: Vec<T>,
    skipped: usize,
}

impl<T> std::ops::Deref for Capped<T> {
    type Target = [T];
    fn deref(&self) -> &[T] {
        &self.kept
    }
}

impl<'a, T> IntoIterator for &'a Capped<T> {
    type Item = &'a T;
    type IntoIter = std::slice::Iter<'a, T>;
    fn into_iter(self) -> Self::IntoIter {
        self.kept.iter()
    }
}

impl<'de, T: Deserialize<'de>> Deserialize<'de> for Capped<T> {
    fn deserialize<D: serde::Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        struct Visitor<T>(std::marker::PhantomData<T>);
        impl<'de, T: Deserialize<'de>> serde::de::Visitor<'de> for Visitor<T> {
            type Value = Capped<T>;
            fn expecting(&self, f: &mut std::fmt::Formatter) -> std::fmt::Result {
                f.write_str("an array")
            }
            fn visit_seq<A: serde::de::SeqAccess<'de>>(self, mut seq: A) -> Result<Capped<T>, A::Error> {
                let mut capped = Capped { kept: Vec::new(), skipped: 0 };
                while capped.kept.len() < MAX_ENTRIES {
                    match seq.next_element()? {
                        Some(entry) => capped.kept.push(entry),
                        None => return Ok(capped),
                    }
                }
                while seq.next_element::<serde::de::IgnoredAny>()?.is_some() {
                    capped.skipped += 1;
                }
                Ok(capped)
            }
        }
        deserializer.deserialize_seq(Visitor(std::marker::PhantomData))
    }
}

impl Document {
    /// `all_reduce_perf` from `args[0]` (`./build/all_reduce_perf`).
    fn collective(&self) -> Option<String> {
        let program = self.args.as_ref()?.first()?.text()?;
        let name = program.rsplit('/').next()?;
        name.contains("_perf").then(|| name.to_string())
    }
}

#[derive(Debug, Deserialize)]
struct Summary {
    count: Option<Leaf>,
    #[serde(alias = "bandwidith")]
    bandwidth: Option<Leaf>,
}

#[derive(Debug, Deserialize)]
struct Config {
    nthreads: Option<Leaf>,
    ngpus: Option<Leaf>,
    minimum_bytes: Option<Leaf>,
    maximum_bytes: Option<Leaf>,
    step_factor: Option<Leaf>,
    step_bytes: Option<Leaf>,
    warmup_iters: Option<Leaf>,
    iterations: Option<Leaf>,
    aggregated_iterations: Option<Leaf>,
    validation: Option<Leaf>,
    graph: Option<Leaf>,
    unalign: Option<Leaf>,
    devices: Option<Vec<Device>>,
}

impl Config {
    fn test_config(&self) -> TestConfig {
        let step = match (u64_of(&self.step_factor), u64_of(&self.step_bytes)) {
            (Some(factor), _) => Some(format!("{factor}(factor)")),
            (None, Some(bytes)) => Some(format!("{bytes}(bytes)")),
            (None, None) => None,
        };
        TestConfig {
            n_thread: u64_of(&self.nthreads),
            n_gpus: u64_of(&self.ngpus),
            min_bytes: u64_of(&self.minimum_bytes),
            max_bytes: u64_of(&self.maximum_bytes),
            step,
            warmup_iters: u64_of(&self.warmup_iters),
            iters: u64_of(&self.iterations),
            agg_iters: u64_of(&self.aggregated_iterations),
            validation: u64_of(&self.validation),
            graph: u64_of(&self.graph),
            unalign: u64_of(&self.unalign),
        }
    }

    fn devices(&self) -> Vec<DeviceLine> {
        self.devices.iter().flatten().filter_map(Device::line).collect()
    }
}

#[derive(Debug, Deserialize)]
struct Device {
    rank: Option<Leaf>,
    group: Option<Leaf>,
    pid: Option<Leaf>,
    hostname: Option<Leaf>,
    device: Option<Leaf>,
    device_hex: Option<Leaf>,
    device_info: Option<Leaf>,
}

impl Device {
    fn line(&self) -> Option<DeviceLine> {
        Some(DeviceLine {
            rank: u64_of(&self.rank)?,
            group: u64_of(&self.group),
            pid: u64_of(&self.pid),
            host: self.hostname.as_ref().and_then(Leaf::text).unwrap_or_default(),
            device: u64_of(&self.device),
            pci: self.device_hex.as_ref().and_then(Leaf::text),
            name: self.device_info.as_ref().and_then(Leaf::text).unwrap_or_default(),
        })
    }
}

#[derive(Debug, Deserialize)]
struct ResultEntry {
    size: Option<Leaf>,
    count: Option<Leaf>,
    #[serde(rename = "type")]
    dtype: Option<Leaf>,
    redop: Option<Leaf>,
    root: Option<Leaf>,
    out_of_place: Option<Measure>,
    in_place: Option<Measure>,
    out_of_place_per_iter: Option<PerIter>,
    in_place_per_iter: Option<PerIter>,
}

impl ResultEntry {
    fn row(&self, cycles: &mut CycleCounter) -> Option<NcclTestsRow> {
        let size_bytes = u64_of(&self.size)?;
        let out_of_place = self.out_of_place.as_ref()?.placement(&self.out_of_place_per_iter)?;
        let in_place = match self.in_place.as_ref() {
            Some(measure) => Some(measure.placement(&self.in_place_per_iter)?),
            None => None,
        };
        let dtype = self.dtype.as_ref().and_then(Leaf::text);
        let redop = self.redop.as_ref().and_then(Leaf::text);
        let root = self.root.as_ref().and_then(Leaf::i64);
        let cycle = cycles.next(size_bytes, dtype.as_deref(), redop.as_deref(), root);
        Some(NcclTestsRow {
            line: 0,
            cycle,
            size_bytes,
            count: u64_of(&self.count),
            dtype,
            redop,
            root,
            out_of_place,
            in_place,
            timestamp: None,
        })
    }
}

#[derive(Debug, Deserialize)]
struct Measure {
    #[serde(alias = "cpu_time")]
    time: Option<Leaf>,
    alg_bw: Option<Leaf>,
    bus_bw: Option<Leaf>,
    nwrong: Option<Leaf>,
}

impl Measure {
    fn placement(&self, per_iter: &Option<PerIter>) -> Option<Placement> {
        Some(Placement {
            time_us: f64_of(&self.time)?,
            algbw_gbs: f64_of(&self.alg_bw)?,
            busbw_gbs: f64_of(&self.bus_bw)?,
            wrong: u64_of(&self.nwrong),
            error: None,
            iter_stats: per_iter.as_ref().and_then(PerIter::stats),
        })
    }
}

#[derive(Debug, Deserialize)]
struct PerIter {
    min_us: Option<Leaf>,
    max_us: Option<Leaf>,
    p99_us: Option<Leaf>,
    cv_pct: Option<Leaf>,
}

impl PerIter {
    fn stats(&self) -> Option<IterStats> {
        Some(IterStats {
            min_us: f64_of(&self.min_us)?,
            max_us: f64_of(&self.max_us)?,
            p99_us: f64_of(&self.p99_us)?,
            cv_percent: f64_of(&self.cv_pct)?,
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::ingest::parse::MAX_WARNINGS;

    const CURRENT: &[u8] = include_bytes!("../../../tests/data/nccl/json_2196.json");
    const OLD: &[u8] = include_bytes!("../../../tests/data/nccl/json_old_misspelt.json");
    const SECRETS: [&str; 3] = ["wJalrXUtnFEMI", "hf_supersecret", "SECRET_ACCESS"];

    /// An array past `MAX_ENTRIES` keeps its first entries and counts the rest, unparsed.
    #[test]
    fn results_past_the_most_kept_are_counted_not_read() {
        let doc: serde_json::Value = serde_json::from_slice(CURRENT).unwrap();
        let row = doc["results"][0].clone();
        let mut many = doc.clone();
        many["results"] = serde_json::Value::Array(vec![row; MAX_ENTRIES + 7]);
        let out = parse_json(&serde_json::to_vec(&many).unwrap()).expect("valid JSON");
        assert_eq!(out.tables[0].rows.len(), MAX_ENTRIES);
        let message = format!("results past the first {MAX_ENTRIES} not read: 7");
        assert!(out.warnings.iter().any(|w| w.message == message), "{:?}", out.warnings);
    }

    #[test]
    fn current_schema_with_env_secrets() {
        let out = parse_json(CURRENT).expect("valid JSON");
        assert_eq!(out.format, NcclTestsFormat::Json);
        assert_eq!((out.version.as_deref(), out.nccl_library.as_deref()), (None, Some("22809")));
        assert!(out.warnings.is_empty(), "{:?}", out.warnings);
        let table = &out.tables[0];
        assert_eq!(table.collective.as_deref(), Some("all_reduce_perf"));
        assert_eq!((table.out_of_bounds, table.avg_bus_bandwidth), (Some(0), Some(61.06)));
        assert!(!table.truncated);
        assert_eq!(table.columns.len(), 21);
        assert_eq!(table.rows.len(), 4);
        let cycles: Vec<u64> = table.rows.iter().map(|r| r.cycle).collect();
        assert_eq!(cycles, [0, 0, 1, 1]);
        let row = &table.rows[1];
        assert_eq!((row.size_bytes, row.count, row.root), (2097152, Some(524288), Some(-1)));
        assert_eq!((row.dtype.as_deref(), row.redop.as_deref()), (Some("float"), Some("sum")));
        assert_eq!(row.out_of_place.busbw_gbs, 104.26);
        assert_eq!(row.out_of_place.wrong, Some(0));
        let stats = row.out_of_place.iter_stats.as_ref().expect("per-iteration stats");
        assert_eq!((stats.min_us, stats.p99_us, stats.cv_percent), (30.1, 44.7, 8.25));
        assert_eq!(row.in_place.as_ref().map(|p| p.time_us), Some(63.15));
        let config = table.config.as_ref().expect("config");
        assert_eq!((config.n_gpus, config.iters, config.validation), (Some(1), Some(20), Some(1)));
        assert_eq!(config.step.as_deref(), Some("2(factor)"));
        assert_eq!(out.devices.len(), 1);
        assert_eq!(out.devices[0].pci.as_deref(), Some("0000:18:00"));
        assert_eq!(out.devices[0].name, "NVIDIA H100 80GB HBM3");
        let json = serde_json::to_string(&out).expect("serializable");
        assert!(SECRETS.iter().all(|s| !json.contains(s)), "env leaked: {json}");
    }

    #[test]
    fn old_misspelt_keys_and_null_nwrong() {
        let out = parse_json(OLD).expect("valid JSON");
        let table = &out.tables[0];
        assert_eq!(table.collective.as_deref(), Some("broadcast_perf"));
        assert_eq!(table.avg_bus_bandwidth, Some(12.5), "average_bus_bandwidith/bandwidith");
        assert_eq!(table.out_of_bounds, Some(0));
        assert_eq!(table.columns.len(), 13);
        assert_eq!(table.rows.len(), 2);
        let row = &table.rows[0];
        assert_eq!((row.root, row.redop.as_deref()), (Some(0), Some("none")));
        assert_eq!(row.out_of_place.wrong, None, "null nwrong is unchecked");
        assert_eq!(row.in_place.as_ref().map(|p| p.wrong), Some(None));
        assert!(table.rows[1].in_place.as_ref().is_some_and(|p| p.algbw_gbs.is_nan()));
        assert_eq!(out.devices.len(), 2);
        assert_eq!(out.devices[1].host, "node1");
        assert_eq!(out.warnings.len(), 2, "{:?}", out.warnings);
        assert!(out.warnings[0].message.contains("result 3"));
        assert!(out.warnings[1].message.contains("unhandled cuda error"));
    }

    #[test]
    fn cut_or_foreign_json_is_an_error_without_content() {
        let cut = CURRENT.get(..400).expect("fixture longer than 400 bytes");
        let error = parse_json(cut).expect_err("cut file");
        assert_eq!(error.line, Some(1));
        assert!(error.message.contains("unexpected end"), "{error}");
        let mut swapped = CURRENT.to_vec();
        let at = swapped.windows(6).position(|w| w == b"\"env\":").expect("env key");
        swapped.splice(at + 6..at + 7, *b"{");
        let error = parse_json(&swapped).expect_err("env turned into an invalid object");
        assert!(SECRETS.iter().all(|s| !error.message.contains(s)), "{error}");
        // A type error is where serde quotes the input (`invalid type: string "..."`): the
        // message still names only the place.
        let typed = br#"{"results": "AWS_SECRET_ACCESS_KEY=wJalrXUtnFEMI"}"#;
        let error = parse_json(typed).expect_err("results not a list");
        assert!(error.message.contains("unexpected structure"), "{error}");
        assert!(SECRETS.iter().all(|s| !error.message.contains(s)), "{error}");
        let nulls = br#"{"results": [], "errors": null, "config": {"devices": null}}"#;
        let nulls = parse_json(nulls).expect("nulls where lists are expected");
        assert!(nulls.tables[0].rows.is_empty() && nulls.devices.is_empty());
        let error = parse_json(b"{\"version\": 3}").expect_err("no results");
        assert!(error.message.contains("results"));
        assert!(parse_json(b"[1, 2]").is_err());
        assert!(parse_json(b"\xff").is_err());
    }

    /// 5,000 empty results (the second reader's): 20 warnings named, the rest counted last.
    #[test]
    fn many_bad_results_are_named_up_to_the_cap_then_counted() {
        let json = format!("{{\"results\": [{}]}}", vec!["{}"; 5000].join(","));
        let out = parse_json(json.as_bytes()).expect("valid JSON");
        assert_eq!(out.warnings.len(), MAX_WARNINGS + 1);
        assert_eq!(out.warnings[0].message, "result 1 lacks size, time, alg_bw or bus_bw");
        assert_eq!(out.warnings[MAX_WARNINGS].message, "results and errors like these not listed: 4980 more");
    }
}
