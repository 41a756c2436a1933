//! The GRAPH lines an NCCL log scanner has read whole and may skip when they come again:
//! `Ring NN : a -> b -> c`, `Tree NN : a -> b -> c/d/e`, `Trees [0] ...` and `Channel NN/M : a
//! b c` add only to sets, so a line whose read part is the same as one already read adds
//! nothing. A connection (`Channel NN/M : 0[0] -> 1[1] via P2P/IPC`, or a `Ring` line of NCCL
//! 2.3-2.6) also counts its transport, so the transport it counted is remembered with it and
//! counted again. NCCL prints such lines once per channel (32 to 64 a communicator), all alike
//! but for the channel number, which the readers do not keep. Pure; uses `memchr` and
//! `rustc_hash`.

use rustc_hash::FxHashMap;

/// Lines remembered of each kind: far more than a log's ranks print distinct ones (about six
/// a rank and communicator: its connections, ring, tree and channel listing, for every rank of
/// a process, whose lines interleave). With `MEMO_BYTES` a bound on memory: once a kind holds
/// either, a new line of it is read whole every time.
const MEMOS: usize = 1024;
/// Key bytes remembered of each kind (a GRAPH line is at most NCCL's 1,024-byte buffer, most
/// under a hundred bytes; a cut or hostile log may hold lines of any length).
const MEMO_BYTES: usize = 64 * 1024;

/// What a line's reader reads of it (`GraphMemo::key`): its kind and those bytes.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct Key<'m> {
    kind: usize,
    bytes: &'m [u8],
}

/// Remembered lines of one kind: each key with the transport its line counted.
type Seen = FxHashMap<Box<[u8]>, Option<Box<str>>>;

/// The remembered lines of each kind (`Ring`, `Tree`, `Trees`, `Channel`), and their keys'
/// bytes.
#[derive(Debug, Default)]
pub(crate) struct GraphMemo {
    seen: [Seen; 4],
    bytes: [usize; 4],
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
        if word == b"Trees" {
            return Some(Key { kind: 2, bytes: rest });
        }
        let colon = memchr::memchr(b':', rest)?;
        let (kind, from) = match word {
            b"Ring" => (0, colon),
            b"Tree" => (1, colon),
            b"Channel" => match memchr::memchr(b'/', rest) {
                Some(slash) if slash < colon => (3, slash),
                _ => (3, colon),
            },
            _ => return None,
        };
        Some(Key { kind, bytes: &rest[from..] })
    }

    /// When a line with `key` was remembered: the transport it counted, if any.
    pub(crate) fn seen(&self, key: Key) -> Option<Option<&str>> {
        self.seen[key.kind].get(key.bytes).map(Option::as_deref)
    }

    /// Remembers a line with `key`, read whole (it added to the facts or found them holding
    /// what it says), and the transport it counted, unless its kind would then hold more than
    /// `MEMOS` lines or `MEMO_BYTES` bytes of keys.
    pub(crate) fn remember(&mut self, key: Key, transport: Option<&str>) {
        let (seen, bytes) = (&mut self.seen[key.kind], &mut self.bytes[key.kind]);
        if seen.len() < MEMOS && *bytes + key.bytes.len() <= MEMO_BYTES {
            *bytes += key.bytes.len();
            seen.insert(key.bytes.into(), transport.map(Box::from));
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

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
    fn remembers_lines_and_what_they_counted_up_to_a_bound() {
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
        for n in 0..2 * MEMOS {
            memo.remember(key("Channel", &listing(n)).unwrap(), None);
        }
        let remembered = (0..2 * MEMOS).filter(|&n| memo.seen(key("Channel", &listing(n)).unwrap()).is_some()).count();
        assert_eq!(remembered, MEMOS - 1, "the connection and the first listings");
        assert_eq!(memo.seen(ring), Some(None), "a kind's bound leaves the others");
        // Long lines: the first ones whose keys fit in `MEMO_BYTES` together.
        let mut memo = GraphMemo::default();
        let long = |n: usize| format!(" 00 : {n} {}", "-".repeat(1000));
        for n in 0..MEMOS {
            memo.remember(key("Ring", &long(n)).unwrap(), None);
        }
        let remembered: Vec<bool> = (0..MEMOS).map(|n| memo.seen(key("Ring", &long(n)).unwrap()).is_some()).collect();
        let fit = (0..MEMOS)
            .scan(0, |total, n| {
                *total += key("Ring", &long(n)).unwrap().bytes.len();
                Some(*total <= MEMO_BYTES)
            })
            .collect::<Vec<_>>();
        assert_eq!(remembered, fit);
        assert!(remembered.iter().filter(|&&r| r).count() < MEMOS / 4);
    }
}
