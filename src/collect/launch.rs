//! `nccl-report collect`: run the suite on this machine's GPUs, as the seed runner does.
//!
//! Decisions behind `nccl-report collect`:
//! - Everything that can refuse is checked before anything is created: the run id, that
//!   `runs/<id>` and `runs/.collect-<id>` are free, GPUs (`nvidia-smi` lists at least one),
//!   `torchrun` on `PATH`, the worker file, and `python3` reporting torch / CUDA / NCCL.
//! - World sizes larger than the GPU count are clamped to it and repeats dropped (said on
//!   stderr and recorded as `world_sizes=` next to `requested_world_sizes=`).
//! - The run is assembled in `runs/.collect-<id>/` with that folder as every command's
//!   working directory (paths in commands are relative to the run), then renamed to
//!   `runs/<id>/`. A failure moves it to `runs/.failed/<id>/` (`<id>-2`... when taken) with
//!   a `failure.txt` and a manifest saying `status=failed: ...`.
//! - NCCL logs are gzipped (`raw/nccl/*.log.gz`, `nccl_logs=gzip`) in landed runs; failed
//!   runs keep them plain for reading.
//! - The nccl-tests control runs once per world size, ascending as in the seed, when
//!   `--nccl-tests` names an existing file (else it is skipped: `nccl_tests=not run: <why>`);
//!   `-J raw/nccl_tests_g<N>.json` is added when its `-h` lists `-J`. That JSON copies the
//!   whole process environment: only `NCCL_*`, `CUDA_*`, `NVSHMEM_*` and `TORCH_*` entries
//!   are kept (`nccl_tests_json_env=`), and a JSON that cannot be read is removed.
//! - `--nccl-inspector PLUGIN.so` (an existing file, else refused before anything is created)
//!   sets `NCCL_PROFILER_PLUGIN`, `NCCL_INSPECTOR_ENABLE=1`, a dump folder per case
//!   `raw/inspector/<case>/` (the nccl-tests control's `nccl_tests_g<N>` too) and a 500 us dump
//!   interval for every step; the dumps are gzipped like the logs, the manifest records
//!   `nccl_inspector=<plugin>`. At one rank NCCL launches no collective kernel: no records.
//! - `--dry-run` creates nothing and needs neither GPU nor torchrun. It probes `nvidia-smi`
//!   when present (read-only) and clamps as a real run would; without it the requested world
//!   sizes are shown unclamped, and it says so. It never runs the nccl-tests binary (not even
//!   `-h`): its commands are shown with `-J`.
//! - An `--nccl-tests` path with a control character (a newline would inject a manifest key)
//!   is refused before anything is created.
//! - The worker defaults to `suite/worker.py` beside the runs folder (`<runs>/../suite`).
//! - An interrupted collect (Ctrl-C) leaves `runs/.collect-<id>/`: the build ignores
//!   dot-folders, and a new collect of that id refuses until it is removed.

use crate::collect::clock::UtcTime;
use crate::collect::plan::{self, Step, WorkerSettings, WorldSizes, SAFETY_ENV};
use crate::collect::probe::{self, Gpus, Versions};
use crate::collect::record::{gpu_summary, local_cpus, manifest_text, topology_summary, worker_cpus};
use crate::collect::steps::{filter_json_env, gzip_inspector_dumps, gzip_logs, run_step, KEPT_ENV_PREFIXES};
use crate::collect::{CollectOptions, Launcher};
use crate::core::format::count;
use crate::core::run_id;
use crate::core::stdout::outln;
use anyhow::{anyhow, bail, Context, Result};
use sha2::Digest;
use std::fs;
use std::path::{Path, PathBuf};

/// The seed's dtype and critical-path notes, recorded verbatim in every manifest.
pub(crate) const DTYPE: &str =
    "FP32 for async/decomposition; FP16 for fragmentation/decode/numeric counterexample/nccl-tests control";
pub(crate) const CRITICAL_PATH: &str = "max rank duration per cycle, then median/P95/CV across cycles";

/// Collects a run on this machine (`collect::collect` has sent every other launcher away).
pub(crate) fn collect_here(options: &CollectOptions) -> Result<()> {
    let started = UtcTime::now();
    let id = options.run_id.clone().unwrap_or_else(|| started.run_id());
    run_id::validate(&id).map_err(|e| anyhow!("run id {id:?}: {e}"))?;
    check_counts(options)?;
    let folders = Folders::new(&options.runs, &id);
    if options.dry_run {
        return dry_run(options, &folders);
    }
    folders.check_free()?;
    let machine = Machine::probe()?;
    let worker = existing_worker(options)?;
    let plan = LaunchPlan::new(options, &id, Some(machine.gpus.count), &machine.topology, worker)?;
    for note in &plan.notes {
        eprintln!("note: {note}");
    }
    let context = ManifestContext { id: &id, started, machine: &machine, plan: &plan };
    assemble_and_land(&folders, &context)
}

fn check_counts(options: &CollectOptions) -> Result<()> {
    if options.world_sizes.is_empty() || options.world_sizes.contains(&0) {
        bail!("--world-sizes needs one or more sizes of at least 1, got {:?}", options.world_sizes);
    }
    Ok(())
}

/// `runs/<id>`, its assembly folder `runs/.collect-<id>` and the failed runs' folder.
pub(crate) struct Folders {
    pub(crate) id: String,
    pub(crate) landed: PathBuf,
    pub(crate) assembly: PathBuf,
    failed: PathBuf,
}

impl Folders {
    pub(crate) fn new(runs: &Path, id: &str) -> Self {
        Folders {
            id: id.to_string(),
            landed: runs.join(id),
            assembly: runs.join(format!(".collect-{id}")),
            failed: runs.join(".failed"),
        }
    }

    pub(crate) fn check_free(&self) -> Result<()> {
        if self.landed.symlink_metadata().is_ok() {
            bail!("{} already exists; choose another --run-id", self.landed.display());
        }
        if self.assembly.symlink_metadata().is_ok() {
            bail!(
                "{} exists: a collect of this id is running or was interrupted; remove it or choose another --run-id",
                self.assembly.display()
            );
        }
        Ok(())
    }

    /// Moves the assembly folder to `.failed/<id>` (or `<id>-2`, ...); returns where.
    fn move_to_failed(&self) -> Result<PathBuf> {
        fs::create_dir_all(&self.failed).with_context(|| format!("cannot create {}", self.failed.display()))?;
        let mut target = self.failed.join(&self.id);
        let mut n = 2;
        while target.symlink_metadata().is_ok() {
            target = self.failed.join(format!("{}-{n}", self.id));
            n += 1;
        }
        fs::rename(&self.assembly, &target)
            .with_context(|| format!("cannot move {} to {}", self.assembly.display(), target.display()))?;
        Ok(target)
    }
}

/// What this machine is, probed before anything is created.
struct Machine {
    gpus: Gpus,
    topology: String,
    ib_devices: String,
    versions: Versions,
    hostname: String,
    /// `artifacts/machine.txt`, `nvidia_smi_q.txt` and `lscpu.txt` (see `probe::MACHINE_SCRIPT`).
    machine: String,
    gpu_details: String,
    cpus: String,
}

impl Machine {
    fn probe() -> Result<Self> {
        let gpus = probe::probe_gpus().map_err(|why| {
            anyhow!("collect needs NVIDIA GPUs: {why}; nothing was created (--dry-run shows the commands)")
        })?;
        if probe::find_on_path("torchrun").is_none() {
            bail!("collect needs torchrun, which is not on PATH (install PyTorch or activate its environment); nothing was created");
        }
        let versions = probe::probe_versions().map_err(|why| {
            anyhow!("collect needs python3 with torch: {why}; make python3 the interpreter of torchrun; nothing was created")
        })?;
        Ok(Machine {
            gpus,
            topology: probe::capture_artifact(&probe::TOPOLOGY),
            ib_devices: probe::capture_artifact(&probe::IB_DEVICES),
            versions,
            hostname: hostname(),
            machine: probe::capture_artifact(&["python3", "-c", probe::MACHINE_SCRIPT]),
            gpu_details: probe::capture_artifact(&probe::GPU_DETAILS),
            cpus: probe::capture_artifact(&probe::CPUS),
        })
    }
}

fn hostname() -> String {
    ["/proc/sys/kernel/hostname", "/etc/hostname"]
        .iter()
        .find_map(|p| fs::read_to_string(p).ok().map(|s| s.trim().to_string()).filter(|s| !s.is_empty()))
        .or_else(|| std::env::var("HOSTNAME").ok())
        .unwrap_or_else(|| "unknown".to_string())
}

/// `--worker`, or `suite/worker.py` beside the runs folder.
fn worker_path(options: &CollectOptions) -> PathBuf {
    options
        .worker
        .clone()
        .unwrap_or_else(|| options.runs.parent().unwrap_or(Path::new("")).join("suite").join("worker.py"))
}

pub(crate) fn existing_worker(options: &CollectOptions) -> Result<PathBuf> {
    let worker = worker_path(options);
    if !worker.is_file() {
        bail!("the worker {} does not exist (give --worker PATH); nothing was created", worker.display());
    }
    fs::canonicalize(&worker).with_context(|| format!("cannot resolve {}", worker.display()))
}

/// Everything `collect` will run, decided before anything runs.
struct LaunchPlan {
    requested: Vec<u32>,
    world_sizes: WorldSizes,
    settings: WorkerSettings,
    /// The manifest's `nccl_tests=`: the binary, or `not run: <why>`.
    nccl_tests: String,
    /// The Inspector plugin enabled for every step (canonical path), when given.
    nccl_inspector: Option<PathBuf>,
    steps: Vec<Step>,
    notes: Vec<String>,
    /// Manifest entries of a launcher other than the default (`launcher=torchrun`, ...).
    launcher: Vec<(String, String)>,
}

impl LaunchPlan {
    fn new(options: &CollectOptions, id: &str, gpus: Option<u32>, topology: &str, worker: PathBuf) -> Result<Self> {
        if options.warmups < 1 {
            bail!("--warmups must be at least 1: cycle 0 would hold NCCL's lazy connection setup");
        }
        let blocking = plan::blocking_env(&plan::timing_env(std::env::vars()));
        if !blocking.is_empty() && !options.force {
            bail!("{} makes every launch or wait blocking and changes all timings; unset it or pass --force; nothing was created", blocking.join(" "));
        }
        let world_sizes = plan::clamp_world_sizes(&options.world_sizes, gpus);
        let max_world = world_sizes.sizes.iter().copied().max().unwrap_or(1);
        let mut notes: Vec<String> = world_sizes.note.iter().cloned().collect();
        let cpu_affinity = match &options.cpu_affinity {
            Some(list) => {
                plan::check_cpu_affinity(list, max_world).map_err(|e| anyhow!(e))?;
                list.clone()
            }
            None => {
                let (list, note) = plan::default_cpu_affinity(max_world, &local_cpus(topology));
                notes.extend(note);
                list
            }
        };
        let settings = WorkerSettings::of(options, worker, cpu_affinity);
        let mut steps: Vec<Step> =
            plan::cases(&world_sizes.sizes).iter().map(|case| plan::torch_step(case, &settings)).collect();
        let (control, nccl_tests, note) =
            nccl_tests_steps(options.nccl_tests.as_deref(), &world_sizes.sizes, options.cycles, options.dry_run);
        steps.extend(control);
        notes.extend(note);
        let nccl_inspector = options.nccl_inspector.as_deref().map(inspector_plugin).transpose()?;
        if let Some(plugin) = &nccl_inspector {
            let plugin = plugin.display().to_string();
            steps.iter_mut().for_each(|step| plan::enable_inspector(step, &plugin));
        }
        let mut launcher = Vec::new();
        if let Launcher::Torchrun(rendezvous) = &options.launcher {
            steps = steps.iter().map(|step| rendezvous.apply(step, id)).collect();
            launcher = rendezvous.manifest_entries();
        }
        Ok(LaunchPlan {
            requested: options.world_sizes.clone(),
            world_sizes,
            settings,
            nccl_tests,
            nccl_inspector,
            steps,
            notes,
            launcher,
        })
    }
}

/// Refuses an nccl-tests path holding a control character: it is recorded in the manifest
/// (`nccl_tests=<path>`), where a newline would start a key of its own.
pub(crate) fn check_nccl_tests_path(path: Option<&Path>) -> Result<()> {
    match path {
        Some(path) if path.as_os_str().to_string_lossy().chars().any(char::is_control) => bail!(
            "--nccl-tests {path:?} holds a control character (a newline would start a manifest line); nothing was created"
        ),
        _ => Ok(()),
    }
}

/// The nccl-tests control, one step per world size (ascending, as the seed), with the
/// manifest's `nccl_tests=` value and a note for the user. A dry run runs nothing, not even
/// `-h`: it shows the commands as with JSON support (`-J`).
fn nccl_tests_steps(
    option: Option<&Path>,
    world_sizes: &[u32],
    cycles: u32,
    dry_run: bool,
) -> (Vec<Step>, String, Option<String>) {
    let binary = match nccl_tests_binary(option) {
        Ok(binary) => binary,
        Err(why) => {
            let note = format!("nccl-tests control skipped: {why}");
            return (Vec::new(), format!("not run: {why}"), Some(note));
        }
    };
    let json = dry_run || probe::nccl_tests_supports_json(&binary);
    let name = binary.display().to_string();
    let mut ascending = world_sizes.to_vec();
    ascending.sort_unstable();
    let steps = ascending.iter().map(|&n| plan::nccl_tests_step(&name, n, cycles, json)).collect();
    let note = (!json).then(|| format!("{name} -h lists no -J: nccl-tests JSON is not recorded"));
    (steps, name, note)
}

fn nccl_tests_binary(option: Option<&Path>) -> Result<PathBuf, String> {
    let path = option.ok_or("no --nccl-tests given")?;
    if !path.is_file() {
        return Err(format!("{} does not exist", path.display()));
    }
    fs::canonicalize(path).map_err(|e| format!("cannot resolve {}: {e}", path.display()))
}

/// `--nccl-inspector`: an existing file, resolved (a missing plugin refuses the collect: NCCL
/// would silently run without it).
fn inspector_plugin(path: &Path) -> Result<PathBuf> {
    if !path.is_file() {
        bail!(
            "--nccl-inspector {}: no such file (build the plugin from NCCL's ext-profiler/inspector, see the README); nothing was created",
            path.display()
        );
    }
    fs::canonicalize(path).with_context(|| format!("cannot resolve {}", path.display()))
}

/// Prints what a real run would do; creates and runs nothing (only `nvidia-smi` is asked,
/// when present; the nccl-tests binary is not run at all).
fn dry_run(options: &CollectOptions, folders: &Folders) -> Result<()> {
    let worker = worker_path(options);
    let gpus = probe::probe_gpus();
    let topology = if gpus.is_ok() { probe::capture_artifact(&probe::TOPOLOGY) } else { String::new() };
    let plan =
        LaunchPlan::new(options, &folders.id, gpus.as_ref().ok().map(|g| g.count), &topology, absolute(&worker))?;
    outln!("# nccl-report collect --dry-run: nothing is run or created");
    outln!("# run folder: {} (assembled in {})", folders.landed.display(), folders.assembly.display());
    match &gpus {
        Ok(g) => outln!("# GPUs probed: {}", gpu_summary(&g.query).unwrap_or_default()),
        Err(why) => outln!(
            "# GPUs not probed ({why}): world sizes {} are used as requested, not clamped",
            plan::join(&options.world_sizes)
        ),
    }
    for warning in dry_run_warnings(folders, &worker) {
        outln!("# warning: {warning}: a real run would refuse");
    }
    for note in &plan.notes {
        outln!("# {note}");
    }
    outln!("# commands, run from inside the run folder:");
    for (command, redirect) in artifact_commands() {
        outln!("{} {redirect}", with_safety_env(&command.join(" ")));
    }
    for step in &plan.steps {
        outln!("{} > {} 2>&1", step.command_line(), step.stdout.display());
    }
    Ok(())
}

fn dry_run_warnings(folders: &Folders, worker: &Path) -> Vec<String> {
    let mut warnings = Vec::new();
    if folders.landed.symlink_metadata().is_ok() {
        warnings.push(format!("{} already exists", folders.landed.display()));
    }
    if !worker.is_file() {
        warnings.push(format!("the worker {} does not exist", worker.display()));
    }
    warnings
}

/// The artifact commands, quoted, with where their output is recorded.
fn artifact_commands() -> Vec<(Vec<String>, &'static str)> {
    let quoted = |c: &[&str]| c.iter().map(|s| plan::shell_quote(s)).collect::<Vec<_>>();
    vec![
        (quoted(&probe::GPU_QUERY), "> artifacts/nvidia_smi_query.txt"),
        (quoted(&probe::TOPOLOGY), "> artifacts/nvidia_smi_topo.txt 2>&1"),
        (quoted(&probe::IB_DEVICES), "> artifacts/ibv_devinfo.txt 2>&1"),
        (quoted(&["python3", "-c", probe::VERSIONS_SCRIPT]), "> artifacts/versions.txt"),
        (quoted(&["python3", "-c", probe::MACHINE_SCRIPT]), "> artifacts/machine.txt"),
        (quoted(&probe::GPU_DETAILS), "> artifacts/nvidia_smi_q.txt 2>&1"),
        (quoted(&probe::CPUS), "> artifacts/lscpu.txt 2>&1"),
    ]
}

fn with_safety_env(command: &str) -> String {
    let env: Vec<String> = SAFETY_ENV.iter().map(|(k, v)| format!("{k}={v}")).collect();
    format!("{} {command}", env.join(" "))
}

pub(crate) fn absolute(path: &Path) -> PathBuf {
    fs::canonicalize(path)
        .or_else(|_| std::env::current_dir().map(|dir| dir.join(path)))
        .unwrap_or_else(|_| path.to_path_buf())
}

/// Facts the manifest is written from.
struct ManifestContext<'a> {
    id: &'a str,
    started: UtcTime,
    machine: &'a Machine,
    plan: &'a LaunchPlan,
}

fn assemble_and_land(folders: &Folders, context: &ManifestContext) -> Result<()> {
    let dir = &folders.assembly;
    fs::create_dir_all(dir).with_context(|| format!("cannot create {}", dir.display()))?;
    let mut commands = Vec::new();
    let result = assemble(dir, context, &mut commands);
    let status = match &result {
        Ok(()) => Ok(()),
        Err(error) => Err(format!("{error:#}")),
    };
    let mut manifest = manifest_entries(context, &status);
    manifest.push(("worker_cpus".to_string(), cpus_per_case(dir, &context.plan.steps)));
    let written = fs::write(dir.join("manifest.txt"), manifest_text(&manifest, &commands))
        .with_context(|| format!("cannot write {}", dir.join("manifest.txt").display()));
    match result.and(written) {
        Ok(()) => land(folders),
        Err(error) => fail(folders, error),
    }
}

/// `worker_cpus=`: the CPUs each rank of each worker case ran on, from its stdout
/// (`world4_full: 0=0-47 1=...; world2_decode: ...`).
fn cpus_per_case(dir: &Path, steps: &[Step]) -> String {
    let cases: Vec<String> = steps
        .iter()
        .filter(|s| s.program == "torchrun")
        .map(|s| {
            let cpus = fs::read_to_string(dir.join(&s.stdout)).map(|t| worker_cpus(&t)).unwrap_or_default();
            format!("{}: {}", s.label, if cpus.is_empty() { "not reported" } else { &cpus })
        })
        .collect();
    cases.join("; ")
}

fn assemble(dir: &Path, context: &ManifestContext, commands: &mut Vec<String>) -> Result<()> {
    write_artifacts(dir, context.machine)?;
    let total = context.plan.steps.len();
    for (i, step) in context.plan.steps.iter().enumerate() {
        commands.push(step.command_line());
        run_step(dir, step, &format!("[{}/{total}]", i + 1))?;
        for json in step.outputs.iter().filter(|p| p.extension().is_some_and(|x| x == "json")) {
            keep_json_without_secrets(&dir.join(json));
        }
    }
    match gzip_logs(dir)? {
        0 => eprintln!("warning: no NCCL log in raw/nccl (was NCCL_DEBUG_FILE ignored?)"),
        n => eprintln!("gzipped {} under raw/nccl", count(n, "NCCL log")),
    }
    if context.plan.nccl_inspector.is_some() {
        match gzip_inspector_dumps(dir)? {
            0 => {
                eprintln!("note: the NCCL Inspector wrote no records (NCCL launches no collective kernel at one rank)")
            }
            n => eprintln!("gzipped {} under raw/inspector", count(n, "NCCL Inspector dump")),
        }
    }
    Ok(())
}

/// Filters the environment out of an nccl-tests JSON; one that cannot be read is removed
/// rather than kept with the whole environment (the text table in stdout stays).
fn keep_json_without_secrets(path: &Path) {
    match filter_json_env(path) {
        Ok(dropped) => eprintln!("{}: dropped {} from env", path.display(), count(dropped, "environment variable")),
        Err(error) => {
            eprintln!("warning: {error:#}; removing it so its environment copy cannot leak");
            if let Err(error) = fs::remove_file(path) {
                eprintln!("warning: cannot remove {}: {error}", path.display());
            }
        }
    }
}

fn write_artifacts(dir: &Path, machine: &Machine) -> Result<()> {
    let artifacts = dir.join("artifacts");
    fs::create_dir_all(&artifacts).with_context(|| format!("cannot create {}", artifacts.display()))?;
    for (name, text) in [
        ("nvidia_smi_query.txt", &machine.gpus.query),
        ("nvidia_smi_topo.txt", &machine.topology),
        ("ibv_devinfo.txt", &machine.ib_devices),
        ("versions.txt", &machine.versions.text),
        ("machine.txt", &machine.machine),
        ("nvidia_smi_q.txt", &machine.gpu_details),
        ("lscpu.txt", &machine.cpus),
    ] {
        let path = artifacts.join(name);
        fs::write(&path, text).with_context(|| format!("cannot write {}", path.display()))?;
    }
    Ok(())
}

pub(crate) fn land(folders: &Folders) -> Result<()> {
    if folders.landed.symlink_metadata().is_ok() {
        return fail(folders, anyhow!("{} appeared during the collect", folders.landed.display()));
    }
    fs::rename(&folders.assembly, &folders.landed)
        .with_context(|| format!("cannot rename {} to {}", folders.assembly.display(), folders.landed.display()))?;
    eprintln!("collected {}", folders.landed.display());
    outln!("run_dir={}", folders.landed.display());
    Ok(())
}

pub(crate) fn fail(folders: &Folders, error: anyhow::Error) -> Result<()> {
    let report = format!("{error:#}\n");
    let _ = fs::write(folders.assembly.join("failure.txt"), &report);
    match folders.move_to_failed() {
        Ok(target) => Err(error.context(format!(
            "collect failed; what was captured is in {} (nothing landed in the runs folder)",
            target.display()
        ))),
        Err(move_error) => Err(error.context(format!("collect failed, and {move_error:#}"))),
    }
}

/// `timing_env=`: the inherited `NCCL_*`, `TORCH_*`, `CUDA_*` variables (secrets left out by
/// name), space-separated `KEY=VALUE`. Those `collect` sets itself ([`SAFETY_ENV`], the NCCL
/// debug settings) are left out: their values are their own entries and on the `commands:` lines.
fn timing_env_entry() -> String {
    let set_by_collect =
        |k: &str| SAFETY_ENV.iter().chain(&plan::DEBUG_ENV).any(|(s, _)| *s == k) || k == "NCCL_DEBUG_FILE";
    let vars: Vec<String> = plan::timing_env(std::env::vars())
        .into_iter()
        .filter(|(k, _)| !set_by_collect(k))
        .map(|(k, v)| format!("{k}={v}"))
        .collect();
    if vars.is_empty() {
        "none inherited".to_string()
    } else {
        vars.join(" ")
    }
}

fn manifest_entries(context: &ManifestContext, status: &Result<(), String>) -> Vec<(String, String)> {
    let ManifestContext { id, started, machine, plan } = context;
    let versions = &machine.versions;
    let worker_sha = fs::read(&plan.settings.worker)
        .map(|b| format!("{:x}", sha2::Sha256::digest(&b)))
        .unwrap_or_else(|e| format!("unavailable ({e})"));
    let mut entries: Vec<(&str, String)> = vec![
        ("experiment", "interview_details".into()),
        ("run_id", id.to_string()),
        ("timestamp_utc", started.iso8601()),
        ("hostname", machine.hostname.clone()),
        ("gpu", gpu_summary(&machine.gpus.query).unwrap_or_else(|| "unknown".into())),
        ("topology", topology_summary(&machine.topology).unwrap_or_else(|| "unknown".into())),
        ("torch", versions.torch.clone()),
        ("cuda_runtime", versions.cuda_runtime.clone()),
        ("nccl_runtime", versions.nccl_runtime.clone()),
        ("nccl_source_commit", "unavailable".into()),
        ("worker_sha256", worker_sha),
        ("cycles", plan.settings.cycles.to_string()),
        ("warmups", plan.settings.warmups.to_string()),
        ("decode_collectives", plan.settings.decode_collectives.to_string()),
        ("cpu_affinity", format!("{} (local rank i uses entry i)", plan.settings.cpu_affinity)),
        ("timing_env", timing_env_entry()),
        ("nccl_tests", plan.nccl_tests.clone()),
        ("dtype", DTYPE.into()),
        ("critical_path_summary", CRITICAL_PATH.into()),
        ("NCCL_DEBUG", "INFO".into()),
        ("NCCL_DEBUG_SUBSYS", "INIT,GRAPH,COLL,TUNING".into()),
    ];
    entries.extend(SAFETY_ENV.iter().map(|(k, v)| (*k, v.to_string())));
    entries.extend([
        ("world_sizes", plan::join(&plan.world_sizes.sizes)),
        ("requested_world_sizes", plan::join(&plan.requested)),
        ("gpu_count", machine.gpus.count.to_string()),
        ("nccl_logs", if status.is_ok() { "gzip" } else { "plain" }.into()),
        ("collected_by", format!("nccl-report {}", env!("CARGO_PKG_VERSION"))),
    ]);
    if plan.steps.iter().flat_map(|s| &s.outputs).any(|p| p.extension().is_some_and(|x| x == "json")) {
        let kept: Vec<String> = KEPT_ENV_PREFIXES.iter().map(|p| format!("{p}*")).collect();
        entries.push(("nccl_tests_json_env", format!("only {} kept (may hold secrets otherwise)", kept.join(", "))));
    }
    if let Some(plugin) = &plan.nccl_inspector {
        entries.push(("nccl_inspector", plugin.display().to_string()));
    }
    if let Err(why) = status {
        entries.push(("status", format!("failed: {}", why.lines().next().unwrap_or(""))));
    }
    let mut entries: Vec<(String, String)> = entries.into_iter().map(|(k, v)| (k.to_string(), v)).collect();
    entries.extend(plan.launcher.iter().cloned());
    entries
}
