//! The text files around the measurements: `manifest.txt` (the seed's keys and commands),
//! torchrun's stdout, and the machine artifacts (nvidia-smi query and topology, ibv_devinfo).

use super::nccl_tests::{GPU_NAME, PCI_BUSES};
use super::rng::Rng;
use super::run::Run;

/// Where the seed's defaults put the suite on the measured machine.
const ROOT: &str = "/root/nccl-learning";
const NCCL_TESTS: &str = "/root/nccl-learning/third_party/nccl-tests/build/all_reduce_perf";
const NCCL_ENV: &str = "NCCL_DEBUG=INFO NCCL_DEBUG_SUBSYS=INIT,GRAPH,COLL";
const DRIVER: &str = "580.159.04";

/// `manifest.txt` with every key the seed writes, in its order, then `commands:`.
/// The worker every synthetic run was timed with: one version, as in a team's real archive,
/// so that runs of one shape form one configuration and get baselines.
const WORKER_SHA256: &str = "5e1f0c7d2b9a4e6f8a3c1d0b7e9f2a4c6d8e0f1a3b5c7d9e1f2a4b6c8d0e2f4a";

pub(super) fn manifest(run: &Run) -> String {
    let mut rng = Rng::derive(run.spec.seed, "manifest");
    let shape = &run.spec.shape;
    let finished = run.spec.start.plus_micros(rng.range(180e6, 420e6) as u64);
    let mut lines = vec![
        "experiment=interview_details".to_string(),
        format!("run_id={}", run.spec.id),
        format!("timestamp_utc={}", finished.iso()),
        format!("hostname={}", run.host),
        format!("gpu={}x {GPU_NAME}", shape.ranks),
        "topology=all GPU pairs NV18".to_string(),
        "torch=2.11.0+cu130".to_string(),
        "cuda_runtime=13.0".to_string(),
        "nccl_runtime=2.28.9".to_string(),
        format!("nccl_source_commit={}", rng.hex(40)),
        format!("worker_sha256={WORKER_SHA256}"),
        format!("cycles={}", shape.cycles),
        format!("warmups={}", shape.warmups),
        format!("decode_collectives={}", shape.decode_collectives),
        format!("cpu_affinity={} (local rank i uses entry i)", run.cpu_affinity()),
        format!("nccl_tests={NCCL_TESTS}"),
        "dtype=FP32 for async/decomposition; FP16 for fragmentation/decode/numeric counterexample/nccl-tests control"
            .to_string(),
        "critical_path_summary=max rank duration per cycle, then median/P95/CV across cycles".to_string(),
        "NCCL_DEBUG=INFO".to_string(),
        "NCCL_DEBUG_SUBSYS=INIT,GRAPH,COLL".to_string(),
        "commands:".to_string(),
    ];
    lines.extend(commands(run).into_iter().map(|command| format!(" {command}")));
    lines.join("\n") + "\n"
}

/// The command lines the seed records: the torchrun cases, then nccl-tests per world size.
fn commands(run: &Run) -> Vec<String> {
    let shape = &run.spec.shape;
    let mut commands: Vec<String> = run
        .cases
        .iter()
        .map(|case| {
            let sections: Vec<&str> = case.sections.iter().map(|s| s.name()).collect();
            format!(
                "{NCCL_ENV} torchrun --standalone --nproc_per_node={} {ROOT}/scripts/61_interview_detail_worker.py \
                 --output-dir {ROOT}/logs/interview_details/{}/raw/results/{} --sections {} --cycles {} \
                 --warmups {} --decode-collectives {} --cpu-affinity {}",
                case.world,
                run.spec.id,
                case.name,
                sections.join(","),
                shape.cycles,
                shape.warmups,
                shape.decode_collectives,
                run.cpu_affinity()
            )
        })
        .collect();
    commands.extend(run.nccl_tests_worlds.iter().map(|world| {
        format!(
            "{NCCL_ENV} {NCCL_TESTS} -b 8K -e 1M -f 2 -g {world} -w 20 -n 100 -N {} -c 1 -d half -a 3",
            shape.cycles
        )
    }));
    commands
}

/// torchrun's stdout for case `case`: its OMP_NUM_THREADS warning, then the workers' lines.
pub(super) fn torchrun_stdout(run: &Run, case: usize) -> String {
    let spec = &run.cases[case];
    let when = run.spec.start.plus_micros(1_500_000 + 90_000_000 * case as u64).glog();
    let prefix = format!("W{when} {} torch/distributed/run.py:803] ", run.launcher_pid(case));
    let mut text = String::new();
    for message in [
        "",
        "*****************************************",
        "Setting OMP_NUM_THREADS environment variable for each process to be 1 in default, to avoid your system \
         being overloaded, please further tune the variable for optimal performance in your application as needed. ",
        "*****************************************",
    ] {
        text.push_str(&format!("{prefix}{message}\n"));
    }
    for rank in 0..spec.world {
        let sections: Vec<&str> = spec.sections.iter().map(|s| s.name()).collect();
        text.push_str(&format!(
            "[rank{rank}] world_size={} cycles={} warmups={} sections=contracts,{} done\n",
            spec.world,
            run.spec.shape.cycles,
            run.spec.shape.warmups,
            sections.join(",")
        ));
    }
    text
}

/// `artifacts/*`: (file name, contents).
pub(super) fn machine_artifacts(run: &Run) -> Vec<(&'static str, String)> {
    vec![
        ("nvidia_smi_query.txt", gpu_query(run)),
        ("nvidia_smi_topo.txt", topology(run.spec.shape.ranks)),
        ("ibv_devinfo.txt", "No IB devices found\n".to_string()),
    ]
}

/// `nvidia-smi --query-gpu=index,name,uuid,driver_version,memory.total,pci.bus_id
/// --format=csv,noheader`.
fn gpu_query(run: &Run) -> String {
    let mut rng = Rng::derive(run.spec.seed, "gpu-uuids");
    PCI_BUSES
        .iter()
        .take(run.spec.shape.ranks)
        .enumerate()
        .map(|(index, bus)| {
            let uuid = [8, 4, 4, 4, 12].map(|digits| rng.hex(digits)).join("-");
            format!("{index}, {GPU_NAME}, GPU-{uuid}, {DRIVER}, 143771 MiB, 00000000:{bus:02X}:00.0\n")
        })
        .collect()
}

/// `nvidia-smi topo -m`: every GPU pair on NVSwitch (NV18), half the GPUs per NUMA node.
fn topology(gpus: usize) -> String {
    let names: Vec<String> = (0..gpus).map(|i| format!("GPU{i}")).collect();
    let mut text = format!("\t\u{1b}[4m{}\tCPU Affinity\tNUMA Affinity\tGPU NUMA ID\u{1b}[0m\n", names.join("\t"));
    let per_node = gpus.div_ceil(2).max(4);
    for (row, name) in names.iter().enumerate() {
        let links: Vec<&str> = (0..gpus).map(|col| if col == row { " X " } else { "NV18" }).collect();
        let node = row / per_node;
        text.push_str(&format!("{name}\t{}\t{}-{}\t{node}\t\tN/A\n", links.join("\t"), node * 48, node * 48 + 47));
    }
    text.push_str(TOPOLOGY_LEGEND);
    text
}

const TOPOLOGY_LEGEND: &str = "
Legend:

  X    = Self
  SYS  = Connection traversing PCIe as well as the SMP interconnect between NUMA nodes (e.g., QPI/UPI)
  NODE = Connection traversing PCIe as well as the interconnect between PCIe Host Bridges within a NUMA node
  PHB  = Connection traversing PCIe as well as a PCIe Host Bridge (typically the CPU)
  PXB  = Connection traversing multiple PCIe bridges (without traversing the PCIe Host Bridge)
  PIX  = Connection traversing at most a single PCIe bridge
  NV#  = Connection traversing a bonded set of # NVLinks
";
