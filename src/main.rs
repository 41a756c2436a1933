//! The `nccl-report` binary: parse arguments, call the library, map the outcome to an exit code.

use clap::Parser;
use nccl_report::cli::{Cli, Command};
use std::process::ExitCode;

fn main() -> ExitCode {
    let cli = Cli::parse();
    match cli.command {
        _ => ExitCode::from(2),
    }
}
