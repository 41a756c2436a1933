//! `nccl-report collect --launcher slurm` and `--finish` on a simulated cluster: fake
//! `sbatch` (runs the job at once), `srun` (one local process per task, each with its own
//! `SLURM_PROCID` / `SLURM_NODEID` / `SLURMD_NODENAME`), `scontrol`, `torchrun`,
//! `nvidia-smi`, `python3`, `ldd` and `all_reduce_perf` first on `PATH`. Also the golden
//! batch scripts for 1, 2 and 4 nodes (`UPDATE_GOLDEN=1` rewrites them), checked with
//! `bash -n` and, when installed, shellcheck.

use assert_cmd::Command;
use nccl_report::ingest::input::Limits;
use std::fs;
use std::os::unix::fs::PermissionsExt;
use std::path::{Path, PathBuf};
use std::time::Duration;

const FAKE_SBATCH: &str = r#"#!/bin/sh
# sbatch --parsable SCRIPT: runs the job now, its output where #SBATCH --output says.
script=$2
nodes=$(sed -n 's/^#SBATCH --nodes=//p' "$script")
export SLURM_JOB_ID=4242 SLURM_JOB_NUM_NODES="$nodes" SLURM_JOB_NODELIST="node[1-$nodes]" SLURMD_NODENAME=node1
bash "$script" > "$(dirname "$script")/slurm-4242.out" 2>&1 || true
echo "4242;fakecluster"
"#;

const FAKE_SCONTROL: &str = r#"#!/bin/sh
[ "$1 $2" = "show hostnames" ] || exit 2
i=1
while [ $i -le "$SLURM_JOB_NUM_NODES" ]; do echo "node$i"; i=$((i+1)); done
"#;

/// Starts `--ntasks` local processes, task i on node i / ntasks-per-node.
const FAKE_SRUN: &str = r#"#!/bin/sh
ntasks=1; per=1
while :; do
  case "$1" in
    --ntasks=*) ntasks=${1#--ntasks=};;
    --ntasks-per-node=*) per=${1#--ntasks-per-node=};;
    --nodes=*|--mpi=*) ;;
    *) break;;
  esac
  shift
done
i=0; pids=
while [ $i -lt "$ntasks" ]; do
  node=$((i / per))
  SLURM_PROCID=$i SLURM_NODEID=$node SLURM_LOCALID=$((i % per)) SLURMD_NODENAME=node$((node+1)) "$@" &
  pids="$pids $!"
  i=$((i+1))
done
rc=0
for p in $pids; do wait "$p" || rc=$?; done
exit $rc
"#;

/// Records what each node was given (`--node-rank`, else `SLURM_NODEID`), writes one NCCL log per local rank and the worker's
/// CSVs for the node's ranks (copied from the `synth-basic` fixture's `world4_full`); `FAKE_TORCHRUN_FAIL=<host>` fails on that host.
const FAKE_TORCHRUN: &str = r#"#!/bin/sh
nnodes=; nproc=; endpoint=; id=; backend=; out=; sections=; prev=; node=$SLURM_NODEID
for a in "$@"; do
  case "$prev" in --output-dir) out=$a;; --sections) sections=$a;; esac
  case "$a" in
    --nnodes=*) nnodes=${a#--nnodes=};; --nproc-per-node=*) nproc=${a#--nproc-per-node=};;
    --nproc_per_node=*) nproc=${a#--nproc_per_node=};; --node-rank=*) node=${a#--node-rank=};;
    --rdzv-endpoint=*) endpoint=${a#--rdzv-endpoint=};; --rdzv-id=*) id=${a#--rdzv-id=};;
    --rdzv-backend=*) backend=${a#--rdzv-backend=};;
  esac
  prev=$a
done
echo "rdzv=$endpoint id=$id backend=$backend nnodes=$nnodes nproc=$nproc node=$node nvls=$NCCL_NVLS_ENABLE" > "$FAKE_LOG/torchrun_$SLURMD_NODENAME.txt"
if [ "$FAKE_TORCHRUN_FAIL" = "$SLURMD_NODENAME" ]; then echo "Traceback: rank exploded" >&2; exit 3; fi
l=0
while [ $l -lt "$nproc" ]; do
  r=$((node * nproc + l))
  log=$(echo "$NCCL_DEBUG_FILE" | sed "s/%h/$SLURMD_NODENAME/; s/%p/$$$l/")
  echo "$SLURMD_NODENAME:$$$l:$$$l [$l] NCCL INFO NET/IB : Using [0]mlx5_0:1/IB ; OOB ib0:10.0.0.1<0>" > "$log"
  echo "$SLURMD_NODENAME:$$$l:$$$l [$l] NCCL INFO comm 0x5$l rank $r nranks $((nnodes * nproc)) cudaDev $l nvmlDev $l busId $((l + 6))0 commId 0xfeed - Init COMPLETE" >> "$log"
  old=$IFS; IFS=,
  for s in $sections contracts; do cp "$FAKE_RESULTS/rank${r}_$s.csv" "$out/"; done
  IFS=$old
  l=$((l+1))
done
"#;

const FAKE_NVIDIA_SMI: &str = r#"#!/bin/sh
if [ "$1" = topo ]; then printf '\tGPU0\tGPU1\tCPU Affinity\nGPU0\t X \tNV18\t0-15\nGPU1\tNV18\t X \t0-15\n'; exit 0; fi
echo "0, NVIDIA H200, GPU-$SLURMD_NODENAME-0, 580.159.04, 143771 MiB, 00000000:00:06.0"
echo "1, NVIDIA H200, GPU-$SLURMD_NODENAME-1, 580.159.04, 143771 MiB, 00000000:00:07.0"
"#;

const FAKE_PYTHON: &str = "#!/bin/sh\necho torch=2.11.0+cu130\necho cuda_runtime=13.0\necho nccl_runtime=2.28.9\n";

const FAKE_LDD: &str = "#!/bin/sh\necho \"\tlibmpi.so.40 => /usr/lib/libmpi.so.40\"\n";

/// Rank 0 prints the table and writes the JSON; every task records its rank.
const FAKE_NCCL_TESTS: &str = r##"#!/bin/sh
if [ "$1" = -h ]; then echo "[-J,--output_file <file> write output]"; exit 0; fi
echo "$SLURM_PROCID $*" >> "$FAKE_LOG/nccl_tests_tasks.txt"
[ "$SLURM_PROCID" = 0 ] || exit 0
json=; prev=
for a in "$@"; do [ "$prev" = -J ] && json=$a; prev=$a; done
echo "# nccl-tests version 2.19.6 args: $*"
echo "        8192          4096      half     sum      -1     7.86    1.04    0.00       0     2.49    3.29    0.00       0"
[ -n "$json" ] && echo '{"env": ["HF_TOKEN=secret", "NCCL_DEBUG=INFO"], "results": []}' > "$json"
exit 0
"##;

struct Cluster {
    dir: tempfile::TempDir,
}

impl Cluster {
    fn new() -> Self {
        let dir = tempfile::tempdir().unwrap();
        for sub in ["bin", "log", "repo/suite"] {
            fs::create_dir_all(dir.path().join(sub)).unwrap();
        }
        fs::write(dir.path().join("repo/suite/worker.py"), "print('worker')\n").unwrap();
        let cluster = Cluster { dir };
        for (name, script) in [
            ("sbatch", FAKE_SBATCH),
            ("scontrol", FAKE_SCONTROL),
            ("srun", FAKE_SRUN),
            ("torchrun", FAKE_TORCHRUN),
            ("nvidia-smi", FAKE_NVIDIA_SMI),
            ("python3", FAKE_PYTHON),
            ("ldd", FAKE_LDD),
            ("all_reduce_perf", FAKE_NCCL_TESTS),
        ] {
            let path = cluster.path("bin").join(name);
            fs::write(&path, script).unwrap();
            fs::set_permissions(&path, fs::Permissions::from_mode(0o755)).unwrap();
        }
        cluster
    }

    fn path(&self, rel: &str) -> PathBuf {
        self.dir.path().join(rel)
    }

    fn runs(&self) -> PathBuf {
        fs::canonicalize(self.dir.path()).unwrap().join("repo/runs")
    }

    /// `nccl-report collect --runs repo/runs --cycles 2 ARGS` with the fakes first on PATH
    /// and a parent environment that tries to turn NVLink multicast back on.
    fn command(&self, args: &[&str], env: &[(&str, &str)]) -> std::process::Command {
        let mut command = std::process::Command::new(assert_cmd::cargo::cargo_bin("nccl-report"));
        command
            .current_dir(self.dir.path())
            .env("PATH", format!("{}:/usr/bin:/bin", self.path("bin").display()))
            .env("FAKE_LOG", self.path("log"))
            .env(
                "FAKE_RESULTS",
                Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/runs/synth-basic/raw/results/world4_full"),
            )
            .env("NCCL_NVLS_ENABLE", "1")
            .envs(env.iter().copied())
            .arg("collect")
            .arg("--runs")
            .arg(self.runs())
            .args(["--cycles", "2"])
            .args(args);
        command
    }

    /// Runs `collect` (at most 60 s): (success, stdout, stderr).
    fn collect(&self, args: &[&str], env: &[(&str, &str)]) -> (bool, String, String) {
        let output = Command::from_std(self.command(args, env)).timeout(Duration::from_secs(60)).output().unwrap();
        (
            output.status.success(),
            String::from_utf8_lossy(&output.stdout).into_owned(),
            String::from_utf8_lossy(&output.stderr).into_owned(),
        )
    }

    /// `collect` as a background process (one node of a `--launcher torchrun` run).
    fn spawn(&self, args: &[&str], host: &str) -> std::process::Child {
        self.command(args, &[("SLURMD_NODENAME", host)])
            .stdout(std::process::Stdio::piped())
            .stderr(std::process::Stdio::piped())
            .spawn()
            .unwrap()
    }

    /// What the fake torchrun on `node1` and `node2` was given, after checking that the
    /// rendezvous `common` is the same on both and that each got its own node rank.
    fn check_rendezvous(&self, common: &str) -> (String, String) {
        let t1 = read(&self.path("log/torchrun_node1.txt"));
        let t2 = read(&self.path("log/torchrun_node2.txt"));
        assert!(t1.starts_with(common) && t2.starts_with(common), "{t1}{t2}");
        assert!(t1.contains("node=0") && t2.contains("node=1"), "{t1}{t2}");
        (t1, t2)
    }

    fn slurm_args(&self, nodes: &str) -> Vec<String> {
        let nccl_tests = self.path("bin/all_reduce_perf").display().to_string();
        ["--launcher", "slurm", "--nodes", nodes, "--gpus-per-node", "2", "--run-id", "mn", "--nccl-tests", &nccl_tests]
            .iter()
            .map(|s| s.to_string())
            .collect()
    }
}

fn read(path: &Path) -> String {
    fs::read_to_string(path).unwrap_or_else(|e| panic!("{}: {e}", path.display()))
}

fn args(owned: &[String]) -> Vec<&str> {
    owned.iter().map(String::as_str).collect()
}

#[test]
fn two_node_job_lands_a_run_with_both_hosts() {
    let cluster = Cluster::new();
    let mut owned = cluster.slurm_args("2");
    owned.push("--submit".to_string());
    let (ok, out, err) = cluster.collect(&args(&owned), &[]);
    let run = cluster.runs().join("mn");
    let job_out = ["mn", ".failed/mn", ".collect-mn"]
        .iter()
        .find_map(|dir| fs::read_to_string(cluster.runs().join(dir).join("slurm-4242.out")).ok())
        .unwrap_or_default();
    assert!(ok, "{out}{err}{job_out}");
    assert!(out.contains("submitted job 4242") && out.contains("squeue -j 4242"), "{out}");
    assert!(run.join("job.sbatch").is_file() && !cluster.runs().join(".collect-mn").exists(), "{job_out}");

    let manifest = read(&run.join("manifest.txt"));
    for line in [
        "launcher=slurm",
        "job_id=4242",
        "nodelist=node[1-2]",
        "hosts=node1,node2",
        "nodes=2",
        "gpus_per_node=2",
        "gpu_count=4",
        "gpu=4x NVIDIA H200",
        "hostname=node1",
        "torch=2.11.0+cu130",
        "world_sizes=4",
        "nccl_logs=gzip",
        "NCCL_NVLS_ENABLE=0",
    ] {
        assert!(manifest.lines().any(|l| l == line), "{line} missing in\n{manifest}");
    }
    assert!(!manifest.contains("status="), "{manifest}");
    assert!(manifest.contains(" run_step world4_full raw/world4_full.stdout srun"), "{manifest}");

    // Per-host artifacts differ; the first host's are also the run's artifacts.
    let node1 = read(&run.join("artifacts/node1/nvidia_smi_query.txt"));
    let node2 = read(&run.join("artifacts/node2/nvidia_smi_query.txt"));
    assert!(node1.contains("GPU-node1-0") && node2.contains("GPU-node2-1"), "{node1}{node2}");
    assert_eq!(read(&run.join("artifacts/nvidia_smi_query.txt")), node1);
    assert!(read(&run.join("artifacts/node2/versions.txt")).contains("nccl_runtime=2.28.9"));

    // The rendezvous is identical on both nodes; the node rank is each node's own.
    let (t1, t2) = cluster.check_rendezvous("rdzv=node1:29400 id=4242 backend=c10d nnodes=2 nproc=2");
    assert!(t1.ends_with("nvls=0\n") && t2.ends_with("nvls=0\n"), "{t1}{t2}");

    for rank in 0..4 {
        assert!(run.join(format!("raw/results/world4_full/rank{rank}_contracts.csv")).is_file(), "rank {rank}");
    }
    let mut logs: Vec<String> =
        fs::read_dir(run.join("raw/nccl")).unwrap().map(|e| e.unwrap().file_name().into_string().unwrap()).collect();
    logs.sort();
    assert_eq!(logs.len(), 4, "{logs:?}");
    assert!(logs[0].starts_with("world4_full_node1_") && logs[3].starts_with("world4_full_node2_"), "{logs:?}");
    assert!(logs.iter().all(|l| l.ends_with(".log.gz")), "{logs:?}");

    // nccl-tests: one MPI task per GPU, one GPU each; its JSON keeps no secret.
    let tasks = read(&cluster.path("log/nccl_tests_tasks.txt"));
    assert_eq!(tasks.lines().count(), 4, "{tasks}");
    assert!(tasks.lines().all(|l| l.contains(" -g 1 ")), "{tasks}");
    assert!(read(&run.join("raw/nccl_tests_g4.stdout")).contains("8192"));
    assert!(!read(&run.join("raw/nccl_tests_g4.json")).contains("HF_TOKEN"));
    for step in ["metadata", "world4_full", "nccl_tests_g4"] {
        assert_eq!(read(&run.join("step_status").join(step)).trim(), "0", "{step}");
    }

    // The run's facts: two hosts with their own GPUs, and rank -> host -> GPU from the logs.
    let canonical_runs = fs::canonicalize(cluster.runs()).unwrap();
    let listed = nccl_report::ingest::find::list_run("mn".to_string(), run.clone(), &canonical_runs);
    let mut raw = nccl_report::ingest::load::load_tables(&listed, Limits::DEFAULT);
    nccl_report::ingest::load::load_logs(&listed, Limits::DEFAULT).attach(&mut raw);
    let hosts: Vec<(&str, usize)> = raw.hosts.iter().map(|h| (h.host.as_str(), h.gpus.len())).collect();
    assert_eq!(hosts, [("node1", 2), ("node2", 2)]);
    assert_eq!(raw.hosts[1].gpus[1].uuid, "GPU-node2-1");
    assert!(raw.hosts[0].topology.is_some());
    let facts = nccl_report::analysis::summarize::facts::collect(&raw, &mut Vec::new());
    let host = |name: &str| nccl_report::core::model::facts::HostGpus { host: name.into(), gpus: 2 };
    assert_eq!(facts.hosts, [host("node1"), host("node2")]);
    assert_eq!(facts.gpu_count, Some(4));
    let map = nccl_report::core::model::hosts::rank_map(&raw.nccl_log.as_ref().unwrap().communicators);
    let placed: Vec<(u64, &str, u64)> =
        map.iter().map(|p| (p.rank, p.host.as_deref().unwrap_or(""), p.cuda_dev.unwrap_or(99))).collect();
    assert_eq!(placed, [(0, "node1", 0), (1, "node1", 1), (2, "node2", 0), (3, "node2", 1)]);

    let site = cluster.path("site");
    let build = Command::cargo_bin("nccl-report")
        .unwrap()
        .args(["build", "--strict", "--runs"])
        .arg(cluster.runs())
        .arg("--out")
        .arg(&site)
        .timeout(Duration::from_secs(60))
        .output()
        .unwrap();
    assert!(build.status.success(), "{}", String::from_utf8_lossy(&build.stderr));
    let index: serde_json::Value = serde_json::from_str(&read(&site.join("data/runs.json"))).unwrap();
    let runs_json = read(&site.join(index["shards"][0]["path"].as_str().unwrap()));
    let json: serde_json::Value = serde_json::from_str(&runs_json).unwrap();
    let hosts = serde_json::json!([{ "host": "node1", "gpus": 2 }, { "host": "node2", "gpus": 2 }]);
    assert_eq!(json["runs"][0]["facts"]["hosts"], hosts, "{runs_json}");
    let schema: serde_json::Value =
        serde_json::from_str(&read(&Path::new(env!("CARGO_MANIFEST_DIR")).join("docs/runs.schema.json"))).unwrap();
    for document in [&index, &json] {
        assert!(jsonschema::draft202012::is_valid(&schema, document), "runs.json against docs/runs.schema.json");
    }

    // The run page's Hosts block: both hosts, rank -> host -> GPU, the NCCL logs by host.
    let page = read(&site.join("runs/mn/index.html"));
    let block = page.split("<section id=\"hosts\">").nth(1).and_then(|s| s.split("</section>").next());
    let block = block.unwrap_or_else(|| panic!("no hosts block in\n{page}"));
    assert!(block.contains("<p>2 hosts: node1 (2 GPUs), node2 (2 GPUs).</p>"), "{block}");
    let rank3 = r#"<td>3</td><td>node2</td><td>1</td><td>70</td><td>GPU1 NVIDIA H200 (GPU-node2-1)</td>"#;
    assert!(block.contains(rank3), "{block}");
    for host in ["node1", "node2"] {
        let files = block.matches(&format!("<td>{host}</td><td>2</td><td>raw/nccl/world4_full_{host}_")).count();
        assert_eq!(files, 1, "{host}: 2 log files, listed under their host\n{block}");
        assert!(block.contains(&format!("<td>{host}</td><td>NCCL NET/IB</td><td>[0] mlx5_0:1/IB</td>")), "{block}");
    }
}

#[test]
fn a_failed_step_lands_in_failed_naming_it() {
    let cluster = Cluster::new();
    let mut owned = cluster.slurm_args("2");
    owned.push("--submit".to_string());
    let (ok, out, err) = cluster.collect(&args(&owned), &[("FAKE_TORCHRUN_FAIL", "node2")]);
    assert!(ok, "the submission itself succeeds: {out}{err}");
    let failed = cluster.runs().join(".failed/mn");
    assert!(!cluster.runs().join("mn").exists() && failed.is_dir());
    let failure = read(&failed.join("failure.txt"));
    assert!(failure.contains("step world4_full failed with exit status 3"), "{failure}");
    assert!(read(&failed.join("manifest.txt")).contains("status=failed: step world4_full failed"));
    assert_eq!(read(&failed.join("step_status/nccl_tests_g4")).trim(), "skipped");
    assert!(read(&failed.join("raw/world4_full.stdout")).contains("Traceback: rank exploded"));
}

#[test]
fn a_job_that_never_ended_fails_on_finish() {
    let cluster = Cluster::new();
    let (ok, out, err) = cluster.collect(&args(&cluster.slurm_args("2")), &[]);
    assert!(ok, "{out}{err}");
    let script = cluster.runs().join(".collect-mn/job.sbatch");
    assert!(out.contains(&format!("sbatch --parsable {}", script.display())), "{out}");
    let (ok, _, err) = cluster.collect(&["--finish", "mn"], &[]);
    assert!(!ok);
    assert!(err.contains("the job did not reach its end"), "{err}");
    assert!(cluster.runs().join(".failed/mn/job.sbatch").is_file());
    let (ok, _, err) = cluster.collect(&["--finish", "mn"], &[]);
    assert!(!ok && err.contains("no multi-node collect of id \"mn\" is waiting"), "{err}");
}

#[test]
fn golden_scripts_for_one_two_and_four_nodes() {
    let cluster = Cluster::new();
    let machine = fs::canonicalize(cluster.dir.path()).unwrap().display().to_string();
    let exe = assert_cmd::cargo::cargo_bin("nccl-report").display().to_string();
    for nodes in ["1", "2", "4"] {
        let mut owned = cluster.slurm_args(nodes);
        owned.extend(
            ["--dry-run", "--partition", "gpu", "--account", "proj", "--sbatch-arg=--qos=high"].map(String::from),
        );
        let (ok, out, err) = cluster.collect(&args(&owned), &[]);
        assert!(ok, "{out}{err}");
        let script = out.replace(&exe, "<NCCL_REPORT>").replace(&machine, "<MACHINE>");
        let golden = Path::new(env!("CARGO_MANIFEST_DIR")).join(format!("tests/golden/slurm_{nodes}_nodes.sbatch"));
        if std::env::var_os("UPDATE_GOLDEN").is_some() {
            fs::create_dir_all(golden.parent().unwrap()).unwrap();
            fs::write(&golden, &script).unwrap();
        }
        assert_eq!(script, read(&golden), "{nodes} nodes: rerun with UPDATE_GOLDEN=1 if the change is wanted");
        check_shell(&cluster.path(&format!("job{nodes}.sbatch")), &out);
    }
    assert!(!cluster.runs().exists(), "--dry-run created the runs folder");
}

/// `bash -n`, and shellcheck when installed (said on stderr when skipped).
fn check_shell(path: &Path, script: &str) {
    fs::write(path, script).unwrap();
    let syntax = std::process::Command::new("bash").arg("-n").arg(path).output().unwrap();
    assert!(syntax.status.success(), "bash -n: {}", String::from_utf8_lossy(&syntax.stderr));
    match std::process::Command::new("shellcheck").arg(path).output() {
        Ok(check) => assert!(check.status.success(), "shellcheck:\n{}", String::from_utf8_lossy(&check.stdout)),
        Err(_) => eprintln!("shellcheck is not installed: skipped (bash -n passed)"),
    }
}

#[test]
fn torchrun_launcher_on_two_nodes_assembles_one_run() {
    let cluster = Cluster::new();
    let worker = cluster.path("repo/suite/worker.py").display().to_string();
    let node = |rank: &str| {
        let args = ["--launcher", "torchrun", "--nnodes", "2", "--node-rank", rank, "--rdzv-endpoint", "node1:29400"];
        let mut args: Vec<&str> = args.to_vec();
        args.extend(["--run-id", "tr", "--world-sizes", "2", "--worker", &worker, "--node-timeout", "60"]);
        args.iter().map(|s| s.to_string()).collect::<Vec<_>>()
    };
    let second = cluster.spawn(&args(&node("1")), "node2");
    let first = cluster.spawn(&args(&node("0")), "node1");
    let (first, second) = (first.wait_with_output().unwrap(), second.wait_with_output().unwrap());
    let text = |o: &std::process::Output| {
        format!("{}{}", String::from_utf8_lossy(&o.stdout), String::from_utf8_lossy(&o.stderr))
    };
    assert!(second.status.success(), "node 1: {}", text(&second));
    assert!(first.status.success(), "node 0: {}", text(&first));
    let run = cluster.runs().join("tr");
    assert!(run.is_dir() && !cluster.runs().join(".nodes-tr").exists(), "{}", text(&first));

    cluster.check_rendezvous("rdzv=node1:29400 id=tr backend=c10d nnodes=2 nproc=2");
    for rank in 0..4 {
        assert!(run.join(format!("raw/results/world4_full/rank{rank}_contracts.csv")).is_file(), "rank {rank}");
    }
    let manifest = read(&run.join("manifest.txt"));
    assert!(manifest.contains("run_id=tr\n") && manifest.contains("gpu_count=4\n"), "{manifest}");
    let hosts = manifest.lines().find_map(|l| l.strip_prefix("hosts=")).expect(&manifest);
    assert_eq!(hosts.split(',').count(), 2, "{hosts}");
    assert!(run.join("nodes/node1/raw/world4_full.stdout").is_file());
    let listed =
        nccl_report::ingest::find::list_run("tr".to_string(), run.clone(), &fs::canonicalize(cluster.runs()).unwrap());
    let raw = nccl_report::ingest::load::load_tables(&listed, Limits::DEFAULT);
    assert_eq!(raw.hosts.len(), 2);
    assert_eq!(raw.hosts[1].gpus[0].uuid, "GPU-node2-0", "{:?}", raw.hosts);
}

#[test]
fn torchrun_node_zero_gives_up_on_a_missing_node() {
    let cluster = Cluster::new();
    let worker = cluster.path("repo/suite/worker.py").display().to_string();
    let args =
        ["--launcher", "torchrun", "--nnodes", "2", "--run-id", "tr", "--worker", &worker, "--node-timeout", "1"];
    let (ok, out, err) = cluster.collect(&args, &[("SLURMD_NODENAME", "node1")]);
    assert!(!ok, "{out}{err}");
    assert!(err.contains("node 1 did not finish within 1 s"), "{err}");
    let failed = cluster.runs().join(".failed/tr");
    assert!(read(&failed.join("failure.txt")).contains("did not finish"));
    assert!(failed.join("raw/results/world4_full/rank0_contracts.csv").is_file());
    assert!(!cluster.runs().join("tr").exists());
}

#[test]
fn sbatch_values_that_could_inject_script_lines_are_refused() {
    let cluster = Cluster::new();
    for extra in [["--partition", "gpu\nrm -rf x"], ["--sbatch-arg", "--qos=a\nb"], ["--time", "01:00:00 x"]] {
        let mut owned = cluster.slurm_args("2");
        owned.extend(extra.map(String::from));
        let (ok, out, err) = cluster.collect(&args(&owned), &[]);
        assert!(
            !ok && (err.contains("an #SBATCH line cannot carry") || err.contains("control character")),
            "{extra:?}: {err}"
        );
        assert!(!cluster.runs().join(".collect-mn").exists(), "{extra:?}: {out}");
    }
}
