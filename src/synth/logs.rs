//! `raw/nccl/<case>_<host>_<pid>.log`: NCCL 2.28 logs with `NCCL_DEBUG=INFO` and
//! `NCCL_DEBUG_SUBSYS=INIT,GRAPH,COLL`, modeled on the real capture: plugin and INIT lines,
//! graph search results, rings, trees and connections per communicator, then one COLL line
//! per collective call (the worker's or nccl-tests' call sequence, repeated) until the file
//! holds about `log_bytes`; gzip-compressed to `.log.gz` for gzip runs. One file per
//! torchrun rank, one per nccl-tests process (holding all its GPUs' communicators). With
//! `tuning`, the 4-rank nccl-tests log also holds rank 0's TUNING line after each call.

use super::nccl_tests::{self, PCI_BUSES};
use super::numerics;
use super::rng::Rng;
use super::run::Run;
use super::sections::{
    decode_message_bytes, ASYNC_SIZES, DECODE_TOKENS, DECOMPOSITION_SIZES, FRAGMENT_COUNTS, FRAGMENT_TOTAL_BYTES,
};
use crate::core::model::sections::WorkerSection;
use anyhow::Context;
use flate2::write::GzEncoder;
use flate2::Compression;
use std::fs::{self, File};
use std::io::{self, BufWriter, Write};
use std::path::Path;

/// Channels found by each graph search; NCCL doubles them for rings.
const GRAPH_CHANNELS: usize = 16;
const FLOAT16: u8 = 6;
const FLOAT32: u8 = 7;

/// One collective call as the COLL subsystem logs it.
#[derive(Debug, Clone, Copy)]
struct Call {
    kind: &'static str,
    count: u64,
    datatype: u8,
    in_place: bool,
}

/// One rank's communicator inside a process.
struct Comm {
    rank: usize,
    device: usize,
    address: u64,
    stream: u64,
    buffers: u64,
}

/// One process writing one log file.
struct Process {
    file_prefix: String,
    pid: u32,
    nranks: usize,
    comm_id: u64,
    comms: Vec<Comm>,
    /// The calls of one round (a worker cycle, an nccl-tests sweep), repeated as needed.
    round: Vec<Call>,
}

/// Writes every log file of `run` into `dir`.
pub(super) fn write_logs(dir: &Path, run: &Run) -> anyhow::Result<()> {
    fs::create_dir_all(dir).with_context(|| format!("cannot create {}", dir.display()))?;
    for process in processes(run) {
        let suffix = if run.spec.gzip_logs { ".log.gz" } else { ".log" };
        let path = dir.join(format!("{}_{}_{}{suffix}", process.file_prefix, run.host, process.pid));
        write_log_file(&path, run, &process).with_context(|| format!("cannot write {}", path.display()))?;
    }
    Ok(())
}

fn write_log_file(path: &Path, run: &Run, process: &Process) -> io::Result<()> {
    const BUFFER: usize = 1 << 16;
    let file = File::create(path)?;
    if run.spec.gzip_logs {
        let gzip = GzEncoder::new(file, Compression::fast());
        let mut log = LogWriter::new(BufWriter::with_capacity(BUFFER, gzip), run, process.pid);
        log.process(run, process)?;
        log.out.inner.into_inner().map_err(io::IntoInnerError::into_error)?.finish()?;
        Ok(())
    } else {
        let mut log = LogWriter::new(BufWriter::with_capacity(BUFFER, file), run, process.pid);
        log.process(run, process)?;
        log.out.flush()
    }
}

/// The processes of a run: one per torchrun rank, one per nccl-tests world size.
fn processes(run: &Run) -> Vec<Process> {
    let mut rng = Rng::derive(run.spec.seed, "nccl-logs");
    let mut all = Vec::new();
    for (index, case) in run.cases.iter().enumerate() {
        let comm_id = rng.next_u64();
        let round = worker_round(run, &case.sections, case.world);
        for rank in 0..case.world {
            all.push(Process {
                file_prefix: case.name.clone(),
                pid: run.worker_pid(index, rank),
                nranks: case.world,
                comm_id,
                comms: vec![comm(&mut rng, rank)],
                round: round.clone(),
            });
        }
    }
    for &world in &run.nccl_tests_worlds {
        all.push(Process {
            file_prefix: format!("nccl_tests_g{world}"),
            pid: run.nccl_tests_pid(world),
            nranks: world,
            comm_id: rng.next_u64(),
            comms: (0..world).map(|rank| comm(&mut rng, rank)).collect(),
            round: nccl_tests_round(),
        });
    }
    all
}

fn comm(rng: &mut Rng, rank: usize) -> Comm {
    Comm {
        rank,
        device: rank,
        address: 0x5500_0000_0000 + (rng.below(0x0fff_ffff) << 4),
        stream: 0x5500_0000_0000 + (rng.below(0x0fff_ffff) << 4),
        buffers: 0x7f00_0000_0000 + (rng.below(0x3_ffff) << 21),
    }
}

/// One cycle of the worker's collectives, section by section, as `sections.rs` measures them.
fn worker_round(run: &Run, sections: &[WorkerSection], world: usize) -> Vec<Call> {
    let all_reduce = |count, datatype| Call { kind: "AllReduce", count, datatype, in_place: true };
    let mut calls = Vec::new();
    for section in sections {
        match section {
            WorkerSection::Async => calls.extend(ASYNC_SIZES.map(|size| all_reduce(size / 4, FLOAT32))),
            WorkerSection::Decomposition => {
                for size in DECOMPOSITION_SIZES {
                    let shard = size / 4 / world as u64;
                    calls.push(all_reduce(size / 4, FLOAT32));
                    calls.push(Call { kind: "ReduceScatter", count: shard, datatype: FLOAT32, in_place: false });
                    calls.push(Call { kind: "AllGather", count: shard, datatype: FLOAT32, in_place: false });
                }
            }
            WorkerSection::Fragmentation => {
                for count in FRAGMENT_COUNTS {
                    let call = all_reduce(FRAGMENT_TOTAL_BYTES / count / 2, FLOAT16);
                    calls.extend(std::iter::repeat_n(call, count as usize));
                }
            }
            WorkerSection::Decode => {
                for tokens in DECODE_TOKENS {
                    let call = all_reduce(decode_message_bytes(tokens) / 2, FLOAT16);
                    calls.extend(std::iter::repeat_n(call, run.spec.shape.decode_collectives));
                }
            }
            WorkerSection::Numerics => {
                let permutations: usize = numerics::scenarios(world).iter().map(|s| numerics::outcomes(s).len()).sum();
                for _ in 0..permutations {
                    calls.push(all_reduce(1, FLOAT16));
                    calls.push(all_reduce(1, FLOAT32));
                }
            }
            WorkerSection::Contracts => {}
        }
    }
    calls
}

/// One all_reduce_perf sweep: 100 out-of-place then 100 in-place calls per size.
fn nccl_tests_round() -> Vec<Call> {
    let mut calls = Vec::new();
    for size in nccl_tests::SIZES {
        for in_place in [false, true] {
            let call = Call { kind: "AllReduce", count: size / 2, datatype: FLOAT16, in_place };
            calls.extend(std::iter::repeat_n(call, 100));
        }
    }
    calls
}

/// Counts what goes through it.
struct Counting<W> {
    inner: W,
    bytes: u64,
}

impl<W: Write> Write for Counting<W> {
    fn write(&mut self, buf: &[u8]) -> io::Result<usize> {
        let written = self.inner.write(buf)?;
        self.bytes += written as u64;
        Ok(written)
    }

    fn flush(&mut self) -> io::Result<()> {
        self.inner.flush()
    }
}

/// Writes `host:pid:tid [dev] NCCL INFO ...` lines into a buffered writer.
struct LogWriter<'a, W: Write> {
    out: Counting<W>,
    host: &'a str,
    pid: u32,
    tuning: bool,
}

impl<'a, W: Write> LogWriter<'a, W> {
    fn new(out: W, run: &'a Run, pid: u32) -> Self {
        LogWriter { out: Counting { inner: out, bytes: 0 }, host: &run.host, pid, tuning: run.spec.tuning }
    }

    fn info(&mut self, device: usize, args: std::fmt::Arguments) -> io::Result<()> {
        write!(self.out, "{}:{}:{} [{device}] NCCL INFO ", self.host, self.pid, self.pid)?;
        self.out.write_fmt(args)?;
        self.out.write_all(b"\n")
    }

    fn process(&mut self, run: &Run, process: &Process) -> io::Result<()> {
        self.plugins(process)?;
        for comm in &process.comms {
            self.init(process, comm)?;
        }
        self.collectives(process, run.spec.log_bytes)?;
        for comm in &process.comms {
            let (rank, nranks, device) = (comm.rank, process.nranks, comm.device);
            self.info(
                device,
                format_args!(
                    "comm 0x{:x} rank {rank} nranks {nranks} cudaDev {device} busId {} - Destroy COMPLETE",
                    comm.address,
                    bus_id(device)
                ),
            )?;
        }
        Ok(())
    }

    fn plugins(&mut self, process: &Process) -> io::Result<()> {
        self.info(0, format_args!("cudaDriverVersion 13000"))?;
        if process.comms.iter().any(|c| c.rank == 0) {
            self.info(0, format_args!("NCCL version 2.28.9+cuda13.0"))?;
        }
        for line in [
            "NET/Plugin: Could not find: libnccl-net.so",
            "NET/IB : No device found.",
            "NET/Socket : Using [0]eth0:10.0.0.2<0>",
            "Initialized NET plugin Socket",
            "Assigned NET plugin Socket to comm",
            "Using network Socket",
        ] {
            self.info(0, format_args!("{line}"))?;
        }
        Ok(())
    }

    fn init(&mut self, process: &Process, comm: &Comm) -> io::Result<()> {
        let (rank, nranks, device) = (comm.rank, process.nranks, comm.device);
        let init = format!(
            "ncclCommInitRankConfig comm 0x{:x} rank {rank} nranks {nranks} cudaDev {device} nvmlDev {device} busId {} \
             commId 0x{:x}",
            comm.address,
            bus_id(device),
            process.comm_id
        );
        self.info(device, format_args!("{init} - Init START"))?;
        self.graph(nranks, device)?;
        self.topology(nranks, rank, device)?;
        self.info(device, format_args!("P2P Chunksize set to 524288"))?;
        self.info(device, format_args!("Check P2P Type isAllDirectP2p 1 directMode 0 isAllCudaP2p 1"))?;
        let next = (rank + 1) % nranks;
        for channel in 0..2 * GRAPH_CHANNELS {
            let route = format!("{rank}[{device}] -> {next}[{next}]");
            self.info(device, format_args!("Channel {channel:02}/0 : {route} via P2P/CUMEM/read"))?;
        }
        let total = 2 * GRAPH_CHANNELS;
        for line in [
            "Connected all rings, use ring PXN 0 GDR 1".to_string(),
            "Connected all trees".to_string(),
            "threadThresholds 8/8/64 | 32/8/64 | 512 | 512".to_string(),
            format!(
                "{total} coll channels, {total} collnet channels, 16 nvls channels, 32 p2p channels, \
                 32 p2p channels per peer"
            ),
            "CC Off, workFifoBytes 1048576".to_string(),
            format!("{init} - Init COMPLETE"),
            format!(
                "Init timings - ncclCommInitRankConfig: rank {rank} nranks {nranks} total 0.61 (kernels 0.39, alloc 0.05, \
                 bootstrap 0.03, allgathers 0.01, topo 0.06, graphs 0.01, connections 0.05, rest 0.01)"
            ),
        ] {
            self.info(device, format_args!("{line}"))?;
        }
        Ok(())
    }

    /// Graph search results: ring (pattern 4) and tree (pattern 1) over all GPUs.
    fn graph(&mut self, nranks: usize, device: usize) -> io::Result<()> {
        let gpus: Vec<String> = (0..nranks).map(|d| format!("GPU/0-{}", bus_id(d))).collect();
        let gpus = gpus.join(" ");
        for pattern in [4, 1] {
            self.info(
                device,
                format_args!(
                    "Pattern {pattern}, crossNic 0, nChannels {GRAPH_CHANNELS}, bw 40.000000/40.000000, type NVL/PIX, \
                     sameChannels 1"
                ),
            )?;
            for channel in 0..GRAPH_CHANNELS {
                self.info(device, format_args!("{channel:>2} : {gpus}"))?;
            }
        }
        Ok(())
    }

    /// Trees, channels (`Channel 00/32 : 0 1 2 3`) and rings, for one rank of a chain.
    fn topology(&mut self, nranks: usize, rank: usize, device: usize) -> io::Result<()> {
        let total = 2 * GRAPH_CHANNELS;
        let parent = if rank == 0 { -1 } else { rank as i64 - 1 };
        let child = if rank + 1 == nranks { -1 } else { rank as i64 + 1 };
        for channel in 0..GRAPH_CHANNELS {
            for tree in [channel, channel + GRAPH_CHANNELS] {
                self.info(device, format_args!("Tree {tree} : {parent} -> {rank} -> {child}/-1/-1"))?;
            }
        }
        let order: Vec<String> = (0..nranks).map(|r| r.to_string()).collect();
        let order = order.join(" ");
        for channel in 0..total {
            self.info(device, format_args!("Channel {channel:02}/{total} : {order}"))?;
        }
        let (prev, next) = ((rank + nranks - 1) % nranks, (rank + 1) % nranks);
        for channel in 0..total {
            self.info(device, format_args!("Ring {channel:02} : {prev} -> {rank} -> {next}"))?;
        }
        let trees: Vec<String> = (0..total).map(|c| format!("[{c}] {child}/-1/-1->{rank}->{parent}")).collect();
        self.info(device, format_args!("Trees {}", trees.join(" ")))
    }

    /// COLL lines, round after round, until `target` bytes are written.
    fn collectives(&mut self, process: &Process, target: u64) -> io::Result<()> {
        for (op_count, call) in process.round.iter().cycle().enumerate() {
            if self.out.bytes >= target {
                break;
            }
            for comm in &process.comms {
                let send = comm.buffers + ((op_count as u64 % 16) << 13);
                let recv = if call.in_place { send } else { send + 0x0400_0000 };
                self.info(
                    comm.device,
                    format_args!(
                        "{}: opCount {op_count:x} sendbuff 0x{send:x} recvbuff 0x{recv:x} count {} datatype {} op 0 \
                         root 0 comm 0x{:x} [nranks={}] stream 0x{:x}",
                        call.kind, call.count, call.datatype, comm.address, process.nranks, comm.stream
                    ),
                )?;
            }
            if self.tuning && process.nranks == 4 && process.file_prefix.starts_with("nccl_tests_") {
                let (algorithm, protocol) = tuning_choice(call.count * 2);
                self.info(
                    0,
                    format_args!(
                        "{}: {} Bytes -> Algo {algorithm} proto {protocol} channel{{Lo..Hi}}={{0..31}}",
                        call.kind,
                        call.count * 2
                    ),
                )?;
            }
        }
        Ok(())
    }
}

/// What the synthetic NCCL plans for an all_reduce_perf size: RING/LL up to 64 KiB, RING/LL128
/// up to 512 KiB, RING/SIMPLE above (the shape of NCCL 2.28 on 4 NVLink GPUs).
fn tuning_choice(bytes: u64) -> (&'static str, &'static str) {
    match bytes {
        0..=65536 => ("RING", "LL"),
        65537..=524288 => ("RING", "LL128"),
        _ => ("RING", "SIMPLE"),
    }
}

/// NCCL's `busId` of a device: the PCI bus id as a hex integer (`0000:18:00.0` -> `18000`).
fn bus_id(device: usize) -> String {
    format!("{:x}", PCI_BUSES[device] << 12)
}
