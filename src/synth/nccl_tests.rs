//! `raw/nccl_tests_g<N>.stdout`: all_reduce_perf (nccl-tests 2.19.6) run with the seed's
//! arguments, `-b 8K -e 1M -f 2 -g N -w 20 -n 100 -N <cycles> -c 1 -d half -a 3`, laid out
//! like the real H200 capture: preamble, one device line per GPU, the 13-column table
//! (one sweep per cycle, no cycle index) and the footer.

use super::printf::c_general;
use super::rng::Rng;
use super::run::Run;
use super::SynthVariant;

/// The swept message sizes, 8 KiB to 1 MiB by factors of two.
pub(super) const SIZES: [u64; 8] = [8192, 16_384, 32_768, 65_536, 131_072, 262_144, 524_288, 1_048_576];
pub(super) const GPU_NAME: &str = "NVIDIA H200";
/// PCI buses of the GPUs of an HGX H200 board, in device order.
pub(super) const PCI_BUSES: [u32; 8] = [0x18, 0x2a, 0x3a, 0x5d, 0x9a, 0xab, 0xba, 0xdb];

const TABLE_HEADER: &str = "\
#                                                              out-of-place                       in-place          
#       size         count      type   redop    root     time   algbw   busbw  #wrong     time   algbw   busbw  #wrong 
#        (B)    (elements)                               (us)  (GB/s)  (GB/s)             (us)  (GB/s)  (GB/s)         
";

/// The `#wrong` count of the one bad row of the `NcclWrong` variant.
const WRONG_COUNT: u64 = 3;

/// The whole stdout of the `world`-GPU run.
pub(super) fn stdout(run: &Run, world: usize) -> String {
    let mut rng = Rng::derive(run.spec.seed, &format!("nccl_tests_g{world}"));
    let mut text = preamble(run, world);
    let noise = run.machine.noise.scaled(1.5);
    let mut busbw_sum = 0.0;
    let mut wrong_total = 0;
    let cycles = run.spec.shape.cycles;
    for cycle in 0..cycles {
        for (index, &size) in SIZES.iter().enumerate() {
            let base = 1.08 * run.machine.allreduce_us(size, world) + 1.0;
            let wrong = if is_wrong_row(run, world, cycle, index) { WRONG_COUNT } else { 0 };
            let out_of_place = Placement::new(size, world, run.machine.sample(&mut rng, base, &noise), wrong);
            let in_place = Placement::new(size, world, run.machine.sample(&mut rng, 0.98 * base, &noise), 0);
            busbw_sum += out_of_place.busbw + in_place.busbw;
            wrong_total += wrong;
            text.push_str(&format!(
                "{size:>12}  {:>12}  {:>8}  {:>6}  {:>6}{}{}\n",
                size / 2,
                "half",
                "sum",
                -1,
                out_of_place.columns(),
                in_place.columns()
            ));
        }
    }
    let verdict = if wrong_total == 0 { "OK" } else { "FAILED" };
    let average = busbw_sum / (2 * cycles * SIZES.len()) as f64;
    text.push_str(&format!(
        "# Out of bounds values : {wrong_total} {verdict}\n# Avg bus bandwidth    : {} \n#\n\
         # Collective test concluded: all_reduce_perf\n#\n\n",
        c_general(average)
    ));
    text
}

/// The `NcclWrong` variant's bad row: 64 KiB, out of place, second cycle, largest world.
fn is_wrong_row(run: &Run, world: usize, cycle: usize, size_index: usize) -> bool {
    run.spec.shape.variant == SynthVariant::NcclWrong
        && world == run.spec.shape.ranks
        && cycle == 1.min(run.spec.shape.cycles - 1)
        && SIZES[size_index] == 65_536
}

fn preamble(run: &Run, world: usize) -> String {
    let pid = run.nccl_tests_pid(world);
    let mut text = format!(
        "# nccl-tests version 2.19.6 nccl-headers=22809 nccl-library=22809\n\
         # Collective test starting: all_reduce_perf\n\
         # nThread 1 nGpus {world} minBytes 8192 maxBytes 1048576 step: 2(factor) warmup iters: 20 iters: 100 \
         agg iters: 1 validation: 1 graph: 0 unalign: 0\n#\n# Using devices\n"
    );
    for (device, bus) in PCI_BUSES.iter().take(world).enumerate() {
        text.push_str(&format!(
            "#  Rank {device:>2} Group  0 Pid {pid:>6} on {:>10} device {device:>2} [0000:{bus:02x}:00] {GPU_NAME}\n",
            run.host
        ));
    }
    text.push_str("#\n");
    text.push_str(TABLE_HEADER);
    text
}

/// One placement's measurements: time, algbw, busbw (2(n-1)/n of algbw) and `#wrong`.
struct Placement {
    time_us: f64,
    algbw: f64,
    busbw: f64,
    wrong: u64,
}

impl Placement {
    fn new(size: u64, world: usize, time_us: f64, wrong: u64) -> Self {
        let algbw = size as f64 / time_us / 1e3;
        let n = world as f64;
        Placement { time_us, algbw, busbw: algbw * 2.0 * (n - 1.0) / n, wrong }
    }

    fn columns(&self) -> String {
        format!("  {:>7}  {:>6.2}  {:>6.2}  {:>6}", time_text(self.time_us), self.algbw, self.busbw, self.wrong)
    }
}

/// nccl-tests' time column: two decimals, one from 100 us, none from 10 ms.
fn time_text(micros: f64) -> String {
    if micros >= 10_000.0 {
        format!("{micros:.0}")
    } else if micros >= 100.0 {
        format!("{micros:.1}")
    } else {
        format!("{micros:.2}")
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn columns_line_up_with_the_real_capture() {
        let placement = Placement { time_us: 7.86, algbw: 1.04, busbw: 0.0, wrong: 0 };
        let line = format!("{:>12}  {:>12}  {:>8}  {:>6}  {:>6}{}", 8192, 4096, "half", "sum", -1, placement.columns());
        assert_eq!(line, "        8192          4096      half     sum      -1     7.86    1.04    0.00       0");
        assert_eq!(time_text(123.456), "123.5");
        assert_eq!(time_text(12_345.6), "12346");
    }
}
