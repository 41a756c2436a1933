//! Command-line interface: clap definitions, turned into validated options for the library.

use clap::{Args, Parser, Subcommand};
use std::path::PathBuf;

#[derive(Debug, Parser)]
#[command(
    name = "nccl-report",
    version,
    about = "Turn archived NCCL experiment runs into seed-exact summaries and a static website"
)]
pub struct Cli {
    #[command(subcommand)]
    pub command: Command,
}

#[derive(Debug, Subcommand)]
pub enum Command {
    /// Recompute every run's summaries and render the site.
    Build(BuildArgs),
    /// Print, as JSON, what nccl-report reads from one input file.
    Inspect(InspectArgs),
    /// Serve the built site on 127.0.0.1 (optionally rebuilding when runs change).
    Serve(ServeArgs),
    /// Commit the built site into a branch (default gh-pages) and push it.
    Publish(PublishArgs),
    /// Copy existing run folders into the runs folder.
    Import(ImportArgs),
    /// Run the experiment suite on this machine's GPUs and archive the run.
    Collect(Box<CollectArgs>),
    /// Generate synthetic runs in the seed layout (fixtures and benchmark corpora).
    Synth(SynthArgs),
    /// Compare two runs case by case (exit 0: no case slower, 1: some case slower, 2: bad input).
    Compare(CompareArgs),
}

#[derive(Debug, Args)]
pub struct BuildArgs {
    /// Folder holding one sub-folder per run.
    #[arg(long, default_value = "runs")]
    pub runs: PathBuf,
    /// Output folder for the site (replaced atomically).
    #[arg(long, default_value = "site")]
    pub out: PathBuf,
    /// Exit 1 when any run is failed or invalid.
    #[arg(long)]
    pub strict: bool,
    /// Worker threads (default: all cores; at most 1024). Output does not depend on it.
    #[arg(long, value_parser = jobs)]
    pub jobs: Option<usize>,
    /// Ignore the build cache and recompute everything.
    #[arg(long)]
    pub no_cache: bool,
    /// Runs per page of the index and the section pages (newest first).
    #[arg(long, default_value_t = crate::site::paging::DEFAULT_PAGE_SIZE, value_parser = positive)]
    pub page_size: usize,
    /// Print the time of each stage and the peak memory as JSON on stderr.
    #[arg(long)]
    pub timings: bool,
    /// Leave the runs' archived inputs (logs, nccl-tests and torchrun outputs...) out of the
    /// site: run pages name them without a link.
    #[arg(long)]
    pub no_evidence: bool,
    /// The URL path the site is served under (`/nccl-report/` on a GitHub Pages project
    /// site): 404.html's links and stylesheet start with it, as that page is served for any
    /// missing URL; every other page links relatively. Letters, digits, `-._~` and `/` only.
    #[arg(long, value_name = "PREFIX", default_value = "/", value_parser = crate::site::paths::site_url)]
    pub site_url: String,
    #[command(flatten)]
    pub limits: LimitArgs,
}

/// The size limits of the commands that read runs (`build`, `serve --watch`, `compare`,
/// `inspect`): one set of flags, turned into the `Limits` value every reader is handed.
#[derive(Debug, Args)]
pub struct LimitArgs {
    /// The most bytes (decompressed) read from a file read whole: section CSVs, manifests,
    /// artifacts, nccl-tests outputs. A larger file makes its run invalid, naming it.
    #[arg(long, value_name = "BYTES", default_value_t = crate::ingest::input::MAX_FILE_BYTES, value_parser = clap::value_parser!(u64).range(1..))]
    pub max_file_bytes: u64,
    /// The most bytes (decompressed) streamed from one NCCL log.
    #[arg(long, value_name = "BYTES", default_value_t = crate::ingest::input::MAX_LOG_BYTES, value_parser = clap::value_parser!(u64).range(1..))]
    pub max_log_bytes: u64,
    /// The most bytes (decompressed) read from a NOTES.md.
    #[arg(long, value_name = "BYTES", default_value_t = crate::ingest::input::MAX_NOTES_BYTES, value_parser = clap::value_parser!(u64).range(1..))]
    pub max_notes_bytes: u64,
}

impl LimitArgs {
    pub fn limits(&self) -> crate::ingest::input::Limits {
        crate::ingest::input::Limits { file: self.max_file_bytes, notes: self.max_notes_bytes, log: self.max_log_bytes }
    }
}

#[derive(Debug, Args)]
pub struct InspectArgs {
    /// An nccl-tests stdout or JSON, an NCCL log, a manifest, a section CSV (`.gz` too).
    pub file: PathBuf,
    #[command(flatten)]
    pub limits: LimitArgs,
    /// Read the file as this kind, whatever its name and content say.
    #[arg(long, value_enum)]
    pub kind: Option<crate::ingest::inspect::Kind>,
}

#[derive(Debug, Args)]
pub struct ServeArgs {
    /// The site folder to serve.
    #[arg(long, default_value = "site")]
    pub out: PathBuf,
    /// The port on 127.0.0.1.
    #[arg(long, default_value_t = 8000)]
    pub port: u16,
    /// Rebuild when anything under the runs folder changes.
    #[arg(long)]
    pub watch: bool,
    /// Runs folder to watch and rebuild from (with --watch).
    #[arg(long, default_value = "runs")]
    pub runs: PathBuf,
    /// Seconds one response may take, from the connection to its last byte (a deadline).
    #[arg(long, default_value_t = 10, value_parser = positive)]
    pub send_timeout: usize,
    /// Size limits of the rebuilds (with --watch).
    #[command(flatten)]
    pub limits: LimitArgs,
}

#[derive(Debug, Args)]
pub struct PublishArgs {
    /// The built site to publish.
    #[arg(long, default_value = "site")]
    pub out: PathBuf,
    /// The branch whose whole content the site becomes.
    #[arg(long, default_value = "gh-pages")]
    pub branch: String,
    /// The remote the branch is pushed to.
    #[arg(long, default_value = "origin")]
    pub remote: String,
    /// Commit into the branch but do not push.
    #[arg(long)]
    pub no_push: bool,
}

#[derive(Debug, Args)]
pub struct ImportArgs {
    /// A run folder (holding manifest.txt or raw/), or a folder of run folders (such as
    /// logs/interview_details/). Sources are only read.
    #[arg(required = true)]
    pub sources: Vec<PathBuf>,
    /// Folder holding one sub-folder per run (created when missing).
    #[arg(long, default_value = "runs")]
    pub runs: PathBuf,
    /// Import the one given run under this id instead of its folder name.
    #[arg(long, value_name = "ID")]
    pub rename: Option<String>,
}

#[derive(Debug, Args)]
pub struct CollectArgs {
    /// Folder holding one sub-folder per run; the run lands in <runs>/<id>.
    #[arg(long, default_value = "runs")]
    pub runs: PathBuf,
    /// Run id (default: the UTC start time, %Y%m%dT%H%M%SZ, as the seed names runs).
    #[arg(long, value_name = "ID")]
    pub run_id: Option<String>,
    /// World sizes: the first runs every section, the others decode only. Sizes above the
    /// GPU count are clamped to it.
    #[arg(long, value_delimiter = ',', default_value = "4,2")]
    pub world_sizes: Vec<u32>,
    /// Timed cycles of every case (each cycle is one row of the per-rank CSVs; at least 1).
    #[arg(long, default_value_t = 10, value_parser = clap::value_parser!(u32).range(1..))]
    pub cycles: u32,
    /// Untimed iterations before the timed cycles (at least 1: the first holds NCCL's lazy
    /// connection setup).
    #[arg(long, default_value_t = 3, value_parser = clap::value_parser!(u32).range(1..))]
    pub warmups: u32,
    /// Decode replay: back-to-back AllReduces of (tokens x 4096) fp16 a cycle, one buffer
    /// each, as each layer of a tensor-parallel model reduces its own (at least 1).
    #[arg(long, default_value_t = 160, value_parser = clap::value_parser!(u32).range(1..))]
    pub decode_collectives: u32,
    /// Per local rank i, entry i: `;`-separated CPU lists (`0-47;48-95;`) or one CPU number
    /// per rank (`0,2,4,6`). Default: the CPUs `nvidia-smi topo -m` lists as local to each GPU;
    /// without them the seed's 0,2,4,... (with a note).
    #[arg(long, value_name = "LIST")]
    pub cpu_affinity: Option<String>,
    /// Path of an nccl-tests all_reduce_perf binary (the control is skipped without it).
    #[arg(long, value_name = "PATH")]
    pub nccl_tests: Option<PathBuf>,
    /// The NCCL Inspector profiler plugin (.so, NCCL 2.28+): enabled for every case and the
    /// nccl-tests control, its dumps kept gzipped under raw/inspector/<case>/.
    #[arg(long, value_name = "PATH_TO_PLUGIN.so")]
    pub nccl_inspector: Option<PathBuf>,
    /// The worker script (default: suite/worker.py beside the runs folder).
    #[arg(long, value_name = "PATH")]
    pub worker: Option<PathBuf>,
    /// Print every command with the environment it sets; run and create nothing. Needs no
    /// GPU; clamps world sizes only when nvidia-smi answers. With --launcher slurm: print
    /// the batch script.
    #[arg(long)]
    pub dry_run: bool,
    /// Run even with TORCH_NCCL_BLOCKING_WAIT=1 or CUDA_LAUNCH_BLOCKING=1 set (both make every
    /// launch or wait blocking and change all timings).
    #[arg(long)]
    pub force: bool,
    /// `local`: torchrun --standalone on this machine's GPUs; `slurm`: write a batch script
    /// into the run folder (see --nodes, --submit); `torchrun`: as local, with the c10d
    /// rendezvous of --nnodes, --node-rank, --rdzv-endpoint.
    #[arg(long, value_enum, default_value = "local")]
    pub launcher: LauncherKind,
    /// Slurm: nodes to allocate.
    #[arg(long, default_value_t = 2, value_parser = clap::value_parser!(u32).range(1..))]
    pub nodes: u32,
    /// Slurm: GPUs per node (torchrun --nproc-per-node).
    #[arg(long, default_value_t = 8, value_parser = clap::value_parser!(u32).range(1..))]
    pub gpus_per_node: u32,
    /// Slurm: the partition (#SBATCH --partition).
    #[arg(long)]
    pub partition: Option<String>,
    /// Slurm: the account charged (#SBATCH --account).
    #[arg(long)]
    pub account: Option<String>,
    /// Slurm: the job's time limit.
    #[arg(long, default_value = "01:00:00")]
    pub time: String,
    /// Slurm: the nodes to run on (#SBATCH --nodelist; a hostlist such as gpu[01-02,07],
    /// expanded and checked before the script is written).
    #[arg(long)]
    pub nodelist: Option<String>,
    /// Slurm: an extra #SBATCH argument, verbatim (repeatable): --sbatch-arg=--qos=high.
    #[arg(long, value_name = "ARG", allow_hyphen_values = true)]
    pub sbatch_arg: Vec<String>,
    /// Slurm: submit the script with sbatch and print the job id.
    #[arg(long, conflicts_with = "dry_run")]
    pub submit: bool,
    /// torchrun: the number of nodes (all given the same --run-id and a shared --runs).
    #[arg(long, default_value_t = 1)]
    pub nnodes: u32,
    /// torchrun: this node's rank.
    #[arg(long, default_value_t = 0)]
    pub node_rank: u32,
    /// torchrun: HOST:PORT of the c10d rendezvous (node 0).
    #[arg(long, default_value = "127.0.0.1:29400")]
    pub rdzv_endpoint: String,
    /// torchrun, several nodes: how long node 0 waits for the others' folders, in seconds.
    #[arg(long, value_name = "SECS", default_value_t = 3600)]
    pub node_timeout: u64,
    /// Land the multi-node run <ID> its batch job assembled (the job's last step does it).
    #[arg(long, value_name = "ID", conflicts_with_all = ["submit", "dry_run"])]
    pub finish: Option<String>,
}

/// `collect --launcher`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
pub enum LauncherKind {
    Local,
    Slurm,
    Torchrun,
}

#[derive(Debug, Args)]
pub struct SynthArgs {
    /// Output folder (created; runs are written inside it).
    #[arg(long)]
    pub out: PathBuf,
    /// Number of runs.
    #[arg(long, default_value_t = 3)]
    pub count: usize,
    /// Seed of the deterministic generator.
    #[arg(long, default_value_t = 1)]
    pub seed: u64,
    /// Approximate NCCL_DEBUG log bytes per rank (0: no logs).
    #[arg(long, default_value_t = 0)]
    pub log_bytes: u64,
    /// Gzip the logs of every k-th run (0: never).
    #[arg(long, default_value_t = 0)]
    pub gzip_every: usize,
    /// Also write NCCL TUNING lines (algorithm/protocol per size) for 4-rank nccl-tests logs.
    #[arg(long)]
    pub tuning: bool,
    /// Small runs (2 ranks, 2 cycles, few rows), for scale benchmarks.
    #[arg(long)]
    pub small: bool,
}

#[derive(Debug, Args)]
pub struct CompareArgs {
    /// `BASE CAND`, or `CAND` alone (its baseline: `--baseline`, the one pinned in
    /// `<runs>/baselines.json`, else the newest earlier ok run of its configuration).
    #[arg(required = true, num_args = 1..=2, value_name = "RUN")]
    pub ids: Vec<String>,
    /// Folder holding one sub-folder per run.
    #[arg(long, default_value = "runs")]
    pub runs: PathBuf,
    /// Base run id (with a single RUN: overrides the pinned or default baseline).
    #[arg(long, value_name = "ID")]
    pub baseline: Option<String>,
    #[arg(long, value_enum, default_value = "text")]
    pub format: crate::analysis::comparison::output::Format,
    /// Compare even when a run is failed or invalid.
    #[arg(long)]
    pub allow_failed: bool,
    /// Exit 0 when a whole family (host-side, device-side) is shifted beyond its noise but no
    /// case is slower: the shift is still reported.
    #[arg(long)]
    pub accept_drift: bool,
    #[command(flatten)]
    pub limits: LimitArgs,
}

/// A count of at least one.
fn positive(text: &str) -> Result<usize, String> {
    match text.parse::<usize>() {
        Ok(n) if n > 0 => Ok(n),
        _ => Err(format!("`{text}` is not a whole number of at least 1")),
    }
}

/// The most worker threads `--jobs` accepts: more would only spend time starting threads.
pub const MAX_JOBS: usize = 1024;

fn jobs(text: &str) -> Result<usize, String> {
    match positive(text)? {
        n if n <= MAX_JOBS => Ok(n),
        _ => Err(format!("`{text}` is more than the {MAX_JOBS} worker threads allowed")),
    }
}
