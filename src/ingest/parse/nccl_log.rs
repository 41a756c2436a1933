//! NCCL_DEBUG logs -> `NcclLogFacts`, streamed line by line (logs can be hundreds of MB).
//!
//! The reader is read in 256 KiB blocks and lines are cut with `memchr` straight out of them;
//! a line over `MAX_LINE_BYTES` is cut there (and says so), bounding memory and pages.
//! Each line is searched once for `CCL ` (`memmem`, `nccl_line::marker`; skipped when ` NCCL
//! INFO ` sits where it sat in the line before, as it does for every line of a thread), which
//! finds `NCCL INFO` / `NCCL WARN` / `NCCL version` / `RCCL version` after any launcher or
//! logger prefix; the first bytes of the message then pick the reader. Every INFO line's
//! `host:pid:tid` counts (looked up again only when the prefix differs from the line before),
//! so a merged multi-host log keeps all its hosts. COLL lines (one per collective call, most
//! of a big log) are counted by kind with a 16-byte compare and no allocation; the rarer
//! INIT/GRAPH/TUNING lines are converted to text (lossy) and may allocate.
//! A line that states a fact only partly (cut mid-line) is a partial line, not a fact; so is a
//! last line with no newline that would change the facts. When two threads' lines run into
//! one, both messages are read: the first up to the second's prefix; when the
//! first was displaced (`h:1:1 [6] NCCL INFO h:1:2 [7] NCCL INFO Ring ...`), as many later
//! unmarked `Ring`/`Channel`/`Tree` lines as were displaced are read as messages.
//! Formats follow NCCL's own `INFO(...)` strings from 2.3 to 2.29 and RCCL's. Distinct-value
//! lists and count maps keep at most `MAX_DISTINCT` entries (lists keep the smallest in sort
//! order, so the result does not depend on file or merge order). Pure: reads the given
//! `BufRead`, touches no file; uses `model` and the text functions of `nccl_line`/`nccl_net`.

use crate::core::model::nccl_log::{CommunicatorInfo, GraphPattern, LogLine, NcclLogFacts, NicInfo, TuningChoice};
use crate::ingest::parse::graph_memo::GraphMemo;
use crate::ingest::parse::line_memo::LineMemo;
use crate::ingest::parse::nccl_line::{self, Marker, RingLine, Transport};
use crate::ingest::parse::nccl_net;
use crate::ingest::parse::MAX_WARNINGS;
use memchr::memmem;
use std::borrow::Cow;
use std::cmp::Ordering;
use std::collections::{BTreeMap, BTreeSet, HashMap};
use std::io::{self, BufRead, BufReader};

/// Most distinct values kept per list or map (rings, trees, transports, ...).
pub(crate) const MAX_DISTINCT: usize = 256;

/// Bytes asked of the reader at a time: a caller's small `BufReader` is bypassed for reads this
/// large, which saves most of the system calls on a big file.
const READ_SIZE: usize = 256 * 1024;

const INFO_MARKER: &[u8; 11] = b" NCCL INFO ";
/// Prefix tails remembered (`Scanner::tails`): more than the threads that write at once.
const TAILS: usize = 16;

/// Scans one log. `file` is the run-relative name used in `LogLine`s.
pub(crate) fn scan_log<R: BufRead>(reader: R, file: &str) -> io::Result<NcclLogFacts> {
    scan_log_lines(BufReader::with_capacity(READ_SIZE, reader), file)
}

/// `scan_log` with the lines cut straight out of `reader`'s own buffer, as it fills it: for a
/// log already in memory (a slice is one buffer), no copy.
pub(crate) fn scan_log_lines<R: BufRead>(reader: R, file: &str) -> io::Result<NcclLogFacts> {
    let mut scanner = Scanner::new(file);
    let bytes = for_each_line(reader, |line, ended| scanner.line(line, ended))?;
    Ok(scanner.finish(bytes))
}

/// Folds the facts of another log file of the same run into `into` (counts add, lists union).
pub(crate) fn merge(into: &mut NcclLogFacts, other: NcclLogFacts) {
    union(&mut into.nccl_versions, other.nccl_versions);
    union(&mut into.cuda_driver_versions, other.cuda_driver_versions);
    union(&mut into.nranks, other.nranks);
    union(&mut into.nnodes, other.nnodes);
    union(&mut into.local_ranks, other.local_ranks);
    union(&mut into.networks, other.networks);
    union(&mut into.net_plugins, other.net_plugins);
    into.nvls = into.nvls.max(other.nvls);
    into.collnet = into.collnet.max(other.collnet);
    into.pxn = into.pxn.max(other.pxn);
    union(&mut into.channel_summaries, other.channel_summaries);
    union(&mut into.rings, other.rings);
    union(&mut into.trees, other.trees);
    union(&mut into.channel_counts, other.channel_counts);
    nccl_net::merge(&mut into.nics, other.nics);
    for (host, files) in other.files_by_host {
        let list = into.files_by_host.entry(host).or_default();
        list.extend(files);
        list.sort();
        list.dedup();
    }
    into.communicators.extend(other.communicators);
    into.communicators.sort();
    into.communicators.dedup();
    into.graph_patterns.extend(other.graph_patterns);
    sort_patterns(&mut into.graph_patterns);
    for (target, source) in [
        (&mut into.transports, other.transports),
        (&mut into.collective_calls, other.collective_calls),
        (&mut into.algorithms, other.algorithms),
        (&mut into.protocols, other.protocols),
    ] {
        for (key, count) in source {
            bump(target, &key, count);
        }
    }
    merge_tuning(&mut into.tuning, other.tuning);
    for (lines, more) in [(&mut into.warnings, other.warnings), (&mut into.partial_lines, other.partial_lines)] {
        lines.extend(more);
        lines.sort_by(|a, b| (&a.file, a.line, &a.text).cmp(&(&b.file, b.line, &b.text)));
        lines.truncate(MAX_WARNINGS);
    }
    into.warning_count = into.warning_count.saturating_add(other.warning_count);
    into.partial_line_count = into.partial_line_count.saturating_add(other.partial_line_count);
    into.lines = into.lines.saturating_add(other.lines);
    into.bytes = into.bytes.saturating_add(other.bytes);
}

/// Most bytes of one line that are looked at and kept: a longer line (a 50 MB line, a log with
/// no newline) is cut there and `CUT_NOTE` appended, so no line costs more memory or page
/// space than this. No line NCCL writes comes near it.
pub(crate) const MAX_LINE_BYTES: usize = 16 * 1024;
/// What a cut line ends with (shown wherever the line is, e.g. a kept `NCCL WARN` line).
pub(crate) const CUT_NOTE: &[u8] = b" [... line cut at 16 KiB]";

/// Calls `f` with every line (without its `\n`) and whether a newline ended it (only the last
/// line of a file may lack one), cut from the reader's own buffer; only a line that straddles
/// two buffer fills, or is over `MAX_LINE_BYTES`, is copied (at most that much of it).
/// Returns the number of bytes read.
fn for_each_line<R: BufRead>(mut reader: R, mut f: impl FnMut(&[u8], bool)) -> io::Result<u64> {
    let mut carry = Vec::new();
    let mut total = 0u64;
    loop {
        let buffer = match reader.fill_buf() {
            Ok(buffer) => buffer,
            Err(e) if e.kind() == io::ErrorKind::Interrupted => continue,
            Err(e) => return Err(e),
        };
        if buffer.is_empty() {
            break;
        }
        let length = buffer.len();
        let mut rest = buffer;
        while let Some(end) = memchr::memchr(b'\n', rest) {
            let (line, tail) = rest.split_at(end);
            if carry.is_empty() && line.len() <= MAX_LINE_BYTES {
                f(line, true);
            } else {
                keep(&mut carry, line);
                f(end_line(&mut carry), true);
                carry.clear();
            }
            rest = tail.get(1..).unwrap_or_default();
        }
        keep(&mut carry, rest);
        reader.consume(length);
        total += length as u64;
    }
    if !carry.is_empty() {
        f(end_line(&mut carry), false);
    }
    Ok(total)
}

/// Appends `bytes` to a line being gathered, up to one byte past `MAX_LINE_BYTES` (enough to
/// know that it is over).
fn keep(carry: &mut Vec<u8>, bytes: &[u8]) {
    let room = (MAX_LINE_BYTES + 1).saturating_sub(carry.len());
    carry.extend_from_slice(&bytes[..room.min(bytes.len())]);
}

/// The gathered line, cut to `MAX_LINE_BYTES` with `CUT_NOTE` when it is over.
fn end_line(carry: &mut Vec<u8>) -> &[u8] {
    if carry.len() > MAX_LINE_BYTES {
        carry.truncate(MAX_LINE_BYTES);
        carry.extend_from_slice(CUT_NOTE);
    }
    carry
}

/// What a `Init START` / `Init COMPLETE` line says.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum InitState {
    Start,
    Complete,
}

/// One kind of COLL call: its name (ASCII letters and digits), the name as `name_word` gives
/// it (`None` over 16 bytes), and how many calls.
#[derive(Debug, Clone, PartialEq)]
struct CallKind {
    name: Vec<u8>,
    word: Option<u128>,
    count: u64,
}

/// The bytes of the last `[nranks=N]` read (with the byte after it, if any) and where it began
/// counted from its message's end; empty when none was read or it was over 24 bytes.
#[derive(Debug, Clone, Copy, Default)]
struct NranksToken {
    bytes: [u8; 24],
    len: usize,
    from_end: usize,
}

impl NranksToken {
    fn of(token: &[u8], from_end: usize) -> NranksToken {
        let mut bytes = [0u8; 24];
        match bytes.get_mut(..token.len()) {
            Some(head) => {
                head.copy_from_slice(token);
                NranksToken { bytes, len: token.len(), from_end }
            }
            None => NranksToken::default(),
        }
    }

    /// Whether `message` has these bytes where the token began in its own message: then its
    /// last `[` holds the same count (a later `[` would only make the line give none).
    fn is_at_end_of(&self, message: &[u8]) -> bool {
        self.len > 0
            && message.len().checked_sub(self.from_end).is_some_and(|at| {
                message.get(at..at + self.len).is_some_and(|there| same_bytes(there, &self.bytes[..self.len]))
            })
    }
}

/// A name of at most 16 bytes as one number (zero-padded); `None` for a longer name.
fn name_word(name: &[u8]) -> Option<u128> {
    let mut bytes = [0u8; 16];
    bytes.get_mut(..name.len())?.copy_from_slice(name);
    Some(u128::from_le_bytes(bytes))
}

/// The first `length` (at most 16) bytes of `message` as `name_word` gives a name; `None` when
/// `message` is shorter than 16 bytes.
fn head_word(message: &[u8], length: usize) -> Option<u128> {
    let word = u128::from_le_bytes(*message.first_chunk::<16>()?);
    let mask = 1u128.checked_shl(8 * length as u32).map_or(u128::MAX, |bit| bit - 1);
    Some(word & mask)
}

/// Algorithm and protocol counts from one kind of TUNING line.
#[derive(Debug, Default, Clone, PartialEq)]
struct Tally {
    algorithms: BTreeMap<String, u64>,
    protocols: BTreeMap<String, u64>,
}

impl Tally {
    fn add(&mut self, algorithm: &str, protocol: &str) {
        bump(&mut self.algorithms, algorithm_name(algorithm), 1);
        bump(&mut self.protocols, protocol_name(protocol), 1);
    }

    fn is_empty(&self) -> bool {
        self.algorithms.is_empty() && self.protocols.is_empty()
    }
}

/// (collective, bytes, algorithm, protocol, channels) of a `TuningChoice`.
type TuningKey = (Option<String>, u64, String, String, Option<u64>);

/// Every fact read so far (what a partial last line must not change).
#[derive(Debug, Default, Clone, PartialEq)]
struct Facts {
    versions: BTreeSet<String>,
    drivers: BTreeSet<String>,
    nranks: BTreeSet<u64>,
    nnodes: BTreeSet<u64>,
    local_ranks: BTreeSet<u64>,
    networks: BTreeSet<String>,
    plugins: BTreeSet<String>,
    nvls: Option<bool>,
    collnet: Option<bool>,
    pxn: Option<bool>,
    summaries: BTreeSet<String>,
    rings: BTreeSet<String>,
    trees: BTreeSet<String>,
    channel_counts: BTreeSet<u64>,
    transports: BTreeMap<String, u64>,
    patterns: Vec<GraphPattern>,
    nics: Vec<NicInfo>,
    /// `NET/IB : No device found.`: with a `NET/Socket : Using ..` line and no `Using
    /// network` line (before 2.6 NCCL printed none), the network is Socket.
    ib_missing: bool,
    hosts: BTreeSet<String>,
    /// Communicators, and where each (host, pid, comm pointer) last started.
    communicators: Vec<CommunicatorInfo>,
    open_comms: HashMap<(String, String, String), usize>,
    /// COLL calls per kind (flushed into `collective_calls` at the end).
    calls: Vec<CallKind>,
    /// `Best tuning, algorithm, X, protocol, Y` (every rank, per decision).
    best: Tally,
    /// `[Func: ]N Bytes -> Algo X proto Y ...` (rank 0 only, per planned task).
    planned: Tally,
    /// The same lines per (collective, bytes, algorithm, protocol, channels).
    tuning: BTreeMap<TuningKey, u64>,
}

impl Facts {
    /// Counts `memo`'s repeats as `Scanner::planned_tuning` counts a line: into the planned
    /// tally and the line's TUNING row (when the table had room for it).
    fn count_repeats(&mut self, memo: &PlannedMemo) {
        if memo.repeats == 0 {
            return;
        }
        let (_, _, algorithm, protocol, _) = &memo.key;
        bump(&mut self.planned.algorithms, algorithm, memo.repeats);
        bump(&mut self.planned.protocols, protocol, memo.repeats);
        if let Some(count) = self.tuning.get_mut(&memo.key) {
            *count += memo.repeats;
        }
    }
}

/// What a planned-task line (`planned_tuning`'s message) counted, and how many equal lines came
/// since, not yet counted: nccl-tests plans each of a size's iterations alike, the suite's cases
/// repeat a few calls in turn (ReduceScatter then AllGather), and a training step all-reduces
/// its buckets' sizes in turn, so a repeat is a hash lookup instead of a parse, two name lookups
/// and a table lookup. Repeats are added (`count_repeats`) before a last line without a newline
/// and at the end: counts only add, and a name or row the first line found no room for never
/// finds room later, so each is the same as if every line had been read on its own. The memos
/// are kept beside the facts, not in them, and none is used for a last line without a newline:
/// it changes the facts, and is a partial line, exactly when reading it alone did (one whose
/// names and row found the tallies and the table full changes nothing).
#[derive(Debug)]
struct PlannedMemo {
    key: TuningKey,
    repeats: u64,
}

struct Scanner<'f> {
    file: &'f str,
    ccl: memmem::Finder<'static>,
    info: memmem::Finder<'static>,
    /// Where ` NCCL INFO ` was in the last INFO line: the next line of the same thread has it
    /// at the same place, which a fixed-size compare confirms without a search.
    info_at: usize,
    /// The tails of recent INFO lines' prefixes from their `host:pid:tid [dev]` word on (the
    /// whole prefix when it names no host), at most `TAILS`: a prefix ending in one of them has
    /// a host already noted, whatever timestamp or tag comes first (threads alternate).
    tails: Vec<Vec<u8>>,
    /// The planned-task lines counted, by message, each with its repeats since
    /// (`planned_tuning`).
    planned_memos: LineMemo<PlannedMemo>,
    /// GRAPH lines read whole that add nothing when they come again but the transport they
    /// counted (one per channel).
    graph_memo: GraphMemo,
    /// The transport the last connection counted (for `graph_memo`).
    counted_transport: Option<String>,
    /// The `[nranks=N]` value of the last COLL line that had one.
    last_nranks: Option<u64>,
    /// That line's `[nranks=N]` and the byte after it, and where it began counted from the
    /// message's end: COLL lines of one communicator end alike, so a line with the same bytes
    /// there has the same count, and `call_nranks` looks no further.
    nranks_token: NranksToken,
    /// Messages displaced by another thread's line written into theirs (`h:1:1 [6] NCCL INFO
    /// h:1:2 [7] NCCL INFO Ring ..`): each comes later as a line of its own with no prefix.
    orphans: u32,
    lines: u64,
    warnings: Vec<LogLine>,
    warning_count: u64,
    partials: Vec<LogLine>,
    partial_count: u64,
    /// A reader found the message it read cut (`mark_partial`): `dispatch` keeps it.
    partial_seen: bool,
    facts: Facts,
}

impl<'f> Scanner<'f> {
    fn new(file: &'f str) -> Self {
        Scanner {
            file,
            ccl: memmem::Finder::new(b"CCL "),
            info: memmem::Finder::new(INFO_MARKER),
            info_at: usize::MAX,
            tails: Vec::new(),
            planned_memos: LineMemo::default(),
            graph_memo: GraphMemo::default(),
            counted_transport: None,
            last_nranks: None,
            nranks_token: NranksToken::default(),
            orphans: 0,
            lines: 0,
            warnings: Vec::new(),
            warning_count: 0,
            partials: Vec::new(),
            partial_count: 0,
            partial_seen: false,
            facts: Facts::default(),
        }
    }

    /// One line; `ended` is false for a last line with no newline, which may be cut: when it
    /// would change the facts it is a partial line instead.
    fn line(&mut self, raw: &[u8], ended: bool) {
        self.lines += 1;
        let line = raw.strip_suffix(b"\r").unwrap_or(raw);
        if ended {
            return self.read(line);
        }
        self.forget_planned();
        let before = self.facts.clone();
        let partials = self.partial_count;
        self.read(line);
        if self.facts != before && self.partial_count == partials {
            self.facts = before;
            self.partial(line);
        }
    }

    fn read(&mut self, line: &[u8]) {
        if line.get(self.info_at..).and_then(<[u8]>::first_chunk) == Some(INFO_MARKER) {
            let (prefix, message) = line.split_at(self.info_at);
            return self.info(prefix, &message[INFO_MARKER.len()..]);
        }
        match nccl_line::marker(line, &self.ccl) {
            Marker::Info { prefix_end, message_at } => {
                if line.get(prefix_end..).and_then(<[u8]>::first_chunk) == Some(INFO_MARKER) {
                    self.info_at = prefix_end;
                }
                self.info(&line[..prefix_end], &line[message_at..]);
            }
            Marker::Warn => {
                // A log of WARN lines only (a failed init) still names its hosts. NCCL puts the
                // source position after the device: `h:1:2 [0] misc/socket.cc:500 NCCL WARN`.
                let prefix = memmem::find(line, b"NCCL WARN").map_or(&line[..0], |at| &line[..at]);
                let host = nccl_line::host_word(prefix)
                    .or_else(|| memchr::memrchr(b']', prefix).and_then(|end| nccl_line::host_word(&prefix[..=end])));
                if let Some((_, host, _)) = host {
                    insert_capped(&mut self.facts.hosts, host);
                }
                self.warn(line);
            }
            Marker::Version(at) => insert_first_word(&mut self.facts.versions, &line[at..]),
            Marker::None if self.orphans > 0 => {
                let message = nccl_line::trim_message(line.trim_ascii_start());
                if [&b"Ring "[..], b"Channel ", b"Tree"].iter().any(|head| message.starts_with(head)) {
                    self.orphans -= 1;
                    self.dispatch(&[], message);
                }
            }
            Marker::None => {}
        }
    }

    fn info(&mut self, prefix: &[u8], message: &[u8]) {
        if !self.tails.iter().any(|tail| same_tail(prefix, tail)) {
            self.note_host(prefix);
        }
        if self.known_call(message) {
            return;
        }
        if let Some(inner) = self.info.find(message) {
            // Another thread's line ran into this one: this line's message, if any, then the
            // other's prefix (from its `host:pid:tid` word) and message.
            let (before, rest) = message.split_at(inner);
            // The other line's prefix starts as far before its host word as this line's does
            // (a launcher's timestamp or tag).
            let lead = nccl_line::host_word(prefix).map_or(0, |(at, _, _)| at);
            let other_at = nccl_line::host_word(before).map_or(before.len(), |(at, _, _)| at.saturating_sub(lead));
            let (own, other) = before.split_at(other_at);
            if own.trim_ascii().is_empty() {
                // This line's message was displaced: it comes later, on a line of its own.
                self.orphans = self.orphans.saturating_add(1);
            } else {
                self.info(prefix, own);
            }
            return self.info(other, &rest[INFO_MARKER.len()..]);
        }
        self.dispatch(prefix, nccl_line::trim_message(message));
    }

    fn note_host(&mut self, prefix: &[u8]) {
        let tail = match nccl_line::host_word(prefix) {
            Some((word_at, host, _)) => {
                insert_capped(&mut self.facts.hosts, host);
                &prefix[word_at..]
            }
            None => prefix,
        };
        if self.tails.len() == TAILS {
            self.tails.remove(0);
        }
        self.tails.push(tail.to_vec());
    }

    fn dispatch(&mut self, prefix: &[u8], message: &[u8]) {
        match message.first() {
            Some(b'A'..=b'Z') => self.upper(prefix, message),
            Some(b'a'..=b'z') => self.lower(prefix, message),
            Some(b'0'..=b'9') => self.numeric(message),
            _ => {}
        }
        if std::mem::take(&mut self.partial_seen) {
            self.partial(message);
        }
    }

    /// COLL calls first (the hot path), then GRAPH/INIT lines, picked by their first word
    /// before any text conversion.
    fn upper(&mut self, prefix: &[u8], message: &[u8]) {
        if message.starts_with(b"NET/") {
            return self.net(prefix, message);
        }
        if self.call_or_planned(message) {
            return;
        }
        let Some(space) = memchr::memchr(b' ', message) else {
            return;
        };
        let (word, rest) = message.split_at(space);
        let repeat = GraphMemo::key(word, rest);
        if let Some(counted) = repeat.and_then(|key| self.graph_memo.seen(key)) {
            if let Some(transport) = counted {
                bump(&mut self.facts.transports, transport, 1);
            }
            return;
        }
        let handler: fn(&mut Self, &str) = match word {
            b"Channel" | b"CollNet" | b"Coll" => Self::channel,
            b"Ring" => Self::ring,
            b"Tree" => Self::tree,
            b"Trees" => Self::trees,
            b"Pattern" => Self::pattern,
            b"NCCL" | b"RCCL" => Self::version,
            b"Using" => Self::network,
            b"Best" => Self::best_tuning,
            b"NVLS" => Self::nvls,
            b"Connected" => Self::connected,
            b"P2P" => Self::p2p_plugin,
            b"Initialized" => Self::initialized,
            b"NCCL_PXN_DISABLE" => Self::pxn_setting,
            _ => return,
        };
        handler(self, lossy(rest).trim());
        let counted = self.counted_transport.take();
        if let Some(key) = repeat.filter(|_| !self.partial_seen) {
            self.graph_memo.remember(key, counted.as_deref());
        }
    }

    /// `Ring 00 : 7 -> 0 -> 1` (previous -> this rank -> next), or a connection as NCCL 2.3-2.6
    /// printed them (`Ring 00 : 3[3] -> 2[2] via P2P/IPC`).
    fn ring(&mut self, rest: &str) {
        let Some((_, order)) = rest.split_once(':') else {
            return self.mark_partial();
        };
        match nccl_line::ring_line(order) {
            RingLine::Order(order) => insert_capped(&mut self.facts.rings, order),
            RingLine::Connection(transport) => self.transport(transport),
            RingLine::Partial => self.mark_partial(),
        }
    }

    /// `Tree 0 : -1 -> 0 -> 1/-1/-1` (parent -> this rank -> children), kept in the `Trees`
    /// line's order `1/-1/-1->0->-1` so that a tree both lines print is one fact.
    fn tree(&mut self, rest: &str) {
        let tree = rest.split_once(':').and_then(|(_, tree)| nccl_line::tree_item(tree));
        match tree {
            Some(tree) => insert_capped(&mut self.facts.trees, &tree),
            None => self.mark_partial(),
        }
    }

    /// `Trees [0] 1/-1/-1->0->-1 [1] ...` in every era's form (see `nccl_line::trees`).
    fn trees(&mut self, rest: &str) {
        if let (_, Some(nranks)) = nccl_line::split_comm(rest) {
            insert_capped(&mut self.facts.nranks, &nranks);
        }
        for tree in nccl_line::trees(rest) {
            insert_capped(&mut self.facts.trees, &tree);
        }
    }

    fn pattern(&mut self, rest: &str) {
        let patterns = &mut self.facts.patterns;
        if let Some(pattern) = parse_pattern(rest) {
            if !patterns.contains(&pattern) && patterns.len() < MAX_DISTINCT {
                patterns.push(pattern);
            }
        }
    }

    /// `NCCL version 2.28.9+cuda13.0` as an INFO message; RCCL's `RCCL version :
    /// 2.27.7-HEAD:29e1567` too.
    fn version(&mut self, rest: &str) {
        if let Some(version) = rest.strip_prefix("version ") {
            let version = version.trim_start();
            let version = version.strip_prefix(':').unwrap_or(version);
            insert_first_word(&mut self.facts.versions, version.as_bytes());
        }
    }

    /// `Using network IB`; 2.3's `Using internal Network IB` (no plugin).
    fn network(&mut self, rest: &str) {
        let network = match rest.strip_prefix("internal Network ") {
            Some(network) => {
                insert_capped(&mut self.facts.plugins, "internal");
                network
            }
            None => match rest.strip_prefix("network ") {
                Some(network) => network,
                None => return,
            },
        };
        insert_capped(&mut self.facts.networks, network.trim());
    }

    /// `NET/IB : Using [0]mlx5_0:1/IB ...`, `NET/IB : GPU Direct RDMA Enabled for HCA 0 ...`,
    /// and the net plugin lines (`NET/Plugin ...`, `NET/OFI Using aws-ofi-nccl ...`).
    fn net(&mut self, prefix: &[u8], message: &[u8]) {
        let message = lossy(message);
        let message = message.trim();
        if let Some(plugin) = nccl_line::net_plugin(message) {
            insert_capped(&mut self.facts.plugins, &plugin);
        } else if message == "NET/IB : No device found." {
            self.facts.ib_missing = true;
        } else if let Some((net, line)) = nccl_net::parse(message) {
            let host = nccl_line::host_and_pid(prefix).map_or("", |(host, _)| host);
            nccl_net::apply(&mut self.facts.nics, host, net, line);
        }
    }

    /// `P2P plugin IBext_v8`: the net plugin of HPC-X's nccl-rdma-sharp-plugins.
    fn p2p_plugin(&mut self, rest: &str) {
        self.plugin_line("P2P", rest);
    }

    /// `Initialized NET plugin Socket` (NCCL 2.23+, after `NET/Plugin: Could not find:
    /// libnccl-net.so`).
    fn initialized(&mut self, rest: &str) {
        self.plugin_line("Initialized", rest);
    }

    /// The net plugin a message starting with `word` names (`nccl_line::net_plugin`).
    fn plugin_line(&mut self, word: &str, rest: &str) {
        if let Some(plugin) = nccl_line::net_plugin(&format!("{word} {rest}")) {
            insert_capped(&mut self.facts.plugins, &plugin);
        }
    }

    /// `NVLS multicast support is [not ]available on dev N`, `NVLS Head ..`, `NVLS comm ..`.
    fn nvls(&mut self, rest: &str) {
        let available = !rest.starts_with("multicast support is not available");
        self.facts.nvls = self.facts.nvls.max(Some(available));
    }

    /// `Connected NVLS` / `Connected NVLS tree`.
    fn connected(&mut self, rest: &str) {
        if rest.starts_with("NVLS") {
            self.facts.nvls = Some(true);
        }
    }

    /// `NCCL_PXN_DISABLE set by environment to 1`.
    fn pxn_setting(&mut self, rest: &str) {
        if rest.strip_prefix("set by environment to ").is_some_and(|v| v.trim_end_matches('.') == "1") {
            self.facts.pxn = self.facts.pxn.max(Some(false));
        }
    }

    /// `Best tuning, algorithm, RING, protocol, SIMPLE`.
    fn best_tuning(&mut self, rest: &str) {
        let Some(rest) = rest.strip_prefix("tuning, algorithm, ") else {
            return;
        };
        if let [algorithm, "protocol", protocol, ..] = *rest.split(", ").collect::<Vec<_>>() {
            self.facts.best.add(algorithm, protocol);
        }
    }

    /// `AllReduce: opCount ...` (a COLL call) or `AllReduce: 4096 Bytes -> Algo RING proto
    /// SIMPLE ...` (a planned task, 2.21+). False for anything else.
    fn call_or_planned(&mut self, message: &[u8]) -> bool {
        let name_length = message.iter().take(40).take_while(|b| b.is_ascii_alphanumeric()).count();
        let (name, rest) = message.split_at(name_length);
        if name.is_empty() || rest.first() != Some(&b':') {
            return false;
        }
        if rest.starts_with(b": opCount ") {
            self.new_call(name);
            self.call_nranks(message);
            return true;
        }
        match rest.get(2..) {
            Some(tuning) if tuning.first().is_some_and(u8::is_ascii_digit) => {
                self.planned_tuning(Some(name), tuning, message);
                true
            }
            _ => false,
        }
    }

    /// Counts `message` when it is a call of a kind already seen: one masked 16-byte compare
    /// per kind (logs hold few) instead of a scan and a lookup.
    fn known_call(&mut self, message: &[u8]) -> bool {
        let known = self.facts.calls.iter_mut().find(|kind| {
            let length = kind.name.len();
            kind.word.is_some()
                && head_word(message, length) == kind.word
                && message.get(length..).is_some_and(|r| r.starts_with(b": opCount "))
        });
        match known {
            Some(kind) => {
                kind.count += 1;
                self.call_nranks(message);
                true
            }
            None => false,
        }
    }

    /// The `[nranks=16]` near a COLL line's end (its last `[`: no scan of the line), unless
    /// the line has the last one read at the same place (`nranks_token`).
    fn call_nranks(&mut self, message: &[u8]) {
        if self.nranks_token.is_at_end_of(message) {
            return;
        }
        let Some(open) = memchr::memrchr(b'[', message) else {
            return;
        };
        let Some(digits) = message[open..].strip_prefix(b"[nranks=") else {
            return;
        };
        let end = digits.iter().position(|b| !b.is_ascii_digit()).unwrap_or(digits.len());
        let Some(nranks) = decimal(&digits[..end]) else {
            return;
        };
        let token_end = (open + b"[nranks=".len() + end + 1).min(message.len());
        self.nranks_token = NranksToken::of(&message[open..token_end], message.len() - open);
        if self.last_nranks != Some(nranks) {
            self.last_nranks = Some(nranks);
            insert_capped(&mut self.facts.nranks, &nranks);
        }
    }

    /// The first call of a kind, or one `known_call` cannot match (a name over 16 bytes, a
    /// message under 16).
    fn new_call(&mut self, name: &[u8]) {
        let calls = &mut self.facts.calls;
        if let Some(kind) = calls.iter_mut().find(|k| k.name == name) {
            kind.count += 1;
        } else if calls.len() < MAX_DISTINCT {
            let word = name_word(name);
            calls.push(CallKind { name: name.to_vec(), word, count: 1 });
        }
    }

    /// `N Bytes -> Algo X proto Y ...`: names (2.24+: `... channel{Lo..Hi}={0..31}`) or
    /// numbers (<= 2.23: `... time T`); `collective` is the `AllReduce: ` prefix (2.23+).
    fn planned_tuning(&mut self, collective: Option<&[u8]>, raw: &[u8], message: &[u8]) {
        if let Some(memo) = self.planned_memos.get_mut(message) {
            memo.repeats += 1;
            return;
        }
        let text = lossy(raw);
        let Some((bytes, rest)) = text.split_once(" Bytes -> Algo ") else {
            return;
        };
        let Ok(bytes) = bytes.trim().parse::<u64>() else {
            return;
        };
        let words: Vec<&str> = rest.split_whitespace().collect();
        let [algorithm, "proto", protocol, ..] = *words else {
            return self.mark_partial();
        };
        self.facts.planned.add(algorithm, protocol);
        let channels = words.iter().find_map(|w| channel_span(w));
        let key = (
            collective.map(|c| lossy(c).into_owned()),
            bytes,
            algorithm_name(algorithm).to_string(),
            protocol_name(protocol).to_string(),
            channels,
        );
        let tuning = &mut self.facts.tuning;
        if let Some(count) = tuning.get_mut(&key) {
            *count += 1;
        } else if tuning.len() < MAX_DISTINCT {
            tuning.insert(key.clone(), 1);
        }
        self.planned_memos.insert(message, PlannedMemo { key, repeats: 0 });
    }

    /// Counts the repeats of every remembered planned line (`PlannedMemo`) and forgets them.
    fn forget_planned(&mut self) {
        for memo in self.planned_memos.drain() {
            self.facts.count_repeats(&memo);
        }
    }

    /// `Channel 00/64 : 0 1 2` (channel count), a connection (`Channel 00/0 : 0[0] -> 1[1]
    /// via P2P/...`, `Channel 00 : 0[6000] -> 1[7000] via P2P/direct pointer`), or a CollNet
    /// one (`CollNet 00/0 : 0 [send] via COLLNET/...`, `Channel 00/0 : 0[0] via COLLNET/..`).
    fn channel(&mut self, rest: &str) {
        let Some((label, peers)) = rest.split_once(':') else {
            return self.mark_partial();
        };
        if let (_, Some(nranks)) = nccl_line::split_comm(peers) {
            insert_capped(&mut self.facts.nranks, &nranks);
        }
        if let Some((_, via)) = peers.split_once(" via ") {
            return match nccl_line::transport(via) {
                Some(transport) => self.transport(transport),
                None => self.mark_partial(),
            };
        }
        let total = label.split_once('/').and_then(|(_, n)| n.trim().parse::<u64>().ok());
        let listing = !peers.contains('>') && !peers.contains('[') && !peers.trim_end().ends_with("via");
        match total {
            Some(total) if total > 0 && listing => insert_capped(&mut self.facts.channel_counts, &total),
            _ => self.mark_partial(),
        }
    }

    /// Counts a connection's transport; its net is the network, `COLLNET/..` means CollNet,
    /// a proxy rank means PXN.
    fn transport(&mut self, transport: Transport<'_>) {
        bump(&mut self.facts.transports, transport.name, 1);
        self.counted_transport = Some(transport.name.to_string());
        if let Some(net) = transport.net {
            insert_capped(&mut self.facts.networks, net);
        }
        if transport.collnet {
            self.facts.collnet = Some(true);
        }
        if transport.pxn {
            self.facts.pxn = Some(true);
        }
    }

    fn lower(&mut self, prefix: &[u8], message: &[u8]) {
        if let Some(rest) = message.strip_prefix(b"cudaDriverVersion ") {
            insert_first_word(&mut self.facts.drivers, rest);
        } else if message.starts_with(b"comm ") || message.starts_with(b"nccl") {
            let message = message.trim_ascii_end();
            let state = if message.ends_with(b" - Init START") {
                InitState::Start
            } else if message.ends_with(b" - Init COMPLETE") {
                InitState::Complete
            } else {
                return self.topology(&lossy(message));
            };
            self.communicator(&lossy(prefix), &lossy(message), state);
        }
    }

    /// `comm 0x.. rank 6 nRanks 16 nNodes 2 localRanks 8 localRank 6 MNNVL 0` (2.12+).
    fn topology(&mut self, message: &str) {
        for (key, set) in [
            ("nRanks", &mut self.facts.nranks),
            ("nNodes", &mut self.facts.nnodes),
            ("localRanks", &mut self.facts.local_ranks),
        ] {
            if let Some(value) = nccl_line::key_number(message, key) {
                insert_capped(set, &value);
            }
        }
    }

    /// `64 coll channels, 0 nvls channels, ...` summaries and `N Bytes -> Algo 1 proto 2 time
    /// T` (2.19-2.20).
    fn numeric(&mut self, message: &[u8]) {
        let text = lossy(message);
        if text.contains(" coll channels") {
            let nvls =
                text.split(", ").find_map(|part| part.strip_suffix(" nvls channels")?.trim().parse::<u64>().ok());
            if let Some(nvls) = nvls {
                self.facts.nvls = self.facts.nvls.max(Some(nvls > 0));
            }
            insert_capped(&mut self.facts.summaries, text.trim());
        } else if text.contains(" Bytes -> Algo ") {
            self.planned_tuning(None, message, message);
        }
    }

    fn communicator(&mut self, prefix: &str, message: &str, state: InitState) {
        let Some(fields) = CommFields::parse(message) else {
            return;
        };
        insert_capped(&mut self.facts.nranks, &fields.nranks);
        let (host, pid) = nccl_line::host_and_pid(prefix.as_bytes()).unwrap_or_default();
        let key = (host.to_string(), pid.to_string(), fields.pointer.clone());
        let facts = &mut self.facts;
        let open = facts.open_comms.get(&key).copied();
        let pending = open.filter(|&i| facts.communicators.get(i).is_some_and(|c| !c.init_complete));
        match (state, pending) {
            (InitState::Complete, Some(index)) => {
                if let Some(comm) = facts.communicators.get_mut(index) {
                    fields.fill(comm);
                    comm.init_complete = true;
                }
            }
            _ => {
                let mut comm = CommunicatorInfo {
                    comm_id: String::new(),
                    rank: fields.rank,
                    nranks: fields.nranks,
                    cuda_dev: None,
                    bus_id: None,
                    host: Some(host.to_string()).filter(|h| !h.is_empty()),
                    init_complete: state == InitState::Complete,
                };
                fields.fill(&mut comm);
                facts.open_comms.insert(key, facts.communicators.len());
                facts.communicators.push(comm);
            }
        }
    }

    fn warn(&mut self, line: &[u8]) {
        self.warning_count += 1;
        keep_line(&mut self.warnings, self.file, self.lines, line);
    }

    /// A line that states a fact only partly: counted and kept (the first 20), not read.
    fn partial(&mut self, line: &[u8]) {
        self.partial_count += 1;
        keep_line(&mut self.partials, self.file, self.lines, line);
    }

    fn mark_partial(&mut self) {
        self.partial_seen = true;
    }

    fn finish(mut self, bytes: u64) -> NcclLogFacts {
        self.forget_planned();
        let f = self.facts;
        let files_by_host = f.hosts.into_iter().map(|host| (host, vec![self.file.to_string()])).collect();
        let mut communicators = f.communicators;
        communicators.sort();
        communicators.dedup();
        let mut graph_patterns = f.patterns;
        sort_patterns(&mut graph_patterns);
        let mut collective_calls = BTreeMap::new();
        for kind in f.calls {
            bump(&mut collective_calls, &lossy(&kind.name), kind.count);
        }
        let tally = if f.best.is_empty() { f.planned } else { f.best };
        let mut networks = f.networks;
        if networks.is_empty() && f.ib_missing && f.nics.iter().any(|nic| nic.net == "Socket") {
            networks.insert("Socket".to_string());
        }
        NcclLogFacts {
            nccl_versions: f.versions.into_iter().collect(),
            cuda_driver_versions: f.drivers.into_iter().collect(),
            communicators,
            nranks: f.nranks.into_iter().collect(),
            nnodes: f.nnodes.into_iter().collect(),
            local_ranks: f.local_ranks.into_iter().collect(),
            networks: networks.into_iter().collect(),
            net_plugins: f.plugins.into_iter().collect(),
            nvls: f.nvls,
            collnet: f.collnet,
            pxn: f.pxn,
            nics: f.nics,
            files_by_host,
            channel_counts: f.channel_counts.into_iter().collect(),
            channel_summaries: f.summaries.into_iter().collect(),
            rings: f.rings.into_iter().collect(),
            trees: f.trees.into_iter().collect(),
            graph_patterns,
            transports: f.transports,
            collective_calls,
            algorithms: tally.algorithms,
            protocols: tally.protocols,
            tuning: f.tuning.into_iter().map(tuning_choice).collect(),
            warnings: self.warnings,
            warning_count: self.warning_count,
            partial_lines: self.partials,
            partial_line_count: self.partial_count,
            lines: self.lines,
            bytes,
        }
    }
}

/// Whether `prefix` ends with `tail` at a word boundary (the whole prefix, or a blank before
/// it): then it names the host `tail` named (timestamps and tags before it may differ).
fn same_tail(prefix: &[u8], tail: &[u8]) -> bool {
    let Some(before) = prefix.len().checked_sub(tail.len()) else {
        return false;
    };
    same_bytes(&prefix[before..], tail) && (before == 0 || prefix[before - 1].is_ascii_whitespace())
}

/// The value of ASCII decimal `digits` (`None` when empty or over `u64::MAX`), as
/// `str::parse::<u64>` gives it, without the UTF-8 check: read on every COLL line.
fn decimal(digits: &[u8]) -> Option<u64> {
    if digits.is_empty() {
        return None;
    }
    digits.iter().try_fold(0u64, |n, d| n.checked_mul(10)?.checked_add(u64::from(d.wrapping_sub(b'0'))))
}

/// `a == b`, eight bytes at a time in line: for the 20-40 bytes of a prefix's tail, checked on
/// every INFO line, a `memcmp` call cost more than the comparison (about 2 % of a one-thread
/// build: BENCHMARKS.md, "Stop 35").
fn same_bytes(a: &[u8], b: &[u8]) -> bool {
    if a.len() != b.len() {
        return false;
    }
    let (mut a8, mut b8) = (a.chunks_exact(8), b.chunks_exact(8));
    let word = |w: &[u8]| u64::from_ne_bytes(w.try_into().unwrap_or_default());
    a8.by_ref().zip(b8.by_ref()).all(|(x, y)| word(x) == word(y))
        && a8.remainder().iter().zip(b8.remainder()).all(|(x, y)| x == y)
}

/// Keeps `line` (1-based `number`) of `file` while fewer than `MAX_WARNINGS` (the readers' one
/// cap) are kept; `NCCL WARN` and partial lines are all counted by the caller.
fn keep_line(kept: &mut Vec<LogLine>, file: &str, number: u64, line: &[u8]) {
    if kept.len() < MAX_WARNINGS {
        kept.push(LogLine { file: file.to_string(), line: number, text: lossy(line).trim().to_string() });
    }
}

#[derive(Debug, Default)]
struct CommFields {
    pointer: String,
    rank: u64,
    nranks: u64,
    cuda_dev: Option<u64>,
    bus_id: Option<String>,
    comm_id: Option<String>,
}

impl CommFields {
    fn parse(message: &str) -> Option<CommFields> {
        let mut fields = CommFields::default();
        let (mut rank, mut nranks) = (None, None);
        let tokens: Vec<&str> = message.split_whitespace().take_while(|t| *t != "-").collect();
        for pair in tokens.windows(2) {
            let [key, value] = pair else { continue };
            match *key {
                "comm" => fields.pointer = value.to_string(),
                "rank" => rank = value.parse().ok(),
                "nranks" | "nRanks" => nranks = value.parse().ok(),
                "cudaDev" => fields.cuda_dev = value.parse().ok(),
                "busId" => fields.bus_id = Some(value.to_string()),
                "commId" => fields.comm_id = Some(value.to_string()),
                _ => {}
            }
        }
        fields.rank = rank?;
        fields.nranks = nranks?;
        Some(fields)
    }

    fn fill(&self, comm: &mut CommunicatorInfo) {
        if let Some(comm_id) = &self.comm_id {
            comm.comm_id = comm_id.clone();
        }
        comm.cuda_dev = comm.cuda_dev.or(self.cuda_dev);
        if comm.bus_id.is_none() {
            comm.bus_id = self.bus_id.clone();
        }
    }
}

/// `Pattern 4, crossNic 0, nChannels 32, bw 60.000000/60.000000, type LOC/PIX, sameChannels 1`
/// (`speed` for `bw` before 2.12).
fn parse_pattern(text: &str) -> Option<GraphPattern> {
    let mut parts = text.split(',').map(str::trim);
    let mut pattern = GraphPattern {
        pattern: parts.next()?.parse().ok()?,
        cross_nic: 0,
        n_channels: 0,
        bw_intra: 0.0,
        bw_inter: 0.0,
        type_intra: String::new(),
        type_inter: String::new(),
        same_channels: 0,
    };
    for part in parts {
        let Some((key, value)) = part.split_once(' ') else {
            continue;
        };
        match key {
            "crossNic" => pattern.cross_nic = value.parse().ok()?,
            "nChannels" => pattern.n_channels = value.parse().ok()?,
            "sameChannels" => pattern.same_channels = value.parse().ok()?,
            "bw" | "speed" => {
                let (intra, inter) = value.split_once('/')?;
                pattern.bw_intra = intra.parse().ok()?;
                pattern.bw_inter = inter.parse().ok()?;
            }
            "type" => {
                let (intra, inter) = value.split_once('/')?;
                pattern.type_intra = intra.to_string();
                pattern.type_inter = inter.to_string();
            }
            _ => {}
        }
    }
    Some(pattern)
}

/// `channel{Lo..Hi}={0..31}` -> 32 channels.
fn channel_span(word: &str) -> Option<u64> {
    let span = word.strip_prefix("channel{Lo..Hi}={")?.strip_suffix('}')?;
    let (lo, hi) = span.split_once("..")?;
    let (lo, hi) = (lo.parse::<u64>().ok()?, hi.parse::<u64>().ok()?);
    hi.checked_sub(lo)?.checked_add(1)
}

fn tuning_choice(((collective, bytes, algorithm, protocol, channels), count): (TuningKey, u64)) -> TuningChoice {
    TuningChoice { collective, bytes, algorithm, protocol, channels, count }
}

/// Adds the rows of `other` to `into` (counts of equal keys add), sorted, capped.
fn merge_tuning(into: &mut Vec<TuningChoice>, other: Vec<TuningChoice>) {
    let mut table: BTreeMap<TuningKey, u64> = BTreeMap::new();
    for row in into.drain(..).chain(other) {
        let key = (row.collective, row.bytes, row.algorithm, row.protocol, row.channels);
        let count = table.entry(key).or_default();
        *count = count.saturating_add(row.count);
    }
    into.extend(table.into_iter().take(MAX_DISTINCT).map(tuning_choice));
}

/// NCCL's own names (`ncclAlgoStr`) for the `TREE`/`RING`/... and `0`/`1`/... of TUNING lines.
fn algorithm_name(raw: &str) -> &str {
    match raw {
        "0" | "TREE" | "Tree" => "Tree",
        "1" | "RING" | "Ring" => "Ring",
        "2" | "COLLNET_DIRECT" | "CollNetDirect" => "CollNetDirect",
        "3" | "COLLNET_CHAIN" | "CollNetChain" => "CollNetChain",
        "4" | "NVLS" => "NVLS",
        "5" | "NVLS_TREE" | "NVLSTree" => "NVLSTree",
        "6" | "PAT" => "PAT",
        other => other,
    }
}

/// NCCL's own names (`ncclProtoStr`) for the `SIMPLE`/`LL`/... and `0`/`1`/`2` of TUNING lines.
fn protocol_name(raw: &str) -> &str {
    match raw {
        "0" | "LL" => "LL",
        "1" | "LL128" => "LL128",
        "2" | "SIMPLE" | "Simple" => "Simple",
        other => other,
    }
}

fn lossy(bytes: &[u8]) -> Cow<'_, str> {
    String::from_utf8_lossy(bytes)
}

fn insert_first_word(set: &mut BTreeSet<String>, bytes: &[u8]) {
    if let Some(word) = lossy(bytes).split_whitespace().next() {
        insert_capped(set, word);
    }
}

/// Adds `value` unless present; when full, keeps the `MAX_DISTINCT` smallest values.
fn insert_capped<T: Ord + ?Sized + ToOwned<Owned = O>, O: Ord + std::borrow::Borrow<T>>(
    set: &mut BTreeSet<O>,
    value: &T,
) {
    if set.contains(value) {
        return;
    }
    if set.len() >= MAX_DISTINCT {
        match set.last() {
            Some(last) if value < last.borrow() => {
                set.pop_last();
            }
            _ => return,
        }
    }
    set.insert(value.to_owned());
}

/// Adds `by` to `key`; a new key is only added while the map has room.
fn bump(map: &mut BTreeMap<String, u64>, key: &str, by: u64) {
    if let Some(count) = map.get_mut(key) {
        *count = count.saturating_add(by);
    } else if map.len() < MAX_DISTINCT {
        map.insert(key.to_string(), by);
    }
}

fn union<T: Ord + Clone>(into: &mut Vec<T>, other: Vec<T>) {
    let mut set: BTreeSet<T> = BTreeSet::new();
    for value in into.drain(..).chain(other) {
        insert_capped(&mut set, &value);
    }
    into.extend(set);
}

fn sort_patterns(patterns: &mut Vec<GraphPattern>) {
    patterns.sort_by(pattern_order);
    patterns.dedup_by(|a, b| pattern_order(a, b) == Ordering::Equal);
    patterns.truncate(MAX_DISTINCT);
}

fn pattern_order(a: &GraphPattern, b: &GraphPattern) -> Ordering {
    (a.pattern, a.cross_nic, a.n_channels, a.same_channels)
        .cmp(&(b.pattern, b.cross_nic, b.n_channels, b.same_channels))
        .then(a.bw_intra.total_cmp(&b.bw_intra))
        .then(a.bw_inter.total_cmp(&b.bw_inter))
        .then_with(|| (&a.type_intra, &a.type_inter).cmp(&(&b.type_intra, &b.type_inter)))
}

#[cfg(test)]
mod tests {
    use super::*;
    use flate2::read::GzDecoder;
    use std::io::{BufReader, Read};

    const REAL_GZ: &[u8] = include_bytes!("../../../tests/data/nccl/nccl_debug_all_reduce_perf.log.gz");
    const RANK0: &[u8] = include_bytes!("../../../tests/data/nccl/rank0_multinode.log");
    const RANK1: &[u8] = include_bytes!("../../../tests/data/nccl/rank1_multinode.log");
    const OLD: &[u8] = include_bytes!("../../../tests/data/nccl/nccl_2_19_tuning.log");

    /// `decimal` reads what `str::parse::<u64>` reads, and nothing it refuses.
    #[test]
    fn decimal_is_parse_of_ascii_digits() {
        for text in ["", "0", "7", "0016", "18446744073709551615", "18446744073709551616", "99999999999999999999"] {
            assert_eq!(decimal(text.as_bytes()), text.parse::<u64>().ok(), "{text:?}");
        }
    }

    /// `same_bytes` is `==`: every length from 0 to 40 (whole words and a remainder), equal,
    /// one byte changed at each place, and one byte longer.
    #[test]
    fn same_bytes_is_slice_equality() {
        let text: Vec<u8> = (0..41u8).map(|i| b'a' + i % 26).collect();
        for len in 0..=40 {
            let a = &text[..len];
            assert!(same_bytes(a, &text[..len]));
            assert!(!same_bytes(a, &text[..len + 1]) && !same_bytes(&text[..len + 1], a));
            for at in 0..len {
                let mut b = a.to_vec();
                b[at] ^= 0x20;
                assert!(!same_bytes(a, &b), "length {len}, byte {at}");
            }
        }
    }

    fn real_log() -> Vec<u8> {
        let mut text = Vec::new();
        GzDecoder::new(REAL_GZ).read_to_end(&mut text).expect("gzip fixture");
        text
    }

    fn scan(bytes: &[u8], file: &str) -> NcclLogFacts {
        scan_log(bytes, file).expect("in-memory read")
    }

    #[test]
    fn real_nccl_2_28_log() {
        let text = real_log();
        let facts = scan(&text, "raw/nccl/nccl_tests_g1_vm_1217.log");
        assert_eq!((facts.lines, facts.bytes), (5357, 948_190));
        assert_eq!(facts.nccl_versions, ["2.28.9+cuda13.0"]);
        assert_eq!(facts.cuda_driver_versions, ["13000"]);
        assert_eq!(facts.networks, ["Socket"]);
        let comm = CommunicatorInfo {
            comm_id: "0xc229bbe201f77fd2".to_string(),
            rank: 0,
            nranks: 1,
            cuda_dev: Some(0),
            bus_id: Some("60".to_string()),
            host: Some("vm".to_string()),
            init_complete: true,
        };
        assert_eq!(facts.communicators, [comm]);
        assert_eq!(facts.channel_counts, [64]);
        assert_eq!(
            facts.channel_summaries,
            ["64 coll channels, 64 collnet channels, 0 nvls channels, 64 p2p channels, 64 p2p channels per peer"]
        );
        assert_eq!(facts.rings, ["0 -> 0 -> 0"]);
        assert_eq!(facts.trees, ["-1/-1/-1->0->-1"], "the Tree and Trees lines of one tree are one fact");
        let patterns: Vec<_> = facts.graph_patterns.iter().map(|p| (p.pattern, p.n_channels)).collect();
        assert_eq!(patterns, [(3, 32), (4, 32)]);
        let four = &facts.graph_patterns[1];
        assert_eq!((four.bw_intra, four.bw_inter, four.same_channels), (60.0, 60.0, 1));
        assert_eq!((four.type_intra.as_str(), four.type_inter.as_str()), ("LOC", "PIX"));
        assert!(facts.transports.is_empty(), "one GPU: no connections");
        assert_eq!(facts.collective_calls, BTreeMap::from([("AllReduce".to_string(), 5056)]));
        assert!(facts.algorithms.is_empty() && facts.protocols.is_empty(), "no TUNING subsystem");
        assert_eq!((facts.warning_count, facts.warnings.len()), (0, 0));
    }

    #[test]
    fn result_does_not_depend_on_buffer_size() {
        let text = real_log();
        let whole = scan(&text, "a.log");
        // `scan_log_lines` cuts lines out of the reader's own buffer (`scan_log` would wrap
        // it in a larger one, which reads past a small buffer).
        for capacity in [61, 190, 4096] {
            let reader = BufReader::with_capacity(capacity, text.as_slice());
            assert_eq!(scan_log_lines(reader, "a.log").expect("read"), whole, "capacity {capacity}");
        }
        let small = scan(RANK0, "b.log");
        for capacity in [1, 2, 3] {
            let reader = BufReader::with_capacity(capacity, RANK0);
            assert_eq!(scan_log_lines(reader, "b.log").expect("read"), small, "capacity {capacity}");
        }
    }

    #[test]
    fn multi_node_rank_logs_and_merge() {
        let rank0 = scan(RANK0, "raw/nccl/world2_node1_100.log");
        assert_eq!(rank0.nccl_versions, ["2.22.3+cuda12.6"]);
        assert_eq!(rank0.networks, ["IB"]);
        assert_eq!(rank0.channel_counts, [2]);
        assert_eq!(rank0.rings, ["1 -> 0 -> 1"]);
        assert_eq!(rank0.trees, ["-1/-1/-1->0->1", "1/-1/-1->0->-1"]);
        let transports = BTreeMap::from([("NET/IB/0/GDRDMA".to_string(), 4), ("P2P/CUMEM/read".to_string(), 1)]);
        assert_eq!(rank0.transports, transports);
        assert_eq!(rank0.algorithms, BTreeMap::from([("Ring".to_string(), 2), ("Tree".to_string(), 1)]));
        assert_eq!(rank0.protocols, BTreeMap::from([("LL".to_string(), 1), ("Simple".to_string(), 2)]));
        let calls = BTreeMap::from([("AllGather".to_string(), 1), ("AllReduce".to_string(), 3)]);
        assert_eq!(rank0.collective_calls, calls);
        assert_eq!(rank0.warning_count, 1);
        let warn = &rank0.warnings[0];
        assert_eq!((warn.file.as_str(), warn.line), ("raw/nccl/world2_node1_100.log", 24));
        assert!(warn.text.ends_with("NCCL WARN NET/IB : Got completion from peer 10.0.0.2<4711> with status=12"));
        let comm = &rank0.communicators[0];
        assert_eq!((comm.host.as_deref(), comm.rank, comm.nranks), (Some("node1"), 0, 2));
        assert!(comm.init_complete);
        let nic =
            NicInfo { host: "node1".into(), net: "IB".into(), index: 0, device: "mlx5_0:1/IB".into(), gdr: Some(true) };
        assert_eq!(rank0.nics, [nic]);
        let files = BTreeMap::from([("node1".to_string(), vec!["raw/nccl/world2_node1_100.log".to_string()])]);
        assert_eq!(rank0.files_by_host, files);

        let rank1 = scan(RANK1, "raw/nccl/world2_node2_200.log");
        assert_eq!(rank1.communicators.len(), 2, "the second communicator never completed");
        assert_eq!(rank1.communicators[0].comm_id, "0x1111", "sorted by comm id");
        assert!(!rank1.communicators[0].init_complete);
        assert!(rank1.communicators[1].init_complete);
        assert_eq!(rank1.warning_count, 25);
        assert_eq!(rank1.warnings.len(), MAX_WARNINGS);
        assert_eq!(rank1.nccl_versions, ["2.22.3+cuda12.6"], "host-less VERSION line");

        let mut merged = rank1.clone();
        merge(&mut merged, rank0.clone());
        let mut other_order = rank0.clone();
        merge(&mut other_order, rank1.clone());
        assert_eq!(merged, other_order, "merge order does not matter");
        assert_eq!(merged.communicators.len(), 3);
        let ranks: Vec<_> = merged.communicators.iter().map(|c| (c.comm_id.as_str(), c.rank)).collect();
        assert_eq!(ranks, [("0x1111", 1), ("0x7aa3c9", 0), ("0x7aa3c9", 1)]);
        assert_eq!(merged.collective_calls.get("AllReduce"), Some(&6));
        assert_eq!(merged.transports.get("NET/IB/0/GDRDMA"), Some(&8));
        assert_eq!(merged.warning_count, 26);
        assert_eq!(merged.warnings.len(), MAX_WARNINGS);
        assert_eq!(merged.warnings[0].file, "raw/nccl/world2_node1_100.log");
        assert_eq!(merged.lines, rank0.lines + rank1.lines);
        let hosts: Vec<(&str, usize)> = merged.files_by_host.iter().map(|(h, f)| (h.as_str(), f.len())).collect();
        assert_eq!(hosts, [("node1", 1), ("node2", 1)]);
        assert_eq!(merged.nics.len(), 1, "rank 1 logged no NET/IB Using line");
        assert_eq!(merged.bytes, (RANK0.len() + RANK1.len()) as u64);
    }

    fn choice(
        collective: Option<&str>,
        bytes: u64,
        algo: &str,
        proto: &str,
        channels: Option<u64>,
        count: u64,
    ) -> TuningChoice {
        TuningChoice {
            collective: collective.map(str::to_string),
            bytes,
            algorithm: algo.to_string(),
            protocol: proto.to_string(),
            channels,
            count,
        }
    }

    /// Planned lines remembered (`PlannedMemo`) count as the same lines read one by one.
    #[test]
    fn repeated_planned_lines_count_as_lines_read_alone() {
        // Two collectives plan the same text; the log ends in a repeat without a newline.
        let all_reduce = "h:1:1 [0] NCCL INFO AllReduce: 8192 Bytes -> Algo RING proto LL channel{Lo..Hi}={0..31}";
        let all_gather = "h:1:1 [0] NCCL INFO AllGather: 8192 Bytes -> Algo RING proto LL channel{Lo..Hi}={0..31}";
        let log = [all_reduce, all_reduce, all_gather, all_reduce, all_reduce, all_reduce, all_reduce].join("\n");
        let facts = scan(log.as_bytes(), "t.log");
        assert_eq!(
            facts.tuning,
            [
                choice(Some("AllGather"), 8192, "Ring", "LL", Some(32), 1),
                choice(Some("AllReduce"), 8192, "Ring", "LL", Some(32), 5),
            ]
        );
        assert_eq!(facts.algorithms, BTreeMap::from([("Ring".to_string(), 6)]));
        assert_eq!(facts.protocols, BTreeMap::from([("LL".to_string(), 6)]));
        assert_eq!((facts.partial_line_count, facts.lines), (1, 7));
        // Repeats and then a cut last line that reads nothing: not a partial line.
        let cut = "h:1:1 [0] NCCL INFO AllReduce: 8192 Bytes -> Al";
        let facts = scan([all_reduce, all_reduce, all_reduce, cut].join("\n").as_bytes(), "t.log");
        assert_eq!(facts.tuning, [choice(Some("AllReduce"), 8192, "Ring", "LL", Some(32), 3)]);
        assert_eq!((facts.partial_line_count, facts.lines), (0, 4));
        // Five lines in turn, each twice (a training step's buckets): all remembered, their
        // repeats counted at the end.
        let sizes = [1, 2, 3, 4, 5];
        let line = |size: u64| format!("h:1:1 [0] NCCL INFO AllReduce: {size} Bytes -> Algo TREE proto LL\n");
        let log: String = (0..3).flat_map(|_| sizes).flat_map(|size| [line(size), line(size)]).collect();
        let facts = scan(log.as_bytes(), "t.log");
        let rows: Vec<_> = sizes.iter().map(|&size| choice(Some("AllReduce"), size, "Tree", "LL", None, 6)).collect();
        assert_eq!(facts.tuning, rows);
        assert_eq!(facts.algorithms, BTreeMap::from([("Tree".to_string(), 30)]));
        // More distinct lines than are remembered: the later ones are read each time.
        let many = crate::ingest::parse::line_memo::LINES + 10;
        let log: String = (0..2).flat_map(|_| 0..many).map(|size| line(size as u64)).collect();
        let facts = scan(log.as_bytes(), "t.log");
        assert_eq!(facts.algorithms, BTreeMap::from([("Tree".to_string(), 2 * many as u64)]));
        assert!(facts.tuning.len() == MAX_DISTINCT && facts.tuning.iter().all(|t| t.count == 2));
        // Tallies and table full: a new planned line as a last line without a newline changes
        // nothing, so it is no partial line (remembering it is not a change).
        let full: String = (0..MAX_DISTINCT)
            .map(|i| format!("h:1:1 [0] NCCL INFO AllReduce: {i} Bytes -> Algo A{i} proto P{i}\n"))
            .collect();
        let facts = scan(format!("{full}h:1:1 [0] NCCL INFO AllReduce: 9 Bytes -> Algo X proto Y").as_bytes(), "t.log");
        assert_eq!((facts.tuning.len(), facts.partial_line_count), (MAX_DISTINCT, 0));
    }

    /// GRAPH lines alike but for the channel number are read once (`GraphMemo`); every fact
    /// is the one reading each line alone gives.
    #[test]
    fn repeated_graph_lines_read_as_lines_read_alone() {
        let lines = [
            "h:1:1 [0] NCCL INFO Ring 00 : 3 -> 0 -> 1",
            "h:1:1 [0] NCCL INFO Ring 01 : 3 -> 0 -> 1",
            "h:1:1 [0] NCCL INFO Ring 02 : 2 -> 0 -> 1",
            // Connections count each time.
            "h:1:1 [0] NCCL INFO Ring 00 : 3[3] -> 2[2] via P2P/IPC",
            "h:1:1 [0] NCCL INFO Ring 01 : 3[3] -> 2[2] via P2P/IPC",
            "h:1:1 [0] NCCL INFO Channel 00/0 : 0[0] -> 1[1] via NET/IB/0",
            "h:1:1 [0] NCCL INFO Channel 01/0 : 0[0] -> 1[1] via NET/IB/0",
            "h:1:1 [0] NCCL INFO Channel 02 : 0[0] -> 1[1] via NET/IB/0",
            // The total after the channel number is read.
            "h:1:1 [0] NCCL INFO Channel 00/32 : 0 1 2 3",
            "h:1:1 [0] NCCL INFO Channel 01/32 : 0 1 2 3",
            "h:1:1 [0] NCCL INFO Channel 01/16 : 0 1 2 3",
            // ` via` that is no connection: a listing, whose total is read.
            "h:1:1 [0] NCCL INFO Channel 00/64 : 0 1 viax",
            "h:1:1 [0] NCCL INFO Channel 00/8 : 0 1 viax",
            "h:1:1 [0] NCCL INFO Channel 00/x : 0 1 viax",
            // A cut line is a partial line each time.
            "h:1:1 [0] NCCL INFO Tree 0 : -1 -> 0",
            "h:1:1 [0] NCCL INFO Tree 1 : -1 -> 0",
            "h:1:1 [0] NCCL INFO Tree 0 : -1 -> 0 -> 1/-1/-1",
            "h:1:1 [0] NCCL INFO Tree 16 : -1 -> 0 -> 1/-1/-1",
            "h:1:1 [0] NCCL INFO Trees [0] 1/-1/-1->0->-1 comm 0x1 nRanks 04 busId 1000",
            "h:1:1 [0] NCCL INFO Trees [0] 1/-1/-1->0->-1 comm 0x1 nRanks 04 busId 1000",
            // A repeat as a last line without a newline adds nothing: no partial line.
            "h:1:1 [0] NCCL INFO Ring 05 : 3 -> 0 -> 1",
        ];
        let facts = scan(lines.join("\n").as_bytes(), "t.log");
        assert_eq!(facts.rings, ["2 -> 0 -> 1", "3 -> 0 -> 1"]);
        let transports = BTreeMap::from([("NET/IB/0".to_string(), 3), ("P2P/IPC".to_string(), 2)]);
        assert_eq!(facts.transports, transports);
        assert_eq!(facts.networks, ["IB"]);
        assert_eq!(facts.channel_counts, [8, 16, 32, 64]);
        assert_eq!(facts.trees, ["1/-1/-1->0->-1"]);
        assert_eq!(facts.nranks, [4]);
        assert_eq!((facts.partial_line_count, facts.lines), (3, lines.len() as u64));
        // A connection as a last line without a newline counts: a partial line, not a count.
        let cut = [&lines[..], &["h:1:1 [0] NCCL INFO Channel 03/0 : 0[0] -> 1[1] via NET/IB/0"]].concat();
        let facts = scan(cut.join("\n").as_bytes(), "t.log");
        assert_eq!((facts.transports, facts.partial_line_count), (transports, 4));
    }

    /// One line per format, as NCCL's `src/enqueue.cc` prints it: `"%ld Bytes -> Algo %d proto
    /// %d time %f"` (<= 2.22), `"%s: %ld Bytes -> Algo %d proto %d time %f"` (2.23) and
    /// `"%s: %ld Bytes -> Algo %s proto %s channel{Lo..Hi}={%d..%d}"` (2.24+).
    #[test]
    fn tuning_table_from_every_format() {
        let log = b"h:1:1 [0] NCCL INFO 1048576 Bytes -> Algo 1 proto 2 time 36.123456\n\
h:1:1 [0] NCCL INFO 1048576 Bytes -> Algo 1 proto 2 time 35.000000\n\
h:1:1 [0] NCCL INFO AllGather: 65536 Bytes -> Algo 0 proto 1 time 12.500000\n\
h:1:1 [0] NCCL INFO AllReduce: 33554432 Bytes -> Algo RING proto SIMPLE channel{Lo..Hi}={0..31}\n\
h:1:1 [0] NCCL INFO AllReduce: 33554432 Bytes -> Algo RING proto SIMPLE channel{Lo..Hi}={0..31}\n\
h:1:1 [0] NCCL INFO ReduceScatter: 4096 Bytes -> Algo NVLS_TREE proto LL128 channel{Lo..Hi}={2..3}\n\
h:1:1 [0] NCCL INFO AllReduce: x Bytes -> Algo RING proto SIMPLE channel{Lo..Hi}={0..31}\n";
        let facts = scan(log, "t.log");
        assert_eq!(
            facts.tuning,
            [
                choice(None, 1048576, "Ring", "Simple", None, 2),
                choice(Some("AllGather"), 65536, "Tree", "LL128", None, 1),
                choice(Some("AllReduce"), 33554432, "Ring", "Simple", Some(32), 2),
                choice(Some("ReduceScatter"), 4096, "NVLSTree", "LL128", Some(2), 1),
            ]
        );
        let mut merged = facts.clone();
        merge(&mut merged, facts);
        assert_eq!(merged.tuning[2].count, 4);
        assert_eq!(merged.tuning.len(), 4);
    }

    #[test]
    fn older_numeric_tuning_lines_and_init_without_comm_id() {
        let facts = scan(OLD, "old.log");
        assert_eq!(facts.algorithms, BTreeMap::from([("Ring".to_string(), 2), ("Tree".to_string(), 1)]));
        assert_eq!(facts.protocols, BTreeMap::from([("LL".to_string(), 1), ("Simple".to_string(), 2)]));
        assert_eq!(
            facts.transports,
            BTreeMap::from([("P2P/IPC".to_string(), 2), ("SHM/direct/direct".to_string(), 1)])
        );
        assert_eq!(facts.channel_counts, [2]);
        let pattern = &facts.graph_patterns[0];
        assert_eq!((pattern.pattern, pattern.bw_intra, pattern.type_intra.as_str()), (4, 20.0, "NVL"));
        let comm = &facts.communicators[0];
        assert_eq!((comm.comm_id.as_str(), comm.bus_id.as_deref(), comm.init_complete), ("", Some("1000"), true));
        assert_eq!(facts.collective_calls.get("Broadcast"), Some(&2));
    }

    /// A COLL line's count is read from its last `[`, each line on its own: lines that end as
    /// the last one did are not read again (`NranksToken`), and none of them hides a count.
    #[test]
    fn every_coll_lines_count_is_read() {
        let call = |comm: &str, end: &str| {
            format!("h:1:1 [0] NCCL INFO AllReduce: opCount 0 sendbuff 0x1 recvbuff 0x2 count 4 datatype 7 op 0 root 0 comm {comm} {end}\n")
        };
        let log: String = [
            call("0x3", "[nranks=2] stream 0x4"),
            call("0x3", "[nranks=2] stream 0x4"),
            call("0x3", "[nranks=4] stream 0x4"),
            call("0x5", "[nranks=24] stream 0x4"),
            call("0x5", "[nranks=2] stream [0x4]"),
            call("0x6", "[nranks=8]"),
            call("0x7", "[nranks=8]"),
            call("0x9", "[nranks=81"),
            call("0x6", "[nranks=80]"),
            call("0x6", "[nranks=9"),
            call("0x3", "[nranks=2] stream 0x4"),
            call("0x8", "[nranks=16] stream 0x4"),
        ]
        .concat();
        assert_eq!(scan(log.as_bytes(), "raw/nccl/coll.log").nranks, [2, 4, 8, 9, 16, 24, 80, 81]);
    }

    /// What `NranksToken` spares: after one COLL line is read, a line that ends the same way is
    /// known to hold the same count (the search is skipped); one whose count or place differs
    /// is not, and no token is kept before a count was read.
    #[test]
    fn a_coll_line_that_ends_as_the_last_one_is_not_searched_again() {
        let line = |comm: &str, end: &str| format!("AllReduce: opCount 1 count 4 comm {comm} {end}");
        let mut scanner = Scanner::new("raw/nccl/coll.log");
        let first = line("0x3", "[nranks=2] stream 0x4");
        assert!(!scanner.nranks_token.is_at_end_of(first.as_bytes()), "nothing read yet");
        scanner.call_nranks(first.as_bytes());
        assert_eq!(scanner.last_nranks, Some(2));
        let token = scanner.nranks_token;
        assert!(token.is_at_end_of(first.as_bytes()));
        assert!(token.is_at_end_of(line("0x5", "[nranks=2] stream 0x6").as_bytes()), "another comm, same end");
        for other in
            [line("0x3", "[nranks=4] stream 0x4"), line("0x3", "[nranks=2] stream 0x44"), line("0x3", "[nranks=2]")]
        {
            assert!(!token.is_at_end_of(other.as_bytes()), "{other}");
        }
    }

    /// Every shape issue 25 lists, one line each, under several launchers' prefixes.
    #[test]
    fn every_era_and_launcher_prefix() {
        let log = "[1,0]<stdout>:NCCL version 2.5.6+cuda10.2\n\
| RCCL version 2.6.4+hip3.5 |\n\
[1,0]<stdout>:node1:1:1 [0] NCCL INFO Ring 00 : 26[2] -> 24[0] via P2P/IPC\n\
0: node2:2:2 [0] NCCL INFO Ring 02 : 35 -> 34 [send] via NET/Socket/0\n\
[3] node3:3:3 [1] NCCL INFO Ring 01 : 0[1b000] -> 7[41000] via direct shared memory\n\
<cluster_name>:4:4 [0] NCCL INFO Channel 00/0 : 1[0] -> 0[0] [receive] via NET/AWS Libfabric/0\n\
2024-01-01 10:00:00,000 - INFO - node1:1:1 [0] NCCL INFO Channel 00 : 0[0] -> 1[1] via P2P/direct pointer\n\
node1:1:1 [0] NCCL INFO Channel 01/0 : 0[0] -> 8[0] [send] via NET/IB/1(3)/GDRDMA\n\
node1:1:1 [0] NCCL INFO CollNet 00/0 : 0 [send] via COLLNET/SHARP/0\n\
node1:1:1 [0] NCCL INFO Trees [0] 1/-1/-1->0->7|7->0->1/-1/-1 [1] 22->23->-1/-1/-1\n\
node1:1:1 [0] NCCL INFO Trees [0] 2/-1/-1->3->1 comm 0xaa09f20 nRanks 08 busId ce000\n\
node1:1:1 [0] NCCL INFO comm 0x1 rank 6 nRanks 16 nNodes 2 localRanks 8 localRank 6 MNNVL 0\n\
node1:1:1 [0] NCCL INFO AllReduce: opCount 0 sendbuff 0x1 recvbuff 0x2 count 4 datatype 7 op 0 root 0 comm 0x3 [nranks=32] stream 0x4\n\
node1:1:1 [0] NCCL INFO NVLS multicast support is available on dev 0\n\
node1:1:1 [0] NCCL INFO NET/Plugin: Loaded net plugin AWS Libfabric (v6)\n\
node1:1:1 [0] NCCL INFO Ring 10 : 7 ->\n\
node1:1:1 [0] NCCL INFO Channel 04/0 : 7[3] -> 0[0] [receive] via P2P/CUME";
        let facts = scan(log.as_bytes(), "raw/nccl/merged.log");
        assert_eq!(facts.nccl_versions, ["2.5.6+cuda10.2", "2.6.4+hip3.5"]);
        let hosts: Vec<&str> = facts.files_by_host.keys().map(String::as_str).collect();
        assert_eq!(hosts, ["<cluster_name>", "node1", "node2", "node3"]);
        assert!(facts.rings.is_empty(), "connection lines are not rings: {:?}", facts.rings);
        let transports: Vec<&str> = facts.transports.keys().map(String::as_str).collect();
        assert_eq!(
            transports,
            [
                "COLLNET/SHARP/0",
                "NET/AWS Libfabric/0",
                "NET/IB/1(3)/GDRDMA",
                "NET/Socket/0",
                "P2P/IPC",
                "P2P/direct pointer",
                "direct shared memory"
            ]
        );
        assert_eq!(facts.networks, ["AWS Libfabric", "IB", "Socket"]);
        assert_eq!(facts.trees, ["-1/-1/-1->23->22", "1/-1/-1->0->7", "2/-1/-1->3->1"]);
        assert_eq!(
            (facts.nranks.as_slice(), facts.nnodes.as_slice(), facts.local_ranks.as_slice()),
            (&[8, 16, 32][..], &[2][..], &[8][..])
        );
        assert_eq!((facts.nvls, facts.collnet, facts.pxn), (Some(true), Some(true), Some(true)));
        assert_eq!(facts.net_plugins, ["AWS Libfabric"]);
        assert_eq!(facts.partial_line_count, 2, "{:?}", facts.partial_lines);
        let partial: Vec<(u64, &str)> = facts.partial_lines.iter().map(|l| (l.line, l.text.as_str())).collect();
        assert_eq!(partial[0], (16, "Ring 10 : 7 ->"));
        assert_eq!(partial[1].0, 17, "a last line with no newline that would state a fact");
        assert!(!facts.transports.contains_key("P2P/CUME"));
    }

    /// Two threads' lines run into one; the displaced message comes later on its own.
    #[test]
    fn interleaved_lines_keep_both_messages() {
        let log = b"h:1:1 [6] NCCL INFO h:1:2 [7] NCCL INFO Ring 04 : 7[7] -> 3[3] via P2P/IPC\n\
h:1:3 [1] NCCL INFO Ring 04 : 1[1] -> 0[0] via P2P/IPC\n\
Ring 04 : 6[6] -> 5[5] via P2P/IPC\n\
Ring 04 : 5[5] -> 4[4] via P2P/IPC\n";
        let facts = scan(log, "i.log");
        assert_eq!(facts.transports.get("P2P/IPC"), Some(&3), "one displaced message, one unmarked line read");
    }

    /// A message that another thread's line ran into is read, and then the other's.
    #[test]
    fn a_message_run_into_by_another_line_is_read_too() {
        let log = b"h:1:1 [5] NCCL INFO NET/IB : Using [0]mlx5_bond_0:1/RoCE [RO]; OOB eth0:10.0.0.1<0>      \
h:1:2 [7] NCCL INFO Using network IB\nh:1:3 [1] NCCL INFO Ring 04 : 1 -> 0 -> 3\n";
        let facts = scan(log, "g.log");
        let nics: Vec<(&str, &str)> = facts.nics.iter().map(|n| (n.host.as_str(), n.device.as_str())).collect();
        assert_eq!(nics, [("h", "mlx5_bond_0:1/RoCE")]);
        assert_eq!(facts.networks, ["IB"]);
        assert_eq!(facts.rings, ["1 -> 0 -> 3"], "no orphan was expected: the ring line is read as it is");
        assert_eq!(facts.files_by_host.keys().collect::<Vec<_>>(), ["h"]);
    }

    #[test]
    fn warn_lines_name_their_hosts_too() {
        let log = b"2026-01-02 10:00:00 gpu-a:10:20 [0] enqueue.cc:100 NCCL WARN Cuda failure 'out of memory'\n\
[rank1]: gpu-b:11:21 [1] misc/socket.cc:500 NCCL WARN socketStartConnect: Connect to 10.0.0.1 failed\n\
gpu-c:12:22 [2] NCCL WARN no source position\nNCCL WARN no prefix\n";
        let facts = scan(log, "w.log");
        assert_eq!(facts.files_by_host.keys().collect::<Vec<_>>(), ["gpu-a", "gpu-b", "gpu-c"]);
        assert_eq!(facts.warning_count, 4);
    }

    /// A glued line's other prefix may carry a launcher's timestamp: it is not this line's
    /// message, so a displaced message is still expected.
    #[test]
    fn a_timestamped_line_run_into_is_split_before_its_timestamp() {
        let log = b"12:00:00 h:1:1 [6] NCCL INFO 12:00:01 h:1:2 [7] NCCL INFO Ring 04 : 7[7] -> 3[3] via P2P/IPC\n\
Ring 04 : 6[6] -> 5[5] via P2P/IPC\n";
        assert_eq!(scan(log, "t.log").transports.get("P2P/IPC"), Some(&2));
    }

    /// RCCL's banner has a colon; NCCL 2.23+ names its built-in network by `Initialized NET
    /// plugin` after finding no `libnccl-net.so`.
    #[test]
    fn rccl_banners_and_the_built_in_net_plugin_of_2_23() {
        let log = b"node [0] NCCL INFO RCCL version : 2.27.7-HEAD:29e1567\n\
h:1:1 [0] NCCL INFO NET/Plugin: Could not find: libnccl-net.so\n\
h:1:1 [0] NCCL INFO Failed to initialize NET plugin IB\n\
h:1:1 [0] NCCL INFO Initialized NET plugin Socket\n";
        let facts = scan(log, "r.log");
        assert_eq!(facts.nccl_versions, ["2.27.7-HEAD:29e1567"]);
        assert_eq!(facts.net_plugins, ["internal"]);
        let plugin = scan(b"h:1:1 [0] NCCL INFO Initialized NET plugin Libfabric\n", "o.log");
        assert_eq!(plugin.net_plugins, ["Libfabric"]);
        assert!(scan(b"h:1:1 [0] NCCL INFO Initialized NET plugin \n", "e.log").net_plugins.is_empty());
    }

    /// `NET/IB : No device found.` then a socket device: the network of a log before 2.6.
    #[test]
    fn socket_fallback_names_the_network() {
        let log = b"h:1:1 [0] NCCL INFO NET/IB : No device found.\nh:1:1 [0] NCCL INFO NET/Socket : Using [0]lo:127.0.0.1<0>\n";
        assert_eq!(scan(log, "s.log").networks, ["Socket"]);
        assert!(scan(&log[..47], "s.log").networks.is_empty());
    }

    #[test]
    fn caps_and_odd_bytes_never_panic() {
        let mut log = Vec::new();
        for i in 0..(MAX_DISTINCT + 10) {
            log.extend_from_slice(format!("h:1:1 [0] NCCL INFO Ring {i:02} : {i} -> 0 -> 1\n").as_bytes());
            log.extend_from_slice(format!("h:1:1 [0] NCCL INFO Op{i}: opCount 0\n").as_bytes());
        }
        log.extend_from_slice(b"h:1:1 [0] NCCL INFO \xff\xfe: opCount\n\xff NCCL WARN \xc3\n NCCL INFO\n NCCL \n");
        log.extend_from_slice(b"h:1:1 [0] NCCL INFO comm 0x1 rank x nranks - Init COMPLETE\r\n");
        let facts = scan(&log, "odd.log");
        assert_eq!(facts.rings.len(), MAX_DISTINCT);
        assert_eq!(facts.rings.first().map(String::as_str), Some("0 -> 0 -> 1"));
        assert_eq!(facts.collective_calls.len(), MAX_DISTINCT);
        assert_eq!(facts.warning_count, 1);
        assert_eq!(facts.warnings[0].text, "\u{fffd} NCCL WARN \u{fffd}");
        assert!(facts.communicators.is_empty());
        assert_eq!(facts.lines, 2 * (MAX_DISTINCT as u64 + 10) + 5);
        assert_eq!(scan(b"", "empty.log"), NcclLogFacts::default());
    }

    #[test]
    fn a_huge_line_is_cut_and_says_so() {
        let mut log = b"h:1:1 [0] NCCL WARN ".to_vec();
        log.extend(std::iter::repeat_n(b'x', 3 * READ_SIZE));
        log.extend_from_slice(b"\nh:1:1 [0] NCCL WARN short\nh:1:1 [0] NCCL WARN ");
        log.extend(std::iter::repeat_n(b'y', MAX_LINE_BYTES + 5));
        let facts = scan(&log, "raw/nccl/big.log");
        assert_eq!((facts.lines, facts.warning_count), (3, 3));
        let note = std::str::from_utf8(CUT_NOTE).unwrap();
        for warning in [&facts.warnings[0], &facts.warnings[2]] {
            assert_eq!(warning.text.len(), MAX_LINE_BYTES + CUT_NOTE.len(), "{}", &warning.text[..40]);
            assert!(warning.text.ends_with(note));
        }
        assert_eq!(facts.warnings[1].text, "h:1:1 [0] NCCL WARN short");
    }

    /// A line over `MAX_LINE_BYTES` inside one buffer fill is cut too (not only one that
    /// straddles two), and a line of exactly `MAX_LINE_BYTES` is not cut, whole in one fill or
    /// gathered across fills.
    #[test]
    fn a_line_is_cut_only_over_the_limit_wherever_it_lies() {
        let line = |fill: u8, len: usize| {
            let mut line = b"h:1:1 [0] NCCL WARN ".to_vec();
            line.resize(len, fill);
            line
        };
        let mut log = line(b'x', MAX_LINE_BYTES + 5);
        log.push(b'\n');
        log.extend(line(b'y', MAX_LINE_BYTES));
        log.push(b'\n');
        let note = std::str::from_utf8(CUT_NOTE).unwrap();
        for capacity in [READ_SIZE, 4096] {
            let facts = scan_log_lines(BufReader::with_capacity(capacity, log.as_slice()), "w.log").expect("read");
            let texts: Vec<&str> = facts.warnings.iter().map(|w| w.text.as_str()).collect();
            assert_eq!(texts.len(), 2, "capacity {capacity}");
            assert_eq!(texts[0].len(), MAX_LINE_BYTES + CUT_NOTE.len(), "capacity {capacity}");
            assert!(texts[0].ends_with(note), "capacity {capacity}");
            assert_eq!(texts[1].len(), MAX_LINE_BYTES, "capacity {capacity}: not cut");
            assert!(!texts[1].ends_with(note), "capacity {capacity}");
        }
    }

    /// A read interrupted by a signal (`EINTR`) is tried again, not a failure.
    #[test]
    fn an_interrupted_read_is_tried_again() {
        struct Interrupting<'a> {
            text: &'a [u8],
            interrupted: bool,
        }
        impl Read for Interrupting<'_> {
            fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
                if !self.interrupted {
                    self.interrupted = true;
                    return Err(io::Error::from(io::ErrorKind::Interrupted));
                }
                self.text.read(buf)
            }
        }
        let facts = scan_log(BufReader::new(Interrupting { text: RANK0, interrupted: false }), "i.log")
            .expect("an interrupted read is not an error");
        assert_eq!(facts, scan(RANK0, "i.log"));
    }

    /// The fast compare of a COLL line's kind: the first `length` bytes as `name_word` gives
    /// them, whatever follows; every byte of a 16-byte name; nothing for a message under 16.
    #[test]
    fn head_word_is_the_name_word_of_the_first_bytes() {
        let message = b"AllReduce: opCount 5 sendbuff 0x1";
        assert_eq!(head_word(message, 9), name_word(b"AllReduce"));
        assert_ne!(head_word(message, 9), name_word(b"AllReducf"));
        assert_ne!(head_word(message, 10), name_word(b"AllReduce"));
        assert_eq!(head_word(b"AllGatherIntoTen: opCount 1", 16), name_word(b"AllGatherIntoTen"));
        assert_ne!(head_word(b"AllGatherIntoTex: opCount 1", 16), name_word(b"AllGatherIntoTen"));
        assert_eq!(head_word(b"Send: opCount", 4), None, "13 bytes");
        assert_eq!(head_word(b"Send: opCount 10", 4), name_word(b"Send"));
    }

    /// A prefix names the host of a remembered tail when it ends with the tail at a word
    /// boundary: the whole prefix, or after a blank (a timestamp or tag before it).
    #[test]
    fn same_tail_needs_a_word_boundary() {
        let tail = b"host:1:2 [0]";
        assert!(same_tail(b"host:1:2 [0]", tail));
        assert!(same_tail(b"10:00:01 host:1:2 [0]", tail));
        assert!(same_tail(b"[1,0]<stdout>:\thost:1:2 [0]", tail));
        assert!(!same_tail(b"xhost:1:2 [0]", tail), "another host");
        assert!(!same_tail(b"a xhost:1:2 [0]", tail), "another host after a blank");
        assert!(!same_tail(b"host:1:2 [1]", tail));
        assert!(!same_tail(b"st:1:2 [0]", tail), "shorter than the tail");
    }

    /// Two communicators of one process are told apart by their `comm` pointer: the one whose
    /// `Init COMPLETE` comes is complete, the other still pending.
    #[test]
    fn communicators_of_one_process_are_told_apart_by_their_pointer() {
        let log = b"h:1:1 [0] NCCL INFO ncclCommInitRank comm 0xa rank 0 nranks 2 cudaDev 0 busId 1000 commId 0xaa - Init START\n\
h:1:1 [0] NCCL INFO ncclCommInitRank comm 0xb rank 1 nranks 4 cudaDev 0 busId 1000 commId 0xbb - Init START\n\
h:1:1 [0] NCCL INFO ncclCommInitRank comm 0xa rank 0 nranks 2 cudaDev 0 busId 1000 - Init COMPLETE\n";
        let facts = scan(log, "c.log");
        let comms: Vec<(&str, u64, bool)> =
            facts.communicators.iter().map(|c| (c.comm_id.as_str(), c.nranks, c.init_complete)).collect();
        assert_eq!(comms, [("0xaa", 2, true), ("0xbb", 4, false)]);
    }

    /// Every field of a graph pattern line is read, `crossNic` too.
    #[test]
    fn a_graph_pattern_reads_every_field() {
        let log = b"h:1:1 [0] NCCL INFO Pattern 4, crossNic 1, nChannels 2, bw 20.000000/10.000000, type NVL/PIX, sameChannels 0\n";
        let facts = scan(log, "p.log");
        let p = &facts.graph_patterns[0];
        assert_eq!((p.pattern, p.cross_nic, p.n_channels, p.same_channels), (4, 1, 2, 0));
        assert_eq!((p.bw_intra, p.bw_inter), (20.0, 10.0));
        assert_eq!((p.type_intra.as_str(), p.type_inter.as_str()), ("NVL", "PIX"));
    }

    /// A full list keeps the `MAX_DISTINCT` smallest values in sort order, whatever order they
    /// came in (not the first or the last seen).
    #[test]
    fn a_full_list_keeps_the_smallest_values() {
        // Ascending, each later value is beyond the kept ones (left out); descending, each is
        // below them (the largest kept goes).
        let values: Vec<String> = (0..MAX_DISTINCT + 40).map(|i| format!("{i:03} -> 0 -> 1")).collect();
        let mut smallest = values.clone();
        smallest.sort();
        smallest.truncate(MAX_DISTINCT);
        for order in [values.clone(), values.iter().rev().cloned().collect()] {
            let mut set = BTreeSet::new();
            for value in &order {
                insert_capped(&mut set, value.as_str());
            }
            assert_eq!(set.into_iter().collect::<Vec<String>>(), smallest);
        }
    }

    /// Lines of real logs (three fixtures, and the start of a fourth), and the odd lines logs
    /// hold: two threads' lines run into one, a displaced message, a line over the cut, CRLF.
    fn vocabulary() -> Vec<Vec<u8>> {
        let real = real_log();
        let mut lines: Vec<Vec<u8>> = [RANK0, RANK1, OLD, &real[..real.len().min(200_000)]]
            .iter()
            .flat_map(|log| log.split(|b| *b == b'\n').map(<[u8]>::to_vec))
            .collect();
        lines.push(b"h:1:1 [6] NCCL INFO h:1:2 [7] NCCL INFO Ring 00 : 0 -> 1 -> 0".to_vec());
        lines.push(b"h:1:1 [6] NCCL INFO Ring 01 : 1 -> 0 -> 1".to_vec());
        lines.push(b"h:1:1 [6] NCCL INFO AllReduce: opCount 3 sendbuff 0x1 recvbuff 0x2 count 8 datatype 7 op 0 root 0 comm 0x3 [nranks=2] stream 0x4\r".to_vec());
        let mut long = b"h:1:1 [0] NCCL WARN ".to_vec();
        long.resize(MAX_LINE_BYTES + 3, b'z');
        lines.push(long);
        lines
    }

    proptest::proptest! {
        #![proptest_config(proptest::prelude::ProptestConfig::with_cases(64))]
        /// The facts of a log do not depend on how its bytes come in: any buffer size, lines
        /// cut short, lines run together, with or without a last newline.
        #[test]
        fn facts_do_not_depend_on_the_reads(
            picks in proptest::collection::vec((0usize..100_000, 0usize..400, 0u8..16), 0..150),
            capacity in 1usize..700,
        ) {
            let vocabulary = vocabulary();
            let mut log = Vec::new();
            for (index, cut, how) in picks {
                let line = &vocabulary[index % vocabulary.len()];
                // One line in 16 cut short, one in 16 run into the next.
                let end = if how == 0 { cut.min(line.len()) } else { line.len() };
                log.extend_from_slice(&line[..end]);
                if how != 1 {
                    log.push(b'\n');
                }
            }
            let reader = BufReader::with_capacity(capacity, log.as_slice());
            proptest::prop_assert_eq!(scan_log_lines(reader, "p.log").expect("read"), scan(&log, "p.log"));
        }
    }
}
