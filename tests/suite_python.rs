//! Runs the worker's CPU tests (`python3 -m unittest discover suite/tests`: placements,
//! contracts, CSV columns, environment filtering, argument checks, with a stub of the torch
//! API) as part of `cargo test`. Fails when python3 is missing or any Python test fails.

use std::process::Command;

#[test]
fn worker_python_tests_pass() {
    let root = env!("CARGO_MANIFEST_DIR");
    let output = Command::new("python3")
        .args(["-m", "unittest", "discover", "-s", "suite/tests", "-t", "."])
        .current_dir(root)
        .env("PYTHONDONTWRITEBYTECODE", "1")
        .output()
        .expect("python3 must be on PATH to run the worker's tests (suite/tests)");
    let log = String::from_utf8_lossy(&output.stderr);
    assert!(output.status.success(), "suite/tests failed:\n{log}");
    assert!(log.contains("Ran ") && !log.contains("Ran 0 tests"), "no Python test ran:\n{log}");
}
