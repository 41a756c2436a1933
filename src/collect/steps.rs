//! Running one planned [`Step`] inside the run folder: combined stdout+stderr streamed to its
//! file, a spinner on stderr showing the step and its latest output line, and checks of the
//! exit status and of the files the step must leave. Also gzips the NCCL logs and filters the
//! environment that nccl-tests copies into its JSON.

use crate::collect::plan::Step;
use crate::collect::probe::{child, tail};
use anyhow::{bail, Context, Result};
use flate2::write::GzEncoder;
use flate2::Compression;
use indicatif::{ProgressBar, ProgressStyle};
use std::fs::{self, File};
use std::io::{self, Read, Seek, SeekFrom};
use std::path::{Path, PathBuf};
use std::process::{Child, ExitStatus, Stdio};
use std::thread;
use std::time::{Duration, Instant};

/// How much of a failing step's output an error message quotes (the seed quoted 6000 chars).
const TAIL_BYTES: usize = 6000;

/// Runs `step` with `dir` as working directory; `Err` carries the tail of its output.
pub fn run_step(dir: &Path, step: &Step, position: &str) -> Result<()> {
    for sub in &step.dirs {
        let path = dir.join(sub);
        fs::create_dir_all(&path).with_context(|| format!("cannot create {}", path.display()))?;
    }
    let out_path = dir.join(&step.stdout);
    let out = File::create(&out_path).with_context(|| format!("cannot create {}", out_path.display()))?;
    let err = out.try_clone().with_context(|| format!("cannot share {}", out_path.display()))?;
    eprintln!("{position} {}: starting {}", step.label, step.program);
    let started = Instant::now();
    let mut process = child(&step.program)
        .args(&step.args)
        .envs(step.env.iter().map(|(k, v)| (k, v)))
        .current_dir(dir)
        .stdin(Stdio::null())
        .stdout(out)
        .stderr(err)
        .spawn()
        .with_context(|| format!("{}: cannot start {}", step.label, step.program))?;
    let status = wait_with_spinner(&mut process, &out_path, &step.label)?;
    check_step(dir, step, status)?;
    eprintln!("{position} {}: done in {:.1} s", step.label, started.elapsed().as_secs_f64());
    Ok(())
}

fn wait_with_spinner(process: &mut Child, out_path: &Path, label: &str) -> Result<ExitStatus> {
    let bar = ProgressBar::new_spinner();
    bar.set_style(
        ProgressStyle::with_template("{spinner} {prefix} [{elapsed_precise}] {wide_msg}")
            .expect("the spinner template is valid"),
    );
    bar.set_prefix(label.to_string());
    bar.enable_steady_tick(Duration::from_millis(120));
    let status = loop {
        if let Some(status) = process.try_wait().context("cannot wait for the child process")? {
            break status;
        }
        bar.set_message(last_line(out_path));
        thread::sleep(Duration::from_millis(100));
    };
    bar.finish_and_clear();
    Ok(status)
}

/// The last nonempty line of a growing file (for the spinner).
fn last_line(path: &Path) -> String {
    let mut text = String::new();
    if let Ok(mut file) = File::open(path) {
        let len = file.metadata().map(|m| m.len()).unwrap_or(0);
        let _ = file.seek(SeekFrom::Start(len.saturating_sub(2048)));
        let mut bytes = Vec::new();
        let _ = file.read_to_end(&mut bytes);
        text = String::from_utf8_lossy(&bytes).into_owned();
    }
    text.lines().rev().find(|l| !l.trim().is_empty()).unwrap_or("").trim().to_string()
}

fn check_step(dir: &Path, step: &Step, status: ExitStatus) -> Result<()> {
    let output = fs::read(dir.join(&step.stdout)).unwrap_or_default();
    let output = String::from_utf8_lossy(&output);
    let quoted = tail(&output, TAIL_BYTES);
    if !status.success() {
        bail!(
            "{} failed ({status})\ncommand: {}\noutput ({}), last lines:\n{quoted}",
            step.label,
            step.command_line(),
            step.stdout.display()
        );
    }
    let missing: Vec<String> =
        step.outputs.iter().filter(|p| !dir.join(p).is_file()).map(|p| p.display().to_string()).collect();
    if !missing.is_empty() {
        bail!(
            "{} exited 0 but did not write {}\ncommand: {}\noutput ({}), last lines:\n{quoted}",
            step.label,
            missing.join(", "),
            step.command_line(),
            step.stdout.display()
        );
    }
    Ok(())
}

/// Replaces every `raw/nccl/*.log` by `*.log.gz`; returns how many were compressed.
pub fn gzip_logs(dir: &Path) -> Result<usize> {
    gzip_files(&dir.join("raw/nccl"), |p| p.extension().is_some_and(|x| x == "log"))
}

/// Replaces every file of `raw/inspector/<case>/` (the Inspector's `<host>-pid<pid>.log`
/// dumps) by its `.gz`; returns how many were compressed.
pub fn gzip_inspector_dumps(dir: &Path) -> Result<usize> {
    let Ok(entries) = fs::read_dir(dir.join("raw/inspector")) else {
        return Ok(0);
    };
    let mut cases: Vec<PathBuf> = entries.filter_map(|e| e.ok().map(|e| e.path())).filter(|p| p.is_dir()).collect();
    cases.sort();
    let mut count = 0;
    for case in cases {
        count += gzip_files(&case, |p| p.extension().is_none_or(|x| x != "gz"))?;
    }
    Ok(count)
}

/// Gzips the plain files of `folder` that `wanted` accepts; returns how many.
fn gzip_files(folder: &Path, wanted: impl Fn(&Path) -> bool) -> Result<usize> {
    let Ok(entries) = fs::read_dir(folder) else {
        return Ok(0);
    };
    let mut files: Vec<PathBuf> =
        entries.filter_map(|e| e.ok().map(|e| e.path())).filter(|p| p.is_file() && wanted(p)).collect();
    files.sort();
    for file in &files {
        gzip_file(file)?;
    }
    Ok(files.len())
}

fn gzip_file(path: &Path) -> Result<()> {
    let mut name = path.as_os_str().to_owned();
    name.push(".gz");
    let target = PathBuf::from(name);
    let mut input = File::open(path).with_context(|| format!("cannot open {}", path.display()))?;
    let output = File::create(&target).with_context(|| format!("cannot create {}", target.display()))?;
    let mut encoder = GzEncoder::new(output, Compression::default());
    io::copy(&mut input, &mut encoder).with_context(|| format!("cannot compress {}", path.display()))?;
    encoder.finish().with_context(|| format!("cannot write {}", target.display()))?;
    fs::remove_file(path).with_context(|| format!("cannot remove {}", path.display()))
}

/// Environment variables an nccl-tests JSON keeps; the rest of its `env` list (the whole
/// process environment, tokens included) is dropped so the run can be committed.
pub const KEPT_ENV_PREFIXES: [&str; 4] = ["NCCL_", "CUDA_", "NVSHMEM_", "TORCH_"];

/// Rewrites an nccl-tests `-J` file with only [`KEPT_ENV_PREFIXES`] variables in its `env`
/// list; returns how many were dropped. The JSON is re-serialized (same values; keys sorted).
pub fn filter_json_env(path: &Path) -> Result<usize> {
    let bytes = fs::read(path).with_context(|| format!("cannot read {}", path.display()))?;
    let mut json: serde_json::Value =
        serde_json::from_slice(&bytes).with_context(|| format!("{} is not JSON", path.display()))?;
    let Some(env) = json.get_mut("env").and_then(|e| e.as_array_mut()) else {
        return Ok(0);
    };
    let before = env.len();
    env.retain(|entry| entry.as_str().is_some_and(|var| KEPT_ENV_PREFIXES.iter().any(|p| var.starts_with(p))));
    let dropped = before - env.len();
    let text = serde_json::to_vec_pretty(&json)?;
    fs::write(path, text).with_context(|| format!("cannot write {}", path.display()))?;
    Ok(dropped)
}

#[cfg(test)]
mod tests {
    use super::*;
    use flate2::read::GzDecoder;

    #[test]
    fn logs_are_replaced_by_gzip() {
        let dir = tempfile::tempdir().unwrap();
        let logs = dir.path().join("raw/nccl");
        fs::create_dir_all(&logs).unwrap();
        fs::write(logs.join("world1_full_host_1.log"), "NCCL INFO x\n").unwrap();
        fs::write(logs.join("notes.txt"), "keep").unwrap();
        assert_eq!(gzip_logs(dir.path()).unwrap(), 1);
        assert!(!logs.join("world1_full_host_1.log").exists());
        let mut text = String::new();
        GzDecoder::new(File::open(logs.join("world1_full_host_1.log.gz")).unwrap()).read_to_string(&mut text).unwrap();
        assert_eq!(text, "NCCL INFO x\n");
        assert!(logs.join("notes.txt").exists());
    }

    #[test]
    fn inspector_dumps_are_gzipped_per_case() {
        let dir = tempfile::tempdir().unwrap();
        let case = dir.path().join("raw/inspector/world2_full");
        fs::create_dir_all(&case).unwrap();
        fs::write(case.join("h-pid7.log"), "{}\n").unwrap();
        fs::write(case.join("old.log.gz"), "x").unwrap();
        assert_eq!(gzip_inspector_dumps(dir.path()).unwrap(), 1);
        let mut names: Vec<_> = fs::read_dir(&case).unwrap().map(|e| e.unwrap().file_name()).collect();
        names.sort();
        assert_eq!(names, ["h-pid7.log.gz", "old.log.gz"]);
        assert_eq!(gzip_inspector_dumps(&dir.path().join("none")).unwrap(), 0);
    }

    #[test]
    fn json_env_keeps_nccl_and_cuda_only() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("g1.json");
        fs::write(
            &path,
            r#"{"version": 3, "env": ["HF_TOKEN=secret", "NCCL_DEBUG=INFO", "CUDA_VISIBLE_DEVICES=0"], "results": [{"size": 8192}]}"#,
        )
        .unwrap();
        assert_eq!(filter_json_env(&path).unwrap(), 1);
        let json: serde_json::Value = serde_json::from_slice(&fs::read(&path).unwrap()).unwrap();
        assert_eq!(json["env"], serde_json::json!(["NCCL_DEBUG=INFO", "CUDA_VISIBLE_DEVICES=0"]));
        assert_eq!(json["results"][0]["size"], 8192);
        fs::write(&path, "{ truncated").unwrap();
        assert!(filter_json_env(&path).is_err());
    }

    #[test]
    fn last_line_of_output() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("out");
        fs::write(&path, "a\nb\n\n").unwrap();
        assert_eq!(last_line(&path), "b");
        assert_eq!(last_line(&dir.path().join("missing")), "");
    }
}
