//! Writing one synthetic run folder: its cases' rank CSVs and stdouts, the nccl-tests
//! controls, the NCCL logs, the machine artifacts and the manifest, each from its module.

use super::run::{Run, RunSpec};
use super::{artifacts, logs, nccl_tests, sections};
use anyhow::Context;
use std::fs;
use std::path::Path;

/// Errors unless `dir` is missing or empty: a run folder is never written twice.
pub(super) fn ensure_empty(dir: &Path) -> anyhow::Result<()> {
    match fs::read_dir(dir) {
        Ok(mut entries) => {
            anyhow::ensure!(entries.next().is_none(), "refusing to write into non-empty run folder {}", dir.display());
            Ok(())
        }
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => Ok(()),
        Err(e) => Err(e).with_context(|| format!("cannot read {}", dir.display())),
    }
}

/// Writes the whole run folder `dir` for `spec`.
pub(super) fn write_run(dir: &Path, spec: &RunSpec) -> anyhow::Result<()> {
    let run = Run::new(spec.clone());
    let raw = dir.join("raw");
    for (index, case) in run.cases.iter().enumerate() {
        let results = raw.join("results").join(&case.name);
        fs::create_dir_all(&results).with_context(|| format!("cannot create {}", results.display()))?;
        for (name, text) in sections::case_files(&run, case) {
            write(&results.join(name), &text)?;
        }
        write(&raw.join(format!("{}.stdout", case.name)), &artifacts::torchrun_stdout(&run, index))?;
    }
    for &world in &run.nccl_tests_worlds {
        write(&raw.join(format!("nccl_tests_g{world}.stdout")), &nccl_tests::stdout(&run, world))?;
    }
    if spec.log_bytes > 0 {
        logs::write_logs(&raw.join("nccl"), &run)?;
    }
    let artifact_dir = dir.join("artifacts");
    fs::create_dir_all(&artifact_dir).with_context(|| format!("cannot create {}", artifact_dir.display()))?;
    for (name, text) in artifacts::machine_artifacts(&run) {
        write(&artifact_dir.join(name), &text)?;
    }
    write(&dir.join("manifest.txt"), &artifacts::manifest(&run))
}

pub(super) fn write(path: &Path, text: &str) -> anyhow::Result<()> {
    fs::write(path, text).with_context(|| format!("cannot write {}", path.display()))
}
