//! The Slurm batch script of a multi-node collect, as text. Pure: it only formats.
//!
//! The worker command line and its NCCL environment come from the same [`Step`]s the local
//! launcher runs ([`crate::collect::plan::torch_step`], [`crate::collect::plan::nccl_tests_step`]):
//! only the launcher part (`--standalone --nproc_per_node=N`) is replaced by the multi-node
//! rendezvous, so whatever the suite adds to a step applies to both launchers.
//!
//! Every step runs under `run_step`, which writes `step_status/<step>` (`0`, the exit status,
//! or `skipped` once a step has failed); the job's facts go to `job.txt`, and the last line
//! calls `nccl-report collect --finish <id>`, which lands the run. Per-task values
//! (`SLURM_NODEID`, the host name) sit inside single-quoted `bash -c` scripts, so each node
//! expands its own.

use crate::collect::plan::{shell_quote, Step, SAFETY_ENV};
use crate::collect::probe::{CPUS, GPU_DETAILS, GPU_QUERY, MACHINE_SCRIPT, TOPOLOGY, VERSIONS_SCRIPT};
use crate::core::format::count;
use std::fmt::Write as _;
use std::path::Path;

/// The port of the c10d rendezvous on the first host of the allocation.
pub const RDZV_PORT: u16 = 29400;

/// The `#SBATCH` choices of `collect --launcher slurm`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SlurmSettings {
    pub nodes: u32,
    pub gpus_per_node: u32,
    pub partition: Option<String>,
    pub account: Option<String>,
    pub time: String,
    pub nodelist: Option<String>,
    /// Extra `#SBATCH` arguments, verbatim (`--qos=high`, `--constraint=h200`).
    pub extra: Vec<String>,
}

/// Everything the script names: the run, where it is assembled, and what it runs.
#[derive(Debug, Clone)]
pub struct ScriptInputs<'a> {
    pub id: &'a str,
    /// The absolute assembly folder `<runs>/.collect-<id>` (on a filesystem every node sees).
    pub run_dir: &'a Path,
    /// The absolute runs folder, for `--finish`.
    pub runs: &'a Path,
    /// The absolute `nccl-report` binary that finishes the run.
    pub nccl_report: &'a Path,
    pub slurm: &'a SlurmSettings,
    /// The single-node torchrun steps of the cases (world size = nodes x GPUs per node).
    pub torch: &'a [Step],
    /// The nccl-tests control for the whole world, when a binary was given.
    pub nccl_tests: Option<&'a Step>,
}

/// The batch script text.
pub fn script(inputs: &ScriptInputs) -> String {
    let mut s = String::new();
    header(&mut s, inputs);
    prologue(&mut s, inputs);
    let lines = step_lines(inputs);
    let _ = writeln!(s, "\n# Per-node metadata: artifacts/<host>/ on every node.\n{}", lines.metadata);
    for (label, line) in &lines.torch {
        let _ = writeln!(s, "\n# {label}: torchrun on every node, one c10d rendezvous.\n{line}");
    }
    if let Some(control) = &lines.nccl_tests {
        let _ = writeln!(s, "\n# nccl-tests control: one MPI task per GPU with an MPI build (MPI=1);");
        let _ = writeln!(s, "# otherwise each node runs its own GPUs, recorded under another name.");
        let _ = writeln!(s, "if ldd {} 2>/dev/null | grep -q libmpi; then\n  {}", control.binary, control.mpi);
        let _ = writeln!(s, "else\n  echo {}\n  {}\nfi", shell_quote(&control.note), control.per_node);
    }
    epilogue(&mut s, inputs);
    s
}

/// The script's steps as the manifest records them: one line each, newlines inside the
/// `bash -c` scripts written as `; `.
pub fn commands(inputs: &ScriptInputs) -> Vec<String> {
    let lines = step_lines(inputs);
    let mut commands = vec![lines.metadata];
    commands.extend(lines.torch.into_iter().map(|(_, line)| line));
    if let Some(control) = lines.nccl_tests {
        commands.push(format!("(MPI build) {}", control.mpi));
        commands.push(format!("(otherwise) {}", control.per_node));
    }
    commands.iter().map(|c| c.replace('\n', "; ")).collect()
}

/// Every `run_step` line of the script.
struct StepLines {
    metadata: String,
    /// (case, line).
    torch: Vec<(String, String)>,
    nccl_tests: Option<ControlLines>,
}

struct ControlLines {
    binary: String,
    mpi: String,
    per_node: String,
    note: String,
}

fn step_lines(inputs: &ScriptInputs) -> StepLines {
    let srun = per_node_srun(inputs.slurm);
    let metadata = format!("run_step metadata {METADATA_OUTPUT} {srun} bash -c {}", shell_quote(&metadata_script()));
    let torch = inputs
        .torch
        .iter()
        .map(|step| {
            let script = shell_quote(&torch_script(step, inputs.slurm));
            let line = format!("run_step {} {} {srun} bash -c {script}", shell_quote(&step.label), stdout(step));
            (step.label.clone(), line)
        })
        .collect();
    StepLines { metadata, torch, nccl_tests: inputs.nccl_tests.map(|step| control_lines(step, inputs.slurm)) }
}

fn header(s: &mut String, inputs: &ScriptInputs) {
    let slurm = inputs.slurm;
    let _ = writeln!(s, "#!/bin/bash");
    let _ = writeln!(
        s,
        "# nccl-report collect --launcher slurm: run {} on {} x {}.",
        inputs.id,
        count(slurm.nodes, "node"),
        count(slurm.gpus_per_node, "GPU")
    );
    let _ = writeln!(
        s,
        "# Generated by nccl-report {}. Submit with: sbatch --parsable job.sbatch",
        env!("CARGO_PKG_VERSION")
    );
    let _ = writeln!(s, "# The bash -c scripts are single-quoted on purpose: each node expands its own variables.");
    let _ = writeln!(s, "# shellcheck disable=SC2016");
    let mut lines = vec![
        format!("--job-name=nccl-report-{}", inputs.id),
        format!("--nodes={}", slurm.nodes),
        "--ntasks-per-node=1".to_string(),
        format!("--gpus-per-node={}", slurm.gpus_per_node),
        "--exclusive".to_string(),
        format!("--time={}", slurm.time),
        format!("--output={}/slurm-%j.out", inputs.run_dir.display()),
    ];
    let optional = [("partition", &slurm.partition), ("account", &slurm.account), ("nodelist", &slurm.nodelist)];
    lines.extend(optional.iter().filter_map(|(key, value)| value.as_ref().map(|v| format!("--{key}={v}"))));
    lines.extend(slurm.extra.iter().cloned());
    for line in lines {
        let _ = writeln!(s, "#SBATCH {line}");
    }
}

fn prologue(s: &mut String, inputs: &ScriptInputs) {
    let _ = writeln!(s, "set -euo pipefail\n");
    let _ = writeln!(s, "RUN_DIR={}", shell_quote(&inputs.run_dir.display().to_string()));
    let _ = writeln!(s, "RUNS_DIR={}", shell_quote(&inputs.runs.display().to_string()));
    let _ = writeln!(s, "NCCL_REPORT={}", shell_quote(&inputs.nccl_report.display().to_string()));
    let _ = writeln!(s, "cd \"$RUN_DIR\"");
    let mut dirs = vec!["artifacts".to_string(), "step_status".to_string()];
    for step in inputs.torch.iter().chain(inputs.nccl_tests) {
        dirs.extend(step.dirs.iter().map(|d| shell_quote(&d.display().to_string())));
    }
    dirs.dedup();
    let _ = writeln!(s, "mkdir -p {}\n", dirs.join(" "));
    let _ = writeln!(s, "# NVLink multicast (NVLS) off in every step; srun passes the environment on.");
    for (key, value) in SAFETY_ENV {
        let _ = writeln!(s, "export {key}={}", shell_quote(value));
    }
    let _ = writeln!(s, "\n# The rendezvous: the first host of the allocation, the same on every node.");
    let _ = writeln!(s, "# (sed, not head: head would close the pipe early and pipefail would end the job)");
    let _ = writeln!(s, "RDZV_HOST=\"$(scontrol show hostnames \"$SLURM_JOB_NODELIST\" | sed -n 1p)\"");
    let _ = writeln!(s, "RDZV_ENDPOINT=\"$RDZV_HOST:{RDZV_PORT}\"");
    let _ = writeln!(s, "export RDZV_ENDPOINT");
    s.push_str(RUN_STEP);
}

/// Runs a step unless one failed before, recording its status; never stops the script, so
/// the job always reaches `--finish`.
const RUN_STEP: &str = r#"
FAILED_STEP=""
# run_step NAME OUTPUT COMMAND...: runs COMMAND with stdout and stderr to OUTPUT;
# step_status/NAME gets 0, the exit status, or "skipped" once a step has failed.
run_step() {
  local name="$1" output="$2"
  shift 2
  if [ -n "$FAILED_STEP" ]; then
    echo skipped > "step_status/$name"
    return 0
  fi
  echo "== $(date -u +%FT%TZ) $name: output in $output"
  local rc=0
  "$@" > "$output" 2>&1 || rc=$?
  echo "$rc" > "step_status/$name"
  if [ "$rc" -ne 0 ]; then
    FAILED_STEP="$name"
    echo "== $name failed with exit status $rc; later steps are skipped" >&2
  fi
}
"#;

/// Where the metadata step's output (one line per node) goes.
const METADATA_OUTPUT: &str = "artifacts/metadata.stdout";

/// The step's output file (every node's lines, as srun merges them), quoted.
fn stdout(step: &Step) -> String {
    shell_quote(&step.stdout.display().to_string())
}

fn per_node_srun(slurm: &SlurmSettings) -> String {
    format!("srun --nodes={0} --ntasks={0} --ntasks-per-node=1", slurm.nodes)
}

/// The node's name, as Slurm knows it (`SLURMD_NODENAME`), else `hostname -s`.
const HOST: &str = "host=\"${SLURMD_NODENAME:-$(hostname -s)}\"";

/// Writes the host's GPU query, topology, NICs, versions and NCCL-related environment.
fn metadata_script() -> String {
    let quoted = |c: &[&str]| c.iter().map(|a| shell_quote(a)).collect::<Vec<_>>().join(" ");
    let versions = quoted(&["python3", "-c", VERSIONS_SCRIPT]);
    [
        HOST,
        "dir=\"artifacts/$host\"",
        "mkdir -p \"$dir\"",
        &format!("{} > \"$dir/nvidia_smi_query.txt\"", quoted(&GPU_QUERY)),
        &format!("{} > \"$dir/nvidia_smi_topo.txt\" 2>&1", quoted(&TOPOLOGY)),
        "{ ibv_devinfo || ibstat || echo \"neither ibv_devinfo nor ibstat answered\"; } > \"$dir/ibv_devinfo.txt\" 2>&1",
        &format!("{versions} > \"$dir/versions.txt\""),
        &format!("{} > \"$dir/machine.txt\"", quoted(&["python3", "-c", MACHINE_SCRIPT])),
        &format!("{} > \"$dir/nvidia_smi_q.txt\" 2>&1", quoted(&GPU_DETAILS)),
        &format!("{} > \"$dir/lscpu.txt\" 2>&1", quoted(&CPUS)),
        "env | grep -E '^(NCCL|CUDA|NVSHMEM|TORCH|UCX|FI)_' | sort > \"$dir/env.txt\" || true",
        "echo \"node $SLURM_NODEID: $host\"",
    ]
    .join("\n")
}

/// The node's torchrun: the step's environment and worker arguments, the launcher replaced.
fn torch_script(step: &Step, slurm: &SlurmSettings) -> String {
    let worker_args: Vec<String> = step
        .args
        .iter()
        .filter(|a| *a != "--standalone" && !a.starts_with("--nproc_per_node"))
        .map(|a| shell_quote(a))
        .collect();
    format!(
        "{HOST}\necho \"node $SLURM_NODEID ($host): rendezvous $RDZV_ENDPOINT, job $SLURM_JOB_ID\"\n\
         {}{} --nnodes={} --nproc-per-node={} --rdzv-backend=c10d \
         --rdzv-endpoint=\"$RDZV_ENDPOINT\" --rdzv-id=\"$SLURM_JOB_ID\" {}",
        step.env_prefix(),
        shell_quote(&step.program),
        slurm.nodes,
        slurm.gpus_per_node,
        worker_args.join(" ")
    )
}

/// One MPI task per GPU when the binary links MPI; otherwise every node runs its own GPUs
/// (no inter-node traffic), written under another name so it is never read as the control.
fn control_lines(step: &Step, slurm: &SlurmSettings) -> ControlLines {
    let total = slurm.nodes * slurm.gpus_per_node;
    let mut mpi = step.clone();
    set_gpus(&mut mpi.args, 1);
    let mut local = step.clone();
    set_gpus(&mut local.args, slurm.gpus_per_node);
    if let Some(j) = local.args.iter().position(|a| a == "-J") {
        local.args.truncate(j);
    }
    let binary = shell_quote(&step.program);
    let label = shell_quote(&step.label);
    let mpi_line = format!(
        "run_step {label} {} env {}srun --mpi=pmix --nodes={} --ntasks={total} --ntasks-per-node={} {binary} {}",
        stdout(step),
        mpi.env_prefix(),
        slurm.nodes,
        slurm.gpus_per_node,
        mpi.quoted_args(),
    );
    let note = format!(
        "note: {} is not an MPI build: each node runs its own {}; this is no inter-node control",
        step.program,
        count(slurm.gpus_per_node, "GPU")
    );
    let node_script = format!(
        "{HOST}\necho {}\n{}{binary} {} > \"raw/{}_node_$host.stdout\" 2>&1",
        shell_quote(&note),
        local.env_prefix(),
        local.quoted_args(),
        step.label
    );
    let per_node = format!(
        "run_step {label} {} {} bash -c {}",
        shell_quote(&format!("raw/{}_per_node.log", step.label)),
        per_node_srun(slurm),
        shell_quote(&node_script)
    );
    ControlLines { binary, mpi: mpi_line, per_node, note }
}

fn set_gpus(args: &mut [String], gpus: u32) {
    if let Some(i) = args.iter().position(|a| a == "-g") {
        if let Some(value) = args.get_mut(i + 1) {
            *value = gpus.to_string();
        }
    }
}

fn epilogue(s: &mut String, inputs: &ScriptInputs) {
    let _ = writeln!(s, "\n# The job's facts, then the run lands (or goes to runs/.failed/).");
    let _ = writeln!(s, "{{");
    let _ = writeln!(s, "  echo \"job_id=$SLURM_JOB_ID\"");
    let _ = writeln!(s, "  echo \"nodelist=$SLURM_JOB_NODELIST\"");
    let _ = writeln!(s, "  echo \"hosts=$(scontrol show hostnames \"$SLURM_JOB_NODELIST\" | paste -sd, -)\"");
    let _ = writeln!(s, "  echo \"nodes={}\"", inputs.slurm.nodes);
    let _ = writeln!(s, "  echo \"gpus_per_node={}\"", inputs.slurm.gpus_per_node);
    let _ = writeln!(s, "  echo \"rdzv_endpoint=$RDZV_ENDPOINT\"");
    let _ = writeln!(s, "  echo \"failed_step=$FAILED_STEP\"");
    let _ = writeln!(s, "}} > job.txt");
    let _ = writeln!(s, "exec \"$NCCL_REPORT\" collect --runs \"$RUNS_DIR\" --finish {}", shell_quote(inputs.id));
}
