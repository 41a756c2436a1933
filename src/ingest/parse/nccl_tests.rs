//! nccl-tests text output (every era) -> `NcclTestsOutput`.
//!
//! Each table is read through its column header (`#  size count type redop root time ...`)
//! rather than by counting fields, so the v1 layout (`bytes N type op ... res`, milliseconds),
//! the v2.0-2.12 per-binary layouts with an `error` column, the 2.13+ `#wrong` layout and the
//! optional `-I 1` (`i_min i_max i_p99 i_cv%`), `-S 1` (timestamp) and `-C 1` (`cputime`)
//! columns all become the same rows. Around the tables it reads the version, config, device and
//! footer lines, and skips what other programs interleave (NCCL INFO/WARN lines, MPI tags such
//! as `[1,0]<stdout>:`, `srun --label` prefixes). Pure: bytes in, model out; uses `model` only.

use crate::core::model::nccl_tests::{
    DeviceLine, IterStats, LineWarning, NcclTestsFormat, NcclTestsOutput, NcclTestsRow, NcclTestsTable, Placement,
    TestConfig, TimeUnit,
};
use crate::ingest::parse::{More, MAX_WARNINGS};
use rustc_hash::FxHashMap;
use std::borrow::Cow;

/// Parses an nccl-tests stdout. Never fails: what cannot be read becomes a warning.
pub(crate) fn parse_text(bytes: &[u8]) -> NcclTestsOutput {
    let mut parser = TextParser::default();
    for (index, raw) in bytes.split(|&b| b == b'\n').enumerate() {
        parser.line(index as u64 + 1, raw);
    }
    parser.finish()
}

/// Numbers the repeats of a row key (size, type, redop, root) within one table: `-N k` repeats
/// the sweep with no cycle index, so a key seen again starts the next cycle (0-based).
#[derive(Debug, Default)]
pub(crate) struct CycleCounter {
    seen: FxHashMap<RowKey, u64>,
    /// The type and redop names met so far and their indexes (keys hold the index: no string
    /// per row; a hash lookup, as a file may name a new type on every row).
    names: FxHashMap<String, u32>,
}

/// (size, type, redop, root), names as indexes into `CycleCounter::names`.
type RowKey = (u64, Option<u32>, Option<u32>, Option<i64>);

impl CycleCounter {
    pub(crate) fn next(&mut self, size: u64, dtype: Option<&str>, redop: Option<&str>, root: Option<i64>) -> u64 {
        let key = (size, dtype.map(|n| self.name(n)), redop.map(|n| self.name(n)), root);
        let slot = self.seen.entry(key).or_insert(0);
        let cycle = *slot;
        *slot += 1;
        cycle
    }

    fn name(&mut self, name: &str) -> u32 {
        if let Some(&index) = self.names.get(name) {
            return index;
        }
        let index = self.names.len() as u32;
        self.names.insert(name.to_string(), index);
        index
    }
}

/// An unsigned count as nccl-tests prints it: an integer, or `%g` e-notation (`1e+06`).
pub(crate) fn parse_count(token: &str) -> Option<u64> {
    if let Ok(value) = token.parse::<u64>() {
        return Some(value);
    }
    let value = token.parse::<f64>().ok()?;
    let integral = value.is_finite() && value >= 0.0 && value.fract() == 0.0;
    // 2^64 as f64: larger values do not fit.
    (integral && value < 18_446_744_073_709_551_616.0).then_some(value as u64)
}

/// The 2.13+ header: the layout assumed for rows met before any header.
const V213_COLUMNS: [&str; 13] =
    ["size", "count", "type", "redop", "root", "time", "algbw", "busbw", "#wrong", "time", "algbw", "busbw", "#wrong"];

/// One column of a table header, in the order printed.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Column {
    Size,
    Count,
    Type,
    Redop,
    Root,
    Time,
    AlgBw,
    BusBw,
    Wrong,
    Error,
    IterMin,
    IterMax,
    IterP99,
    IterCv,
    /// `-S 1`: `YYYY-MM-DD HH:MM:SS`, two whitespace-separated tokens.
    Timestamp,
    /// A column whose value is skipped (`#bitdiff`, `#iters`, or one this reader does not know).
    Skipped,
}

impl Column {
    /// `None` for a name this reader does not know.
    fn from_name(name: &str) -> Option<Column> {
        let column = match name {
            "size" | "bytes" => Column::Size,
            "count" | "N" => Column::Count,
            "type" => Column::Type,
            "redop" | "op" => Column::Redop,
            "root" => Column::Root,
            "time" | "cputime" => Column::Time,
            "algbw" => Column::AlgBw,
            "busbw" => Column::BusBw,
            "#wrong" => Column::Wrong,
            "error" | "res" | "delta" => Column::Error,
            "i_min" => Column::IterMin,
            "i_max" => Column::IterMax,
            "i_p99" => Column::IterP99,
            "i_cv%" => Column::IterCv,
            "timestamp" => Column::Timestamp,
            "#bitdiff" | "#iters" | "esttime" => Column::Skipped,
            _ => return None,
        };
        Some(column)
    }

    fn width(self) -> usize {
        if self == Column::Timestamp {
            2
        } else {
            1
        }
    }
}

/// A column and the placement it belongs to (0: out-of-place, 1: in-place).
#[derive(Debug, Clone, Copy)]
struct Slot {
    column: Column,
    block: usize,
}

/// How the rows of one table are laid out.
#[derive(Debug, Clone)]
struct Schema {
    slots: Vec<Slot>,
    unit: TimeUnit,
    placements: usize,
}

impl Schema {
    /// From the names of a header line; `Err` when it lacks what a row needs.
    fn from_names(names: &[&str], warnings: &mut Vec<String>) -> Result<Schema, String> {
        let mut slots = Vec::with_capacity(names.len());
        let mut times: usize = 0;
        for &name in names {
            let column = Column::from_name(name).unwrap_or_else(|| {
                warnings.push(format!("unknown column `{name}`: its values are skipped"));
                Column::Skipped
            });
            if column == Column::Time {
                times += 1;
            }
            let column = if times > 2 { Column::Skipped } else { column };
            slots.push(Slot { column, block: times.saturating_sub(1).min(1) });
        }
        let has = |wanted: Column| slots.iter().any(|s| s.column == wanted);
        if !(has(Column::Size) && has(Column::Time) && has(Column::AlgBw) && has(Column::BusBw)) {
            return Err("column header without size, time, algbw and busbw".to_string());
        }
        let unit = if names.first() == Some(&"bytes") { TimeUnit::Ms } else { TimeUnit::Us };
        Ok(Schema { slots, unit, placements: times.min(2) })
    }

    /// The 2.13+ layout, for rows met before any header.
    fn default_layout() -> Schema {
        let mut ignored = Vec::new();
        Schema::from_names(&V213_COLUMNS, &mut ignored).unwrap_or(Schema {
            slots: Vec::new(),
            unit: TimeUnit::Us,
            placements: 0,
        })
    }

    fn fields(&self) -> usize {
        self.slots.iter().map(|s| s.column.width()).sum()
    }

    fn time_scale(&self) -> f64 {
        match self.unit {
            TimeUnit::Us => 1.0,
            TimeUnit::Ms => 1000.0,
        }
    }

    /// Reads one row's tokens; `Err` says why they do not fit.
    fn read(&self, tokens: &[&str]) -> Result<RowValues, String> {
        let expected = self.fields();
        if tokens.len() != expected {
            return Err(format!("expected {expected} fields, found {}", tokens.len()));
        }
        let mut row = RowValues::default();
        let mut rest = tokens;
        for slot in &self.slots {
            let (value, tail) = rest.split_at(slot.column.width().min(rest.len()));
            rest = tail;
            self.store(&mut row, *slot, value)?;
        }
        Ok(row)
    }

    fn store(&self, row: &mut RowValues, slot: Slot, value: &[&str]) -> Result<(), String> {
        let token = value.first().copied().unwrap_or_default();
        let block = row.blocks.get_mut(slot.block).ok_or("placement out of range")?;
        match slot.column {
            Column::Size => row.size = Some(count_field(token, "size")?),
            Column::Count => row.count = Some(count_field(token, "count")?),
            Column::Type => row.dtype = Some(token.to_string()),
            Column::Redop => row.redop = Some(token.to_string()),
            Column::Root => row.root = Some(token.parse().map_err(|_| bad("root", token))?),
            Column::Time => block.time = Some(float_field(token, "time")? * self.time_scale()),
            Column::AlgBw => block.algbw = Some(float_field(token, "algbw")?),
            Column::BusBw => block.busbw = Some(float_field(token, "busbw")?),
            Column::Wrong => block.wrong = optional(token, |t| count_field(t, "#wrong"))?,
            Column::Error => block.error = optional(token, |t| float_field(t, "error"))?,
            Column::IterMin => block.iter[0] = Some(float_field(token, "i_min")?),
            Column::IterMax => block.iter[1] = Some(float_field(token, "i_max")?),
            Column::IterP99 => block.iter[2] = Some(float_field(token, "i_p99")?),
            Column::IterCv => block.iter[3] = Some(float_field(token, "i_cv%")?),
            Column::Timestamp => row.timestamp = Some(value.join(" ")),
            Column::Skipped => {}
        }
        Ok(())
    }
}

fn bad(column: &str, token: &str) -> String {
    format!("{column} `{token}` is not a number")
}

fn count_field(token: &str, column: &str) -> Result<u64, String> {
    parse_count(token).ok_or_else(|| bad(column, token))
}

fn float_field(token: &str, column: &str) -> Result<f64, String> {
    token.parse().map_err(|_| bad(column, token))
}

/// `N/A` (checking off) is `None`; anything else must read.
fn optional<T>(token: &str, read: impl Fn(&str) -> Result<T, String>) -> Result<Option<T>, String> {
    if token == "N/A" {
        Ok(None)
    } else {
        read(token).map(Some)
    }
}

/// The values of one row, before they become an `NcclTestsRow`.
#[derive(Debug, Default)]
struct RowValues {
    size: Option<u64>,
    count: Option<u64>,
    dtype: Option<String>,
    redop: Option<String>,
    root: Option<i64>,
    timestamp: Option<String>,
    blocks: [BlockValues; 2],
}

#[derive(Debug, Default)]
struct BlockValues {
    time: Option<f64>,
    algbw: Option<f64>,
    busbw: Option<f64>,
    wrong: Option<u64>,
    error: Option<f64>,
    /// i_min, i_max, i_p99, i_cv%.
    iter: [Option<f64>; 4],
}

impl BlockValues {
    fn placement(&self) -> Option<Placement> {
        let iter_stats = match self.iter {
            [Some(min_us), Some(max_us), Some(p99_us), Some(cv_percent)] => {
                Some(IterStats { min_us, max_us, p99_us, cv_percent })
            }
            _ => None,
        };
        Some(Placement {
            time_us: self.time?,
            algbw_gbs: self.algbw?,
            busbw_gbs: self.busbw?,
            wrong: self.wrong,
            error: self.error,
            iter_stats,
        })
    }
}

/// The table being filled, with what is needed to finish it.
#[derive(Debug)]
struct OpenTable {
    table: NcclTestsTable,
    schema: Option<Schema>,
    cycles: CycleCounter,
    /// An out-of-bounds or average bus bandwidth line was read.
    footer: bool,
    /// The last line read while this table was open.
    last_line: u64,
    /// nccl-tests said the test failed (`is_failure`) while it was open.
    failed: bool,
}

impl OpenTable {
    fn new() -> Self {
        OpenTable {
            table: NcclTestsTable {
                collective: None,
                config: None,
                columns: Vec::new(),
                time_unit: TimeUnit::Us,
                rows: Vec::new(),
                out_of_bounds: None,
                avg_bus_bandwidth: None,
                truncated: false,
            },
            schema: None,
            cycles: CycleCounter::default(),
            footer: false,
            last_line: 0,
            failed: false,
        }
    }

    fn is_blank(&self) -> bool {
        self.table.collective.is_none()
            && self.table.config.is_none()
            && self.schema.is_none()
            && self.table.rows.is_empty()
            && !self.footer
    }

    fn accepts_config(&self) -> bool {
        self.table.config.is_none() && self.schema.is_none() && self.table.rows.is_empty()
    }

    fn set_schema(&mut self, names: Vec<String>, schema: Schema) {
        self.table.time_unit = schema.unit;
        self.table.columns = names;
        self.schema = Some(schema);
    }
}

#[derive(Debug)]
struct TextParser {
    out: NcclTestsOutput,
    open: Option<OpenTable>,
    /// Device lines of the test being read (`close` puts them in `out.devices`).
    devices: Vec<DeviceLine>,
    /// A table with rows closed: its test's device lines are `out.devices` for good. Until
    /// then `out.devices` holds the first test's that printed any (a test that died before
    /// its table still names its GPUs).
    devices_kept: bool,
    /// Warnings past `MAX_WARNINGS`, counted (one last warning says how many).
    more_warnings: More,
}

impl Default for TextParser {
    fn default() -> Self {
        TextParser {
            out: NcclTestsOutput {
                format: NcclTestsFormat::Text,
                version: None,
                nccl_library: None,
                devices: Vec::new(),
                tables: Vec::new(),
                warnings: Vec::new(),
            },
            open: None,
            devices: Vec::new(),
            devices_kept: false,
            more_warnings: More::default(),
        }
    }
}

impl TextParser {
    fn warn(&mut self, line: u64, message: impl Into<String>) {
        warn_into(&mut self.out.warnings, &mut self.more_warnings, line, message);
    }

    fn line(&mut self, number: u64, raw: &[u8]) {
        let raw = raw.strip_suffix(b"\r").unwrap_or(raw);
        let text = match std::str::from_utf8(raw) {
            Ok(text) => Cow::Borrowed(text),
            Err(_) => {
                self.warn(number, "invalid UTF-8, read with replacement characters");
                String::from_utf8_lossy(raw)
            }
        };
        let line = remove_inner_tags(strip_tags(text.trim_start()));
        let line = line.trim();
        if is_failure(line) {
            // Before the log-line test: `Test NCCL failure` has ` NCCL ` in it.
            if let Some(open) = self.open.as_mut() {
                open.failed = true;
                open.last_line = number;
            }
            let text: String = line.chars().take(200).collect();
            return self.warn(number, format!("the test failed: {text}"));
        }
        if line.is_empty() || is_log_line(line) {
            return;
        }
        if let Some(body) = line.strip_prefix('#') {
            self.comment(number, body.trim());
        } else if !self.footer(line) && line.starts_with(|c: char| c.is_ascii_digit()) {
            // (v1 printed its footer without `#`.)
            self.row(number, line);
        } else if is_unprefixed_comment(line) {
            self.comment(number, line);
        }
        if let Some(open) = self.open.as_mut() {
            open.last_line = number;
        }
    }

    fn comment(&mut self, number: u64, body: &str) {
        if let Some(rest) = body.strip_prefix("nccl-tests version ") {
            self.version(rest);
        } else if let Some(name) = body.strip_prefix("Collective test starting:") {
            self.start_test(name.trim());
        } else if body.starts_with("Collective test concluded") {
            self.close();
        } else if body.starts_with("nThread ") {
            self.config(parse_config(body));
        } else if body.starts_with("Rank ") {
            self.device(body);
        } else if !self.footer(body) {
            self.header(number, body);
        }
    }

    fn version(&mut self, rest: &str) {
        let mut tokens = rest.split_whitespace();
        if self.out.version.is_none() {
            self.out.version = tokens.next().map(str::to_owned);
        }
        if self.out.nccl_library.is_none() {
            self.out.nccl_library = tokens.find_map(|t| t.strip_prefix("nccl-library=")).map(str::to_owned);
        }
    }

    fn start_test(&mut self, name: &str) {
        if !self.open.as_ref().is_some_and(OpenTable::is_blank) {
            self.close();
        }
        let open = self.open.get_or_insert_with(OpenTable::new);
        open.table.collective = Some(name.to_string()).filter(|n| !n.is_empty());
    }

    fn config(&mut self, config: TestConfig) {
        if !self.open.as_ref().is_some_and(OpenTable::accepts_config) {
            self.close();
        }
        self.open.get_or_insert_with(OpenTable::new).table.config = Some(config);
    }

    /// A `Rank N ... device D` line, kept for the test being read (`close` keeps the first
    /// test's whose table has rows: a preamble printed twice, as two processes of a non-MPI
    /// build under mpirun do, closes an empty table first).
    fn device(&mut self, body: &str) {
        if self.devices_kept {
            return;
        }
        if let Some(device) = parse_device(body) {
            self.devices.push(device);
        }
    }

    /// Reads `Out of bounds values : N OK` / `Avg bus bandwidth : X`; false for other lines.
    fn footer(&mut self, body: &str) -> bool {
        if let Some(value) = footer_value(body, "Out of bounds values") {
            if let Some(open) = self.open.as_mut() {
                open.table.out_of_bounds = parse_count(value);
                open.footer = true;
            }
            true
        } else if let Some(value) = footer_value(body, "Avg bus bandwidth") {
            if let Some(open) = self.open.as_mut() {
                open.table.avg_bus_bandwidth = value.parse().ok();
                open.footer = true;
            }
            true
        } else {
            false
        }
    }

    /// A column header line (`size count ...`) or its units line (`(B) (elements) ...`).
    fn header(&mut self, number: u64, body: &str) {
        let names: Vec<&str> = body.split_whitespace().collect();
        match names.first() {
            Some(&"size") | Some(&"bytes") => {}
            Some(&"(B)") => {
                let in_ms = names.contains(&"(ms)");
                if let Some(open) = self.open.as_mut().filter(|_| in_ms) {
                    open.table.time_unit = TimeUnit::Ms;
                    if let Some(schema) = open.schema.as_mut() {
                        schema.unit = TimeUnit::Ms;
                    }
                }
                return;
            }
            _ => return,
        }
        if !names.iter().any(|n| *n == "time" || *n == "cputime") {
            return;
        }
        let mut column_warnings = Vec::new();
        let schema = Schema::from_names(&names, &mut column_warnings);
        for message in column_warnings {
            self.warn(number, message);
        }
        let schema = match schema {
            Ok(schema) => schema,
            Err(message) => return self.warn(number, message),
        };
        if self.open.as_ref().is_some_and(|o| !o.table.rows.is_empty()) {
            self.close();
        }
        let names = names.into_iter().map(str::to_owned).collect();
        self.open.get_or_insert_with(OpenTable::new).set_schema(names, schema);
    }

    fn row(&mut self, number: u64, line: &str) {
        let tokens: Vec<&str> = line.split_whitespace().collect();
        let open = self.open.get_or_insert_with(OpenTable::new);
        if open.schema.is_none() {
            let names = infer_columns(&tokens);
            let mut ignored = Vec::new();
            let schema = Schema::from_names(&names, &mut ignored).unwrap_or_else(|_| Schema::default_layout());
            let binary = open.table.collective.as_deref().map(|b| format!(" of {b}")).unwrap_or_default();
            let message = format!(
                "row before any column header: columns{binary} inferred from the row's {} fields as `{}` (times read as us)",
                tokens.len(),
                names.join(" ")
            );
            open.set_schema(names.into_iter().map(str::to_owned).collect(), schema);
            warn_into(&mut self.out.warnings, &mut self.more_warnings, number, message);
        }
        let OpenTable { schema: Some(schema), cycles, table, .. } = open else {
            return;
        };
        let row = schema.read(&tokens).and_then(|values| {
            build_row(number, values, schema.placements, cycles)
                .ok_or_else(|| "no size, time, algbw or busbw".to_string())
        });
        match row {
            Ok(row) => table.rows.push(row),
            Err(message) => self.warn(number, format!("unreadable table row ({message})")),
        }
    }

    fn close(&mut self) {
        let Some(open) = self.open.take() else { return };
        if open.is_blank() {
            return;
        }
        let mut table = open.table;
        table.truncated = !open.footer && (open.schema.is_some() || !table.rows.is_empty() || open.failed);
        if table.truncated {
            self.warn(open.last_line, "table ends without its footer (output cut?)");
        }
        self.keep_devices(!table.rows.is_empty());
        self.out.tables.push(table);
    }

    /// The device lines of the test read so far become `out.devices` when its table has rows
    /// (the first such test's only), or when none are kept yet.
    fn keep_devices(&mut self, table_has_rows: bool) {
        let devices = std::mem::take(&mut self.devices);
        if !self.devices_kept && (table_has_rows || self.out.devices.is_empty()) {
            self.out.devices = devices;
            self.devices_kept = table_has_rows;
        }
    }

    fn finish(mut self) -> NcclTestsOutput {
        self.close();
        self.keep_devices(false);
        if self.more_warnings.count() > 0 {
            let message = format!("{} more lines like these not listed (up to this line)", self.more_warnings.count());
            self.out.warnings.push(LineWarning { line: self.more_warnings.last_line(), message });
        }
        self.out
    }
}

/// Keeps a warning while fewer than `MAX_WARNINGS` are kept, else counts it in `more`.
pub(crate) fn warn_into(warnings: &mut Vec<LineWarning>, more: &mut More, line: u64, message: impl Into<String>) {
    if warnings.len() < MAX_WARNINGS {
        warnings.push(LineWarning { line, message: message.into() });
    } else {
        more.note(line);
    }
}

/// A row from its values; `cycles` numbers its key's repeats.
fn build_row(line: u64, values: RowValues, placements: usize, cycles: &mut CycleCounter) -> Option<NcclTestsRow> {
    let size_bytes = values.size?;
    let [out_block, in_block] = &values.blocks;
    let out_of_place = out_block.placement()?;
    let in_place = if placements > 1 { Some(in_block.placement()?) } else { None };
    let cycle = cycles.next(size_bytes, values.dtype.as_deref(), values.redop.as_deref(), values.root);
    Some(NcclTestsRow {
        line,
        cycle,
        size_bytes,
        count: values.count,
        dtype: values.dtype,
        redop: values.redop,
        root: values.root,
        out_of_place,
        in_place,
        timestamp: values.timestamp,
    })
}

/// The columns of a table whose header was not captured, from its first row's shape. Every era
/// prints `size count type`, then per binary and era none, one or both of `redop` (a name) and
/// `root` (an integer), then one or two placements of `time algbw busbw` and a check (`#wrong`,
/// a count or `N/A`, since 2.13; `error`, a float, before), with `-I 1`'s four per-iteration
/// columns after each check. Rows of another shape keep the 2.13+ layout (and fail to read).
fn infer_columns(tokens: &[&str]) -> Vec<&'static str> {
    let fields = tokens.len();
    let shape = [(16, 2, true), (8, 2, false), (4, 1, false)]
        .into_iter()
        .find(|&(tail, _, _)| fields >= tail + 3 && fields - tail <= 5);
    let Some((tail, placements, iter_stats)) = shape else {
        return V213_COLUMNS.to_vec();
    };
    let mut names = vec!["size", "count", "type"];
    match &tokens[3..fields - tail] {
        [] => {}
        [single] if single.parse::<i64>().is_ok() => names.push("root"),
        [_] => names.push("redop"),
        _ => names.extend(["redop", "root"]),
    }
    let check = tokens.get(fields - tail + 3).copied().unwrap_or_default();
    let check = if check == "N/A" || check.parse::<u64>().is_ok() { "#wrong" } else { "error" };
    for _ in 0..placements {
        names.extend(["time", "algbw", "busbw", check]);
        if iter_stats {
            names.extend(["i_min", "i_max", "i_p99", "i_cv%"]);
        }
    }
    names
}

/// A line of the preamble or header printed without `#` (some old and patched builds, and
/// outputs pasted where Markdown ate the `#`).
fn is_unprefixed_comment(line: &str) -> bool {
    ["size ", "bytes ", "(B) ", "nThread ", "nccl-tests version ", "Collective test "]
        .iter()
        .any(|start| line.starts_with(start))
        || (line.starts_with("Rank ") && line.contains(" on ") && line.contains(" device "))
}

/// nccl-tests' own error lines: `host: Test CUDA failure common.cu:1304 '...'`, `host: Test
/// NCCL failure ...`, ` .. host pid 3617715: Test failure common.cu:1189`.
fn is_failure(line: &str) -> bool {
    [": Test CUDA failure ", ": Test NCCL failure ", ": Test failure "].iter().any(|s| line.contains(s))
}

/// Lines other programs write into the same stream (NCCL's own logging).
fn is_log_line(line: &str) -> bool {
    line.starts_with("NCCL ") || line.contains(" NCCL ")
}

/// Removes rank tags a launcher inserted inside a line (`[1]`, `[1,0]<stdout>:`) where it split
/// a row between two writes. Only digits and commas in brackets make a tag, so a PCI id
/// (`[0000:18:00]`) or `[0x06]` stays.
fn remove_inner_tags(line: &str) -> Cow<'_, str> {
    let mut out = String::new();
    let mut rest = line;
    while let Some(open) = rest.find('[') {
        let (before, from) = rest.split_at(open);
        out.push_str(before);
        match inner_tag_len(from) {
            Some(len) => rest = &from[len..],
            None => {
                out.push('[');
                rest = &from[1..];
            }
        }
    }
    if out.len() + rest.len() == line.len() {
        return Cow::Borrowed(line);
    }
    out.push_str(rest);
    Cow::Owned(out)
}

/// The longest rank tag inside brackets (`[12,3]`), and the longest stream name (`<stdout>`).
const MAX_TAG: usize = 32;
const MAX_STREAM: usize = 16;

/// The byte length of a rank tag at the start of `text`: `[` digits and commas `]`, then an
/// optional `<stream>` and an optional `:`.
fn inner_tag_len(text: &str) -> Option<usize> {
    let inner = text.strip_prefix('[')?;
    // A tag is at most `MAX_TAG` bytes: `]` is looked for no further (a line of `[`s stays
    // linear).
    let close = memchr::memchr(b']', &inner.as_bytes()[..inner.len().min(MAX_TAG + 1)])?;
    let tag = &inner[..close];
    if tag.is_empty() || !tag.chars().all(|c| c.is_ascii_digit() || c == ',') {
        return None;
    }
    let mut len = close + 2;
    if let Some(stream) = text[len..].strip_prefix('<') {
        let end = memchr::memchr(b'>', &stream.as_bytes()[..stream.len().min(MAX_STREAM + 1)])
            .filter(|&end| stream[..end].chars().all(|c| c.is_ascii_alphabetic()))?;
        len += end + 2;
    }
    if text[len..].starts_with(':') {
        len += 1;
    }
    Some(len)
}

/// Removes launcher prefixes: `[1,0]<stdout>:` (Open MPI `--tag-output`), `[tag]:`, and
/// `N: ` (`srun --label`), up to three of them.
fn strip_tags(line: &str) -> &str {
    let mut rest = line;
    for _ in 0..3 {
        match strip_one_tag(rest) {
            Some(stripped) => rest = stripped.trim_start(),
            None => break,
        }
    }
    rest
}

fn strip_one_tag(line: &str) -> Option<&str> {
    if let Some(inner) = line.strip_prefix('[') {
        let close = inner.find(']')?;
        let tag = inner.get(..close)?;
        if tag.is_empty() || tag.len() > 64 || tag.contains(char::is_whitespace) {
            return None;
        }
        let after = inner.get(close + 1..)?;
        let after = match after.strip_prefix('<') {
            Some(stream) => stream.get(stream.find('>')? + 1..)?,
            None => after,
        };
        return after.strip_prefix(':');
    }
    let digits = line.len() - line.trim_start_matches(|c: char| c.is_ascii_digit()).len();
    if digits == 0 {
        return None;
    }
    line.get(digits..)?.strip_prefix(": ")
}

/// `Label : value ...` -> the first token of value.
fn footer_value<'a>(body: &'a str, label: &str) -> Option<&'a str> {
    let rest = body.strip_prefix(label)?.trim_start().strip_prefix(':')?;
    rest.split_whitespace().next()
}

/// `nThread 1 nGpus 1 minBytes 8192 maxBytes 1048576 step: 2(factor) warmup iters: 20 iters:
/// 100 agg iters: 1 validation: 1 graph: 0 unalign: 0` (older eras print fewer keys).
fn parse_config(body: &str) -> TestConfig {
    let tokens: Vec<&str> = body.split_whitespace().collect();
    let mut config = TestConfig::default();
    let mut previous = "";
    for pair in tokens.windows(2) {
        let [key, value] = pair else { continue };
        let number = value.parse::<u64>().ok();
        match *key {
            "nThread" => config.n_thread = number,
            "nGpus" => config.n_gpus = number,
            "minBytes" => config.min_bytes = number,
            "maxBytes" => config.max_bytes = number,
            "step:" => config.step = Some(value.to_string()),
            "iters:" if previous == "warmup" => config.warmup_iters = number,
            "iters:" if previous == "agg" => config.agg_iters = number,
            "iters:" => config.iters = number,
            "validation:" => config.validation = number,
            "graph:" => config.graph = number,
            "unalign:" => config.unalign = number,
            _ => {}
        }
        previous = key;
    }
    config
}

/// `Rank  0 Group  0 Pid 1217 on vm device  0 [0000:00:06] NVIDIA H200`, and the older
/// `Rank 0 Pid P on HOST device D [0x06] NAME` / `Rank 0 on HOST ...` / `Rank 0 uses device ...`.
fn parse_device(body: &str) -> Option<DeviceLine> {
    let tokens: Vec<&str> = body.split_whitespace().collect();
    let mut device = DeviceLine {
        rank: tokens.get(1)?.parse().ok()?,
        group: None,
        pid: None,
        host: String::new(),
        device: None,
        pci: None,
        name: String::new(),
    };
    let mut index = 2;
    while let Some(&key) = tokens.get(index) {
        let value = tokens.get(index + 1).copied();
        let number = value.and_then(|v| v.parse().ok());
        match key {
            "Group" => device.group = number,
            "Pid" => device.pid = number,
            "on" => device.host = value.unwrap_or_default().to_string(),
            "device" => {
                device.device = number;
                let mut rest = tokens.get(index + 2..).unwrap_or_default();
                if let Some(pci) = rest.first().and_then(|t| t.strip_prefix('[')) {
                    device.pci = Some(pci.trim_end_matches(']').to_string());
                    rest = rest.get(1..).unwrap_or_default();
                }
                device.name = rest.join(" ");
                break;
            }
            "uses" => {
                index += 1;
                continue;
            }
            _ => {}
        }
        index += 2;
    }
    Some(device)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A headerless excerpt whose rows carry a launcher tag at the start and again where the
    /// launcher split the row (issue 25): every row read.
    #[test]
    fn headerless_rows_with_tags_at_the_start_and_mid_row() {
        let text = b"[0]      1048576        262144     float     sum      -1[0]    1626.5    0.64    1.21      0    1618.9    0.65    1.21      0\n\
[0]      2097152        524288     float     sum      -1[0]    2951.2    0.71    1.33      0    2949.0    0.71    1.33      0\n";
        let out = parse_text(text);
        let rows: Vec<(u64, f64)> = out.rows().map(|r| (r.size_bytes, r.out_of_place.time_us)).collect();
        assert_eq!(rows, [(1048576, 1626.5), (2097152, 2951.2)], "{:?}", out.warnings);
    }

    #[test]
    fn long_rows_and_unicode_spaces_are_split_as_python_would() {
        let extra: Vec<String> = (0..44).map(|i| format!("x{i}")).collect();
        let mut text = format!("#  size time algbw busbw {} type redop\n", extra.join(" "));
        let values: Vec<&str> = (0..44).map(|_| "7").collect();
        text += &format!("  1024 12.5 0.08 0.12 {} half sum\n", values.join(" "));
        text += "  2048\u{a0}13.5 0.15 0.23 ";
        text += &values.join("\u{2003}");
        text += " half sum\n";
        let out = parse_text(text.as_bytes());
        let rows: Vec<_> = out.rows().collect();
        assert_eq!(rows.len(), 2, "{:?}", out.warnings);
        assert_eq!(rows[0].dtype.as_deref(), Some("half"));
        assert_eq!(rows[0].redop.as_deref(), Some("sum"));
        assert_eq!(rows[1].size_bytes, 2048);
        assert_eq!(rows[1].out_of_place.time_us, 13.5);
    }

    fn parse(bytes: &[u8]) -> NcclTestsOutput {
        parse_text(bytes)
    }

    #[test]
    fn seed_args_capture_has_three_cycles_of_eight_sizes() {
        let out = parse(include_bytes!("../../../tests/data/nccl/all_reduce_perf_seed_args.stdout"));
        assert_eq!(out.version.as_deref(), Some("2.19.6"));
        assert_eq!(out.nccl_library.as_deref(), Some("22809"));
        assert_eq!(out.tables.len(), 1);
        assert!(out.warnings.is_empty(), "{:?}", out.warnings);
        let table = &out.tables[0];
        assert_eq!(table.collective.as_deref(), Some("all_reduce_perf"));
        assert_eq!(table.rows.len(), 24);
        assert_eq!(table.time_unit, TimeUnit::Us);
        assert_eq!(table.columns.len(), 13);
        assert_eq!(table.out_of_bounds, Some(0));
        assert_eq!(table.avg_bus_bandwidth, Some(0.0));
        assert!(!table.truncated);
        let mut sizes: Vec<u64> = table.rows.iter().map(|r| r.size_bytes).collect();
        sizes.sort_unstable();
        sizes.dedup();
        assert_eq!(sizes.len(), 8);
        for (index, row) in table.rows.iter().enumerate() {
            assert_eq!(row.cycle, index as u64 / 8);
            assert_eq!(row.out_of_place.wrong, Some(0));
            assert_eq!(row.in_place.as_ref().and_then(|p| p.wrong), Some(0));
            assert_eq!(row.dtype.as_deref(), Some("half"));
            assert_eq!(row.root, Some(-1));
        }
        let last = &table.rows[23];
        assert_eq!((last.size_bytes, last.count, last.line), (1048576, Some(524288), 34));
        assert_eq!(last.out_of_place.time_us, 9.37);
        assert_eq!(last.in_place.as_ref().map(|p| p.algbw_gbs), Some(341.41));
        let config = table.config.as_ref().expect("config line");
        assert_eq!((config.n_thread, config.n_gpus, config.iters), (Some(1), Some(1), Some(100)));
        assert_eq!((config.warmup_iters, config.agg_iters), (Some(20), Some(1)));
        assert_eq!(config.step.as_deref(), Some("2(factor)"));
        assert_eq!(out.devices.len(), 1);
        let device = &out.devices[0];
        assert_eq!((device.rank, device.group, device.pid), (0, Some(0), Some(1217)));
        assert_eq!((device.host.as_str(), device.device), ("vm", Some(0)));
        assert_eq!(device.pci.as_deref(), Some("0000:00:06"));
        assert_eq!(device.name, "NVIDIA H200");
        assert_eq!(out.ranks(), Some(1));
    }

    #[test]
    fn other_collectives_capture_reads_every_row_of_five_tests() {
        let out = parse(include_bytes!("../../../tests/data/nccl/other_collectives.stdout"));
        assert!(out.warnings.is_empty(), "{:?}", out.warnings);
        let names: Vec<_> = out.tables.iter().filter_map(|t| t.collective.as_deref()).collect();
        assert_eq!(
            names,
            ["all_gather_perf", "reduce_scatter_perf", "broadcast_perf", "alltoall_perf", "sendrecv_perf"]
        );
        let counts: Vec<_> = out.tables.iter().map(|t| t.rows.len()).collect();
        assert_eq!(counts, [7, 7, 7, 7, 4]);
        assert_eq!(out.devices.len(), 1, "device lines of the first test only");
        assert_eq!(out.devices[0].pid, Some(1249));
        let gather = &out.tables[0].rows[6];
        assert_eq!(gather.redop.as_deref(), Some("none"));
        assert_eq!(gather.in_place.as_ref().map(|p| p.algbw_gbs), Some(18912.0));
        let broadcast = &out.tables[2];
        assert_eq!(broadcast.rows[0].root, Some(0));
        assert_eq!(broadcast.rows[6].out_of_place.busbw_gbs, 1709.5);
        assert_eq!(broadcast.avg_bus_bandwidth, Some(2843.41));
        let alltoall = &out.tables[3].rows[0];
        assert_eq!(alltoall.out_of_place.wrong, Some(0));
        assert_eq!(alltoall.in_place.as_ref().map(|p| p.wrong), Some(None), "N/A is unchecked");
        assert!(out.tables.iter().all(|t| !t.truncated && t.out_of_bounds == Some(0)));
        assert!(out.rows().all(|r| r.cycle == 0));
    }

    /// Pasted where Markdown ate every `#`: the device lines are read as the `#` ones.
    #[test]
    fn device_lines_without_hash_are_read() {
        let text = b" nThread 1 nGpus 1 minBytes 32 maxBytes 64 step: 2(factor) warmup iters: 5 iters: 20 validation: 1

 Using devices
   Rank  0 Pid 1821213 on a100-01 device  0 [0x00] NVIDIA A100-SXM4-40GB
   Rank  1 Pid 1821214 on a100-01 device  1 [0x00] NVIDIA A100-SXM4-40GB

       size         count    type   redop     time   algbw   busbw  error     time   algbw   busbw  error
        (B)    (elements)                     (us)  (GB/s)  (GB/s)            (us)  (GB/s)  (GB/s)
          32             8   float     sum    11.45    0.00    0.00  0e+00    11.20    0.00    0.00  0e+00
          64            16   float     sum    11.39    0.01    0.01  0e+00    11.30    0.01    0.01  0e+00
 Out of bounds values : 0 OK
 Avg bus bandwidth    : 0.005
";
        let out = parse(text);
        assert!(out.warnings.is_empty(), "{:?}", out.warnings);
        let ranks: Vec<(u64, &str)> = out.devices.iter().map(|d| (d.rank, d.host.as_str())).collect();
        assert_eq!(ranks, [(0, "a100-01"), (1, "a100-01")]);
        // Chatter that starts like one is not a device line.
        let chatter = [&b"Rank 0 initialized communicator\n"[..], text].concat();
        assert_eq!(parse(&chatter).devices.len(), 2);
        assert_eq!(out.tables[0].rows.len(), 2);
    }

    /// Two processes of a non-MPI build under mpirun each print the preamble: the second
    /// closes an empty table, and its device lines are still the first test's.
    #[test]
    fn a_preamble_printed_twice_keeps_its_device_lines() {
        let text =
            b"# nThread 1 nGpus 1 minBytes 8 maxBytes 8 step: 1048576(bytes) warmup iters: 5 iters: 20 validation: 1
#
# Using devices
# nThread 1 nGpus 1 minBytes 8 maxBytes 8 step: 1048576(bytes) warmup iters: 5 iters: 20 validation: 1
#
# Using devices
#   Rank  0 Pid   1320 on host-a device  0 [0x00] Tesla V100-SXM2-16GB
#   Rank  0 Pid   2066 on host-b device  0 [0x00] Tesla V100-SXM2-16GB
";
        let out = parse(text);
        assert_eq!(out.ranks(), Some(1), "two single-rank jobs, each rank 0");
        let hosts: Vec<String> = out.devices.into_iter().map(|d| d.host).collect();
        assert_eq!(hosts, ["host-a", "host-b"]);
    }

    /// A test that died before its table says so: a warning per failure line, and the table
    /// it left is marked cut.
    #[test]
    fn a_test_that_failed_before_its_table_says_so() {
        let text =
            b"# nThread 1 nGpus 1 minBytes 8 maxBytes 128 step: 2(factor) warmup iters: 1 iters: 20 validation: 1
#
# Using devices
#  Rank  0 Group  0 Pid 3617715 on    gpu-1-1 device  0 [0009:01:00] NVIDIA GH200 120GB
gpu-1-1: Test CUDA failure common.cu:1304 'CUDA-capable device(s) is/are busy or unavailable'
 .. gpu-1-1 pid 3617715: Test failure common.cu:1189
gpu-1-1: Test NCCL failure common.cu:1005 'unhandled system error (run with NCCL_DEBUG=INFO for details)'
";
        let out = parse(text);
        let warnings: Vec<(u64, &str)> = out.warnings.iter().map(|w| (w.line, w.message.as_str())).collect();
        assert_eq!(warnings[0], (5, "the test failed: gpu-1-1: Test CUDA failure common.cu:1304 'CUDA-capable device(s) is/are busy or unavailable'"));
        assert_eq!(warnings[1], (6, "the test failed: .. gpu-1-1 pid 3617715: Test failure common.cu:1189"));
        assert_eq!(warnings[2].0, 7, "a Test NCCL failure line is no NCCL log line: {warnings:?}");
        assert_eq!(warnings.len(), 4, "{warnings:?}");
        assert_eq!(warnings[3], (7, "table ends without its footer (output cut?)"));
        assert!(out.tables[0].truncated && out.tables[0].rows.is_empty());
        assert_eq!(out.devices.len(), 1, "the GPUs of a test that died are still named");
        // A second test after it: its device lines, not both tests'.
        let mut second = text.to_vec();
        second.extend_from_slice(
            b"# nThread 1 nGpus 1 minBytes 8 maxBytes 8 step: 2(factor) warmup iters: 1 iters: 20 validation: 1
#  Rank  0 Group  0 Pid 4000000 on    gpu-1-1 device  0 [0009:01:00] NVIDIA GH200 120GB
#       size         count      type   redop    root     time   algbw   busbw #wrong     time   algbw   busbw #wrong
           8             2     float     sum      -1    11.45    0.00    0.00      0    11.20    0.00    0.00      0
",
        );
        let out = parse(&second);
        let pids: Vec<Option<u64>> = out.devices.iter().map(|d| d.pid).collect();
        assert_eq!(pids, [Some(4000000)]);
        assert_eq!(out.ranks(), Some(1));
    }

    #[test]
    fn v1_table_converts_milliseconds() {
        let out = parse(include_bytes!("../../../tests/data/nccl/v1_ms.stdout"));
        assert!(out.warnings.is_empty(), "{:?}", out.warnings);
        assert_eq!(out.version, None);
        let table = &out.tables[0];
        assert_eq!(table.time_unit, TimeUnit::Ms);
        assert_eq!(table.rows.len(), 4);
        let row = &table.rows[3];
        assert_eq!((row.size_bytes, row.count), (1048576, Some(262144)));
        assert_eq!((row.dtype.as_deref(), row.redop.as_deref(), row.root), (Some("float"), Some("sum"), None));
        assert!((row.out_of_place.time_us - 95.0).abs() < 1e-9);
        assert_eq!(row.out_of_place.wrong, None);
        assert_eq!(row.out_of_place.error, Some(0.0));
        assert_eq!(row.in_place.as_ref().and_then(|p| p.error), Some(2e-07));
        assert_eq!((table.out_of_bounds, table.avg_bus_bandwidth), (Some(0), Some(7.12)));
        assert_eq!(out.devices.len(), 2);
        assert_eq!((out.devices[1].host.as_str(), out.devices[1].pid), ("node1", None));
        assert_eq!(out.devices[1].name, "Tesla P100-SXM2-16GB");
    }

    #[test]
    fn v2_error_column_and_per_binary_leading_columns() {
        let out = parse(include_bytes!("../../../tests/data/nccl/v2_error.stdout"));
        assert!(out.warnings.is_empty(), "{:?}", out.warnings);
        assert_eq!(out.tables.len(), 2);
        let reduce = &out.tables[0];
        assert_eq!(reduce.columns[3], "redop");
        let row = &reduce.rows[1];
        assert_eq!((row.redop.as_deref(), row.root), (Some("sum"), None));
        assert_eq!((row.out_of_place.wrong, row.out_of_place.error), (None, Some(0.0)));
        assert_eq!(row.in_place.as_ref().and_then(|p| p.error), Some(1e-06));
        assert_eq!(row.out_of_place.time_us, 42.5);
        let broadcast = &out.tables[1];
        assert_eq!(broadcast.config.as_ref().and_then(|c| c.n_gpus), Some(8));
        let row = &broadcast.rows[0];
        assert_eq!((row.redop.as_deref(), row.root), (None, Some(0)));
        assert_eq!(out.devices.len(), 8, "devices of the first test only");
        assert_eq!(out.ranks(), Some(8));
    }

    #[test]
    fn check_off_is_unchecked_not_zero() {
        let out = parse(include_bytes!("../../../tests/data/nccl/c0_na.stdout"));
        assert!(out.warnings.is_empty(), "{:?}", out.warnings);
        let table = &out.tables[0];
        assert_eq!(table.config.as_ref().and_then(|c| c.validation), Some(0));
        assert_eq!(table.rows.len(), 3);
        for row in &table.rows {
            assert_eq!(row.out_of_place.wrong, None);
            assert_eq!(row.in_place.as_ref().map(|p| p.wrong), Some(None));
        }
        let v2 = parse(include_bytes!("../../../tests/data/nccl/v2_c0_na.stdout"));
        let row = &v2.tables[0].rows[0];
        assert_eq!((row.out_of_place.wrong, row.out_of_place.error), (None, None));
    }

    #[test]
    fn per_iteration_columns_follow_each_wrong() {
        let out = parse(include_bytes!("../../../tests/data/nccl/iter_stats.stdout"));
        assert!(out.warnings.is_empty(), "{:?}", out.warnings);
        let table = &out.tables[0];
        assert_eq!(table.columns.len(), 21);
        assert_eq!(table.rows.len(), 2);
        let row = &table.rows[1];
        let stats = row.out_of_place.iter_stats.as_ref().expect("out-of-place stats");
        assert_eq!((stats.min_us, stats.max_us, stats.p99_us, stats.cv_percent), (30.1, 45.9, 44.7, 8.25));
        let in_place = row.in_place.as_ref().expect("in-place");
        assert_eq!(in_place.wrong, Some(0));
        assert_eq!(in_place.iter_stats.as_ref().map(|s| s.cv_percent), Some(3.5));
        assert_eq!(in_place.busbw_gbs, 58.12);
    }

    #[test]
    fn timestamp_column_takes_two_tokens() {
        let out = parse(include_bytes!("../../../tests/data/nccl/timestamp.stdout"));
        assert!(out.warnings.is_empty(), "{:?}", out.warnings);
        let rows = &out.tables[0].rows;
        assert_eq!(rows.len(), 3);
        assert_eq!(rows[2].timestamp.as_deref(), Some("2025-06-01 12:00:03"));
        assert_eq!(rows[2].in_place.as_ref().and_then(|p| p.wrong), Some(0));
    }

    #[test]
    fn three_cycles_and_e_notation() {
        let out = parse(include_bytes!("../../../tests/data/nccl/n3.stdout"));
        assert!(out.warnings.is_empty(), "{:?}", out.warnings);
        let rows = &out.tables[0].rows;
        assert_eq!(rows.len(), 6);
        let cycles: Vec<u64> = rows.iter().map(|r| r.cycle).collect();
        assert_eq!(cycles, [0, 0, 1, 1, 2, 2]);
        assert_eq!(rows[5].out_of_place.time_us, 12000.0);
        assert_eq!(rows[5].in_place.as_ref().map(|p| p.algbw_gbs), Some(1.2e5));
        assert_eq!(rows[3].out_of_place.wrong, Some(1_000_000));
        assert_eq!(out.tables[0].out_of_bounds, Some(1_000_000));
    }

    #[test]
    fn mixed_types_and_ops_key_rows_by_type_op_and_root() {
        let out = parse(include_bytes!("../../../tests/data/nccl/d_all.stdout"));
        assert!(out.warnings.is_empty(), "{:?}", out.warnings);
        let rows = &out.tables[0].rows;
        assert_eq!(rows.len(), 8);
        let keys: Vec<_> = rows.iter().map(|r| (r.dtype.as_deref().unwrap_or(""), r.cycle)).collect();
        assert_eq!(
            keys,
            [
                ("float", 0),
                ("float", 0),
                ("float", 1),
                ("float", 1),
                ("half", 0),
                ("half", 0),
                ("half", 1),
                ("half", 1)
            ]
        );
        let ops = parse(include_bytes!("../../../tests/data/nccl/o_all.stdout"));
        let rows = &ops.tables[0].rows;
        assert_eq!(rows.len(), 4);
        assert!(rows.iter().all(|r| r.cycle == 0), "sum and max of one size are not cycles");
    }

    #[test]
    fn mpi_tags_and_interleaved_log_lines_are_skipped() {
        let out = parse(include_bytes!("../../../tests/data/nccl/mpi_tagged.stdout"));
        assert!(out.warnings.is_empty(), "{:?}", out.warnings);
        assert_eq!(out.version.as_deref(), Some("2.17.6"));
        assert_eq!(out.devices.len(), 2);
        assert_eq!(out.devices[1].host, "node2");
        let table = &out.tables[0];
        assert_eq!(table.rows.len(), 3);
        assert_eq!(table.rows[2].out_of_place.busbw_gbs, 171.7);
        assert_eq!(table.avg_bus_bandwidth, Some(61.3));
    }

    #[test]
    fn crlf_and_invalid_utf8_warn_and_go_on() {
        let out = parse(include_bytes!("../../../tests/data/nccl/crlf_invalid_utf8.stdout"));
        assert_eq!(out.warnings.len(), 1, "{:?}", out.warnings);
        assert_eq!(out.warnings[0].line, 6);
        let table = &out.tables[0];
        assert_eq!(table.rows.len(), 2);
        assert_eq!(table.rows[1].in_place.as_ref().and_then(|p| p.wrong), Some(0));
        assert_eq!(out.devices[0].name, "NVIDIA H100 \u{fffd}");
        assert!(!table.truncated);
    }

    #[test]
    fn truncated_table_keeps_its_rows_and_says_so() {
        let out = parse(include_bytes!("../../../tests/data/nccl/truncated.stdout"));
        let table = &out.tables[0];
        assert_eq!(table.rows.len(), 2);
        assert!(table.truncated);
        assert_eq!(table.out_of_bounds, None);
        let lines: Vec<u64> = out.warnings.iter().map(|w| w.line).collect();
        assert_eq!(lines, [14, 14], "{:?}", out.warnings);
        assert!(out.warnings[0].message.contains("expected 13 fields, found 7"));
    }

    #[test]
    fn excerpt_without_header_infers_columns_from_the_rows_shape() {
        let out = parse(include_bytes!("../../../tests/data/nccl/headerless_excerpt.stdout"));
        assert_eq!(out.warnings.len(), 1, "{:?}", out.warnings);
        assert_eq!(out.warnings[0].line, 1);
        assert!(out.warnings[0].message.contains("`size count type time algbw busbw error time algbw busbw error`"));
        let table = &out.tables[0];
        assert_eq!(table.rows.len(), 3);
        let row = &table.rows[2];
        assert_eq!(
            (row.size_bytes, row.dtype.as_deref(), row.redop.as_deref(), row.root),
            (134217728, Some("float"), None, None)
        );
        assert_eq!(
            (row.out_of_place.busbw_gbs, row.out_of_place.error, row.out_of_place.wrong),
            (177.38, Some(0.0), None)
        );
        assert_eq!(row.in_place.as_ref().map(|p| p.time_us), Some(661.0));
        assert_eq!(table.avg_bus_bandwidth, Some(171.06));
    }

    #[test]
    fn inferred_columns_per_binary_shape() {
        let shapes = [
            ("8 2 float sum -1 1.5 2.5 3.5 0 1.5 2.5 3.5 N/A", "redop root", Some(-1)),
            ("8 2 float 0 1.5 2.5 3.5 0e+00 1.5 2.5 3.5 0e+00", "root", Some(0)),
            ("8 2 float sum 1.5 2.5 3.5 0e+00 1.5 2.5 3.5 0e+00", "redop", None),
            ("8 2 float sum -1 1.5 2.5 3.5 0 1 2 3 4 1.5 2.5 3.5 0 1 2 3 4", "i_cv%", Some(-1)),
            ("8 2 float 2 1.5 2.5 3.5 0e+00", "root", Some(2)),
        ];
        for (row, named, root) in shapes {
            let out = parse(format!("# Collective test starting: x_perf\n{row}\n").as_bytes());
            assert_eq!(out.warnings.len(), 2, "{row}: {:?}", out.warnings);
            assert!(out.warnings[0].message.contains(" of x_perf "), "{:?}", out.warnings[0]);
            assert!(out.warnings[0].message.contains(named), "{:?}", out.warnings[0]);
            let rows: Vec<_> = out.rows().collect();
            assert_eq!(rows.len(), 1, "{row}");
            assert_eq!((rows[0].root, rows[0].out_of_place.busbw_gbs), (root, 3.5));
        }
    }

    #[test]
    fn header_and_footer_without_hash_of_old_builds() {
        let out = parse(include_bytes!("../../../tests/data/nccl/unprefixed_header.stdout"));
        assert!(out.warnings.is_empty(), "{:?}", out.warnings);
        let table = &out.tables[0];
        assert_eq!(table.config.as_ref().and_then(|c| c.n_gpus), Some(4));
        assert_eq!(table.columns[3], "redop");
        assert_eq!(table.rows.len(), 3);
        assert_eq!(table.rows[2].in_place.as_ref().and_then(|p| p.error), Some(2e-07));
        assert_eq!(table.rows[1].out_of_place.busbw_gbs, 0.41);
        assert_eq!((table.out_of_bounds, table.avg_bus_bandwidth, table.truncated), (Some(0), Some(5.671), false));
    }

    #[test]
    fn rank_tags_inside_a_row_are_removed() {
        let out = parse(include_bytes!("../../../tests/data/nccl/mpi_inner_tags.stdout"));
        assert!(out.warnings.is_empty(), "{:?}", out.warnings);
        assert_eq!(out.devices[1].pci.as_deref(), Some("0000:18:00"));
        let table = &out.tables[0];
        let busbw: Vec<f64> = table.rows.iter().map(|r| r.out_of_place.busbw_gbs).collect();
        assert_eq!(busbw, [17.42, 29.62, 47.2]);
        assert_eq!(table.rows[2].in_place.as_ref().map(|p| p.time_us), Some(44.4));
        assert_eq!(remove_inner_tags("a [0x06] [1,2]<x>:b [12] c[]"), "a [0x06] b  c[]");
    }

    #[test]
    fn rows_without_header_and_garbage_never_panic() {
        let huge = parse(b"# nThread 99999999999 nGpus 99999999999 minBytes 1\n");
        assert_eq!(huge.ranks(), None, "overflowing rank count");
        let out = parse(b"  8192 2048 float sum -1 1.0 2.0 3.0 0 1.0 2.0 3.0 0\n 77 x\n\xff\xfe\n#\n# size time\n");
        assert_eq!(out.tables.len(), 1);
        assert_eq!(out.tables[0].rows.len(), 1);
        assert!(out.tables[0].truncated);
        assert_eq!(out.warnings.len(), 5, "{:?}", out.warnings);
        let empty = parse(b"");
        assert!(empty.tables.is_empty() && empty.warnings.is_empty());
    }

    /// What the fuzzer found: a warning per odd line (200,000 lines made a 32 MB run page),
    /// a new `type` on every row (a linear name lookup per row), a line of `[` (a search for
    /// `]` to the line's end at every `[`). Now: 20 warnings and a count, a hash lookup, a
    /// bounded search.
    #[test]
    fn many_odd_lines_many_types_and_brackets_stay_bounded() {
        let header = "#       size         count      type   redop    root     time   algbw   busbw #wrong     time   algbw   busbw #wrong\n";
        let mut odd = header.as_bytes().to_vec();
        odd.extend(b"\xff\n".repeat(5000));
        let out = parse(&odd);
        assert_eq!(out.warnings.len(), MAX_WARNINGS + 1, "{:?}", &out.warnings[..3]);
        assert_eq!(out.warnings[0].line, 2);
        let last = out.warnings.last().unwrap();
        assert_eq!(
            (last.line, last.message.as_str()),
            (5001, "4981 more lines like these not listed (up to this line)"),
            "5,000 lines and the cut table"
        );

        let rows: String = (0..3000)
            .map(|i| {
                format!("{:>12} {:>12} {:>9} sum -1 10.0 0.10 0.10 0 10.0 0.10 0.10 0\n", 8192, 2048, format!("t{i}"))
            })
            .collect();
        let out = parse(format!("{header}{rows}").as_bytes());
        let table = &out.tables[0];
        assert_eq!(table.rows.len(), 3000);
        assert!(table.rows.iter().all(|r| r.cycle == 0), "each type is its own key");
        assert_eq!(table.rows[2999].dtype.as_deref(), Some("t2999"));

        let brackets = "[".repeat(100_000);
        assert_eq!(remove_inner_tags(&brackets), brackets);
        assert_eq!(remove_inner_tags(&format!("{brackets}[1]x")), format!("{brackets}x"));
        assert_eq!(
            remove_inner_tags("a [111111111111111111111111111111111] b"),
            "a [111111111111111111111111111111111] b"
        );
        assert_eq!(remove_inner_tags("[1]<stdout>:x [2]<aaaaaaaaaaaaaaaaa>:y"), "x [2]<aaaaaaaaaaaaaaaaa>:y");
    }
}
