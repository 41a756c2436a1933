//! Dispatch of the parsed command line to the library; returns the process exit code.
//! Exit codes: 0 done; 1 `--strict` build with failed or invalid runs; 2 nothing could be done.

use crate::build::BuildOptions;
use crate::cli::{Cli, Command};
use crate::collect::{CollectOptions, ImportOptions};
use crate::synth::SynthOptions;
use std::process::ExitCode;

pub fn run(cli: Cli) -> anyhow::Result<ExitCode> {
    match cli.command {
        Command::Import(args) => {
            crate::collect::import::import_runs(&ImportOptions {
                sources: args.sources,
                runs: args.runs,
                rename: args.rename,
            })?;
            Ok(ExitCode::SUCCESS)
        }
        Command::Collect(args) => {
            crate::collect::launch::collect(&CollectOptions {
                runs: args.runs,
                run_id: args.run_id,
                world_sizes: args.world_sizes,
                cycles: args.cycles,
                warmups: args.warmups,
                decode_collectives: args.decode_collectives,
                cpu_affinity: args.cpu_affinity,
                nccl_tests: args.nccl_tests,
                worker: args.worker,
                dry_run: args.dry_run,
            })?;
            Ok(ExitCode::SUCCESS)
        }
        Command::Synth(args) => {
            let ids = crate::synth::generate(
                &args.out,
                &SynthOptions { count: args.count, seed: args.seed, log_bytes: args.log_bytes, gzip_every: args.gzip_every },
            )?;
            eprintln!("wrote {} synthetic runs under {}", ids.len(), args.out.display());
            Ok(ExitCode::SUCCESS)
        }
        Command::Build(args) => {
            let options = BuildOptions { runs: args.runs, out: args.out.clone(), jobs: args.jobs };
            let report = crate::build::build(&options)?;
            for line in report.skipped.iter().chain(&report.problems) {
                eprintln!("  {line}");
            }
            eprintln!("{}", report.summary_line(&args.out));
            if args.strict && report.failed + report.invalid > 0 {
                return Ok(ExitCode::from(1));
            }
            Ok(ExitCode::SUCCESS)
        }
        Command::Inspect(_) | Command::Serve(_) | Command::Publish(_) => anyhow::bail!("not wired yet"),
    }
}
