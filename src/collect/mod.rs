//! Getting runs into `runs/`: importing existing run folders, and launching the GPU suite.
//! Writes only under the runs folder, through temporary names renamed into place.

pub mod clock;
pub mod finish;
pub mod gather;
pub mod import;
pub mod launch;
pub mod multinode;
pub mod plan;
pub mod probe;
pub mod record;
pub mod sbatch;
pub mod slurm;
pub mod steps;
pub mod tree;

use std::path::PathBuf;

/// `nccl-report import <SRC>... [--runs runs] [--rename ID]`.
#[derive(Debug, Clone)]
pub struct ImportOptions {
    pub sources: Vec<PathBuf>,
    pub runs: PathBuf,
    /// Import the (single) source run under this id instead of its own.
    pub rename: Option<String>,
}

/// `nccl-report collect ...`: the seed runner's job, in Rust.
#[derive(Debug, Clone)]
pub struct CollectOptions {
    pub runs: PathBuf,
    pub run_id: Option<String>,
    pub world_sizes: Vec<u32>,
    pub cycles: u32,
    pub warmups: u32,
    pub decode_collectives: u32,
    pub cpu_affinity: Option<String>,
    pub nccl_tests: Option<PathBuf>,
    /// The NCCL Inspector profiler plugin (`libnccl-profiler-inspector.so`) to enable.
    pub nccl_inspector: Option<PathBuf>,
    /// The worker script (default: `suite/worker.py` beside the runs folder: `<runs>/../suite/`).
    pub worker: Option<PathBuf>,
    pub dry_run: bool,
    /// Run despite `TORCH_NCCL_BLOCKING_WAIT=1` or `CUDA_LAUNCH_BLOCKING=1` (passed to the worker).
    pub force: bool,
    pub launcher: Launcher,
}

/// Where `collect` runs the suite.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Launcher {
    /// `torchrun --standalone` on this machine's GPUs.
    Local,
    /// A batch script for `sbatch`, submitted when `submit`.
    Slurm { settings: slurm::SlurmSettings, submit: bool },
    /// torchrun's c10d rendezvous instead of `--standalone`, otherwise as `Local`.
    Torchrun(multinode::Rendezvous),
    /// `collect --finish <id>`: land a multi-node run its job assembled.
    Finish(String),
}

/// `nccl-report collect`: a multi-node torchrun without a rendezvous id gathers the nodes'
/// folders (`gather`), Slurm writes a batch script (`sbatch`), `--finish` completes a
/// multi-node run (`finish`); anything else collects on this machine (`launch`).
pub fn collect(options: &CollectOptions) -> anyhow::Result<()> {
    launch::check_nccl_tests_path(options.nccl_tests.as_deref())?;
    match &options.launcher {
        Launcher::Local => {}
        Launcher::Torchrun(rendezvous) => {
            rendezvous.check()?;
            if rendezvous.nnodes > 1 && rendezvous.rdzv_id.is_none() {
                return gather::collect_node(options, rendezvous);
            }
        }
        Launcher::Slurm { settings, submit } => return sbatch::prepare(options, settings, *submit),
        Launcher::Finish(id) => return finish::finish(&options.runs, id),
    }
    launch::collect_here(options)
}
