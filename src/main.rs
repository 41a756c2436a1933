//! The `nccl-report` binary: parse arguments, call the library, map the outcome to an exit code.

use clap::Parser;
use nccl_report::cli::args::Cli;
use std::process::ExitCode;

/// mimalloc: a build allocates and frees many small rows, strings and pages on every thread;
/// glibc's allocator spent about a sixth of parse + summarize in malloc and free.
#[global_allocator]
static ALLOCATOR: mimalloc::MiMalloc = mimalloc::MiMalloc;

fn main() -> ExitCode {
    let cli = Cli::parse();
    match nccl_report::cli::app::run(cli) {
        Ok(code) => code,
        // The reader of stdout went away (`collect --dry-run | head`): nothing to report.
        Err(error) if nccl_report::core::stdout::is_broken_pipe(&error) => ExitCode::SUCCESS,
        Err(error) => {
            eprintln!("error: {}", nccl_report::cli::app::printable_error(&error));
            ExitCode::from(2)
        }
    }
}
