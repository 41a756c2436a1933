//! Percentile bootstrap intervals, seeded from the data (never the clock): the same inputs
//! give bit-identical intervals on every machine and thread count. Uses std, `rayon` (a
//! stream is made in parallel pieces), `xxhash` (for the seed) and the seed's `median`.

use crate::analysis::stats::sorted;
use rayon::prelude::*;
use std::collections::HashMap;
use std::sync::{Arc, Mutex, MutexGuard, OnceLock};

/// Resamples per interval (1000, the usual minimum for a 95 % percentile interval: the
/// comparison stage of a site build stays a small part of it).
pub(crate) const RESAMPLES: usize = 1000;

/// Two-sided confidence level of every interval.
pub(crate) const LEVEL: f64 = 0.95;

/// SplitMix64, integer-only, so draws are identical everywhere. An index below `n` is a
/// 16-bit lane of an output scaled by `n` (multiply and shift, four lanes per output: no
/// division); an index is off from uniform by at most `n / 65536` relative (0.02 % for 10
/// cycles). Samples of more than 65536 values take a whole output per index.
struct SplitMix {
    state: u64,
    lanes: u64,
    left: u32,
}

/// SplitMix64's increment: the state before output `k` is the seed plus `k` of them.
const GAMMA: u64 = 0x9E37_79B9_7F4A_7C15;

impl SplitMix {
    fn new(seed: u64) -> SplitMix {
        SplitMix { state: seed, lanes: 0, left: 0 }
    }

    /// The generator `new(seed)` is after `draw` draws of `below(n)`, all with this `n` (the
    /// state is a counter, so nothing before is drawn): where a piece or a window of a stream
    /// starts.
    fn at_draw(seed: u64, draw: u64, n: usize) -> SplitMix {
        if n > 1 << 16 {
            return SplitMix::new(seed.wrapping_add(draw.wrapping_mul(GAMMA)));
        }
        let mut rng = SplitMix::new(seed.wrapping_add((draw / 4).wrapping_mul(GAMMA)));
        let used = (draw % 4) as u32;
        if used > 0 {
            (rng.lanes, rng.left) = (rng.next() >> (16 * used), 4 - used);
        }
        rng
    }

    fn next(&mut self) -> u64 {
        self.state = self.state.wrapping_add(GAMMA);
        let mut z = self.state;
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        z ^ (z >> 31)
    }

    fn below(&mut self, n: usize) -> usize {
        if n > 1 << 16 {
            return ((u128::from(self.next()) * n as u128) >> 64) as usize;
        }
        if self.left == 0 {
            (self.lanes, self.left) = (self.next(), 4);
        }
        let lane = self.lanes & 0xFFFF;
        (self.lanes, self.left) = (self.lanes >> 16, self.left - 1);
        ((lane * n as u64) >> 16) as usize
    }
}

/// The generator's seed for a label (e.g. the case key): xxh3-64 of its bytes.
pub(crate) fn seed_of(label: &str) -> u64 {
    xxhash_rust::xxh3::xxh3_64(label.as_bytes())
}

/// The 0-based ranks of the middle of one resample of `n` values, drawn from `rng`: `n`
/// indices into the sorted sample are drawn and counted, and the middle order statistics read
/// off the counts (the same ranks a sort of the drawn multiset gives). For odd `n` both ranks
/// are the median's.
fn middle_ranks(n: usize, rng: &mut SplitMix, counts: &mut [u32]) -> (u32, u32) {
    counts.fill(0);
    for _ in 0..n {
        counts[rng.below(n)] += 1;
    }
    let upper = n / 2;
    let lower = if n % 2 == 1 { upper } else { upper - 1 };
    let (mut seen, mut low) = (0usize, None);
    for (index, &count) in counts.iter().enumerate() {
        seen += count as usize;
        if low.is_none() && seen > lower {
            low = Some(index as u32);
        }
        if seen > upper {
            return (low.unwrap_or(index as u32), index as u32);
        }
    }
    unreachable!("n draws are counted")
}

/// The middle ranks of one resample after another.
type Ranks = Vec<(u32, u32)>;

/// Stream `which` (0 or 1) for sample size `n` is the middle ranks of `STREAM` resamples of
/// `n` values, one after another from one generator seeded from `(n, which)` only. An interval
/// reads `RESAMPLES` consecutive ones from an offset seeded from its case key (a resampled
/// median needs only the ranks: the values are sorted once per sample); the base and the
/// candidate of a ratio read different streams, so their draws are independent. A whole
/// stream costs `STREAM` resamples and an interval's window drawn alone `RESAMPLES` (`window`:
/// the same ranks), so the intervals about to be computed are counted first (`expect`) and a
/// stream is made, in parallel pieces, and kept for the process, once `STREAM / RESAMPLES` of
/// them have been counted: a comparison with few intervals of a size (a +1 of a small run, a
/// sample of 100,000 cycles) draws them alone, a cold build of many runs shares streams, and
/// no stream is made that fewer intervals read, nor is more than about one stream's worth of
/// windows drawn before one is.
enum Stream {
    /// Intervals counted so far (`expect`), each drawn alone.
    Counted(usize),
    /// Being made by one thread; the others draw alone meanwhile (nobody waits).
    Making,
    Made(Arc<Ranks>),
}

/// Every stream's state so far, by (sample size, stream).
type Streams = Mutex<HashMap<(usize, u64), Stream>>;

/// Resamples in one stream of middle ranks.
const STREAM: usize = 1 << 16;

/// Resamples in one piece of a stream made on one thread (64 pieces a stream).
const PIECE: usize = 1 << 10;

fn streams() -> MutexGuard<'static, HashMap<(usize, u64), Stream>> {
    static STREAMS: OnceLock<Streams> = OnceLock::new();
    STREAMS.get_or_init(Default::default).lock().expect("no panic while holding the lock")
}

/// The generator's seed of stream `which` for sample size `n`.
fn stream_seed(n: usize, which: u64) -> u64 {
    seed_of(&format!("middle ranks of {n} values, stream {which}"))
}

/// Counts the intervals about to be computed, one `(sample size, stream)` key each, toward
/// their streams, and makes now, in parallel, every stream whose count reaches
/// `STREAM / RESAMPLES` (the lock is not held while they are made; an interval that meanwhile
/// finds its stream being made draws alone, nobody waits).
pub(crate) fn expect(keys: impl IntoIterator<Item = (usize, u64)>) {
    let mut wanted: HashMap<(usize, u64), usize> = HashMap::new();
    // An empty sample has no median and no stream.
    for key in keys.into_iter().filter(|&(n, _)| n > 0) {
        *wanted.entry(key).or_default() += 1;
    }
    let due: Vec<(usize, u64)> = {
        let mut streams = streams();
        wanted
            .into_iter()
            .filter(|&(key, intervals)| {
                let state = streams.entry(key).or_insert(Stream::Counted(0));
                match state {
                    Stream::Counted(count) if (*count + intervals) * RESAMPLES < STREAM => {
                        *count += intervals;
                        false
                    }
                    Stream::Counted(_) => {
                        *state = Stream::Making;
                        true
                    }
                    Stream::Making | Stream::Made(_) => false,
                }
            })
            .map(|(key, _)| key)
            .collect()
    };
    let made: Vec<((usize, u64), Arc<Ranks>)> =
        due.into_par_iter().map(|(n, which)| ((n, which), Arc::new(make_stream(n, which)))).collect();
    let mut streams = streams();
    for (key, ranks) in made {
        streams.insert(key, Stream::Made(ranks));
    }
}

/// Whether stream `which` for size `n` is made (for tests of what `expect` is told).
#[cfg(test)]
pub(crate) fn is_made(n: usize, which: u64) -> bool {
    stream(n, which).is_some()
}

/// Stream `which` for size `n` when it is made.
fn stream(n: usize, which: u64) -> Option<Arc<Ranks>> {
    match streams().get(&(n, which)) {
        Some(Stream::Made(ranks)) => Some(Arc::clone(ranks)),
        _ => None,
    }
}

/// Stream `which` for sample size `n`, made in pieces of `PIECE` resamples on as many
/// threads, each piece's generator started where the resamples before it leave it
/// (`SplitMix::at_draw`; `PIECE` need not be a multiple of 4): the ranks one thread makes.
fn make_stream(n: usize, which: u64) -> Ranks {
    let seed = stream_seed(n, which);
    let mut ranks = vec![(0, 0); STREAM];
    ranks.par_chunks_mut(PIECE).enumerate().for_each(|(piece, out)| {
        let mut rng = SplitMix::at_draw(seed, (piece * PIECE) as u64 * n as u64, n);
        let mut counts = vec![0; n];
        for slot in out {
            *slot = middle_ranks(n, &mut rng, &mut counts);
        }
    });
    ranks
}

/// The `RESAMPLES` resamples of stream `which` for size `n` from resample `offset` on
/// (wrapping at the stream's end), drawn alone: the stream's own ranks there.
fn window(n: usize, which: u64, offset: usize) -> Ranks {
    let seed = stream_seed(n, which);
    let start = |resample: usize| SplitMix::at_draw(seed, resample as u64 * n as u64, n);
    let mut rng = start(offset);
    let mut counts = vec![0; n];
    (0..RESAMPLES)
        .map(|r| {
            if r > 0 && (offset + r) % STREAM == 0 {
                rng = start(0);
            }
            middle_ranks(n, &mut rng, &mut counts)
        })
        .collect()
}

/// An interval's resamples: a stream's from an offset, or a window drawn alone.
enum Resamples {
    Stream(Arc<Ranks>, usize),
    Alone(Ranks),
}

impl Resamples {
    /// The middle ranks of the interval's resample `r`.
    fn get(&self, r: usize) -> (u32, u32) {
        match self {
            Resamples::Stream(stream, offset) => stream[(offset + r) % STREAM],
            Resamples::Alone(window) => window[r],
        }
    }
}

/// `RESAMPLES` bootstrap medians of `values`, from stream `which` at an offset given by `seed`
/// (read from the stream when it is made, drawn alone when not; `expect` decides).
fn resampled_medians(values: &[f64], which: u64, seed: u64) -> impl Iterator<Item = f64> {
    let ordered = sorted(values);
    let n = ordered.len();
    let offset = (seed as usize) % STREAM;
    let ranks = match stream(n, which) {
        Some(stream) => Resamples::Stream(stream, offset),
        None => Resamples::Alone(window(n, which, offset)),
    };
    let odd = ordered.len() % 2 == 1;
    (0..RESAMPLES).map(move |r| {
        let (low, high) = ranks.get(r);
        if odd {
            ordered[high as usize]
        } else {
            (ordered[low as usize] + ordered[high as usize]) / 2.0
        }
    })
}

/// The (low, high) percentiles of `LEVEL` of the bootstrap distribution (nearest rank), in
/// `f64::total_cmp` order. Selected on integer keys of that order (`total_order_key`): the
/// same values, without a float comparison per step.
fn interval(estimates: impl Iterator<Item = f64>) -> (f64, f64) {
    let mut keys: Vec<i64> = estimates.map(total_order_key).collect();
    let tail = (1.0 - LEVEL) / 2.0;
    let last = keys.len() - 1;
    let rank = |q: f64| ((q * last as f64).round() as usize).min(last);
    let low = *keys.select_nth_unstable(rank(tail)).1;
    let high = *keys.select_nth_unstable(rank(1.0 - tail)).1;
    (from_total_order_key(low), from_total_order_key(high))
}

/// An integer whose order is `f64::total_cmp`'s (the transform `total_cmp` itself makes):
/// negative numbers' magnitude bits flipped.
fn total_order_key(x: f64) -> i64 {
    let bits = x.to_bits() as i64;
    bits ^ (((bits >> 63) as u64) >> 1) as i64
}

/// The `f64` of a `total_order_key` (the transform is its own inverse).
fn from_total_order_key(key: i64) -> f64 {
    f64::from_bits((key ^ (((key >> 63) as u64) >> 1) as i64) as u64)
}

/// Interval of median(cand) / median(base): each sample resampled on its own.
pub(crate) fn ratio_of_medians(base: &[f64], cand: &[f64], seed: u64) -> (f64, f64) {
    let candidates = resampled_medians(cand, 1, seed >> 32);
    interval(resampled_medians(base, 0, seed).zip(candidates).map(|(b, c)| c / b))
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Interval of the median of `values` (the resampler's coverage is tested on it).
    fn median_interval(values: &[f64], seed: u64) -> (f64, f64) {
        interval(resampled_medians(values, 0, seed))
    }

    #[test]
    fn integer_keys_order_floats_as_total_cmp_and_give_them_back() {
        let values = [
            f64::NEG_INFINITY,
            -1e300,
            -2.5,
            -f64::MIN_POSITIVE,
            -0.0,
            0.0,
            f64::MIN_POSITIVE,
            1.0,
            1.0 + f64::EPSILON,
            3e200,
            f64::INFINITY,
            f64::NAN,
            -f64::NAN,
        ];
        for a in values {
            assert_eq!(from_total_order_key(total_order_key(a)).to_bits(), a.to_bits());
            for b in values {
                assert_eq!(total_order_key(a).cmp(&total_order_key(b)), a.total_cmp(&b), "{a} {b}");
            }
        }
    }

    proptest::proptest! {
        #[test]
        fn intervals_select_what_a_float_selection_selects(values in proptest::collection::vec(-1e6f64..1e6, 1..300)) {
            let mut sorted = values.clone();
            sorted.sort_by(f64::total_cmp);
            let last = sorted.len() - 1;
            let at = |q: f64| sorted[((q * last as f64).round() as usize).min(last)];
            let tail = (1.0 - LEVEL) / 2.0;
            let (low, high) = interval(values.into_iter());
            proptest::prop_assert_eq!((low.to_bits(), high.to_bits()), (at(tail).to_bits(), at(1.0 - tail).to_bits()));
        }
    }

    #[test]
    fn the_generator_is_splitmix64() {
        // Vigna's splitmix64.c from state 0, and from 1234567.
        let mut g = SplitMix::new(0);
        assert_eq!(
            [g.next(), g.next(), g.next()],
            [0xe220_a839_7b1d_cdaf, 0x6e78_9e6a_a1b9_65f4, 0x06c4_5d18_8009_454f]
        );
        let mut g = SplitMix::new(1_234_567);
        assert_eq!([g.next(), g.next()], [0x599e_d017_fb08_fc85, 0x2c73_f084_5854_0fa5]);
    }

    #[test]
    fn draws_below_n_take_16_bit_lanes_up_to_65536_and_128_bit_products_above() {
        // 0xe220a8397b1dcdaf: its low lane 0xcdaf = 52655, scaled to 1000; above 65536 the
        // whole word scaled.
        assert_eq!(SplitMix::new(0).below(1000), 803);
        assert_eq!(SplitMix::new(0).below(1 << 16), 52655);
        assert_eq!(SplitMix::new(0).below(1 << 20), 0xe220a);
    }

    /// A generator started at a draw gives the draws one generator gives from there: lanes
    /// at every offset within an output, and whole outputs above 65536 values.
    #[test]
    fn a_generator_started_at_a_draw_continues_the_sequence() {
        for n in [1usize, 2, 7, 10, 1 << 16, (1 << 16) + 1, 1 << 20] {
            let mut one = SplitMix::new(99);
            let draws: Vec<usize> = (0..64).map(|_| one.below(n)).collect();
            for start in 0..draws.len() {
                let mut from = SplitMix::at_draw(99, start as u64, n);
                let rest: Vec<usize> = (start..draws.len()).map(|_| from.below(n)).collect();
                assert_eq!(rest, draws[start..], "n {n}, from draw {start}");
            }
        }
    }

    /// A stream made in parallel pieces is the stream one generator makes resample after
    /// resample, odd and even sizes; a window drawn alone is the stream's own resamples there,
    /// at the start, anywhere, and across the wrap.
    #[test]
    fn streams_made_in_pieces_and_windows_drawn_alone_are_the_sequential_stream() {
        for (n, which) in [(1usize, 0u64), (3, 1), (10, 0), (13, 1)] {
            let mut rng = SplitMix::new(stream_seed(n, which));
            let mut counts = vec![0; n];
            let sequential: Ranks = (0..STREAM).map(|_| middle_ranks(n, &mut rng, &mut counts)).collect();
            assert!(make_stream(n, which) == sequential, "n {n}, stream {which}");
            for offset in [0, 1, 4097, STREAM - RESAMPLES, STREAM - 10, STREAM - 1] {
                let expected: Ranks = (0..RESAMPLES).map(|r| sequential[(offset + r) % STREAM]).collect();
                assert!(window(n, which, offset) == expected, "n {n}, stream {which}, offset {offset}");
            }
        }
    }

    /// A size's stream is made once enough intervals of it are expected, counted over calls
    /// (not before), and an interval is the same whether it reads the stream or draws its
    /// window alone (sizes 97 and 101: no other test expects them).
    #[test]
    fn a_stream_is_made_once_enough_intervals_are_expected_and_changes_none() {
        let base: Vec<f64> = (0..97).map(|i| 50.0 + f64::from(i * 5 % 17)).collect();
        let cand: Vec<f64> = (0..101).map(|i| 55.0 + f64::from(i * 7 % 19)).collect();
        let made = |key| matches!(streams().get(&key), Some(Stream::Made(_)));
        let pays = STREAM.div_ceil(RESAMPLES);
        let alone = ratio_of_medians(&base, &cand, 5);
        expect(std::iter::repeat_n((97, 0), pays - 2).chain(std::iter::repeat_n((101, 1), pays - 1)));
        expect([(97, 0)]);
        assert!(!made((97, 0)) && !made((101, 1)));
        assert_eq!(ratio_of_medians(&base, &cand, 5), alone);
        expect([(97, 0), (101, 1)]);
        assert!(made((97, 0)) && made((101, 1)));
        assert_eq!(ratio_of_medians(&base, &cand, 5), alone);
    }

    #[test]
    fn a_resampled_median_of_an_even_sample_averages_its_middle_pair() {
        // Two cycles (`synth --small`): half the resamples hold both values, median 2.0.
        assert!(resampled_medians(&[1.0, 3.0], 0, 7).any(|m| m == 2.0));
    }

    #[test]
    fn intervals_are_pinned_for_odd_and_even_samples() {
        let odd: Vec<f64> = (0..9).map(|i| 100.0 + f64::from(i)).collect();
        let even: Vec<f64> = (0..10).map(|i| 120.0 + 2.0 * f64::from(i * i % 7)).collect();
        // Pinned: the site prints these, so a change of stream, offset or rank is a change of
        // every page (values from this code, checked to cover the ratios of the medians, 1.18 and 0.85).
        assert_eq!(ratio_of_medians(&odd, &even, 7), (1.150943396226415, 1.2427184466019416));
        assert_eq!(ratio_of_medians(&even, &odd, 12345), (0.8125, 0.8688524590163934));
    }

    #[test]
    fn intervals_are_deterministic_and_cover_the_estimate() {
        let base = [10.0, 10.2, 9.9, 10.1, 10.05, 9.95];
        let cand = [11.0, 11.1, 10.9, 11.2, 10.95, 11.05];
        let seed = seed_of("decode|2|tokens=1");
        let first = ratio_of_medians(&base, &cand, seed);
        assert_eq!(first, ratio_of_medians(&base, &cand, seed));
        assert_ne!(first, ratio_of_medians(&base, &cand, seed_of("other")));
        let point = crate::analysis::stats::median(&cand) / crate::analysis::stats::median(&base);
        assert!(first.0 <= point && point <= first.1, "{first:?} {point}");
        assert!(first.0 > 1.05 && first.1 < 1.15, "{first:?}");
        assert_eq!(median_interval(&[3.0], 1), (3.0, 3.0));
    }

    /// The counted middle ranks give the median of the drawn multiset, as sorting each draw
    /// does: compared draw by draw with the straightforward resampler (drawing from the sorted
    /// values), odd and even sizes, ties.
    #[test]
    fn counted_middle_ranks_give_the_sorted_median() {
        for values in [vec![5.0, 1.0, 3.0], vec![4.0, 2.0, 2.0, 9.0], (0..10).map(|i| (i * 7 % 10) as f64).collect()] {
            let ordered = sorted(&values);
            let n = values.len();
            let (mut counted, mut direct) = (SplitMix::new(42), SplitMix::new(42));
            let mut counts = vec![0; n];
            for _ in 0..500 {
                let drawn: Vec<f64> = (0..n).map(|_| ordered[direct.below(n)]).collect();
                let (low, high) = middle_ranks(n, &mut counted, &mut counts);
                let got = if n % 2 == 1 {
                    ordered[high as usize]
                } else {
                    (ordered[low as usize] + ordered[high as usize]) / 2.0
                };
                assert_eq!(got.to_bits(), crate::analysis::stats::median(&drawn).to_bits(), "{values:?}");
            }
        }
    }

    /// An interval's nominal coverage holds: over many normal samples, the interval of the
    /// median covers the true median in about 95 % of them (a shared stream must not bias it).
    #[test]
    fn median_intervals_cover_the_true_median() {
        let mut rng = SplitMix::new(3);
        let mut normal = || -> f64 { (0..12).map(|_| rng.below(1 << 16) as f64 / 65536.0).sum::<f64>() - 6.0 };
        let trials = 400;
        let covered = (0..trials)
            .filter(|t| {
                let values: Vec<f64> = (0..20).map(|_| normal()).collect();
                let (low, high) = median_interval(&values, seed_of(&t.to_string()));
                low <= 0.0 && 0.0 <= high
            })
            .count();
        let rate = covered as f64 / trials as f64;
        assert!((0.90..=0.99).contains(&rate), "coverage {rate}");
    }

    /// Every index below n is drawn about equally often (small n, lanes; large n, whole outputs).
    #[test]
    fn indices_are_uniform() {
        for n in [2usize, 7, 10, 100_000] {
            let mut rng = SplitMix::new(7);
            let draws = 200_000;
            let mut counts = vec![0u32; n.min(10)];
            for _ in 0..draws {
                let i = rng.below(n);
                assert!(i < n);
                if i < counts.len() {
                    counts[i] += 1;
                }
            }
            let expected = draws as f64 / n as f64;
            for c in counts {
                assert!((c as f64 - expected).abs() < 6.0 * expected.sqrt() + 1.0, "n {n}: {c} vs {expected}");
            }
        }
    }
}
