//! `nccl-report collect` on simulated machines: fake `nvidia-smi`, `torchrun`, `python3` and
//! `all_reduce_perf` shell scripts alone on `PATH`, so no GPU is needed.

use assert_cmd::Command;
use std::fs;
use std::os::unix::fs::PermissionsExt;
use std::path::{Path, PathBuf};

/// A temporary machine: `bin/` (the only `PATH` entry), `repo/suite/worker.py`, `repo/runs`.
struct Machine {
    dir: tempfile::TempDir,
}

/// Prints the safety variables and the cwd, writes one NCCL log, then the worker's CSVs for
/// every rank and section; `FAKE_TORCHRUN=fail` exits 3, `=empty` writes no CSV.
const FAKE_TORCHRUN: &str = r#"#!/bin/sh
n=1; out=; sections=; prev=
for a in "$@"; do
  case "$prev" in --output-dir) out=$a;; --sections) sections=$a;; esac
  case "$a" in --nproc_per_node=*) n=${a#--nproc_per_node=};; esac
  prev=$a
done
echo "fake torchrun $*"
for v in NCCL_NVLS_ENABLE TORCH_SYMM_MEM_DISABLE_MULTICAST NVSHMEM_DISABLE_NVLS NCCL_DEBUG NCCL_DEBUG_SUBSYS NCCL_DEBUG_FILE; do
  eval "echo env $v=\$$v"
done
echo "NCCL INFO fake" > "${NCCL_DEBUG_FILE%_%h_%p.log}_fakehost_$$.log"
if [ "$NCCL_INSPECTOR_ENABLE" = 1 ]; then
  echo "env NCCL_PROFILER_PLUGIN=$NCCL_PROFILER_PLUGIN interval=$NCCL_INSPECTOR_DUMP_THREAD_INTERVAL_MICROSECONDS"
fi
# As NCCL: at one rank no collective kernel runs, so the Inspector writes nothing.
if [ "$NCCL_INSPECTOR_ENABLE" = 1 ] && [ "$n" -gt 1 ]; then
  r=0
  while [ $r -lt $n ]; do
    for sn in 1 2; do
      printf '{"header":{"id":"0x1","comm_name":"unknown","rank":%s,"n_ranks":%s,"nnodes":1},"metadata":{"inspector_output_format_version":"v4.0","git_rev":"","rec_mechanism":"nccl_profiler_interface","dump_timestamp_us":1,"hostname":"fakehost","pid":%s},"coll_perf":{"coll":"AllReduce","coll_sn":%s,"coll_msg_size_bytes":1048576,"coll_exec_time_us":%s,"coll_timing_source":"kernel_gpu","coll_algobw_gbs":1.5,"coll_busbw_gbs":%s}}\n' \
        $r $n $$ $sn $((10 * sn + r)) $((sn + r)) >> "$NCCL_INSPECTOR_DUMP_DIR/fakehost-pid$$.log"
    done
    r=$((r+1))
  done
fi
if [ "$FAKE_TORCHRUN" = fail ]; then echo "Traceback: worker exploded" >&2; exit 3; fi
if [ "$FAKE_TORCHRUN" = empty ]; then exit 0; fi
r=0
while [ $r -lt $n ]; do
  old=$IFS; IFS=,
  for s in $sections contracts; do
    printf 'world_size,cycle,correct\n%s,0,True\n' "$n" > "$out/rank${r}_$s.csv"
  done
  IFS=$old
  r=$((r+1))
done
"#;

const FAKE_PYTHON: &str = "#!/bin/sh\necho torch=2.11.0+cu130\necho cuda_runtime=13.0\necho nccl_runtime=2.28.9\n";

/// `-h` lists `-J` only when `JSON` is `yes`; a run prints one table row and writes the JSON.
const FAKE_NCCL_TESTS: &str = r##"#!/bin/sh
echo "$*" >> "$0.calls"
if [ "$1" = -h ]; then echo "USAGE: all_reduce_perf"; [ JSON = yes ] && echo "[-J,--output_file <file> write output]"; exit 0; fi
json=; prev=
for a in "$@"; do [ "$prev" = -J ] && json=$a; prev=$a; done
echo "# nccl-tests version 2.19.6 args: $*"
echo "        8192          4096      half     sum      -1     7.86    1.04    0.00       0     2.49    3.29    0.00       0"
echo "env NCCL_NVLS_ENABLE=$NCCL_NVLS_ENABLE"
if [ -n "$json" ]; then echo '{"env": ["HF_TOKEN=secret", "NCCL_DEBUG=INFO"], "results": []}' > "$json"; fi
"##;

impl Machine {
    fn new() -> Self {
        let dir = tempfile::tempdir().unwrap();
        fs::create_dir_all(dir.path().join("bin")).unwrap();
        fs::create_dir_all(dir.path().join("repo/suite")).unwrap();
        fs::write(dir.path().join("repo/suite/worker.py"), "print('worker')\n").unwrap();
        Machine { dir }
    }

    fn with_gpus(self, count: usize) -> Self {
        let query: String = (0..count)
            .map(|i| format!("echo '{i}, NVIDIA H200, GPU-fake-{i}, 580.159.04, 143771 MiB, 00000000:00:0{i}.0'\n"))
            .collect();
        let header: String = (0..count).map(|i| format!("\\tGPU{i}")).collect();
        let rows: String = (0..count)
            .map(|i| {
                let cells: String =
                    (0..count).map(|j| if i == j { "\\t X ".to_string() } else { "\\tNV18".to_string() }).collect();
                format!("printf 'GPU{i}{cells}\\t0-15\\n'\n")
            })
            .collect();
        let script = format!(
            "#!/bin/sh\nif [ \"$1\" = topo ]; then\nprintf '{header}\\tCPU Affinity\\n'\n{rows}exit 0\nfi\n{query}"
        );
        self.tool("nvidia-smi", &script)
    }

    fn with_torch(self) -> Self {
        self.tool("torchrun", FAKE_TORCHRUN).tool("python3", FAKE_PYTHON)
    }

    fn with_nccl_tests(self, json: bool) -> Self {
        let script = FAKE_NCCL_TESTS.replace("JSON", if json { "yes" } else { "no" });
        self.tool("all_reduce_perf", &script)
    }

    fn tool(self, name: &str, script: &str) -> Self {
        let path = self.dir.path().join("bin").join(name);
        fs::write(&path, script).unwrap();
        fs::set_permissions(&path, fs::Permissions::from_mode(0o755)).unwrap();
        self
    }

    fn runs(&self) -> PathBuf {
        self.dir.path().join("repo/runs")
    }

    /// A stand-in for the Inspector plugin (`collect` only checks that it exists).
    fn plugin(&self) -> PathBuf {
        let plugin = self.dir.path().join("libnccl-profiler-inspector.so");
        fs::write(&plugin, "not really a library").unwrap();
        plugin
    }

    /// `nccl-report build` of the runs folder into `site/`; returns `site/` and the stderr.
    fn build(&self) -> (PathBuf, String) {
        let site = self.dir.path().join("site");
        let output = Command::cargo_bin("nccl-report")
            .unwrap()
            .args(["build", "--runs"])
            .arg(self.runs())
            .arg("--out")
            .arg(&site)
            .output()
            .unwrap();
        (site, String::from_utf8_lossy(&output.stderr).into_owned())
    }

    fn nccl_tests(&self) -> PathBuf {
        self.dir.path().join("bin/all_reduce_perf")
    }

    /// `nccl-report collect --runs repo/runs ARGS` with only the fake tools on PATH and a
    /// parent environment that tries to turn NVLink multicast back on.
    fn collect(&self, args: &[&str]) -> (bool, String, String) {
        let output = Command::cargo_bin("nccl-report")
            .unwrap()
            .current_dir(self.dir.path())
            .env("PATH", self.dir.path().join("bin"))
            .env("NCCL_NVLS_ENABLE", "1")
            .env("TORCH_SYMM_MEM_DISABLE_MULTICAST", "0")
            .arg("collect")
            .arg("--runs")
            .arg(self.runs())
            .args(["--cycles", "2"])
            .args(args)
            .output()
            .unwrap();
        (
            output.status.success(),
            String::from_utf8_lossy(&output.stdout).into_owned(),
            String::from_utf8_lossy(&output.stderr).into_owned(),
        )
    }
}

fn read(path: &Path) -> String {
    fs::read_to_string(path).unwrap_or_else(|e| panic!("{}: {e}", path.display()))
}

fn names(dir: &Path) -> Vec<String> {
    let mut names: Vec<String> = fs::read_dir(dir)
        .map(|entries| entries.map(|e| e.unwrap().file_name().to_string_lossy().into_owned()).collect())
        .unwrap_or_default();
    names.sort();
    names
}

#[test]
fn dry_run_prints_commands_and_creates_nothing() {
    let machine = Machine::new();
    let (ok, out, err) = machine.collect(&["--dry-run", "--run-id", "r1"]);
    assert!(ok, "{out}{err}");
    assert!(out.contains("not clamped"), "{out}");
    let safety = "NCCL_NVLS_ENABLE=0 TORCH_SYMM_MEM_DISABLE_MULTICAST=1 NVSHMEM_DISABLE_NVLS=1";
    let torch_lines: Vec<&str> = out.lines().filter(|l| l.contains(" torchrun ")).collect();
    assert_eq!(torch_lines.len(), 2, "{out}");
    assert!(torch_lines[0].starts_with("NCCL_DEBUG=INFO NCCL_DEBUG_SUBSYS=INIT,GRAPH,COLL,TUNING "), "{out}");
    assert!(torch_lines[0].contains(safety), "{out}");
    assert!(torch_lines[0].contains("torchrun --standalone --nproc_per_node=4 "), "{out}");
    assert!(torch_lines[0].contains("--output-dir raw/results/world4_full --sections async,decomposition"), "{out}");
    assert!(torch_lines[0].contains("--cycles 2 --warmups 3 --decode-collectives 160 --cpu-affinity 0,2,4,6"));
    assert!(torch_lines[1].contains("--nproc_per_node=2 ") && torch_lines[1].contains("world2_decode"), "{out}");
    assert!(out.contains(&format!("{safety} nvidia-smi topo -m > artifacts/nvidia_smi_topo.txt 2>&1")), "{out}");
    assert!(out.contains("nccl-tests control skipped: no --nccl-tests given"), "{out}");
    assert!(!machine.runs().exists(), "dry run created the runs folder");
}

#[test]
fn dry_run_clamps_to_probed_gpus() {
    let machine = Machine::new().with_gpus(1).with_nccl_tests(false);
    let nccl_tests = machine.nccl_tests();
    let (ok, out, err) = machine.collect(&["--dry-run", "--nccl-tests", nccl_tests.to_str().unwrap()]);
    assert!(ok, "{out}{err}");
    assert!(out.contains("# GPUs probed: 1x NVIDIA H200"), "{out}");
    assert!(out.contains("world sizes 4,2 clamped to the 1 GPU present: running 1"), "{out}");
    assert!(out.contains("--nproc_per_node=1 ") && !out.contains("world4_full"), "{out}");
    let control = out.lines().find(|l| l.contains("all_reduce_perf -b")).expect(&out);
    // A dry run runs nothing, not even `-h`: the control is shown as with JSON support.
    assert!(
        control.contains("-b 8K -e 1M -f 2 -g 1 -w 20 -n 100 -N 2 -c 1 -d half -a 3 -J raw/nccl_tests_g1.json >"),
        "{control}"
    );
    assert!(!Path::new(&format!("{}.calls", nccl_tests.display())).exists(), "the nccl-tests binary was run");
    assert!(!machine.runs().exists());
}

#[test]
fn a_newline_in_the_nccl_tests_path_is_refused() {
    let machine = Machine::new().with_gpus(1).with_nccl_tests(true);
    let odd = machine.nccl_tests().with_file_name("all_reduce_perf\nnccl_runtime=9.9.9");
    fs::copy(machine.nccl_tests(), &odd).unwrap();
    let (ok, out, err) = machine.collect(&["--nccl-tests", odd.to_str().unwrap()]);
    assert!(!ok && err.contains("control character"), "{out}{err}");
    assert!(!machine.runs().exists());
}

#[test]
fn refuses_without_gpus_and_creates_nothing() {
    let machine = Machine::new().with_torch();
    let (ok, _, err) = machine.collect(&[]);
    assert!(!ok);
    assert!(err.contains("collect needs NVIDIA GPUs: nvidia-smi is not on PATH"), "{err}");
    assert!(err.contains("nothing was created"), "{err}");
    assert!(!machine.runs().exists());

    let machine = machine.tool("nvidia-smi", "#!/bin/sh\necho 'No devices were found'\nexit 6\n");
    let (ok, _, err) = machine.collect(&[]);
    assert!(!ok);
    assert!(err.contains("nvidia-smi failed") && err.contains("No devices were found"), "{err}");
    assert!(!machine.runs().exists());
}

#[test]
fn refuses_without_torchrun_and_creates_nothing() {
    let machine = Machine::new().with_gpus(1);
    let (ok, _, err) = machine.collect(&[]);
    assert!(!ok);
    assert!(err.contains("collect needs torchrun, which is not on PATH"), "{err}");
    assert!(!machine.runs().exists());
}

#[test]
fn zero_warmups_cycles_or_calls_and_blocking_environment_are_refused() {
    let machine = Machine::new().with_gpus(1).with_torch();
    for flag in ["--warmups", "--cycles", "--decode-collectives"] {
        let (ok, _, err) = machine.collect(&[flag, "0"]);
        assert!(!ok, "{flag} 0 was taken");
        assert!(err.contains(flag), "{err}");
        assert!(!machine.runs().exists(), "{flag} 0 made a run");
    }
    let blocking = |extra: &[&str]| {
        Command::cargo_bin("nccl-report")
            .unwrap()
            .current_dir(machine.dir.path())
            .env("PATH", machine.dir.path().join("bin"))
            .env("CUDA_LAUNCH_BLOCKING", "1")
            .args(["collect", "--run-id", "forced", "--cycles", "2", "--runs"])
            .arg(machine.runs())
            .args(extra)
            .output()
            .unwrap()
    };
    let refused = blocking(&[]);
    let err = String::from_utf8_lossy(&refused.stderr);
    assert!(!refused.status.success());
    assert!(err.contains("CUDA_LAUNCH_BLOCKING=1 makes every launch or wait blocking"), "{err}");
    assert!(!machine.runs().exists());
    let forced = blocking(&["--force"]);
    assert!(forced.status.success(), "{}", String::from_utf8_lossy(&forced.stderr));
    let manifest = read(&machine.runs().join("forced/manifest.txt"));
    assert!(manifest.contains("timing_env=CUDA_LAUNCH_BLOCKING=1"), "{manifest}");
    assert!(manifest.lines().any(|l| l.starts_with(" ") && l.ends_with("--force")), "{manifest}");
}

#[test]
fn one_gpu_run_lands_with_manifest_artifacts_and_gzipped_logs() {
    let machine = Machine::new().with_gpus(1).with_torch();
    let (ok, out, err) = machine.collect(&["--run-id", "h200"]);
    assert!(ok, "{out}{err}");
    assert!(err.contains("clamped to the 1 GPU present"), "{err}");
    assert!(err.contains("[1/1] world1_full"), "{err}");
    let run = machine.runs().join("h200");
    assert!(out.contains(&format!("run_dir={}", run.display())), "{out}");
    assert_eq!(names(&machine.runs()), ["h200"], "nothing else in the runs folder");
    assert_eq!(names(&run), ["artifacts", "manifest.txt", "raw"]);
    assert_eq!(
        names(&run.join("artifacts")),
        [
            "ibv_devinfo.txt",
            "lscpu.txt",
            "machine.txt",
            "nvidia_smi_q.txt",
            "nvidia_smi_query.txt",
            "nvidia_smi_topo.txt",
            "versions.txt"
        ]
    );
    assert_eq!(read(&run.join("artifacts/ibv_devinfo.txt")), "ibv_devinfo: command not found\n");
    assert_eq!(names(&run.join("raw/results")), ["world1_full"]);
    assert_eq!(names(&run.join("raw/results/world1_full")).len(), 6);
    let logs = names(&run.join("raw/nccl"));
    assert_eq!(logs.len(), 1);
    assert!(logs[0].starts_with("world1_full_fakehost_") && logs[0].ends_with(".log.gz"), "{logs:?}");

    let stdout = read(&run.join("raw/world1_full.stdout"));
    for line in [
        "env NCCL_NVLS_ENABLE=0",
        "env TORCH_SYMM_MEM_DISABLE_MULTICAST=1",
        "env NVSHMEM_DISABLE_NVLS=1",
        "env NCCL_DEBUG=INFO",
        "env NCCL_DEBUG_SUBSYS=INIT,GRAPH,COLL,TUNING",
        "env NCCL_DEBUG_FILE=raw/nccl/world1_full_%h_%p.log",
    ] {
        assert!(stdout.lines().any(|l| l == line), "{line} missing from:\n{stdout}");
    }

    let manifest = read(&run.join("manifest.txt"));
    for key in [
        "experiment=interview_details",
        "run_id=h200",
        "timestamp_utc=",
        "hostname=",
        "gpu=1x NVIDIA H200",
        "topology=single GPU",
        "torch=2.11.0+cu130",
        "cuda_runtime=13.0",
        "nccl_runtime=2.28.9",
        "nccl_source_commit=unavailable",
        // python3 -c "import hashlib; print(hashlib.sha256(b\"print('worker')\\n\").hexdigest())"
        "worker_sha256=388c2a655be08450e27961718b454f073e5de9007f338d6b13fbb3ba2dff865c",
        "cycles=2",
        "warmups=3",
        "decode_collectives=160",
        "cpu_affinity=0-15; (local rank i uses entry i)",
        "timing_env=",
        "worker_cpus=world1_full: ",
        "nccl_tests=not run: no --nccl-tests given",
        "dtype=FP32 for async/decomposition;",
        "critical_path_summary=max rank duration per cycle",
        "NCCL_DEBUG=INFO",
        "NCCL_DEBUG_SUBSYS=INIT,GRAPH,COLL,TUNING",
        "NCCL_NVLS_ENABLE=0",
        "world_sizes=1",
        "requested_world_sizes=4,2",
        "gpu_count=1",
        "nccl_logs=gzip",
        "collected_by=nccl-report ",
    ] {
        assert!(manifest.lines().any(|l| l.starts_with(key)), "{key} missing from:\n{manifest}");
    }
    let commands: Vec<&str> = manifest.lines().skip_while(|l| *l != "commands:").skip(1).collect();
    assert_eq!(commands.len(), 1, "{manifest}");
    assert!(commands[0].starts_with(" NCCL_DEBUG=INFO NCCL_DEBUG_SUBSYS=INIT,GRAPH,COLL,TUNING NCCL_DEBUG_FILE="));
    assert!(
        commands[0].contains("NCCL_NVLS_ENABLE=0 TORCH_SYMM_MEM_DISABLE_MULTICAST=1 NVSHMEM_DISABLE_NVLS=1 torchrun")
    );
}

#[test]
fn four_gpu_run_with_nccl_tests_json() {
    let machine = Machine::new().with_gpus(4).with_torch().with_nccl_tests(true);
    let nccl_tests = machine.nccl_tests();
    let (ok, out, err) = machine.collect(&["--run-id", "v4", "--nccl-tests", nccl_tests.to_str().unwrap()]);
    assert!(ok, "{out}{err}");
    let run = machine.runs().join("v4");
    assert_eq!(names(&run.join("raw/results")), ["world2_decode", "world4_full"]);
    assert_eq!(names(&run.join("raw/results/world4_full")).len(), 4 * 6);
    assert_eq!(names(&run.join("raw/results/world2_decode")).len(), 2 * 2);
    let raw = names(&run.join("raw"));
    for file in ["nccl_tests_g2.json", "nccl_tests_g2.stdout", "nccl_tests_g4.json", "nccl_tests_g4.stdout"] {
        assert!(raw.iter().any(|f| f == file), "{file} missing: {raw:?}");
    }
    assert!(read(&run.join("raw/nccl_tests_g4.stdout")).contains("env NCCL_NVLS_ENABLE=0"));
    let json = read(&run.join("raw/nccl_tests_g4.json"));
    assert!(json.contains("NCCL_DEBUG=INFO") && !json.contains("HF_TOKEN"), "env not filtered: {json}");
    let manifest = read(&run.join("manifest.txt"));
    assert!(manifest.contains("gpu=4x NVIDIA H200\n"), "{manifest}");
    assert!(manifest.contains("nccl_tests_json_env=only NCCL_*, CUDA_*, NVSHMEM_*, TORCH_* kept"), "{manifest}");
    assert!(manifest.contains("topology=all GPU pairs NV18\n"), "{manifest}");
    assert!(manifest.contains("cpu_affinity=0-15;0-15;0-15;0-15; (local rank i uses entry i)\n"), "{manifest}");
    assert!(manifest.contains(&format!("nccl_tests={}\n", fs::canonicalize(&nccl_tests).unwrap().display())));
    let commands: Vec<&str> = manifest.lines().skip_while(|l| *l != "commands:").skip(1).collect();
    assert_eq!(commands.len(), 4, "{manifest}");
    assert!(commands[2].contains("-g 2 -w 20 -n 100 -N 2 -c 1 -d half -a 3 -J raw/nccl_tests_g2.json"), "{manifest}");
    assert!(commands[3].contains("NCCL_DEBUG_FILE=raw/nccl/nccl_tests_g4_%h_%p.log"), "{manifest}");
}

#[test]
fn nccl_inspector_dumps_are_kept_gzipped_per_case_and_read_by_the_build() {
    let machine = Machine::new().with_gpus(2).with_torch();
    let plugin = machine.plugin();
    let (ok, out, err) = machine.collect(&["--run-id", "insp", "--nccl-inspector", plugin.to_str().unwrap()]);
    assert!(ok, "{out}{err}");
    let run = machine.runs().join("insp");
    assert_eq!(names(&run.join("raw/inspector")), ["world2_full"]);
    let dumps = names(&run.join("raw/inspector/world2_full"));
    assert!(dumps.len() == 1 && dumps[0].starts_with("fakehost-pid") && dumps[0].ends_with(".log.gz"), "{dumps:?}");
    let plugin = fs::canonicalize(&plugin).unwrap();
    let stdout = read(&run.join("raw/world2_full.stdout"));
    assert!(stdout.contains(&format!("env NCCL_PROFILER_PLUGIN={} interval=500\n", plugin.display())), "{stdout}");
    let manifest = read(&run.join("manifest.txt"));
    assert!(manifest.contains(&format!("\nnccl_inspector={}\n", plugin.display())), "{manifest}");
    assert!(manifest.contains("NCCL_INSPECTOR_DUMP_DIR=raw/inspector/world2_full "), "{manifest}");

    let (site, stderr) = machine.build();
    let index: serde_json::Value =
        serde_json::from_str(&read(&site.join("data/runs.json"))).unwrap_or_else(|e| panic!("{e}: {stderr}"));
    let runs: serde_json::Value =
        serde_json::from_str(&read(&site.join(index["shards"][0]["path"].as_str().unwrap()))).unwrap();
    let schema: serde_json::Value =
        serde_json::from_str(&read(&Path::new(env!("CARGO_MANIFEST_DIR")).join("docs/runs.schema.json"))).unwrap();
    for document in [&index, &runs] {
        assert!(jsonschema::draft202012::is_valid(&schema, document), "runs.json against docs/runs.schema.json");
    }
    let rows = &runs["runs"][0]["facts"]["inspector"];
    assert_eq!(rows.as_array().map(Vec::len), Some(1), "{runs}");
    let row = &rows[0];
    assert_eq!((row["case"].as_str(), row["operation"].as_str()), (Some("world2_full"), Some("AllReduce")));
    assert_eq!((row["bytes"].as_u64(), row["count"].as_u64()), (Some(1048576), Some(4)));
    // exec times 10, 11, 20, 21 and busbw 1, 2, 2, 3: medians 15.5 and 2.
    assert_eq!((row["median_exec_time_us"].as_f64(), row["median_busbw_gbs"].as_f64()), (Some(15.5), Some(2.0)));
    assert!(row["algorithm"].is_null(), "the fake logs have no TUNING line");
    let page = read(&site.join("runs/insp/index.html"));
    assert!(page.contains("NCCL Inspector records") && page.contains("1 MiB") && page.contains("15.5"), "{page}");
}

#[test]
fn nccl_inspector_at_one_rank_says_not_logged() {
    let machine = Machine::new().with_gpus(1).with_torch();
    let plugin = machine.plugin();
    let (ok, out, err) = machine.collect(&["--run-id", "one", "--nccl-inspector", plugin.to_str().unwrap()]);
    assert!(ok, "{out}{err}");
    assert!(err.contains("the NCCL Inspector wrote no records"), "{err}");
    assert_eq!(names(&machine.runs().join("one/raw/inspector/world1_full")), Vec::<String>::new());
    let (site, _) = machine.build();
    let page = read(&site.join("runs/one/index.html"));
    assert!(page.contains("Not logged at one rank"), "{page}");
    assert!(!page.contains("NCCL Inspector records"), "no empty table");
}

#[test]
fn a_missing_nccl_inspector_plugin_is_refused() {
    let machine = Machine::new().with_gpus(1).with_torch();
    let (ok, _, err) = machine.collect(&["--run-id", "x", "--nccl-inspector", "/no/such/plugin.so"]);
    assert!(!ok);
    assert!(err.contains("--nccl-inspector /no/such/plugin.so: no such file"), "{err}");
    assert!(!machine.runs().join("x").exists() && names(&machine.runs()).is_empty(), "nothing created");
}

#[test]
fn failing_case_moves_the_run_to_failed() {
    let machine = Machine::new().with_gpus(1).with_torch();
    let output = Command::cargo_bin("nccl-report")
        .unwrap()
        .env("PATH", machine.dir.path().join("bin"))
        .env("FAKE_TORCHRUN", "fail")
        .args(["collect", "--run-id", "bad", "--runs"])
        .arg(machine.runs())
        .output()
        .unwrap();
    let err = String::from_utf8_lossy(&output.stderr);
    assert!(!output.status.success());
    assert!(err.contains("world1_full failed") && err.contains("Traceback: worker exploded"), "{err}");
    assert!(err.contains(".failed/bad"), "{err}");
    assert_eq!(names(&machine.runs()), [".failed"], "nothing landed, no assembly folder left");
    let failed = machine.runs().join(".failed/bad");
    assert!(read(&failed.join("raw/world1_full.stdout")).contains("worker exploded"));
    assert!(read(&failed.join("failure.txt")).contains("world1_full failed"));
    let manifest = read(&failed.join("manifest.txt"));
    assert!(manifest.contains("status=failed: world1_full failed"), "{manifest}");
    assert!(manifest.contains("nccl_logs=plain"), "{manifest}");
    assert_eq!(names(&failed.join("raw/nccl")).len(), 1, "logs kept");
}

#[test]
fn missing_worker_outputs_fail_the_run() {
    let machine = Machine::new().with_gpus(1).with_torch();
    let output = Command::cargo_bin("nccl-report")
        .unwrap()
        .env("PATH", machine.dir.path().join("bin"))
        .env("FAKE_TORCHRUN", "empty")
        .args(["collect", "--run-id", "empty", "--runs"])
        .arg(machine.runs())
        .output()
        .unwrap();
    let err = String::from_utf8_lossy(&output.stderr);
    assert!(!output.status.success());
    assert!(err.contains("world1_full exited 0 but did not write raw/results/world1_full/rank0_async.csv"), "{err}");
    assert_eq!(names(&machine.runs().join(".failed")), ["empty"]);
    assert!(!machine.runs().join("empty").exists());
}

#[test]
fn an_existing_run_id_is_refused() {
    let machine = Machine::new().with_gpus(1).with_torch();
    fs::create_dir_all(machine.runs().join("taken")).unwrap();
    let (ok, _, err) = machine.collect(&["--run-id", "taken"]);
    assert!(!ok);
    assert!(err.contains("already exists; choose another --run-id"), "{err}");
    let (ok, _, err) = machine.collect(&["--run-id", "a/x"]);
    assert!(!ok);
    assert!(err.contains("path separator"), "{err}");
    assert_eq!(names(&machine.runs()), ["taken"]);
}

/// Every path under `dir`, relative, sorted (NCCL log names without their pid).
fn shape(dir: &Path) -> Vec<String> {
    let mut paths = Vec::new();
    let mut stack = vec![dir.to_path_buf()];
    while let Some(next) = stack.pop() {
        for entry in fs::read_dir(&next).unwrap() {
            let path = entry.unwrap().path();
            let rel = path.strip_prefix(dir).unwrap().display().to_string();
            paths.push(rel.split("_fakehost_").next().unwrap().to_string());
            if path.is_dir() {
                stack.push(path);
            }
        }
    }
    paths.sort();
    paths
}

#[test]
fn torchrun_launcher_on_one_node_lands_the_same_shape_as_local() {
    let machine = Machine::new().with_gpus(2).with_torch().with_nccl_tests(true);
    let nccl_tests = machine.nccl_tests();
    let nccl_tests = nccl_tests.to_str().unwrap();
    let (ok, out, err) = machine.collect(&["--run-id", "local", "--nccl-tests", nccl_tests]);
    assert!(ok, "{out}{err}");
    let torchrun = [
        "--run-id",
        "rdzv",
        "--nccl-tests",
        nccl_tests,
        "--launcher",
        "torchrun",
        "--nnodes",
        "1",
        "--node-rank",
        "0",
        "--rdzv-endpoint",
        "127.0.0.1:29400",
    ];
    let (ok, out, err) = machine.collect(&torchrun);
    assert!(ok, "{out}{err}");
    let (local, rdzv) = (machine.runs().join("local"), machine.runs().join("rdzv"));
    assert_eq!(shape(&local), shape(&rdzv));
    let stdout = read(&rdzv.join("raw/world2_full.stdout"));
    assert!(
        stdout.contains(
            "fake torchrun --nnodes=1 --node-rank=0 --rdzv-backend=c10d --rdzv-endpoint=127.0.0.1:29400 \
             --rdzv-id=rdzv --nproc_per_node=2 "
        ),
        "{stdout}"
    );
    let manifest = read(&rdzv.join("manifest.txt"));
    assert!(manifest.contains("launcher=torchrun\nnodes=1\nrdzv_endpoint=127.0.0.1:29400\n"), "{manifest}");
    assert!(!read(&local.join("manifest.txt")).contains("launcher="));

    let (ok, _, err) = machine.collect(&["--launcher", "torchrun", "--nnodes", "2"]);
    assert!(!ok && err.contains("needs --run-id, the same on every node"), "{err}");
}

/// `collect --dry-run | head -0`: stdout is a pipe nobody reads (its read end closed before the
/// command starts); the command ends quietly (exit 0, no panic), as after `| head`.
#[test]
fn dry_run_into_a_closed_pipe_ends_quietly() {
    use std::os::fd::{FromRawFd, OwnedFd};
    let machine = Machine::new();
    let mut fds = [0; 2];
    // SAFETY: `fds` has room for the two descriptors `pipe` writes.
    assert_eq!(unsafe { libc::pipe(fds.as_mut_ptr()) }, 0);
    // SAFETY: both descriptors were just opened by `pipe` and are owned by nothing else.
    let (read_end, write_end) = unsafe { (OwnedFd::from_raw_fd(fds[0]), OwnedFd::from_raw_fd(fds[1])) };
    drop(read_end);
    let output = std::process::Command::new(assert_cmd::cargo::cargo_bin("nccl-report"))
        .current_dir(machine.dir.path())
        .env("PATH", machine.dir.path().join("bin"))
        .args(["collect", "--runs", machine.runs().to_str().unwrap(), "--cycles", "2", "--dry-run"])
        .stdout(std::process::Stdio::from(write_end))
        .output()
        .unwrap();
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(output.status.success(), "{:?} {stderr}", output.status);
    assert!(!stderr.contains("panicked"), "{stderr}");
}
