//! The GRAPH lines an NCCL log scanner has read whole and may skip when they come again:
//! `Ring NN : a -> b -> c`, `Tree NN : a -> b -> c/d/e`, `Trees [0] ...` and `Channel NN/M : a
//! b c` add only to sets, so a line whose read part is the same as one already read adds
//! nothing. A connection (`Channel NN/M : 0[0] -> 1[1] via P2P/IPC`, or a `Ring` line of NCCL
//! 2.3-2.6) also counts its transport, so the transport it counted is remembered with it and
//! counted again. NCCL prints such lines once per channel (32 to 64 a communicator), all alike
//! but for the channel number, which the readers do not keep; a process logging for several
//! GPUs interleaves its ranks' lines (about six distinct ones a rank and communicator). Each
//! kind is a `LineMemo` of its own. Pure; uses `memchr` and `line_memo`.

use crate::ingest::parse::line_memo::LineMemo;

/// What a line's reader reads of it (`GraphMemo::key`): its kind and those bytes.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct Key<'m> {
    kind: usize,
    bytes: &'m [u8],
}

/// The remembered lines of each kind (`Ring`, `Tree`, `Trees`, `Channel`) by key, with the
/// transport each counted.
#[derive(Debug, Default)]
pub(crate) struct GraphMemo {
    seen: [LineMemo<Option<Box<str>>>; 4],
}

impl GraphMemo {
    /// What `word`'s reader reads of `rest` (the message after the word), or `None` when a
    /// line of that word is never skipped: the text after the first `:` (`Ring`, `Tree`), the
    /// whole rest (`Trees`), or for `Channel` the text from the label's first `/` on (the total
    /// after it is read, the channel number before it is not), else after the first `:` (a
    /// label with no total is read only by a connection; a listing without one is a partial
    /// line, never remembered). Each key starts at an ASCII byte, so what comes before it
    /// reads the same apart as together (lossy UTF-8).
    pub(crate) fn key<'m>(word: &[u8], rest: &'m [u8]) -> Option<Key<'m>> {
        let kind = match word {
            b"Ring" => 0,
            b"Tree" => 1,
            b"Trees" => return Some(Key { kind: 2, bytes: rest }),
            b"Channel" => 3,
            _ => return None,
        };
        let colon = memchr::memchr(b':', rest)?;
        let label_total = || memchr::memchr(b'/', &rest[..colon]);
        let from = if kind == 3 { label_total().unwrap_or(colon) } else { colon };
        Some(Key { kind, bytes: &rest[from..] })
    }

    /// When a line with `key` was remembered: the transport it counted, if any.
    pub(crate) fn seen(&self, key: Key) -> Option<Option<&str>> {
        self.seen[key.kind].get(key.bytes).map(Option::as_deref)
    }

    /// Remembers a line with `key`, read whole (it added to the facts or found them holding
    /// what it says), and the transport it counted, while its kind's memo has room.
    pub(crate) fn remember(&mut self, key: Key, transport: Option<&str>) {
        self.seen[key.kind].insert(key.bytes, transport.map(Box::from));
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::ingest::parse::line_memo;

    fn key<'r>(word: &str, rest: &'r str) -> Option<Key<'r>> {
        GraphMemo::key(word.as_bytes(), rest.as_bytes())
    }

    fn bytes<'r>(word: &str, rest: &'r str) -> Option<&'r [u8]> {
        key(word, rest).map(|k| k.bytes)
    }

    #[test]
    fn keys_hold_what_is_read_and_leave_out_the_channel_number() {
        assert_eq!(key("Ring", " 07 : 3 -> 0 -> 1"), key("Ring", " 31 : 3 -> 0 -> 1"));
        assert_eq!(bytes("Tree", " 16 : -1 -> 0 -> 1/-1/-1"), Some(&b": -1 -> 0 -> 1/-1/-1"[..]));
        assert_ne!(key("Ring", " 07 : 3 -> 0 -> 1"), key("Ring", " 07 : 2 -> 0 -> 1"));
        assert_ne!(key("Ring", " 07 : 3 -> 0 -> 1"), key("Tree", " 07 : 3 -> 0 -> 1"), "the kind is part of it");
        assert_eq!(bytes("Channel", " 00/32 : 0 1 2 3"), Some(&b"/32 : 0 1 2 3"[..]));
        assert_ne!(key("Channel", " 00/32 : 0 1 2 3"), key("Channel", " 00/16 : 0 1 2 3"));
        assert_eq!(bytes("Trees", " [0] 1/-1/-1->0->-1"), Some(&b" [0] 1/-1/-1->0->-1"[..]));
        // A connection's key holds its label's total too (a listing's reader would read it
        // were the ` via ` not whole: `viax`).
        assert_eq!(bytes("Channel", " 00/0 : 0[0] -> 1[1] via P2P/IPC"), Some(&b"/0 : 0[0] -> 1[1] via P2P/IPC"[..]));
        assert_ne!(key("Channel", " 00/32 : 0 1 viax"), key("Channel", " 00/16 : 0 1 viax"));
        assert_eq!(bytes("Channel", " 01 : 0[0] -> 1[1] via P2P/IPC"), Some(&b": 0[0] -> 1[1] via P2P/IPC"[..]));
        assert_eq!(bytes("Channel", " 00 : 0 1 2 3/4"), Some(&b": 0 1 2 3/4"[..]), "a slash after the colon");
        assert_eq!(bytes("Ring", " 00 : 3[3] -> 2[2] via"), Some(&b": 3[3] -> 2[2] via"[..]));
        assert_eq!(key("Ring", " 00 3 -> 0 -> 1"), None, "no colon");
        assert_eq!(key("Channel", " 00/32 0 1"), None, "no colon");
        assert_eq!(key("Pattern", " 4, crossNic 0"), None);
        assert_eq!(key("CollNet", " 00/0 : 0 [send] via COLLNET/IB/0"), None);
    }

    #[test]
    fn remembers_lines_and_what_they_counted_each_kind_on_its_own() {
        let mut memo = GraphMemo::default();
        let ring = key("Ring", " 00 : 3 -> 0 -> 1").unwrap();
        assert_eq!(memo.seen(ring), None);
        memo.remember(ring, None);
        assert_eq!(memo.seen(ring), Some(None));
        assert_eq!(memo.seen(key("Ring", " 31 : 3 -> 0 -> 1").unwrap()), Some(None));
        assert_eq!(memo.seen(key("Tree", " 00 : 3 -> 0 -> 1").unwrap()), None, "another kind");
        let p2p = key("Channel", " 00/0 : 0 -> 1 via P2P").unwrap();
        memo.remember(p2p, Some("P2P"));
        assert_eq!(memo.seen(p2p), Some(Some("P2P")));
        let listing = |n: usize| format!(" 00/{n} : 0 1");
        for n in 0..2 * line_memo::LINES {
            memo.remember(key("Channel", &listing(n)).unwrap(), None);
        }
        // The connection and the first `LINES - 1` listings fill the kind; later ones are not kept.
        let kept = |n: usize| memo.seen(key("Channel", &listing(n)).unwrap()).is_some();
        assert!((0..line_memo::LINES - 1).all(kept), "the first listings");
        assert!((line_memo::LINES - 1..2 * line_memo::LINES).all(|n| !kept(n)), "a full kind");
        assert_eq!(memo.seen(ring), Some(None), "a kind's bound leaves the others");
    }
}
