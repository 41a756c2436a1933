//! What both benchmarks share: the seed yardstick.

use std::path::Path;
use std::process::Command;

/// The seed's own summarization time per run (`benches/seed_summarize.py` over the first
/// `limit` runs of `runs`, the seed module loaded once), best of `passes` passes.
pub(crate) fn seed_per_run(seed_dir: &Path, runs: &Path, limit: usize, passes: usize) -> Option<f64> {
    let script = Path::new(env!("CARGO_MANIFEST_DIR")).join("benches/seed_summarize.py");
    let mut best = f64::MAX;
    for _ in 0..passes {
        let output = Command::new("python3")
            .arg(&script)
            .arg("--seed-dir")
            .arg(seed_dir)
            .arg("--runs")
            .arg(runs)
            .args(["--limit", &limit.to_string()])
            .output()
            .ok()?;
        if !output.status.success() {
            eprintln!("seed yardstick failed: {}", String::from_utf8_lossy(&output.stderr));
            return None;
        }
        let value: serde_json::Value = serde_json::from_slice(&output.stdout).ok()?;
        best = best.min(value["seconds_per_run"].as_f64()?);
    }
    Some(best)
}
