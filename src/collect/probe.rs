//! What this machine offers `collect`: GPUs (`nvidia-smi`), `torchrun`, torch / CUDA / NCCL
//! versions (`python3`), and whether an nccl-tests binary writes JSON.
//!
//! Tools are found through `PATH` only, so tests simulate a machine by putting fake
//! `nvidia-smi`, `torchrun` and `python3` scripts first on a temporary `PATH`. Every child
//! process gets [`SAFETY_ENV`] whatever the parent's environment says.

use crate::collect::plan::SAFETY_ENV;
use crate::ingest::parse::artifacts::parse_gpu_query;
use std::ffi::OsStr;
use std::io::{ErrorKind, Read};
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::thread;
use std::time::{Duration, Instant};

/// The GPU query the seed records as `artifacts/nvidia_smi_query.txt`.
pub const GPU_QUERY: [&str; 3] =
    ["nvidia-smi", "--query-gpu=index,name,uuid,driver_version,memory.total,pci.bus_id", "--format=csv,noheader"];
pub const TOPOLOGY: [&str; 3] = ["nvidia-smi", "topo", "-m"];
pub const IB_DEVICES: [&str; 1] = ["ibv_devinfo"];
/// Everything `nvidia-smi` says of each GPU (clocks, clock event reasons, power limit,
/// persistence, ECC, MIG), recorded whole as `artifacts/nvidia_smi_q.txt`.
pub const GPU_DETAILS: [&str; 2] = ["nvidia-smi", "-q"];
/// The CPUs as `lscpu` describes them, recorded whole as `artifacts/lscpu.txt`.
pub const CPUS: [&str; 1] = ["lscpu"];

/// Prints `key=value` lines of what host-side timings depend on, recorded as
/// `artifacts/machine.txt` (read by `ingest::parse::machine`): the kernel, the CPU model,
/// count, NUMA nodes and frequency policy, and per GPU its UUID, clocks, power limit,
/// persistence, ECC, MIG mode and active clock event reasons. Every probe is optional: a
/// value that cannot be read is left out, never guessed.
pub const MACHINE_SCRIPT: &str = r#"import glob, os, platform, subprocess
def out(k, v):
    v = str(v).strip().replace("\n", " ")
    if v: print(k + "=" + v)
def read(p):
    try:
        with open(p) as f: return f.read().strip()
    except OSError: return ""
out("kernel", platform.release())
for line in read("/etc/os-release").splitlines():
    if line.startswith("PRETTY_NAME="): out("os", line.split("=", 1)[1].strip('"'))
models = [l.split(":", 1)[1].strip() for l in read("/proc/cpuinfo").splitlines() if l.startswith("model name")]
out("cpu_model", models[0] if models else "")
out("cpu_count", os.cpu_count() or "")
out("numa_nodes", len(glob.glob("/sys/devices/system/node/node[0-9]*")) or "")
govs = sorted({read(p) for p in glob.glob("/sys/devices/system/cpu/cpu[0-9]*/cpufreq/scaling_governor")} - {""})
out("cpu_governor", ",".join(govs))
khz = [read(p) for p in glob.glob("/sys/devices/system/cpu/cpu[0-9]*/cpufreq/cpuinfo_max_freq")]
khz = [int(k) for k in khz if k.isdigit()]
out("cpu_max_mhz", max(khz) // 1000 if khz else "")
out("cpu_boost", read("/sys/devices/system/cpu/cpufreq/boost"))
out("smt", read("/sys/devices/system/cpu/smt/active"))
fields = "index,uuid,clocks.max.sm,clocks.sm,clocks.mem,power.limit,persistence_mode,ecc.mode.current,mig.mode.current,clocks_event_reasons.active"
try:
    rows = subprocess.run(["nvidia-smi", "--query-gpu=" + fields, "--format=csv,noheader,nounits"], capture_output=True, text=True, timeout=60).stdout
except Exception:
    rows = ""
names = ["uuid", "sm_max_mhz", "sm_mhz", "mem_mhz", "power_limit_w", "persistence", "ecc", "mig", "clock_event_reasons"]
for row in rows.splitlines():
    cells = [c.strip() for c in row.split(",")]
    if len(cells) == len(names) + 1 and cells[0].isdigit():
        for name, value in zip(names, cells[1:]):
            if value not in ("[N/A]", "N/A", "[Not Supported]"): out("gpu" + cells[0] + "." + name, value)
"#;

/// Prints `torch=`, `cuda_runtime=` and `nccl_runtime=` lines (the seed's three versions).
pub const VERSIONS_SCRIPT: &str = "import torch; print(\"torch=\" + torch.__version__); \
print(\"cuda_runtime=\" + str(torch.version.cuda)); \
print(\"nccl_runtime=\" + \".\".join(map(str, torch.cuda.nccl.version())))";

/// A command with [`SAFETY_ENV`] forced into its environment.
pub fn child(program: impl AsRef<OsStr>) -> Command {
    let mut command = Command::new(program);
    command.envs(SAFETY_ENV);
    command
}

/// The first executable `name` on `PATH`.
pub fn find_on_path(name: &str) -> Option<PathBuf> {
    let path = std::env::var_os("PATH")?;
    std::env::split_paths(&path).map(|dir| dir.join(name)).find(|p| is_executable(p))
}

fn is_executable(path: &Path) -> bool {
    #[cfg(unix)]
    {
        use std::os::unix::fs::PermissionsExt;
        path.metadata().is_ok_and(|m| m.is_file() && m.permissions().mode() & 0o111 != 0)
    }
    #[cfg(not(unix))]
    {
        path.is_file()
    }
}

/// The GPUs `nvidia-smi` lists: its raw output (the artifact) and the count.
#[derive(Debug, Clone)]
pub struct Gpus {
    pub query: String,
    pub count: u32,
}

/// Runs the GPU query; `Err` says why this machine has no usable GPU.
pub fn probe_gpus() -> Result<Gpus, String> {
    let output = child(GPU_QUERY[0]).args(&GPU_QUERY[1..]).stdin(Stdio::null()).output();
    let output = match output {
        Ok(output) => output,
        Err(e) if e.kind() == ErrorKind::NotFound => {
            return Err("nvidia-smi is not on PATH (no NVIDIA driver on this machine?)".into())
        }
        Err(e) => return Err(format!("cannot run nvidia-smi: {e}")),
    };
    let stdout = String::from_utf8_lossy(&output.stdout).into_owned();
    let said = || format!("{} {}", stdout.trim(), String::from_utf8_lossy(&output.stderr).trim()).trim().to_string();
    if !output.status.success() {
        return Err(format!("nvidia-smi failed ({}): {}", output.status, said()));
    }
    let count = parse_gpu_query(&stdout).len() as u32;
    if count == 0 {
        return Err(format!("nvidia-smi lists no GPU: {:?}", said()));
    }
    Ok(Gpus { query: stdout, count })
}

/// The combined output of an artifact command; a missing tool or a failure is recorded as
/// its error text, never fatal (as the seed, which stores whatever the command printed).
pub fn capture_artifact(command: &[&str]) -> String {
    let output = child(command[0]).args(&command[1..]).stdin(Stdio::null()).output();
    match output {
        Ok(output) => {
            let mut text = String::from_utf8_lossy(&output.stdout).into_owned();
            text.push_str(&String::from_utf8_lossy(&output.stderr));
            text
        }
        Err(e) if e.kind() == ErrorKind::NotFound => format!("{}: command not found\n", command[0]),
        Err(e) => format!("{}: {e}\n", command[0]),
    }
}

/// torch, CUDA and NCCL versions as reported by `python3 -c "import torch; ..."`.
#[derive(Debug, Clone)]
pub struct Versions {
    /// The script's output, recorded as `artifacts/versions.txt`.
    pub text: String,
    pub torch: String,
    pub cuda_runtime: String,
    pub nccl_runtime: String,
}

pub fn probe_versions() -> Result<Versions, String> {
    let output = child("python3")
        .args(["-c", VERSIONS_SCRIPT])
        .stdin(Stdio::null())
        .output()
        .map_err(|e| format!("cannot run python3: {e}"))?;
    let text = String::from_utf8_lossy(&output.stdout).into_owned();
    let value =
        |key: &str| text.lines().find_map(|l| l.strip_prefix(key)?.strip_prefix('=')).map(|v| v.trim().to_string());
    match (output.status.success(), value("torch"), value("cuda_runtime"), value("nccl_runtime")) {
        (true, Some(torch), Some(cuda_runtime), Some(nccl_runtime)) => {
            Ok(Versions { text, torch, cuda_runtime, nccl_runtime })
        }
        _ => Err(format!(
            "python3 could not report torch / CUDA / NCCL versions ({}): {}{}",
            output.status,
            text.trim(),
            tail(&String::from_utf8_lossy(&output.stderr), 2000)
        )),
    }
}

/// Whether `binary -h` lists `-J` (JSON output, nccl-tests 2.17.3+). Runs at most 10 s.
pub fn nccl_tests_supports_json(binary: &Path) -> bool {
    let Ok(mut process) =
        child(binary).arg("-h").stdin(Stdio::null()).stdout(Stdio::piped()).stderr(Stdio::null()).spawn()
    else {
        return false;
    };
    let mut stdout = process.stdout.take().expect("stdout is piped");
    let reader = thread::spawn(move || {
        let mut text = String::new();
        let _ = stdout.read_to_string(&mut text);
        text
    });
    let deadline = Instant::now() + Duration::from_secs(10);
    while process.try_wait().ok().flatten().is_none() {
        if Instant::now() > deadline {
            let _ = process.kill();
            let _ = process.wait();
            break;
        }
        thread::sleep(Duration::from_millis(20));
    }
    reader.join().is_ok_and(|help| help.contains("-J,"))
}

/// The last `max` bytes of `text` (on a char boundary), for error messages.
pub fn tail(text: &str, max: usize) -> &str {
    let mut start = text.len().saturating_sub(max);
    while !text.is_char_boundary(start) {
        start += 1;
    }
    &text[start..]
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn tail_respects_char_boundaries() {
        assert_eq!(tail("abcdef", 3), "def");
        assert_eq!(tail("ab", 10), "ab");
        assert_eq!(tail("aé", 1), "");
    }
}
