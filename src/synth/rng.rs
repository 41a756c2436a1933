//! SplitMix64: a tiny seeded generator. Only `+ - * /` and `sqrt` touch floats, so values are
//! bit-identical on every platform (no `ln`/`cos`, whose last bit may vary by libm).

/// The generator; `derive` splits independent streams off one seed by a label.
#[derive(Debug, Clone)]
pub(super) struct Rng {
    state: u64,
}

impl Rng {
    pub(super) fn new(seed: u64) -> Self {
        Rng { state: seed }
    }

    /// An independent stream for `label` (e.g. a file or section name) under `seed`.
    pub(super) fn derive(seed: u64, label: &str) -> Self {
        Rng::new(mix(seed ^ fnv1a(label.as_bytes())))
    }

    pub(super) fn next_u64(&mut self) -> u64 {
        self.state = self.state.wrapping_add(0x9E37_79B9_7F4A_7C15);
        mix(self.state)
    }

    /// Uniform in `[0, 1)` with 53 random bits.
    pub(super) fn uniform(&mut self) -> f64 {
        (self.next_u64() >> 11) as f64 / (1u64 << 53) as f64
    }

    /// Uniform in `[low, high)`.
    pub(super) fn range(&mut self, low: f64, high: f64) -> f64 {
        low + (high - low) * self.uniform()
    }

    /// Uniform integer in `[0, n)`; `n` must be positive.
    pub(super) fn below(&mut self, n: u64) -> u64 {
        self.next_u64() % n
    }

    /// True with probability `p`.
    pub(super) fn chance(&mut self, p: f64) -> bool {
        self.uniform() < p
    }

    /// Approximately standard normal: the Irwin-Hall sum of four uniforms, rescaled.
    pub(super) fn normal(&mut self) -> f64 {
        let sum: f64 = (0..4).map(|_| self.uniform()).sum();
        (sum - 2.0) * 3.0_f64.sqrt()
    }

    /// `digits` lowercase hex digits.
    pub(super) fn hex(&mut self, digits: usize) -> String {
        let mut text = String::with_capacity(digits + 16);
        while text.len() < digits {
            text.push_str(&format!("{:016x}", self.next_u64()));
        }
        text.truncate(digits);
        text
    }
}

/// The SplitMix64 finalizer: a bijective 64-bit mix.
pub(super) fn mix(value: u64) -> u64 {
    let mut z = value;
    z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
    z ^ (z >> 31)
}

fn fnv1a(bytes: &[u8]) -> u64 {
    bytes.iter().fold(0xCBF2_9CE4_8422_2325, |hash, &b| (hash ^ u64::from(b)).wrapping_mul(0x0000_0100_0000_01B3))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn streams_are_reproducible_and_distinct() {
        let first: Vec<u64> = (0..3).map(|_| Rng::derive(7, "a").next_u64()).collect();
        assert!(first.windows(2).all(|w| w[0] == w[1]));
        assert_ne!(Rng::derive(7, "a").next_u64(), Rng::derive(7, "b").next_u64());
        let mut rng = Rng::new(1);
        assert!((0..1000).map(|_| rng.uniform()).all(|u| (0.0..1.0).contains(&u)));
    }
}
