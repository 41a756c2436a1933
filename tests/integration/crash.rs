//! Issue #10 item 4, randomized: builds over a cached corpus killed with SIGKILL after a
//! random delay (a fixed seed, so every run of the test kills at the same offsets). After
//! each kill the site is the old or the new complete site, or, for a build killed while it
//! updated the site in place (issue #27), a site of whole files, each the old or the new
//! one (and temporary files of the in-place writes); the next build completes, leaves no
//! temporary folder or file, and at the end the cached site equals a build without the cache.
//! `cargo test` kills 8 builds; the 50 kills that must land both before and after the update
//! are `slow_` (ignored by `cargo test`, run by `.ci/run`: about 100 s on 2 cores).

use crate::common::{build, leftovers, text, tree};
use nccl_report::synth::{generate, SynthOptions};
use std::fs;
use std::time::{Duration, Instant};

/// xorshift64*: deterministic delays, never the clock.
struct Rng(u64);

impl Rng {
    fn below(&mut self, n: u64) -> u64 {
        self.0 ^= self.0 >> 12;
        self.0 ^= self.0 << 25;
        self.0 ^= self.0 >> 27;
        self.0.wrapping_mul(0x2545_f491_4f6c_dd1d) % n.max(1)
    }
}

#[test]
fn builds_killed_at_random_points_leave_the_old_or_the_new_site() {
    killed_builds(8);
}

#[test]
#[ignore = "slow (50 builds killed and 50 completed): .ci/run runs it"]
fn slow_fifty_killed_builds_land_before_and_after_the_swap() {
    let kinds = killed_builds(50);
    assert!(kinds[0] > 0 && kinds[1] > 0, "kills never landed both before and after the update: {kinds:?}");
}

/// Kills `rounds` builds at random points (each followed by a complete build); returns how
/// many kills left the old site, how many the new one, and how many whole files of both.
fn killed_builds(rounds: usize) -> [usize; 3] {
    let dir = tempfile::tempdir().unwrap();
    let runs = dir.path().join("runs");
    let ids =
        generate(&runs, &SynthOptions { count: 8, seed: 7, log_bytes: 2000, gzip_every: 4, tuning: false }).unwrap();
    let site = dir.path().join("site");
    assert!(build(&runs, &site, &[]).status.success());
    let binary = assert_cmd::cargo::cargo_bin("nccl-report");
    let mut rng = Rng(0x9e37_79b9_7f4a_7c15);
    // Delays up to 1.5 times a complete build's time, measured as the test goes.
    let mut budget_ms = 200;
    let mut kinds = [0usize; 3];
    for round in 0..rounds {
        let old = tree(&site);
        let id = &ids[rng.below(ids.len() as u64) as usize];
        fs::write(runs.join(id).join("NOTES.md"), format!("round {round}\n")).unwrap();
        let delay = Duration::from_millis(rng.below(budget_ms));
        let mut child = std::process::Command::new(&binary)
            .args(["build", "--runs", runs.to_str().unwrap(), "--out", site.to_str().unwrap()])
            .stderr(std::process::Stdio::null())
            .spawn()
            .unwrap();
        std::thread::sleep(delay);
        let _ = child.kill();
        child.wait().unwrap();
        let killed = tree(&site);
        let started = Instant::now();
        let output = build(&runs, &site, &[]);
        budget_ms = started.elapsed().as_millis() as u64 * 3 / 2;
        assert!(output.status.success(), "round {round}: {}", text(&output));
        let new = tree(&site);
        // Whole files, each the old or the new one, and none missing that both sites have (a
        // file is replaced by a rename, never removed first).
        let whole_files = killed.iter().all(|(path, bytes)| {
            old.get(path) == Some(bytes) || new.get(path) == Some(bytes) || path.contains(".nccl-report-tmp-")
        }) && old.keys().filter(|path| new.contains_key(*path)).all(|path| killed.contains_key(path));
        let odd: Vec<&String> = killed
            .iter()
            .filter(|(path, bytes)| old.get(*path) != Some(bytes) && new.get(*path) != Some(bytes))
            .map(|(path, _)| path)
            .chain(old.keys().filter(|path| new.contains_key(*path) && !killed.contains_key(*path)))
            .collect();
        assert!(
            killed == old || killed == new || whole_files,
            "round {round}: killed after {delay:?}, the site is neither old nor new nor whole files of both (odd or missing: {odd:?})"
        );
        let temporary: Vec<&String> = new.keys().filter(|p| p.contains(".nccl-report-tmp-")).collect();
        assert!(temporary.is_empty(), "round {round}: temporary files left: {temporary:?}");
        kinds[if killed == old {
            0
        } else if killed == new {
            1
        } else {
            2
        }] += 1;
        assert!(leftovers(dir.path()).is_empty(), "round {round}: {:?}", leftovers(dir.path()));
    }
    let fresh = dir.path().join("fresh");
    assert!(build(&runs, &fresh, &["--no-cache"]).status.success());
    assert!(tree(&fresh) == tree(&site), "the cached site differs from a build without the cache");
    kinds
}
