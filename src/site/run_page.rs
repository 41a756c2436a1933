//! The run page: facts, diagnostics, every section's table and charts, the NCCL log facts,
//! the manifest, the artifacts, the file list and links to the seed-format files.

use crate::analysis::nccl_perf::log_facts;
use crate::analysis::overview::RunOverview;
use crate::analysis::summarize::RunSummary;
use crate::core::diag::Severity;
use crate::core::format::{agree, bytes_about, count, gbs, grouped, utc_second};
use crate::core::model::nccl_log::NcclLogFacts;
use crate::ingest::evidence::EvidenceFile;
use crate::site::budget::{self, Budget};
use crate::site::evidence::run_statements;
use crate::site::hosts_block;
use crate::site::inspector_block::inspector_block;
use crate::site::notes::SiteNotes;
use crate::site::paths;
use crate::site::run_comparison;
use crate::site::sections::{Section, Source};
use crate::site::view::{Block, Cell, Evidence, Facts, Figure, Link, RunPage, Table};

/// The run's page; `evidence` is its archived inputs as published (`None`: the build leaves
/// them out), whatever the build keeps of a published one (`T`).
pub(crate) fn build<T>(
    run: &RunSummary,
    digest: &RunOverview,
    site_notes: &SiteNotes,
    evidence: Option<&[EvidenceFile<T>]>,
) -> RunPage {
    let mut blocks = vec![run_comparison::configuration_block(digest)];
    let one = [(digest, String::new())];
    let mut perf_shown = false;
    for &section in Section::ALL {
        if !section.has(digest) {
            continue;
        }
        let figures = section
            .charts(&one, "")
            .into_iter()
            .filter(|spec| !(spec.id == NCCL_TESTS_BUSBW && busbw_charted_per_table(digest)))
            .map(|spec| {
                let svg_href = paths::chart_svg(&spec.id);
                let csv_href = paths::charts_csv_href(&paths::run_file(&run.raw.id, "index.html"));
                Figure { svg_href, csv_href, dir: paths::run_file(&run.raw.id, "charts"), spec }
            })
            .collect();
        let mut block = Block {
            id: section.slug().to_string(),
            title: section.title().to_string(),
            intro: section.scope().iter().map(|s| s.to_string()).collect(),
            tables: vec![section.table(&one)],
            figures,
            pre: Vec::new(),
        };
        if section.source() == Source::NcclTests {
            block.tables.push(nccl_tests_files(run));
        }
        blocks.push(block);
        if let (Section::NcclTests, Some(perf)) = (section, &run.nccl_perf) {
            blocks.push(crate::site::nccl_perf_block::block(perf, &run.raw.id));
            perf_shown = true;
        }
    }
    // Without an all_reduce control table the block still shows every other nccl-tests
    // binary's tables and what NCCL chose per collective from its TUNING lines.
    if let Some(perf) =
        run.nccl_perf.as_ref().filter(|p| !perf_shown && (!p.tables.is_empty() || !p.choices.is_empty()))
    {
        blocks.push(crate::site::nccl_perf_block::block(perf, &run.raw.id));
    }
    blocks.extend(hosts_block::build(run));
    blocks.extend(run_comparison::ranks_block(&run.raw));
    if let Some(facts) = &run.raw.nccl_log {
        blocks.push(nccl_log_block(facts, &run.raw.nccl_log_files));
    }
    blocks.extend(inspector_block(run));
    blocks.push(manifest_block(run));
    blocks.push(artifacts_block(run, evidence));
    // The budget is applied before the file list is made, which links only the charts drawn;
    // the file list has its own (every table count is within it).
    let mut facts = facts(run);
    let mut cuts = budget::apply(&mut blocks, &mut facts, &Budget::DEFAULT);
    let mut files = [files_block(run, &digest.outputs, &blocks, evidence)];
    cuts.extend(budget::apply(&mut files, &mut Vec::new(), &Budget { tables: usize::MAX, ..Budget::DEFAULT }));
    blocks.extend(files);
    blocks.insert(0, diagnostics_block(run, &cuts));

    let mut notes = Vec::new();
    if let Some(text) = &run.raw.notes {
        notes.push(("This run's NOTES.md".to_string(), text.clone()));
    }
    notes.extend(site_notes.for_run(&digest.id, &digest.configuration));
    RunPage {
        id: run.raw.id.clone(),
        status: run.status.as_str(),
        facts,
        blocks,
        evidence: Evidence { statements: run_statements(&digest.facts), notes },
        downloads: digest.outputs.iter().map(|name| Link { text: name.clone(), href: name.clone() }).collect(),
    }
}

/// The nccl-tests section's busbw chart (all ranks in one).
const NCCL_TESTS_BUSBW: &str = "nccl-tests-busbw";

/// Whether the "How close NCCL came to the hardware" block charts busbw against size, with
/// the expected peak, for every multi-rank all_reduce_perf table of the run: the nccl-tests
/// section's busbw chart would then draw the same medians again, so the run page leaves it out
/// (issue 27's footprint; the spread over sweeps stays in the time chart, busbw being size
/// over time times a factor, and the cross-run section pages keep the chart).
fn busbw_charted_per_table(run: &RunOverview) -> bool {
    let Some(perf) = &run.nccl_perf else { return false };
    let raw = run.sections.nccl_tests_raw.as_deref().unwrap_or_default();
    let charted = |ranks: u64| perf.tables.iter().any(|t| t.binary == "all_reduce_perf" && t.ranks == ranks);
    raw.iter().any(|r| r.world_size > 1) && raw.iter().filter(|r| r.world_size > 1).all(|r| charted(r.world_size))
}

fn facts(run: &RunSummary) -> Facts {
    let f = &run.facts;
    let mut facts: Facts = Vec::new();
    let mut push = |k: &str, v: Option<String>| {
        if let Some(v) = v.filter(|v| !v.is_empty()) {
            facts.push((k.to_string(), v));
        }
    };
    push("status", Some(run.status.as_str().to_string()));
    push("date", f.timestamp_utc.as_deref().map(utc_second));
    push("host", f.hostname.clone());
    push("GPU", f.gpu.clone());
    push("driver", f.driver_version.clone());
    push("topology", f.topology.clone());
    push("NCCL", f.nccl_version.clone());
    push("PyTorch", f.torch_version.clone());
    push("CUDA", f.cuda_version.clone());
    push("CUDA driver", f.cuda_driver.clone());
    push("nodes", f.nodes.map(|n| n.to_string()));
    push("nccl-tests", f.nccl_tests_version.clone());
    let join = |v: Vec<String>| (!v.is_empty()).then(|| v.join(", "));
    push("world sizes", join(f.world_sizes.iter().map(|w| w.to_string()).collect()));
    push("nccl-tests ranks", join(f.nccl_tests_world_sizes.iter().map(|w| w.to_string()).collect()));
    push("cycles", f.cycles.map(|c| c.to_string()));
    push("sections", join(f.sections.clone()));
    push("input size", Some(bytes_about(run.raw.total_bytes)));
    facts
}

/// The run's diagnostics, then a warning for each output budget the page hit (`budget`).
fn diagnostics_block(run: &RunSummary, cuts: &[String]) -> Block {
    let mut table = Table::new(
        "Diagnostics: failures make a run failed, unreadable inputs make it invalid",
        &[("severity", false), ("code", false), ("file", false), ("line", true), ("message", false)],
    );
    for d in &run.raw.diagnostics {
        let (text, class) = match d.severity {
            Severity::Error => ("error", "invalid"),
            Severity::Failure => ("failure", "failed"),
            Severity::Warning => ("warning", "warning"),
        };
        table.push(vec![
            Cell { text: text.into(), href: None, class },
            Cell::text(d.code.to_string()),
            Cell::text(d.file.clone()),
            Cell::text(d.line.map(|l| l.to_string()).unwrap_or_default()),
            Cell::text(d.message.clone()),
        ]);
    }
    for cut in cuts {
        table.push(vec![
            Cell { text: "warning".into(), href: None, class: "warning" },
            Cell::text(crate::core::diag::Code::OutputBudget.to_string()),
            Cell::text("(this page)"),
            Cell::text(""),
            Cell::text(format!("output budget: {cut}")),
        ]);
    }
    let mut intro = Vec::new();
    if let Some(c) = &run.contracts {
        intro.push(format!("{} per-rank contracts checked; {} failed.", c.total, c.failures.len()));
    }
    for (case, section) in &run.raw.broken_sections {
        intro.push(format!("Not summarized: {} of case {case} (an input file could not be read).", section.name()));
    }
    if table.rows.is_empty() {
        intro.push("No diagnostics: every input was read and every check passed.".to_string());
    }
    Block {
        id: "diagnostics".into(),
        title: "Status and diagnostics".into(),
        intro,
        tables: if table.rows.is_empty() { Vec::new() } else { vec![table] },
        ..Block::default()
    }
}

fn nccl_tests_files(run: &RunSummary) -> Table {
    let mut table = Table::new(
        "nccl-tests outputs in this run",
        &[
            ("file", false),
            ("test", false),
            ("version", false),
            ("ranks", true),
            ("rows", true),
            ("out of bounds", true),
            ("avg bus bandwidth (GB/s)", true),
        ],
    );
    for file in &run.raw.nccl_tests {
        for t in &file.output.tables {
            table.push(vec![
                Cell::text(file.file.clone()),
                Cell::text(t.collective.clone().unwrap_or_else(|| "?".into())),
                Cell::text(file.output.version.clone().unwrap_or_default()),
                Cell::text(file.world_size.map(|w| w.to_string()).unwrap_or_default()),
                Cell::text(t.rows.len().to_string()),
                Cell::text(t.out_of_bounds.map(|n| n.to_string()).unwrap_or_else(|| {
                    if t.truncated {
                        "cut".into()
                    } else {
                        String::new()
                    }
                })),
                Cell::text(t.avg_bus_bandwidth.map(gbs).unwrap_or_default()),
            ]);
        }
    }
    table
}

fn counts_table(caption: &str, key: &str, counts: &std::collections::BTreeMap<String, u64>) -> Table {
    let mut table = Table::new(caption, &[(key, false), ("count", true)]).with_row_headers();
    for (k, v) in counts {
        table.push(vec![Cell::text(k.clone()), Cell::text(v.to_string())]);
    }
    table
}

fn nccl_log_block(facts: &NcclLogFacts, files: &[String]) -> Block {
    let mut intro = vec![format!(
        "{}, {} ({}).",
        count(files.len(), "NCCL_DEBUG log file"),
        if facts.lines == 1 { "1 line".to_string() } else { format!("{} lines", grouped(facts.lines)) },
        bytes_about(facts.bytes)
    )];
    let list = |label: &str, v: &[String]| {
        if v.is_empty() {
            None
        } else {
            Some(format!("{label}: {}.", v.join(", ")))
        }
    };
    intro.extend(list("NCCL version", &facts.nccl_versions));
    let drivers: Vec<String> = facts.cuda_driver_versions.iter().map(|v| log_facts::cuda_driver(v)).collect();
    intro.extend(list("CUDA driver", &drivers));
    intro.extend(list("Network", &facts.networks));
    intro.extend(list("Net plugin", &facts.net_plugins));
    let numbers = |v: &[u64]| v.iter().map(u64::to_string).collect::<Vec<_>>();
    intro.extend(list("World sizes logged", &numbers(&facts.nranks)));
    intro.extend(list("Nodes (nNodes)", &numbers(&facts.nnodes)));
    intro.extend(list("Ranks per node (localRanks)", &numbers(&facts.local_ranks)));
    let said = |label: &str, value: Option<bool>, yes: &str, no: &str| {
        value.map(|v| format!("{label}: {}.", if v { yes } else { no }))
    };
    intro.extend(said("NVLS", facts.nvls, "available or used", "not available"));
    intro.extend(said("CollNet", facts.collnet, "used (connections via COLLNET)", "not used"));
    intro.extend(said("PXN", facts.pxn, "used (sends through another GPU's NIC)", "disabled"));
    if facts.partial_line_count > 0 {
        let first =
            facts.partial_lines.first().map(|l| format!(" (first: {} line {})", l.file, l.line)).unwrap_or_default();
        intro.push(format!(
            "{} that {} a fact only partly (cut mid-line), not read as facts{first}.",
            count(facts.partial_line_count, "line"),
            agree(facts.partial_line_count as usize, "states", "state")
        ));
    }
    intro.extend(log_facts::channels(facts).map(|c| format!("Channels: {c}.")));
    intro.extend(list("Channel setup", &facts.channel_summaries));
    let mut tables = Vec::new();
    let mut comms = Table::new(
        "Communicators (Init lines)",
        &[
            ("comm id", false),
            ("rank", true),
            ("nranks", true),
            ("cudaDev", true),
            ("busId", false),
            ("host", false),
            ("init complete", false),
        ],
    );
    for c in &facts.communicators {
        comms.push(vec![
            Cell::text(c.comm_id.clone()),
            Cell::text(c.rank.to_string()),
            Cell::text(c.nranks.to_string()),
            Cell::text(c.cuda_dev.map(|d| d.to_string()).unwrap_or_default()),
            Cell::text(c.bus_id.clone().unwrap_or_default()),
            Cell::text(c.host.clone().unwrap_or_default()),
            Cell::text(if c.init_complete { "yes" } else { "no" }),
        ]);
    }
    tables.push(comms);
    let mut patterns = Table::new(
        "Graph search results",
        &[
            ("pattern", true),
            ("crossNic", true),
            ("channels", true),
            ("bw intra/inter (GB/s)", false),
            ("type intra/inter", false),
            ("sameChannels", true),
        ],
    );
    for p in &facts.graph_patterns {
        patterns.push(vec![
            Cell::text(format!("{} ({})", log_facts::pattern_name(p.pattern), p.pattern)),
            Cell::text(p.cross_nic.to_string()),
            Cell::text(p.n_channels.to_string()),
            Cell::text(format!("{} / {}", p.bw_intra, p.bw_inter)),
            Cell::text(format!("{} / {}", p.type_intra, p.type_inter)),
            Cell::text(p.same_channels.to_string()),
        ]);
    }
    tables.push(patterns);
    tables.push(counts_table("Collective calls logged (SUBSYS=COLL)", "collective", &facts.collective_calls));
    tables.push(counts_table("Transports of connections", "transport", &facts.transports));
    tables.push(counts_table("Algorithms chosen (where logged)", "algorithm", &facts.algorithms));
    tables.push(counts_table("Protocols chosen (where logged)", "protocol", &facts.protocols));
    let mut warnings = Table::new(
        format!("NCCL WARN lines ({} in all)", facts.warning_count),
        &[("file", false), ("line", true), ("text", false)],
    );
    for w in &facts.warnings {
        warnings.push(vec![Cell::text(w.file.clone()), Cell::text(w.line.to_string()), Cell::text(w.text.clone())]);
    }
    tables.push(warnings);
    tables.retain(|t| !t.rows.is_empty());
    let mut pre = Vec::new();
    if !facts.rings.is_empty() {
        pre.push(("Rings".to_string(), facts.rings.join("\n")));
    }
    if !facts.trees.is_empty() {
        pre.push(("Trees".to_string(), facts.trees.join("\n")));
    }
    Block { id: "nccl-logs".into(), title: "What the NCCL logs say".into(), intro, tables, figures: Vec::new(), pre }
}

fn manifest_block(run: &RunSummary) -> Block {
    let Some(manifest) = &run.raw.manifest else {
        return Block {
            id: "manifest".into(),
            title: "Manifest".into(),
            intro: vec!["This run has no manifest.txt.".into()],
            ..Block::default()
        };
    };
    let mut table = Table::new("manifest.txt", &[("key", false), ("value", false)]).with_row_headers();
    for (k, v) in &manifest.entries {
        // Times in the site's one date format (the archived manifest keeps its own text).
        let value = if k.ends_with("timestamp_utc") { utc_second(v) } else { v.clone() };
        table.push(vec![Cell::text(k.clone()), Cell::text(value)]);
    }
    Block {
        id: "manifest".into(),
        title: "Manifest".into(),
        intro: Vec::new(),
        tables: vec![table],
        figures: Vec::new(),
        pre: if manifest.commands.is_empty() {
            Vec::new()
        } else {
            vec![("Commands".into(), manifest.commands.join("\n"))]
        },
    }
}

/// An archived artifact longer than this is linked to its evidence copy when the site
/// publishes one, not repeated on the page (`nvidia-smi -q` is ~14 KB: issue 27's footprint);
/// shorter ones, and every one without evidence, are shown as recorded.
const ARTIFACT_SHOWN_BYTES: usize = 2048;

fn artifacts_block<T>(run: &RunSummary, evidence: Option<&[EvidenceFile<T>]>) -> Block {
    let mut tables = Vec::new();
    if !run.raw.gpus.is_empty() {
        let mut gpus = Table::new(
            "nvidia-smi --query-gpu",
            &[
                ("index", true),
                ("name", false),
                ("UUID", false),
                ("driver", false),
                ("memory", true),
                ("PCI bus", false),
            ],
        )
        .with_row_headers();
        for g in &run.raw.gpus {
            gpus.push(vec![
                Cell::text(g.index.clone()),
                Cell::text(g.name.clone()),
                Cell::text(g.uuid.clone()),
                Cell::text(g.driver_version.clone()),
                Cell::text(g.memory_total.clone()),
                Cell::text(g.pci_bus_id.clone()),
            ]);
        }
        tables.push(gpus);
    }
    if let Some(topo) = &run.raw.topology {
        let mut columns: Vec<(&str, bool)> = vec![("", false)];
        columns.extend(topo.header.iter().map(|h| (h.as_str(), false)));
        let mut table = Table::new("nvidia-smi topo -m", &columns).with_row_headers();
        for row in &topo.rows {
            table.push(row.iter().map(|c| Cell::text(c.clone())).collect());
        }
        tables.push(table);
    }
    let nvidia_smi = !tables.is_empty() || run.raw.other_artifacts.iter().any(|(name, _)| name.contains("nvidia_smi"));
    let intro = if nvidia_smi { Vec::new() } else { vec!["No nvidia-smi artifacts in this run.".to_string()] };
    // The stored size of an artifact's published copy, if it is published.
    let published = |name: &str| {
        evidence.and_then(|files| files.iter().find(|f| f.rel == name && f.published.is_ok())).map(|f| f.len)
    };
    let (linked, shown): (Vec<_>, Vec<_>) = run
        .raw
        .other_artifacts
        .iter()
        .partition(|(name, text)| text.len() > ARTIFACT_SHOWN_BYTES && published(name).is_some());
    if !linked.is_empty() {
        let mut table = Table::new(
            "Longer artifacts, as recorded (evidence copies)",
            &[("file", false), ("size, as stored", true)],
        );
        for (name, _) in linked {
            table.push(vec![
                Cell::link(name.clone(), paths::evidence_link(name)),
                Cell::text(bytes_about(published(name).unwrap_or_default())),
            ]);
        }
        tables.push(table);
    }
    let pre = shown.into_iter().map(|(name, text)| (name.clone(), text.clone())).collect();
    Block { id: "artifacts".into(), title: "Hardware artifacts".into(), intro, tables, figures: Vec::new(), pre }
}

/// The run's files: what the site publishes for it (the seed-format files, each chart's data),
/// linked; the archived inputs, linked to their copies as stored with their size (or why one is
/// withheld), or named without a link when the build leaves them out.
fn files_block<T>(
    run: &RunSummary,
    outputs: &[String],
    blocks: &[Block],
    evidence: Option<&[EvidenceFile<T>]>,
) -> Block {
    let mut published = Table::new("Published on this site", &[("file", false), ("what", false)]).with_row_headers();
    for name in outputs {
        published.push(vec![Cell::link(name.clone(), name.clone()), Cell::text("seed-format file, recomputed")]);
    }
    let figures: Vec<&Figure> = blocks.iter().flat_map(|b| &b.figures).collect();
    if let Some(first) = figures.first() {
        let charts: Vec<String> = figures.iter().map(|f| format!("“{}” ({})", f.spec.title, f.spec.id)).collect();
        published.push(vec![
            Cell::link(first.csv_href.clone(), first.csv_href.clone()),
            Cell::text(format!("data of the charts, a chart column naming each: {}", charts.join(", "))),
        ]);
    }
    let (archived, intro) = match evidence {
        Some(files) => {
            let mut table = Table::new(
                "Evidence: the run's archived inputs, as stored (a .gz file stays gzipped)",
                &[("file", false), ("size", true), ("published", false)],
            )
            .with_row_headers();
            for file in files {
                let size = Cell::text(bytes_about(file.len));
                table.push(match &file.published {
                    Ok(_) => {
                        vec![Cell::link(file.rel.clone(), paths::evidence_link(&file.rel)), size, Cell::text("yes")]
                    }
                    Err(why) => {
                        vec![Cell::text(file.rel.clone()), size, Cell { class: "warning", ..Cell::text(why.clone()) }]
                    }
                });
            }
            let shown = files.iter().filter(|f| f.published.is_ok()).count();
            let intro = format!(
                "The site publishes {} for this run, and {shown} of its {} as evidence, linked below as stored (files that hold the process environment or a secret-named setting, or are over the size limit, are withheld and say why).",
                count(published.rows.len(), "file"),
                count(files.len(), "archived input file"),
            );
            (table, intro)
        }
        None => {
            let mut table = Table::new(
                "In the archive only: the run's input files, not copied into the site",
                &[("file", false), ("size", true)],
            )
            .with_row_headers();
            for (name, len) in &run.raw.files {
                table.push(vec![Cell::text(name.clone()), Cell::text(format!("{} B", grouped(*len)))]);
            }
            let intro = format!(
                "The site publishes {} for this run, linked below; its {} {} in the archive only (the run's folder under runs/; this site was built with --no-evidence).",
                count(published.rows.len(), "file"),
                count(table.rows.len(), "input file"),
                agree(table.rows.len(), "is", "are")
            );
            (table, intro)
        }
    };
    let tables = [published, archived].into_iter().filter(|t| !t.rows.is_empty()).collect();
    Block { id: "files".into(), title: "Files of the run".into(), intro: vec![intro], tables, ..Block::default() }
}
