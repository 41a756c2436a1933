//! The GRAPH lines an NCCL log scanner has read whole and may skip when they come again:
//! `Ring NN : a -> b -> c`, `Tree NN : a -> b -> c/d/e`, `Trees [0] ...` and `Channel NN/M : a
//! b c` add only to sets, so a line whose read part is the same as one already read adds
//! nothing. A connection (`Channel NN/M : 0[0] -> 1[1] via P2P/IPC`, or a `Ring` line of NCCL
//! 2.3-2.6) also counts its transport, so the transport it counted is remembered with it and
//! counted again. NCCL prints such lines once per channel (32 to 64 a communicator), all alike
//! but for the channel number, which the readers do not keep. Pure; no dependencies.

/// Lines remembered, of every kind together: more than the distinct ones a communicator's
/// rank prints for its channels (about six: its connections, ring, tree and channel listing).
/// A log whose ranks' lines interleave remembers fewer than it meets and reads more of them.
const MEMOS: usize = 8;

/// The last `MEMOS` distinct remembered lines, each as its first word, a space and its key,
/// with the transport it counted.
#[derive(Debug, Default)]
pub(crate) struct GraphMemo {
    seen: Vec<(Vec<u8>, Option<Box<str>>)>,
    /// Where the next line replaces an old one once `seen` is full.
    next: usize,
}

impl GraphMemo {
    /// What `word`'s reader reads of `rest` (the message after the word), or `None` when a
    /// line of that word is never skipped: the text after the first `:` (`Ring`, `Tree`), the
    /// whole rest (`Trees`), or for `Channel` the text from the label's first `/` on (the total
    /// after it is read, the channel number before it is not), else after the first `:` (a
    /// label with no total is read only by a connection; a listing without one is a partial
    /// line, never remembered). Each key starts at an ASCII byte, so what comes before it
    /// reads the same apart as together (lossy UTF-8).
    pub(crate) fn key<'m>(word: &[u8], rest: &'m [u8]) -> Option<&'m [u8]> {
        if word == b"Trees" {
            return Some(rest);
        }
        let colon = memchr::memchr(b':', rest)?;
        match word {
            b"Ring" | b"Tree" => Some(&rest[colon..]),
            b"Channel" => match memchr::memchr(b'/', rest) {
                Some(slash) if slash < colon => Some(&rest[slash..]),
                _ => Some(&rest[colon..]),
            },
            _ => None,
        }
    }

    /// When a line of `word` with `key` was remembered: the transport it counted, if any.
    pub(crate) fn seen(&self, word: &[u8], key: &[u8]) -> Option<Option<&str>> {
        self.seen
            .iter()
            .find(|(line, _)| {
                line.len() == word.len() + 1 + key.len()
                    && line.starts_with(word)
                    && line[word.len()] == b' '
                    && line.ends_with(key)
            })
            .map(|(_, transport)| transport.as_deref())
    }

    /// Remembers a line of `word` with `key`, read whole (it added to the facts or found
    /// them holding what it says), and the transport it counted.
    pub(crate) fn remember(&mut self, word: &[u8], key: &[u8], transport: Option<&str>) {
        let line = ([word, b" ", key].concat(), transport.map(Box::from));
        if self.seen.len() < MEMOS {
            self.seen.push(line);
        } else {
            self.seen[self.next] = line;
            self.next = (self.next + 1) % MEMOS;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn keys_hold_what_is_read_and_leave_out_the_channel_number() {
        fn key<'r>(word: &str, rest: &'r str) -> Option<&'r [u8]> {
            GraphMemo::key(word.as_bytes(), rest.as_bytes())
        }
        assert_eq!(key("Ring", " 07 : 3 -> 0 -> 1"), key("Ring", " 31 : 3 -> 0 -> 1"));
        assert_eq!(key("Tree", " 16 : -1 -> 0 -> 1/-1/-1"), Some(&b": -1 -> 0 -> 1/-1/-1"[..]));
        assert_ne!(key("Ring", " 07 : 3 -> 0 -> 1"), key("Ring", " 07 : 2 -> 0 -> 1"));
        assert_eq!(key("Channel", " 00/32 : 0 1 2 3"), Some(&b"/32 : 0 1 2 3"[..]));
        assert_ne!(key("Channel", " 00/32 : 0 1 2 3"), key("Channel", " 00/16 : 0 1 2 3"));
        assert_eq!(key("Trees", " [0] 1/-1/-1->0->-1"), Some(&b" [0] 1/-1/-1->0->-1"[..]));
        // A connection's key holds its label's total too (a listing's reader would read it
        // were the ` via ` not whole: `viax`).
        assert_eq!(key("Channel", " 00/0 : 0[0] -> 1[1] via P2P/IPC"), Some(&b"/0 : 0[0] -> 1[1] via P2P/IPC"[..]));
        assert_ne!(key("Channel", " 00/32 : 0 1 viax"), key("Channel", " 00/16 : 0 1 viax"));
        assert_eq!(key("Channel", " 01 : 0[0] -> 1[1] via P2P/IPC"), Some(&b": 0[0] -> 1[1] via P2P/IPC"[..]));
        assert_eq!(key("Channel", " 00 : 0 1 2 3/4"), Some(&b": 0 1 2 3/4"[..]), "a slash after the colon");
        assert_eq!(key("Ring", " 00 : 3[3] -> 2[2] via"), Some(&b": 3[3] -> 2[2] via"[..]));
        assert_eq!(key("Ring", " 00 3 -> 0 -> 1"), None, "no colon");
        assert_eq!(key("Channel", " 00/32 0 1"), None, "no colon");
        assert_eq!(key("Pattern", " 4, crossNic 0"), None);
        assert_eq!(key("CollNet", " 00/0 : 0 [send] via COLLNET/IB/0"), None);
    }

    #[test]
    fn remembers_the_last_lines_and_what_they_counted() {
        let mut memo = GraphMemo::default();
        memo.remember(b"Ring", b": 3 -> 0 -> 1", None);
        assert_eq!(memo.seen(b"Ring", b": 3 -> 0 -> 1"), Some(None));
        assert_eq!(memo.seen(b"Tree", b": 3 -> 0 -> 1"), None, "the word is part of the line");
        assert_eq!(memo.seen(b"Ring", b": 3 -> 0 -> 1 "), None);
        assert_eq!(memo.seen(b"Ring", b"0 -> 1"), None, "a key's tail is another key");
        assert_eq!(memo.seen(b"Rin", b"g: 3 -> 0 -> 1"), None);
        memo.remember(b"Trees", b" [0] 1", None);
        assert_eq!(memo.seen(b"Tree", b"s [0] 1").or(memo.seen(b"Tree", b"  [0] 1")), None);
        memo.remember(b"Channel", b": 0 -> 1 via P2P", Some("P2P"));
        assert_eq!(memo.seen(b"Channel", b": 0 -> 1 via P2P"), Some(Some("P2P")));
        for n in 0..MEMOS {
            memo.remember(b"Tree", format!(": {n}").as_bytes(), None);
        }
        assert_eq!(memo.seen(b"Ring", b": 3 -> 0 -> 1"), None, "the oldest line goes first");
        assert!((0..MEMOS).all(|n| memo.seen(b"Tree", format!(": {n}").as_bytes()).is_some()));
        memo.remember(b"Ring", b": 1", None);
        assert!(memo.seen(b"Tree", b": 0").is_none() && memo.seen(b"Tree", b": 1").is_some());
    }
}
