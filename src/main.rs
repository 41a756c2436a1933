//! The `nccl-report` binary: parse arguments, call the library, map the outcome to an exit code.

use clap::Parser;
use nccl_report::cli::Cli;
use std::process::ExitCode;

fn main() -> ExitCode {
    let cli = Cli::parse();
    match nccl_report::app::run(cli) {
        Ok(code) => code,
        Err(error) => {
            eprintln!("error: {error:#}");
            ExitCode::from(2)
        }
    }
}
