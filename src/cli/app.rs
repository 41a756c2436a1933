//! Dispatch of the parsed command line to the library; returns the process exit code.
//! Exit codes: 0 done; 1 `--strict` build with failed or invalid runs, or `compare` found a
//! slower case; 2 nothing could be done (bad input).

use crate::cli::args::{Cli, CollectArgs, Command, CompareArgs, LauncherKind};
use crate::collect::multinode::Rendezvous;
use crate::collect::slurm::SlurmSettings;
use crate::collect::{CollectOptions, ImportOptions, Launcher};
use crate::core::format::terminal_safe;
use crate::output::publish::PublishOptions;
use crate::output::serve::ServeOptions;
use crate::pipeline::BuildOptions;
use crate::synth::SynthOptions;
use std::io::Write;
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
            let launcher = collect_launcher(&args);
            crate::collect::collect(&CollectOptions {
                runs: args.runs,
                run_id: args.run_id,
                world_sizes: args.world_sizes,
                cycles: args.cycles,
                warmups: args.warmups,
                decode_collectives: args.decode_collectives,
                cpu_affinity: args.cpu_affinity,
                nccl_tests: args.nccl_tests,
                nccl_inspector: args.nccl_inspector,
                worker: args.worker,
                dry_run: args.dry_run,
                force: args.force,
                launcher,
            })?;
            Ok(ExitCode::SUCCESS)
        }
        Command::Synth(args) => {
            let options = SynthOptions {
                count: args.count,
                seed: args.seed,
                log_bytes: args.log_bytes,
                gzip_every: args.gzip_every,
                tuning: args.tuning,
            };
            let shape = if args.small { crate::synth::RunShape::small() } else { crate::synth::RunShape::default() };
            let ids = crate::synth::generate_with(&args.out, &options, &shape)?;
            eprintln!("wrote {} synthetic runs under {}", ids.len(), args.out.display());
            Ok(ExitCode::SUCCESS)
        }
        Command::Build(args) => {
            without_huge_pages();
            let options = BuildOptions {
                runs: args.runs,
                out: args.out.clone(),
                jobs: args.jobs,
                cache: !args.no_cache,
                page_size: args.page_size,
                site_url: args.site_url,
                evidence: !args.no_evidence,
                limits: args.limits.limits(),
            };
            let report = crate::pipeline::build(&options)?;
            for line in report.skipped.iter().chain(&report.problems) {
                eprintln!("  {}", terminal_safe(line));
            }
            eprintln!("{}", report.summary_line(&args.out));
            if args.timings {
                eprintln!("{}", report.timings_json());
            }
            if args.strict && report.failed + report.invalid > 0 {
                return Ok(ExitCode::from(1));
            }
            Ok(ExitCode::SUCCESS)
        }
        Command::Inspect(args) => {
            let inspected = crate::ingest::inspect::inspect(&args.file, args.kind, args.limits.limits())?;
            if let Some(note) = &inspected.note {
                eprintln!("note: {note}");
            }
            let (document, had_errors) = (inspected.document, inspected.failed);
            let text = serde_json::to_string_pretty(&document)?;
            // A closed pipe (`inspect FILE | head`) is not an error worth a message.
            if let Err(error) = writeln!(std::io::stdout(), "{text}") {
                if error.kind() != std::io::ErrorKind::BrokenPipe {
                    return Err(error.into());
                }
            }
            Ok(if had_errors { ExitCode::from(1) } else { ExitCode::SUCCESS })
        }
        Command::Compare(args) => compare(args),
        Command::Serve(args) => {
            if args.watch {
                crate::pipeline::out_dir::check_apart(&args.out, &args.runs)?;
                without_huge_pages();
            }
            let watch = args.watch.then(|| BuildOptions {
                runs: args.runs.clone(),
                out: args.out.clone(),
                jobs: None,
                cache: true,
                page_size: crate::site::paging::DEFAULT_PAGE_SIZE,
                site_url: "/".to_string(),
                evidence: true,
                limits: args.limits.limits(),
            });
            let send_timeout = std::time::Duration::from_secs(args.send_timeout as u64);
            crate::output::serve::serve(&ServeOptions { out: args.out, port: args.port, watch, send_timeout })?;
            Ok(ExitCode::SUCCESS)
        }
        Command::Publish(args) => {
            let commit = crate::output::publish::publish(&PublishOptions {
                out: args.out,
                branch: args.branch.clone(),
                remote: args.remote.clone(),
                push: !args.no_push,
            })?;
            let pushed = if args.no_push { String::new() } else { format!(" and pushed to {}", args.remote) };
            eprintln!("committed the site as {commit} on branch {}{pushed}", args.branch);
            Ok(ExitCode::SUCCESS)
        }
    }
}

fn compare(args: CompareArgs) -> anyhow::Result<ExitCode> {
    use crate::analysis::comparison;
    let all = crate::pipeline::compared_runs(&args.runs, args.limits.limits())?;
    let (base_id, candidate_id, source) = match (args.ids.as_slice(), &args.baseline) {
        ([base, candidate], None) => (base.clone(), candidate.clone(), "given".to_string()),
        ([_, _], Some(_)) => anyhow::bail!("give either BASE CAND or CAND --baseline ID, not both"),
        ([candidate], Some(base)) => (base.clone(), candidate.clone(), "--baseline".to_string()),
        ([candidate], None) => {
            let run = comparison::pick(&all, candidate, args.allow_failed)?;
            let (base, source) = comparison::choose_baseline(&args.runs, &all, run)?;
            (base, candidate.clone(), source)
        }
        _ => unreachable!("clap takes one or two run ids"),
    };
    let base = comparison::pick(&all, &base_id, args.allow_failed)?;
    let candidate = comparison::pick(&all, &candidate_id, args.allow_failed)?;
    let history = comparison::history_for(&all, candidate);
    let caveats = base.key.caveats(&candidate.key);
    let report = comparison::compare(&base.side(), &candidate.side(), history, caveats, &source);
    let text = comparison::output::render(&report, args.format)?;
    if let Err(error) = std::io::stdout().write_all(text.as_bytes()) {
        if error.kind() != std::io::ErrorKind::BrokenPipe {
            return Err(error.into());
        }
    }
    Ok(if report.has_regression(args.accept_drift) { ExitCode::from(1) } else { ExitCode::SUCCESS })
}

/// An error as printed by the binary: its whole chain, control characters escaped (an
/// error may quote a file name or a value from a run).
pub fn printable_error(error: &anyhow::Error) -> String {
    terminal_safe(&format!("{error:#}"))
}

/// Transparent huge pages off for this process (`PR_SET_THP_DISABLE`), for the commands that
/// build a site. A build's heap cycles: every run's rows, pages and buffers are freed before
/// the next run's are made, and mimalloc hands idle memory back. With huge pages (mimalloc asks
/// for them) each new 2 MiB page is zeroed whole on its first touch: half of a one-thread
/// build's kernel time on the corpus; without them the build took 2.38-2.41 s instead
/// of 2.78-3.02 s on 2 cores, with half the peak memory (BENCHMARKS.md, "Stop 35"). The setting is
/// inherited by child processes, so it is never made where children are launched (`collect`
/// runs the suite, whose timings it must not change); a build launches none.
fn without_huge_pages() {
    #[cfg(target_os = "linux")]
    // SAFETY: prctl with PR_SET_THP_DISABLE reads no memory; its only effect is the flag.
    unsafe {
        libc::prctl(libc::PR_SET_THP_DISABLE, 1, 0, 0, 0);
    }
}

fn collect_launcher(args: &CollectArgs) -> Launcher {
    if let Some(id) = &args.finish {
        return Launcher::Finish(id.clone());
    }
    match args.launcher {
        LauncherKind::Local => Launcher::Local,
        LauncherKind::Torchrun => Launcher::Torchrun(Rendezvous {
            nnodes: args.nnodes,
            node_rank: args.node_rank,
            endpoint: args.rdzv_endpoint.clone(),
            rdzv_id: None,
            node_timeout: std::time::Duration::from_secs(args.node_timeout),
        }),
        LauncherKind::Slurm => Launcher::Slurm {
            settings: SlurmSettings {
                nodes: args.nodes,
                gpus_per_node: args.gpus_per_node,
                partition: args.partition.clone(),
                account: args.account.clone(),
                time: args.time.clone(),
                nodelist: args.nodelist.clone(),
                extra: args.sbatch_arg.clone(),
            },
            submit: args.submit,
        },
    }
}
