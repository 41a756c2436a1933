#!/usr/bin/env python3
"""Time the seed's own summarization over a corpus of runs (a benchmark yardstick).

Usage: python3 seed_summarize.py --seed-dir ../shared/seed --runs CORPUS [--limit N]

The seed module is loaded once. For each run, the run's raw/ folder is staged (untimed) in a
temporary root laid out as the seed expects, then the seed's main() is timed with its GPU
steps faked exactly as seed_oracle.py fakes them (torchrun -> no-op, all_reduce_perf -> the
stored stdout, nvidia-smi/ibv_devinfo/torch/git -> placeholders). What is timed is therefore
the seed reading the per-rank CSVs and nccl-tests stdout, computing every statistic and
writing its summary files. Prints one JSON line: runs, total seconds, seconds per run.
"""

import argparse
import importlib.util
import json
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path


def load_seed(path: Path):
    spec = importlib.util.spec_from_file_location("seed_runner_bench", path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


class Shim:
    def __getattr__(self, name):
        return getattr(subprocess, name)

    def check_output(self, command, *args, **kwargs):
        text = "2.x\n12.x\n2.22.3\n" if "import torch" in command[-1] else "0" * 40 + "\n"
        return text if kwargs.get("text") else text.encode()


def main() -> int:
    parser = argparse.ArgumentParser()
    parser.add_argument("--seed-dir", type=Path, required=True)
    parser.add_argument("--runs", type=Path, required=True)
    parser.add_argument("--limit", type=int, default=0)
    args = parser.parse_args()
    seed = load_seed(args.seed_dir / "seed_runner.py")
    seed.subprocess = Shim()
    runs = sorted(p for p in args.runs.iterdir() if (p / "raw").is_dir())
    if args.limit:
        runs = runs[: args.limit]
    total = 0.0
    done = 0
    with tempfile.TemporaryDirectory() as temp:
        root = Path(temp)
        (root / "scripts").mkdir()
        (root / "scripts" / "61_interview_detail_worker.py").write_text("# placeholder\n")
        for run in runs:
            target = root / "logs" / "interview_details" / run.name
            shutil.copytree(run / "raw" / "results", target / "raw" / "results")
            stored = {w: (run / "raw" / f"nccl_tests_g{w}.stdout").read_text() for w in ("2", "4")}

            def fake(command, env=None, stored=stored):
                exe = Path(str(command[0])).name
                if exe == "all_reduce_perf":
                    return 0, stored[str(command[command.index("-g") + 1])]
                return 0, ""

            seed.run_capture = fake
            sys.argv = ["seed", "--root", str(root), "--run-id", run.name, "--nccl-tests", str(root / "all_reduce_perf")]
            start = time.perf_counter()
            with open("/dev/null", "w") as devnull:
                saved = sys.stdout
                sys.stdout = devnull
                try:
                    seed.main()
                finally:
                    sys.stdout = saved
            total += time.perf_counter() - start
            done += 1
            shutil.rmtree(target)
    print(json.dumps({"runs": done, "seconds": total, "seconds_per_run": total / max(done, 1)}))
    return 0


if __name__ == "__main__":
    sys.exit(main())
