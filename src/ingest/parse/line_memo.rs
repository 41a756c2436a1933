//! A bounded map from a line's bytes to what reading it gave: the NCCL log scanner's memos of
//! lines it may skip when they come again (`graph_memo`, and the planned-task lines of
//! `nccl_log`). At most `LINES` lines and `BYTES` bytes of keys: far more than a log holds
//! distinct lines of one kind in turn, and a bound on memory whatever a log holds (once either
//! is reached, a new line is read whole every time it comes). Pure; uses `rustc_hash` only.

use rustc_hash::FxHashMap;

/// Lines remembered at most.
pub(crate) const LINES: usize = 1024;
/// Key bytes remembered at most (an NCCL line is at most its 1,024-byte buffer, most under a
/// hundred bytes; a cut or hostile log may hold lines of any length).
pub(crate) const BYTES: usize = 64 * 1024;

#[derive(Debug)]
pub(crate) struct LineMemo<V> {
    lines: FxHashMap<Box<[u8]>, V>,
    bytes: usize,
}

impl<V> Default for LineMemo<V> {
    fn default() -> Self {
        LineMemo { lines: FxHashMap::default(), bytes: 0 }
    }
}

impl<V> LineMemo<V> {
    pub(crate) fn get(&self, line: &[u8]) -> Option<&V> {
        self.lines.get(line)
    }

    pub(crate) fn get_mut(&mut self, line: &[u8]) -> Option<&mut V> {
        self.lines.get_mut(line)
    }

    /// Remembers `line` with `value`, unless that would hold more than `LINES` lines or `BYTES`
    /// bytes of keys.
    pub(crate) fn insert(&mut self, line: &[u8], value: V) {
        if self.lines.len() < LINES && self.bytes + line.len() <= BYTES {
            self.bytes += line.len();
            self.lines.insert(line.into(), value);
        }
    }

    /// Every value, forgetting them all (in no particular order).
    pub(crate) fn drain(&mut self) -> impl Iterator<Item = V> + '_ {
        self.bytes = 0;
        self.lines.drain().map(|(_, value)| value)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn holds_the_first_lines_that_fit_in_both_bounds() {
        let mut memo = LineMemo::default();
        let short = |n: usize| format!("line {n}");
        for n in 0..2 * LINES {
            memo.insert(short(n).as_bytes(), n);
        }
        assert!((0..LINES).all(|n| memo.get(short(n).as_bytes()) == Some(&n)));
        assert!((LINES..2 * LINES).all(|n| memo.get(short(n).as_bytes()).is_none()));
        *memo.get_mut(b"line 3").unwrap() += 10;
        let values: Vec<usize> = memo.drain().collect();
        assert_eq!(values.len(), LINES);
        assert!(values.contains(&13) && !values.contains(&3) && memo.get(b"line 3").is_none());
        // Long lines: the first ones whose keys fit in `BYTES` together, and as many again
        // once drained.
        let long = |n: usize| format!("{n} {}", "-".repeat(1000));
        let fit: Vec<bool> = (0..100)
            .scan(0, |total, n| {
                *total += long(n).len();
                Some(*total <= BYTES)
            })
            .collect();
        for _ in 0..2 {
            for n in 0..100 {
                memo.insert(long(n).as_bytes(), n);
            }
            let held: Vec<bool> = (0..100).map(|n| memo.get(long(n).as_bytes()).is_some()).collect();
            assert_eq!(held, fit);
            assert!(held.iter().filter(|&&h| h).count() < 100);
            assert_eq!(memo.drain().count(), fit.iter().filter(|&&f| f).count());
        }
    }
}
