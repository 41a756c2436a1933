//! The synthetic machine: H200s on NVLink, collective durations from a latency and a
//! bandwidth curve, and the noise that makes the critical path (slowest rank per cycle)
//! matter: a per-cycle factor shared by all ranks, per-rank jitter and bias, rare spikes.

use super::rng::Rng;

/// Durations in microseconds, `[cycle][rank]`.
pub(super) type Matrix = Vec<Vec<f64>>;

/// Noise applied to a base duration; `quantum` rounds every sample (ties on purpose).
#[derive(Debug, Clone)]
pub(super) struct Noise {
    pub cycle_sigma: f64,
    pub rank_sigma: f64,
    pub spike_chance: f64,
    pub quantum: Option<f64>,
}

impl Noise {
    pub(super) fn realistic() -> Self {
        Noise { cycle_sigma: 0.025, rank_sigma: 0.012, spike_chance: 0.01, quantum: None }
    }

    /// Almost no noise, whole microseconds: many samples repeat exactly.
    pub(super) fn ties() -> Self {
        Noise { cycle_sigma: 0.005, rank_sigma: 0.003, spike_chance: 0.0, quantum: Some(1.0) }
    }

    /// The same noise with every spread scaled by `factor` (host timings jitter more).
    pub(super) fn scaled(&self, factor: f64) -> Self {
        Noise { cycle_sigma: self.cycle_sigma * factor, rank_sigma: self.rank_sigma * factor, ..self.clone() }
    }
}

/// One run's hardware: drawn once per run so runs differ a little from each other.
#[derive(Debug, Clone)]
pub(super) struct Machine {
    /// Peak AllReduce bus bandwidth, GB/s.
    pub bus_gbs: f64,
    /// Small-message latency of a 2-rank collective, microseconds.
    pub latency_us: f64,
    /// Message size reaching half the peak bandwidth, bytes.
    pub half_bytes: f64,
    /// Per-rank slowdown (a rank whose GPU or CPU is a little slower).
    pub rank_bias: Vec<f64>,
    pub noise: Noise,
}

impl Machine {
    pub(super) fn draw(rng: &mut Rng, ranks: usize, noise: Noise) -> Self {
        let biased = noise.quantum.is_none();
        Machine {
            bus_gbs: rng.range(340.0, 390.0),
            latency_us: rng.range(6.5, 8.0),
            half_bytes: rng.range(200_000.0, 320_000.0),
            rank_bias: (0..ranks).map(|_| if biased { rng.range(0.0, 0.02) } else { 0.0 }).collect(),
            noise,
        }
    }

    /// Latency of one collective over `ranks` ranks.
    pub(super) fn latency(&self, ranks: usize) -> f64 {
        self.latency_us * (1.0 + 0.25 * (ranks as f64 - 2.0))
    }

    fn bandwidth(&self, bytes: f64) -> f64 {
        self.bus_gbs * bytes / (bytes + self.half_bytes)
    }

    /// AllReduce of `bytes` per rank: each rank moves `2(n-1)/n` of it over the bus.
    pub(super) fn allreduce_us(&self, bytes: u64, ranks: usize) -> f64 {
        let n = ranks as f64;
        let b = bytes as f64;
        self.latency(ranks) + b * 2.0 * (n - 1.0) / n / (self.bandwidth(b) * 1e3)
    }

    /// ReduceScatter then AllGather of the same buffer: two launches, a little less efficient.
    pub(super) fn reduce_scatter_all_gather_us(&self, bytes: u64, ranks: usize) -> f64 {
        let n = ranks as f64;
        let b = bytes as f64;
        let one = 0.85 * self.latency(ranks) + b * (n - 1.0) / n / (0.96 * self.bandwidth(b) * 1e3);
        2.0 * one
    }

    /// Samples `[cycle][rank]` around `base_us` for the first `world` ranks.
    pub(super) fn samples(&self, rng: &mut Rng, base_us: f64, cycles: usize, world: usize, noise: &Noise) -> Matrix {
        (0..cycles)
            .map(|_| {
                let cycle = (1.0 + noise.cycle_sigma * rng.normal()).max(0.8);
                self.rank_bias[..world]
                    .iter()
                    .map(|bias| self.sample(rng, base_us * cycle * (1.0 + bias), noise))
                    .collect()
            })
            .collect()
    }

    /// One sample around `base_us`: jitter, a rare spike, then the quantum.
    pub(super) fn sample(&self, rng: &mut Rng, base_us: f64, noise: &Noise) -> f64 {
        let jitter = (1.0 + noise.rank_sigma * rng.normal()).max(0.9);
        let spike = if rng.chance(noise.spike_chance) { rng.range(1.1, 1.6) } else { 1.0 };
        let value = base_us * jitter * spike;
        noise.quantum.map_or(value, |q| (value / q).round() * q)
    }
}

/// A duration as a CUDA event reports it: float32 milliseconds, times 1000 in Python.
pub(super) fn event_us(micros: f64) -> f64 {
    f64::from((micros / 1000.0) as f32) * 1000.0
}

/// A host duration from `perf_counter_ns() / 1000`: whole nanoseconds.
pub(super) fn host_us(micros: f64) -> f64 {
    (micros * 1000.0).round() / 1000.0
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn bigger_messages_take_longer_and_ranks_cost_latency() {
        let machine = Machine::draw(&mut Rng::new(3), 4, Noise::realistic());
        assert!(machine.allreduce_us(1 << 26, 4) > machine.allreduce_us(1 << 20, 4));
        assert!(machine.allreduce_us(8192, 4) > machine.allreduce_us(8192, 2));
        assert!(machine.reduce_scatter_all_gather_us(8192, 4) > machine.allreduce_us(8192, 4));
    }

    #[test]
    fn event_times_have_float32_precision() {
        assert_eq!(event_us(352.817), 352.81699895858765);
        assert_eq!(host_us(12.3456789), 12.346);
    }
}
