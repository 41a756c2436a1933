//! What `collect` runs, as data: cases, world sizes, every command with its arguments and
//! environment, and the files each must leave. Pure: no process is started here.
//!
//! Every command runs with the run folder as its working directory and paths relative to it
//! (`raw/results/world4_full`, `raw/nccl/world4_full_%h_%p.log`), so the command lines in the
//! manifest hold no temporary folder name and stay valid wherever the run is archived.

use crate::core::format::count;
use std::fmt::Write as _;
use std::path::PathBuf;

/// Sections of the first (largest) world size, as the seed's `world4_full`.
pub const FULL_SECTIONS: &str = "async,decomposition,fragmentation,decode,numerics";
/// Sections of every other world size, as the seed's `world2_decode`.
pub const DECODE_SECTIONS: &str = "decode";

/// Set in every child's environment, whatever the parent's: NVLink multicast (NVLS) can take
/// the host's GPUs out of service.
pub const SAFETY_ENV: [(&str, &str); 3] =
    [("NCCL_NVLS_ENABLE", "0"), ("TORCH_SYMM_MEM_DISABLE_MULTICAST", "1"), ("NVSHMEM_DISABLE_NVLS", "1")];

/// The seed's NCCL logging plus `TUNING` (NCCL's algorithm/protocol per planned collective; a
/// deviation written in the README), set for torchrun and nccl-tests (with `NCCL_DEBUG_FILE`).
pub const DEBUG_ENV: [(&str, &str); 2] = [("NCCL_DEBUG", "INFO"), ("NCCL_DEBUG_SUBSYS", "INIT,GRAPH,COLL,TUNING")];

/// One torchrun launch of the worker.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Case {
    /// `world4_full`, `world2_decode`.
    pub name: String,
    pub world_size: u32,
    pub sections: &'static str,
}

impl Case {
    /// Every section the worker writes, `contracts` included.
    pub fn outputs(&self) -> Vec<PathBuf> {
        let sections: Vec<&str> = self.sections.split(',').chain(["contracts"]).collect();
        (0..self.world_size)
            .flat_map(|rank| {
                sections.iter().map(move |s| PathBuf::from(format!("raw/results/{}/rank{rank}_{s}.csv", self.name)))
            })
            .collect()
    }
}

/// The first world size runs every section, the others decode only.
pub fn cases(world_sizes: &[u32]) -> Vec<Case> {
    world_sizes
        .iter()
        .enumerate()
        .map(|(i, &n)| {
            let (suffix, sections) = if i == 0 { ("full", FULL_SECTIONS) } else { ("decode", DECODE_SECTIONS) };
            Case { name: format!("world{n}_{suffix}"), world_size: n, sections }
        })
        .collect()
}

/// The world sizes to run and, when they differ from those requested, why.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct WorldSizes {
    pub sizes: Vec<u32>,
    pub note: Option<String>,
}

/// Clamps each size to the GPU count (when known) and drops repeats, keeping order.
pub fn clamp_world_sizes(requested: &[u32], gpus: Option<u32>) -> WorldSizes {
    let mut sizes = Vec::new();
    for &n in requested {
        let n = gpus.map_or(n, |g| n.min(g));
        if !sizes.contains(&n) {
            sizes.push(n);
        }
    }
    let note = (sizes != requested).then(|| match gpus {
        Some(g) => {
            format!(
                "world sizes {} clamped to the {} present: running {}",
                join(requested),
                count(g, "GPU"),
                join(&sizes)
            )
        }
        None => format!("world sizes {} repeat: running {}", join(requested), join(&sizes)),
    });
    WorldSizes { sizes, note }
}

/// The default `--cpu-affinity`: the CPUs `nvidia-smi topo -m` lists as local to each GPU
/// (`local_cpus`, one CPU list per GPU), `;`-separated and ended by `;`, one entry per local
/// rank of the largest world size. Without a usable list for every rank: the seed's
/// `0,2,4,...`, with a note saying why.
pub fn default_cpu_affinity(max_world_size: u32, local_cpus: &[String]) -> (String, Option<String>) {
    let wanted = max_world_size as usize;
    if local_cpus.len() >= wanted && local_cpus[..wanted].iter().all(|c| is_cpu_list(c)) {
        return (format!("{};", local_cpus[..wanted].join(";")), None);
    }
    let cpus: Vec<u32> = (0..max_world_size).map(|rank| rank * 2).collect();
    let note = format!(
        "nvidia-smi topo -m lists no CPU Affinity for each of {}; pinning local rank i to CPU 2i as the seed",
        count(max_world_size, "GPU")
    );
    (join(&cpus), Some(note))
}

/// A Linux CPU list: `0-15`, `0-47,96-143`, `3`.
fn is_cpu_list(text: &str) -> bool {
    text.split(',').all(|part| {
        let (low, high) = part.split_once('-').unwrap_or((part, part));
        matches!((low.parse::<u32>(), high.parse::<u32>()), (Ok(a), Ok(b)) if a <= b)
    })
}

/// Checks a `--cpu-affinity` value, at least one entry per local rank: `;`-separated CPU
/// lists (`0-47;48-95;`), or one CPU number per rank (`0,2,4,6`).
pub fn check_cpu_affinity(list: &str, max_world_size: u32) -> Result<(), String> {
    let entries: Vec<&str> = if list.contains(';') {
        list.split(';').map(str::trim).filter(|e| !e.is_empty()).collect()
    } else {
        list.split(',').map(str::trim).collect()
    };
    if let Some(bad) = entries.iter().find(|e| !is_cpu_list(e) || (!list.contains(';') && e.parse::<u32>().is_err())) {
        return Err(format!("--cpu-affinity {list:?}: {bad:?} is not a CPU number or ';'-ended CPU list"));
    }
    if entries.len() < max_world_size as usize {
        return Err(format!(
            "--cpu-affinity {list:?} has {} entries but world size {max_world_size} needs one per local rank",
            entries.len()
        ));
    }
    Ok(())
}

/// Environment prefixes that change timing, recorded in the manifest (`timing_env=`).
pub const TIMING_ENV_PREFIXES: [&str; 3] = ["NCCL_", "TORCH_", "CUDA_"];
/// A variable whose name holds one of these is never recorded (the same list keeps files
/// that set one off the site).
use crate::ingest::secrets::SECRET_MARKERS;
/// Settings that make every launch or wait blocking: refused unless `--force`.
pub const BLOCKING_ENV: [(&str, &str); 2] = [("TORCH_NCCL_BLOCKING_WAIT", "1"), ("CUDA_LAUNCH_BLOCKING", "1")];

/// The `NCCL_*`, `TORCH_*` and `CUDA_*` variables of `vars`, sorted, secrets left out by name.
pub fn timing_env(vars: impl IntoIterator<Item = (String, String)>) -> Vec<(String, String)> {
    let mut kept: Vec<(String, String)> = vars
        .into_iter()
        .filter(|(k, _)| TIMING_ENV_PREFIXES.iter().any(|p| k.starts_with(p)))
        .filter(|(k, _)| !SECRET_MARKERS.iter().any(|m| k.to_ascii_uppercase().contains(m)))
        .collect();
    kept.sort();
    kept
}

/// The [`BLOCKING_ENV`] settings present in `vars`, as `KEY=VALUE`.
pub fn blocking_env(vars: &[(String, String)]) -> Vec<String> {
    BLOCKING_ENV
        .iter()
        .filter(|(key, value)| vars.iter().any(|(k, v)| k == key && v.trim() == *value))
        .map(|(k, v)| format!("{k}={v}"))
        .collect()
}

pub fn join(values: &[u32]) -> String {
    values.iter().map(u32::to_string).collect::<Vec<_>>().join(",")
}

/// One command `collect` runs, with the file its combined stdout and stderr go to.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Step {
    /// `world4_full`, `nccl_tests_g2`: the name in progress lines and errors.
    pub label: String,
    pub program: String,
    pub args: Vec<String>,
    /// Set on top of the inherited environment (after which [`SAFETY_ENV`] is forced).
    pub env: Vec<(String, String)>,
    /// Relative to the run folder.
    pub stdout: PathBuf,
    /// Folders to create before the launch, relative to the run folder.
    pub dirs: Vec<PathBuf>,
    /// Files the command must have written, relative to the run folder.
    pub outputs: Vec<PathBuf>,
}

impl Step {
    /// The exact command line, prefixed by the environment it sets, shell-quoted where
    /// needed: the manifest's `commands:` lines and the dry run's output.
    pub fn command_line(&self) -> String {
        format!("{}{} {}", self.env_prefix(), shell_quote(&self.program), self.quoted_args()).trim_end().to_string()
    }

    /// `K=V K=V ` for the step's environment and [`SAFETY_ENV`], each value quoted.
    pub fn env_prefix(&self) -> String {
        let mut line = String::new();
        let all_env = self.env.iter().map(|(k, v)| (k.as_str(), v.as_str())).chain(SAFETY_ENV);
        for (key, value) in all_env {
            let _ = write!(line, "{key}={} ", shell_quote(value));
        }
        line
    }

    /// The arguments, each quoted, separated by spaces.
    pub fn quoted_args(&self) -> String {
        self.args.iter().map(|a| shell_quote(a)).collect::<Vec<_>>().join(" ")
    }
}

/// The worker's launch settings, shared by every case.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct WorkerSettings {
    pub worker: PathBuf,
    pub cycles: u32,
    pub warmups: u32,
    pub decode_collectives: u32,
    pub cpu_affinity: String,
    /// Passes `--force`: the worker runs despite a [`BLOCKING_ENV`] setting.
    pub force: bool,
}

impl WorkerSettings {
    /// The worker's settings from `collect`'s options, with the worker path and CPU list chosen.
    pub fn of(options: &crate::collect::CollectOptions, worker: PathBuf, cpu_affinity: String) -> WorkerSettings {
        WorkerSettings {
            worker,
            cycles: options.cycles,
            warmups: options.warmups,
            decode_collectives: options.decode_collectives,
            cpu_affinity,
            force: options.force,
        }
    }
}

fn debug_env(log_name: &str) -> Vec<(String, String)> {
    let mut env: Vec<(String, String)> = DEBUG_ENV.iter().map(|(k, v)| (k.to_string(), v.to_string())).collect();
    env.push(("NCCL_DEBUG_FILE".to_string(), format!("raw/nccl/{log_name}_%h_%p.log")));
    env
}

/// `torchrun --standalone --nproc_per_node=N worker.py --output-dir raw/results/<case> ...`,
/// exactly as the seed launches its worker.
pub fn torch_step(case: &Case, settings: &WorkerSettings) -> Step {
    let output_dir = format!("raw/results/{}", case.name);
    let mut args = vec![
        "--standalone".to_string(),
        format!("--nproc_per_node={}", case.world_size),
        settings.worker.display().to_string(),
        "--output-dir".to_string(),
        output_dir.clone(),
        "--sections".to_string(),
        case.sections.to_string(),
        "--cycles".to_string(),
        settings.cycles.to_string(),
        "--warmups".to_string(),
        settings.warmups.to_string(),
        "--decode-collectives".to_string(),
        settings.decode_collectives.to_string(),
        "--cpu-affinity".to_string(),
        settings.cpu_affinity.clone(),
    ];
    if settings.force {
        args.push("--force".to_string());
    }
    Step {
        label: case.name.clone(),
        program: "torchrun".to_string(),
        args,
        env: debug_env(&case.name),
        stdout: PathBuf::from(format!("raw/{}.stdout", case.name)),
        dirs: vec![PathBuf::from(output_dir), PathBuf::from("raw/nccl")],
        outputs: case.outputs(),
    }
}

/// The nccl-tests control with the seed's arguments; `-J raw/nccl_tests_g<N>.json` when the
/// binary supports it.
pub fn nccl_tests_step(binary: &str, world_size: u32, cycles: u32, json: bool) -> Step {
    let label = format!("nccl_tests_g{world_size}");
    let mut args: Vec<String> = [
        "-b",
        "8K",
        "-e",
        "1M",
        "-f",
        "2",
        "-g",
        &world_size.to_string(),
        "-w",
        "20",
        "-n",
        "100",
        "-N",
        &cycles.to_string(),
        "-c",
        "1",
        "-d",
        "half",
        "-a",
        "3",
    ]
    .iter()
    .map(|s| s.to_string())
    .collect();
    let mut outputs = Vec::new();
    if json {
        let path = format!("raw/{label}.json");
        args.extend(["-J".to_string(), path.clone()]);
        outputs.push(PathBuf::from(path));
    }
    Step {
        env: debug_env(&label),
        stdout: PathBuf::from(format!("raw/{label}.stdout")),
        dirs: vec![PathBuf::from("raw/nccl")],
        label,
        program: binary.to_string(),
        args,
        outputs,
    }
}

/// How often the Inspector's dump thread writes its records (the plugin's default, 0, writes
/// none: its README's examples use 500).
pub const INSPECTOR_DUMP_INTERVAL_US: &str = "500";

/// Enables the NCCL Inspector profiler plugin for `step`: its records go to
/// `raw/inspector/<label>/<host>-pid<pid>.log`, one folder per case (and per nccl-tests control).
pub fn enable_inspector(step: &mut Step, plugin: &str) {
    let dump_dir = format!("raw/inspector/{}", step.label);
    step.env.extend(
        [
            ("NCCL_PROFILER_PLUGIN", plugin),
            ("NCCL_INSPECTOR_ENABLE", "1"),
            ("NCCL_INSPECTOR_DUMP_DIR", &dump_dir),
            ("NCCL_INSPECTOR_DUMP_THREAD_INTERVAL_MICROSECONDS", INSPECTOR_DUMP_INTERVAL_US),
        ]
        .map(|(k, v)| (k.to_string(), v.to_string())),
    );
    step.dirs.push(PathBuf::from(dump_dir));
}

/// Quotes `s` for a POSIX shell when it holds anything but plain characters.
pub fn shell_quote(s: &str) -> String {
    let plain = |c: char| c.is_ascii_alphanumeric() || "_-+=:,./%@".contains(c);
    if !s.is_empty() && s.chars().all(plain) {
        s.to_string()
    } else {
        format!("'{}'", s.replace('\'', r"'\''"))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn settings() -> WorkerSettings {
        WorkerSettings {
            worker: PathBuf::from("/repo/suite/worker.py"),
            cycles: 10,
            warmups: 3,
            decode_collectives: 160,
            cpu_affinity: "0,2,4,6".to_string(),
            force: false,
        }
    }

    #[test]
    fn seed_cases() {
        let cases = cases(&[4, 2]);
        assert_eq!(cases[0].name, "world4_full");
        assert_eq!(cases[0].sections, FULL_SECTIONS);
        assert_eq!(cases[1].name, "world2_decode");
        assert_eq!(
            cases[1].outputs(),
            vec![
                PathBuf::from("raw/results/world2_decode/rank0_decode.csv"),
                PathBuf::from("raw/results/world2_decode/rank0_contracts.csv"),
                PathBuf::from("raw/results/world2_decode/rank1_decode.csv"),
                PathBuf::from("raw/results/world2_decode/rank1_contracts.csv"),
            ]
        );
    }

    #[test]
    fn clamping() {
        let one = clamp_world_sizes(&[4, 2], Some(1));
        assert_eq!(one.sizes, vec![1]);
        assert!(one.note.unwrap().contains("clamped to the 1 GPU present"));
        assert_eq!(clamp_world_sizes(&[4, 2], Some(3)).sizes, vec![3, 2]);
        assert_eq!(clamp_world_sizes(&[4, 2], Some(8)), WorldSizes { sizes: vec![4, 2], note: None });
        assert_eq!(clamp_world_sizes(&[4, 2], None).note, None);
        assert_eq!(clamp_world_sizes(&[2, 2], None).sizes, vec![2]);
    }

    #[test]
    fn cpu_affinity() {
        let (seed, note) = default_cpu_affinity(4, &[]);
        assert_eq!(seed, "0,2,4,6");
        assert!(note.unwrap().contains("no CPU Affinity"));
        assert_eq!(default_cpu_affinity(1, &["0-15".into()]), ("0-15;".to_string(), None));
        let two = ["0-47,96-143".to_string(), "48-95".to_string()];
        assert_eq!(default_cpu_affinity(2, &two).0, "0-47,96-143;48-95;");
        assert_eq!(default_cpu_affinity(2, &["0-15".into(), "N/A".into()]).0, "0,2");
        assert!(check_cpu_affinity("0,2,4,6", 4).is_ok());
        assert!(check_cpu_affinity("0-47,96-143;48-95;", 2).is_ok());
        assert!(check_cpu_affinity("0-47;", 2).unwrap_err().contains("needs one per local rank"));
        assert!(check_cpu_affinity("0-3,2", 2).is_err());
        assert!(check_cpu_affinity("0,2", 4).unwrap_err().contains("needs one per local rank"));
        assert!(check_cpu_affinity("0,x", 2).unwrap_err().contains("\"x\" is not a CPU number"));
    }

    #[test]
    fn timing_environment() {
        let vars = [
            ("NCCL_ALGO", "Ring"),
            ("PATH", "/bin"),
            ("TORCH_HUB_TOKEN", "t"),
            ("NCCL_IB_Key", "k"),
            ("CUDA_LAUNCH_BLOCKING", "1"),
        ]
        .map(|(k, v)| (k.to_string(), v.to_string()));
        let kept = timing_env(vars.clone());
        assert_eq!(
            kept,
            [("CUDA_LAUNCH_BLOCKING", "1"), ("NCCL_ALGO", "Ring")].map(|(k, v)| (k.to_string(), v.to_string()))
        );
        assert_eq!(blocking_env(&kept), vec!["CUDA_LAUNCH_BLOCKING=1".to_string()]);
        assert!(blocking_env(&[("TORCH_NCCL_BLOCKING_WAIT".into(), "0".into())]).is_empty());
    }

    #[test]
    fn forced_worker_gets_force() {
        let forced = WorkerSettings { force: true, ..settings() };
        assert_eq!(torch_step(&cases(&[4])[0], &forced).args.last().map(String::as_str), Some("--force"));
        assert!(!torch_step(&cases(&[4])[0], &settings()).args.contains(&"--force".to_string()));
    }

    #[test]
    fn torch_command_line_matches_the_seed() {
        let step = torch_step(&cases(&[4])[0], &settings());
        assert_eq!(
            step.command_line(),
            "NCCL_DEBUG=INFO NCCL_DEBUG_SUBSYS=INIT,GRAPH,COLL,TUNING NCCL_DEBUG_FILE=raw/nccl/world4_full_%h_%p.log \
             NCCL_NVLS_ENABLE=0 TORCH_SYMM_MEM_DISABLE_MULTICAST=1 NVSHMEM_DISABLE_NVLS=1 \
             torchrun --standalone --nproc_per_node=4 /repo/suite/worker.py --output-dir raw/results/world4_full \
             --sections async,decomposition,fragmentation,decode,numerics --cycles 10 --warmups 3 \
             --decode-collectives 160 --cpu-affinity 0,2,4,6"
        );
    }

    #[test]
    fn nccl_tests_arguments() {
        let step = nccl_tests_step("/opt/nccl-tests/all_reduce_perf", 2, 10, false);
        assert_eq!(step.args.join(" "), "-b 8K -e 1M -f 2 -g 2 -w 20 -n 100 -N 10 -c 1 -d half -a 3");
        assert!(step.outputs.is_empty());
        let json = nccl_tests_step("all_reduce_perf", 1, 3, true);
        assert_eq!(json.args[json.args.len() - 2..], ["-J", "raw/nccl_tests_g1.json"]);
        assert_eq!(json.outputs, vec![PathBuf::from("raw/nccl_tests_g1.json")]);
    }

    #[test]
    fn inspector_env_and_dump_folder_per_case() {
        let mut step = torch_step(&cases(&[2])[0], &settings());
        enable_inspector(&mut step, "/opt/inspector/libnccl-profiler-inspector.so");
        let line = step.command_line();
        assert!(
            line.contains(
                "NCCL_PROFILER_PLUGIN=/opt/inspector/libnccl-profiler-inspector.so NCCL_INSPECTOR_ENABLE=1 \
                 NCCL_INSPECTOR_DUMP_DIR=raw/inspector/world2_full NCCL_INSPECTOR_DUMP_THREAD_INTERVAL_MICROSECONDS=500 "
            ),
            "{line}"
        );
        assert_eq!(step.dirs.last(), Some(&PathBuf::from("raw/inspector/world2_full")));
        let mut control = nccl_tests_step("all_reduce_perf", 2, 1, false);
        enable_inspector(&mut control, "p.so");
        assert!(control.command_line().contains("NCCL_INSPECTOR_DUMP_DIR=raw/inspector/nccl_tests_g2 "));
    }

    #[test]
    fn quoting() {
        assert_eq!(shell_quote("raw/nccl/a_%h_%p.log"), "raw/nccl/a_%h_%p.log");
        assert_eq!(shell_quote("/my dir/worker.py"), "'/my dir/worker.py'");
        assert_eq!(shell_quote("it's"), r"'it'\''s'");
        assert_eq!(shell_quote(""), "''");
    }
}
