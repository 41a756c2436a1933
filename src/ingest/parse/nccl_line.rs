//! The pieces of one NCCL_DEBUG line, as text functions for `parse::nccl_log`: where the
//! `NCCL INFO` / `NCCL WARN` / `NCCL version` marker sits after whatever a launcher or a
//! logger put in front (`[1,0]<stdout>:`, srun's `0: `, a `[0]` rank tag, timestamps, Python
//! logging, `> ` quotes, `│ ` table borders), the `host:pid:tid [dev]` of that prefix, and the
//! shapes of the messages that name rings, trees, connections and plugins in every NCCL era
//! (2.3-2.29) and RCCL. Pure; knows nothing of the scanner.

use memchr::memmem;

/// What a line is, found by one search for `CCL ` (the tail of ` NCCL `, `NCCL ` at the start
/// and `RCCL `).
#[derive(Debug, PartialEq, Eq)]
pub(crate) enum Marker {
    /// `... NCCL INFO <message>`: the prefix before the marker, and where the message starts.
    Info { prefix_end: usize, message_at: usize },
    /// `... NCCL WARN ...`.
    Warn,
    /// `NCCL version 2.5.6+cuda10.2` / `RCCL version 2.6.4+hip3.5` anywhere on the line
    /// (after a launcher tag, a `| ` border, ...): the version word.
    Version(usize),
    /// Nothing NCCL said.
    None,
}

/// Finds the first marker of `line` (`finder` searches `CCL `). A marker counts only at the
/// start of the line or after a character that cannot be part of a word.
pub(crate) fn marker(line: &[u8], finder: &memmem::Finder<'_>) -> Marker {
    let mut from = 0;
    while let Some(found) = line.get(from..).and_then(|rest| finder.find(rest)) {
        let at = from + found;
        from = at + 4;
        let Some(letter) = at.checked_sub(1).and_then(|i| line.get(i)) else {
            continue;
        };
        if at.checked_sub(2).and_then(|i| line.get(i)).is_some_and(|b| b.is_ascii_alphanumeric() || *b == b'_') {
            continue;
        }
        let rest = &line[from..];
        match letter {
            b'N' if rest.starts_with(b"INFO ") || rest == b"INFO" => {
                let prefix_end = at.saturating_sub(2);
                return Marker::Info { prefix_end, message_at: (from + 5).min(line.len()) };
            }
            b'N' if rest.starts_with(b"WARN") => return Marker::Warn,
            b'N' | b'R' if rest.starts_with(b"version ") && rest.get(8).is_some_and(u8::is_ascii_digit) => {
                return Marker::Version(from + 8);
            }
            // RCCL 2.26+: `RCCL version : 2.27.7-HEAD:29e1567`.
            b'N' | b'R' if rest.starts_with(b"version : ") && rest.get(10).is_some_and(u8::is_ascii_digit) => {
                return Marker::Version(from + 10);
            }
            _ => {}
        }
    }
    Marker::None
}

/// `message` without what follows it on a line: trailing blanks and a table border (`|`,
/// `│`).
pub(crate) fn trim_message(message: &[u8]) -> &[u8] {
    let mut message = message.trim_ascii_end();
    loop {
        let stripped =
            message.strip_suffix("│".as_bytes()).or_else(|| message.strip_suffix(b"|")).map(<[u8]>::trim_ascii_end);
        match stripped {
            Some(shorter) => message = shorter,
            None => return message,
        }
    }
}

/// `host:pid:tid` of a prefix ending in `host:pid:tid [dev]`, whatever comes before it (an
/// MPI tag glued to the host, `[1,0]<stdout>:host:...`, a torchrun `[default0]:`, a logger's
/// `INFO:root:`). The host is the text between the last `:` or blank before the pid and the
/// pid; placeholders such as `<cluster_name>` are kept as printed.
pub(crate) fn host_and_pid(prefix: &[u8]) -> Option<(&str, &str)> {
    host_word(prefix).map(|(_, host, pid)| (host, pid))
}

/// `host_and_pid` with where the `host:pid:tid` word starts in `prefix`: from there to the end
/// the prefix is the same on every line of one thread, whatever came before it.
pub(crate) fn host_word(prefix: &[u8]) -> Option<(usize, &str, &str)> {
    let prefix = prefix.trim_ascii_end();
    let device_at = memchr::memrchr(b'[', prefix)?;
    let device = prefix.get(device_at + 1..)?.strip_suffix(b"]")?;
    if device.is_empty() || !device.iter().all(u8::is_ascii_digit) {
        return None;
    }
    let before = prefix[..device_at].trim_ascii_end();
    let word_at = before.iter().rposition(|b| b.is_ascii_whitespace()).map_or(0, |i| i + 1);
    let word = std::str::from_utf8(&before[word_at..]).ok()?;
    let mut parts = word.rsplitn(3, ':');
    let tid = parts.next()?;
    let pid = parts.next()?;
    let host = parts.next()?.rsplit(':').next()?;
    let digits = |s: &str| !s.is_empty() && s.bytes().all(|b| b.is_ascii_digit());
    (digits(tid) && digits(pid) && !host.is_empty()).then_some((word_at, host, pid))
}

/// One tree item as NCCL 2.7+ prints it, `children->rank->parent` (`1/-1/-1->0->-1`), from
/// any era's form: that one, 2.4's `parent->rank->children` (`26->25->-1/-1/-1`), or one half
/// of 2.5-2.6's `up|down` pair. `None` for anything else (a cut item).
pub(crate) fn tree_item(item: &str) -> Option<String> {
    let (first, rest) = split_arrow(item)?;
    let (rank, last) = split_arrow(rest)?;
    if split_arrow(last).is_some() {
        return None;
    }
    let (first, rank, last) = (first.trim(), rank.trim(), last.trim());
    let (children, parent) = if first.contains('/') { (first, last) } else { (last, first) };
    let int = |s: &str| s.parse::<i64>().is_ok();
    let children_ok = children.split('/').count() == 3 && children.split('/').all(int);
    (children_ok && int(rank) && int(parent)).then(|| format!("{children}->{rank}->{parent}"))
}

/// `text` split at its first `->`.
fn split_arrow(text: &str) -> Option<(&str, &str)> {
    let at = text.as_bytes().windows(2).position(|pair| pair == b"->")?;
    Some((&text[..at], &text[at + 2..]))
}

/// The trees of a `Trees [0] a [1] b|c ...` line (what follows `Trees`), in `tree_item` form;
/// RCCL's tail (` comm 0x.. nRanks 08 busId ..`) is not part of them. Items that are not
/// trees (the last one, cut by NCCL's 1024-byte line buffer) are left out, and so is an item
/// written as the one before it (every channel of a communicator often has the same tree).
pub(crate) fn trees(rest: &str) -> impl Iterator<Item = String> + '_ {
    let (items, _) = split_comm(rest);
    let mut before = None;
    items
        .split('[')
        .filter_map(|t| t.split_once(']'))
        .flat_map(|(_, item)| item.split('|'))
        .filter(move |item| before.replace(*item) != Some(*item))
        .filter_map(tree_item)
}

/// `text` cut before ` comm 0x..` (RCCL and NCCL 2.12+ append it to some lines), and the
/// `nRanks N` that tail states.
pub(crate) fn split_comm(text: &str) -> (&str, Option<u64>) {
    match text.split_once(" comm ") {
        Some((head, tail)) => (head, key_number(tail, "nRanks")),
        None => (text, None),
    }
}

/// The number after `key` in `text` (`nRanks 08` -> 8).
pub(crate) fn key_number(text: &str, key: &str) -> Option<u64> {
    let mut words = text.split_whitespace();
    words.find(|w| *w == key)?;
    words.next()?.parse().ok()
}

/// What a connection's transport (the text after `via `) says about the network.
#[derive(Debug, PartialEq, Eq)]
pub(crate) struct Transport<'a> {
    /// As printed, whole (`NET/AWS Libfabric/0`, `P2P/direct pointer`, `direct shared memory`).
    pub name: &'a str,
    /// The net of a `NET/<net>/<dev>...` transport (`IB`, `Socket`, `AWS Libfabric`).
    pub net: Option<&'a str>,
    /// A `NET/<net>/<dev>(<proxy rank>)` transport: the send goes through another GPU's NIC
    /// (PXN; NCCL's `net.cc` prints the proxy rank exactly then).
    pub pxn: bool,
    /// A `COLLNET/...` transport.
    pub collnet: bool,
}

/// The transport after ` via ` (`None` when nothing follows `via`: a cut line).
pub(crate) fn transport(via: &str) -> Option<Transport<'_>> {
    let (name, _) = split_comm(via);
    let name = name.trim();
    if name.is_empty() {
        return None;
    }
    let net_path = name.strip_prefix("NET/");
    let net = net_path.and_then(|path| path.split('/').next()).filter(|n| !n.is_empty());
    let pxn = net_path.and_then(|path| path.split('/').nth(1)).is_some_and(|device| {
        device.split_once('(').is_some_and(|(dev, proxy)| {
            let digits = |s: &str| !s.is_empty() && s.bytes().all(|b| b.is_ascii_digit());
            digits(dev) && proxy.strip_suffix(')').is_some_and(digits)
        })
    });
    Some(Transport { name, net, pxn, collnet: name.starts_with("COLLNET/") })
}

/// What a `Ring NN : ...` line (what follows `NN :`) says.
#[derive(Debug, PartialEq, Eq)]
pub(crate) enum RingLine<'a> {
    /// `7 -> 0 -> 1`: previous -> this rank -> next.
    Order(&'a str),
    /// A connection, as 2.3-2.6 printed them on `Ring` lines (`3[3] -> 2[2] via P2P/IPC`,
    /// `4 -> 19 [send] via NET/Socket/0`): its transport.
    Connection(Transport<'a>),
    /// Something the line states only partly (`7 ->`, `2[2] ->`, `... via`).
    Partial,
}

pub(crate) fn ring_line(order: &str) -> RingLine<'_> {
    let order = order.trim();
    if let Some((_, via)) = order.split_once(" via ").or_else(|| order.strip_suffix(" via").map(|o| (o, ""))) {
        return transport(via).map_or(RingLine::Partial, RingLine::Connection);
    }
    let parts: Vec<&str> = order.split("->").map(str::trim).collect();
    if parts.len() >= 2 && parts.iter().all(|p| p.parse::<i64>().is_ok()) {
        RingLine::Order(order)
    } else {
        RingLine::Partial
    }
}

/// The net plugin a `NET/...`, `P2P plugin ...` or `Initialized NET plugin ...` message names:
/// `internal` when NCCL says it found none or initialized its own (2.23+: `Initialized NET
/// plugin IB|Socket`), `aws-ofi-nccl` for AWS's plugin (`NET/OFI Using|Initializing
/// aws-ofi-nccl 1.5.0aws`), else the name NCCL loaded (`Loaded net plugin NCCL RDMA Plugin
/// (v5)` -> `NCCL RDMA Plugin`; `P2P plugin IBext_v8` -> `IBext_v8`; `Initialized NET plugin
/// Libfabric` -> `Libfabric`).
pub(crate) fn net_plugin(message: &str) -> Option<String> {
    if let Some(rest) = message.strip_prefix("P2P plugin ") {
        return rest.split_whitespace().last().map(str::to_string);
    }
    if let Some(name) = message.strip_prefix("Initialized NET plugin ").map(str::trim) {
        let name = if matches!(name, "IB" | "Socket") { "internal" } else { name };
        return (!name.is_empty()).then(|| name.to_string());
    }
    if let Some((_, name)) = message.split_once("Loaded net plugin ") {
        let name = name.rsplit_once(" (v").map_or(name, |(name, _)| name).trim();
        return (!name.is_empty()).then(|| name.to_string());
    }
    let internal = ["No plugin found", "Using internal network plugin", "using internal implementation"];
    if message.starts_with("NET/Plugin") && internal.iter().any(|s| message.contains(s)) {
        return Some("internal".to_string());
    }
    let ofi = message.strip_prefix("NET/OFI ")?;
    (ofi.starts_with("Using aws-ofi-nccl") || ofi.starts_with("Initializing aws-ofi-nccl"))
        .then(|| "aws-ofi-nccl".to_string())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn find(line: &str) -> Marker {
        marker(line.as_bytes(), &memmem::Finder::new(b"CCL "))
    }

    #[test]
    fn markers_after_any_prefix() {
        let info = |prefix_end, message_at| Marker::Info { prefix_end, message_at };
        assert_eq!(find("h:1:2 [0] NCCL INFO Ring 00 : 0 -> 1"), info(9, 20));
        assert_eq!(find("NCCL INFO NVLS multicast support is not available"), info(0, 10));
        assert_eq!(find("[1,0]<stdout>:NCCL version 2.5.6+cuda10.2"), Marker::Version(27));
        assert_eq!(find("RCCL version : 2.27.7-HEAD:29e1567"), Marker::Version(15));
        assert_eq!(find("| NCCL version 2.19.3+cuda12.3 |"), Marker::Version(15));
        assert_eq!(find("RCCL version 2.6.4+hip3.5"), Marker::Version(13));
        assert_eq!(find("h:1:2 [0] include/shm.h:42 NCCL WARN Cuda failure"), Marker::Warn);
        for none in ["export NCCL_DEBUG=INFO", "MYNCCL INFO x", "NCCL version mismatch", "", "CCL "] {
            assert_eq!(find(none), Marker::None, "{none}");
        }
    }

    #[test]
    fn hosts_from_every_launcher_prefix() {
        let cases = [
            ("node1:12:34 [0]", Some(("node1", "12"))),
            ("[1,0]<stdout>:test-nccl-efa-worker-0:21:27 [0]", Some(("test-nccl-efa-worker-0", "21"))),
            ("0: gpu-st-1:7:8 [3]", Some(("gpu-st-1", "7"))),
            ("[0] h100clust-worker-1:227602:227667 [0]", Some(("h100clust-worker-1", "227602"))),
            ("<cluster_name>:919:1150 [0]", Some(("<cluster_name>", "919"))),
            ("2025-11-12 20:41:43,851 - INFO - g340-cd51:4181:4857 [0]", Some(("g340-cd51", "4181"))),
            ("[default0]:node7:1:2 [0]", Some(("node7", "1"))),
            ("│ task-7702-xt59c:72:91 [0]", Some(("task-7702-xt59c", "72"))),
            ("[0]", None),
            ("", None),
            ("host:x:1 [0]", None),
            ("host:1:2 [a]", None),
        ];
        for (prefix, want) in cases {
            assert_eq!(host_and_pid(prefix.as_bytes()), want, "{prefix}");
        }
    }

    #[test]
    fn trees_of_every_era() {
        let got: Vec<String> = trees("[0] 1/-1/-1->0->-1 [1] -1/-1/-1->0->1").collect();
        assert_eq!(got, ["1/-1/-1->0->-1", "-1/-1/-1->0->1"]);
        let alike: Vec<String> =
            trees("[0] 1/-1/-1->0->-1 [1] 1/-1/-1->0->-1 [2] 2/-1/-1->0->-1 [3] 1/-1/-1->0->-1").collect();
        assert_eq!(alike, ["1/-1/-1->0->-1", "2/-1/-1->0->-1", "1/-1/-1->0->-1"]);
        assert_eq!(tree_item(" 1/-1/-1 -> 0 ->-1 "), Some("1/-1/-1->0->-1".to_string()));
        for cut in ["1/-1/-1->0->-1->2", "1/-1/-1->0", "1/-1/-1-->0->-1", "->0->-1", "1/-1/-1->0->"] {
            assert_eq!(tree_item(cut), None, "{cut}");
        }
        let pipe: Vec<String> = trees("[0] 6/12/-1->5->4|4->5->6/12/-1 [1] 5/-1/-1->4->-1|-1->4->5/-1/-1").collect();
        assert_eq!(pipe, ["6/12/-1->5->4", "6/12/-1->5->4", "5/-1/-1->4->-1", "5/-1/-1->4->-1"]);
        assert_eq!(trees("[0] 26->25->-1/-1/-1").collect::<Vec<_>>(), ["-1/-1/-1->25->26"]);
        let rccl: Vec<String> =
            trees("[0] 2/-1/-1->3->1 [1] 1/-1/-1->3->2 comm 0xaa09f20 nRanks 08 busId ce000").collect();
        assert_eq!(rccl, ["2/-1/-1->3->1", "1/-1/-1->3->2"]);
        assert_eq!(trees("[0] 1/-1/-1->0->-1 [1] 1/-1/-").count(), 1, "an item cut by the line buffer");
        assert_eq!(split_comm("x comm 0x1 nRanks 08 busId c"), ("x", Some(8)));
    }

    #[test]
    fn transports_whole_with_their_net() {
        let t = transport("NET/AWS Libfabric/2/GDRDMA comm 0x9bbf3b0 nRanks 4096").unwrap();
        assert_eq!(
            (t.name, t.net, t.pxn, t.collnet),
            ("NET/AWS Libfabric/2/GDRDMA", Some("AWS Libfabric"), false, false)
        );
        assert!(transport("NET/IB/1(3)/GDRDMA").unwrap().pxn);
        assert!(!transport("NET/IB/0/GDRDMA(PCI)").unwrap().pxn);
        // A PXN device is `<index>(<proxy rank>)`, both numbers, neither empty.
        for not_pxn in ["NET/IB/a(3)/GDRDMA", "NET/IB/1(b)/GDRDMA", "NET/IB/(3)/GDRDMA", "NET/IB/1()/GDRDMA"] {
            assert!(!transport(not_pxn).unwrap().pxn, "{not_pxn}");
        }
        assert_eq!(transport("P2P/direct pointer").unwrap().net, None);
        assert!(transport("COLLNET/IB/0/GDRDMA(PCI)").unwrap().collnet);
        assert_eq!(transport("  "), None);
    }

    #[test]
    fn ring_lines_orders_connections_and_cuts() {
        assert_eq!(ring_line(" 7 -> 0 -> 1"), RingLine::Order("7 -> 0 -> 1"));
        let RingLine::Connection(t) = ring_line("4 -> 19 [send] via NET/Socket/0 ") else { panic!() };
        assert_eq!((t.name, t.net), ("NET/Socket/0", Some("Socket")));
        let RingLine::Connection(t) = ring_line("39[7] -> 88[0] via direct shared memory") else { panic!() };
        assert_eq!(t.name, "direct shared memory");
        for cut in ["7 ->", "2[2] ->", "1 -> 2 via", "7"] {
            assert_eq!(ring_line(cut), RingLine::Partial, "{cut}");
        }
    }

    #[test]
    fn plugins_by_name() {
        let cases = [
            ("NET/Plugin : No plugin found (libnccl-net.so), using internal implementation", Some("internal")),
            ("NET/Plugin: Using internal network plugin.", Some("internal")),
            ("NET/Plugin: Loaded net plugin NCCL RDMA Plugin (v5)", Some("NCCL RDMA Plugin")),
            ("NET/Plugin: Loaded net plugin AWS Libfabric (v6)", Some("AWS Libfabric")),
            ("NET/OFI Using aws-ofi-nccl 1.5.0aws", Some("aws-ofi-nccl")),
            ("NET/OFI Initializing aws-ofi-nccl 1.12.1-aws", Some("aws-ofi-nccl")),
            ("P2P plugin IBext_v8", Some("IBext_v8")),
            ("Initialized NET plugin Socket", Some("internal")),
            ("Initialized NET plugin IB", Some("internal")),
            ("Initialized NET plugin Libfabric", Some("Libfabric")),
            ("Initialized NET plugin ", None),
            ("NET/Plugin: Failed to find ncclCollNetPlugin_v5 symbol.", None),
            ("NET/OFI Selected Provider is efa (found 1 nics)", None),
        ];
        for (message, want) in cases {
            assert_eq!(net_plugin(message).as_deref(), want, "{message}");
        }
    }

    #[test]
    fn borders_and_blanks_are_not_the_message() {
        assert_eq!(trim_message("Ring 00 : 0 -> 1 -> 2   │".as_bytes()), b"Ring 00 : 0 -> 1 -> 2");
        assert_eq!(trim_message(b"x | "), b"x");
        assert_eq!(trim_message(b""), b"");
    }

    /// A digit where RCCL's `version : ` puts the version is a version only after those words
    /// (`NCCL operation 12345 ...` has a digit there too), and `version : ` needs a digit
    /// after it.
    #[test]
    fn a_digit_where_the_version_would_be_is_no_version_without_its_words() {
        for none in ["NCCL operation 12345 timed out", "RCCL something 2.27.7", "RCCL version : HEAD"] {
            assert_eq!(find(none), Marker::None, "{none}");
        }
    }
}
