//! The GRAPH lines an NCCL log scanner has read whole and may skip when they come again:
//! `Ring NN : a -> b -> c`, `Tree NN : a -> b -> c/d/e`, `Trees [0] ...` and `Channel NN/M : a
//! b c` add only to sets, so a line whose read part is the same as one already read adds
//! nothing. NCCL prints one such line per channel (32 to 64 a communicator), all alike but for
//! the channel number, which the readers do not keep. Connections (`... via P2P/IPC`) count
//! their transport, so a line with ` via` is never remembered. Pure; no dependencies.

/// Lines remembered: more than the ranks one process logs for at once, per line kind.
const MEMOS: usize = 8;

/// The last `MEMOS` distinct remembered lines, each as its first word, a space and its key.
#[derive(Debug, Default)]
pub(crate) struct GraphMemo {
    seen: Vec<Vec<u8>>,
    /// Where the next line replaces an old one once `seen` is full.
    next: usize,
}

impl GraphMemo {
    /// What `word`'s reader reads of `rest` (the message after the word), or `None` when a
    /// line of that word is never skipped: the text after the first `:` (`Ring`, `Tree`), the
    /// whole rest (`Trees`), or the text after the first `/` of the label (`Channel`: the total
    /// after it counts, the channel number before it does not).
    pub(crate) fn key<'m>(word: &[u8], rest: &'m [u8]) -> Option<&'m [u8]> {
        if memchr::memmem::find(rest, b" via").is_some() {
            return None;
        }
        let colon = memchr::memchr(b':', rest);
        match word {
            b"Ring" | b"Tree" => colon.map(|at| &rest[at..]),
            b"Trees" => Some(rest),
            b"Channel" => {
                let slash = memchr::memchr(b'/', rest)?;
                (slash < colon?).then(|| &rest[slash..])
            }
            _ => None,
        }
    }

    /// Whether a line of `word` with `key` was remembered.
    pub(crate) fn seen(&self, word: &[u8], key: &[u8]) -> bool {
        self.seen.iter().any(|line| {
            line.len() == word.len() + 1 + key.len()
                && line.starts_with(word)
                && line[word.len()] == b' '
                && line.ends_with(key)
        })
    }

    /// Remembers a line of `word` with `key`, read whole (it added to the facts or found
    /// them holding what it says).
    pub(crate) fn remember(&mut self, word: &[u8], key: &[u8]) {
        let line = [word, b" ", key].concat();
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
    fn keys_leave_out_the_channel_number_and_never_take_connections() {
        fn key<'r>(word: &str, rest: &'r str) -> Option<&'r [u8]> {
            GraphMemo::key(word.as_bytes(), rest.as_bytes())
        }
        assert_eq!(key("Ring", " 07 : 3 -> 0 -> 1"), key("Ring", " 31 : 3 -> 0 -> 1"));
        assert_eq!(key("Tree", " 16 : -1 -> 0 -> 1/-1/-1"), Some(&b": -1 -> 0 -> 1/-1/-1"[..]));
        assert_ne!(key("Ring", " 07 : 3 -> 0 -> 1"), key("Ring", " 07 : 2 -> 0 -> 1"));
        assert_eq!(key("Channel", " 00/32 : 0 1 2 3"), Some(&b"/32 : 0 1 2 3"[..]));
        assert_ne!(key("Channel", " 00/32 : 0 1 2 3"), key("Channel", " 00/16 : 0 1 2 3"));
        assert_eq!(key("Trees", " [0] 1/-1/-1->0->-1"), Some(&b" [0] 1/-1/-1->0->-1"[..]));
        assert_eq!(key("Channel", " 00/0 : 0[0] -> 1[1] via P2P/IPC"), None);
        assert_eq!(key("Ring", " 00 : 3[3] -> 2[2] via P2P/IPC"), None);
        assert_eq!(key("Ring", " 00 : 3[3] -> 2[2] via"), None);
        assert_eq!(key("Channel", " 00 : 0 1 2 3/4"), None, "no total before the colon");
        assert_eq!(key("Ring", " 00 3 -> 0 -> 1"), None, "no colon");
        assert_eq!(key("Pattern", " 4, crossNic 0"), None);
    }

    #[test]
    fn remembers_the_last_lines_of_each_word() {
        let mut memo = GraphMemo::default();
        memo.remember(b"Ring", b": 3 -> 0 -> 1");
        assert!(memo.seen(b"Ring", b": 3 -> 0 -> 1"));
        assert!(!memo.seen(b"Tree", b": 3 -> 0 -> 1"), "the word is part of the line");
        assert!(!memo.seen(b"Ring", b": 3 -> 0 -> 1 "));
        assert!(!memo.seen(b"Ring", b"0 -> 1"), "a key's tail is another key");
        assert!(!memo.seen(b"Rin", b"g: 3 -> 0 -> 1"));
        memo.remember(b"Trees", b" [0] 1");
        assert!(!memo.seen(b"Tree", b"s [0] 1") && !memo.seen(b"Tree", b"  [0] 1"));
        for n in 0..MEMOS {
            memo.remember(b"Tree", format!(": {n}").as_bytes());
        }
        assert!(!memo.seen(b"Ring", b": 3 -> 0 -> 1"), "the oldest line goes first");
        assert!((0..MEMOS).all(|n| memo.seen(b"Tree", format!(": {n}").as_bytes())));
        memo.remember(b"Ring", b": 1");
        assert!(!memo.seen(b"Tree", b": 0") && memo.seen(b"Tree", b": 1") && memo.seen(b"Ring", b": 1"));
    }
}
