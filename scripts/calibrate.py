#!/usr/bin/env python3
"""Calibrates `compare` on real runs (docs/CALIBRATION.md, "Calibrated on real runs"): A/A pairs and planted
factors, printed as markdown.

    scripts/calibrate.py BIN RUNS [--power]

RUNS holds back-to-back runs of one configuration, collected alike (an A/A set). For every
pair (A older than B) it runs `BIN compare A B --runs RUNS --format json` and counts the pairs
reporting any `slower`/`faster` case or family shift, and the exit codes. With `--power` it
copies RUNS to a temporary folder and, on a copy of the newest run (`scripts/plant-factor.py`),
multiplies one case per metric family by growing factors: the smallest factor found `slower`,
and what else was flagged then. Python 3 standard library only.
"""
import json, os, shutil, subprocess, sys, tempfile

FACTORS = [1.05, 1.1, 1.2, 1.3, 1.5, 2, 3, 4, 6, 10]
# (CSV section, CSV column, rows to multiply) -> (JSON section, metric, case text or prefix)
PLANTS = [
    (("async", "gpu_dependency_us", "size_bytes=65536"), ("async", "gpu_dependency_us", "bytes=65536")),
    (("async", "host_enqueue_us", "size_bytes=65536"), ("async", "host_enqueue_us", "bytes=65536")),
    (("async", "host_wait_us", "size_bytes=65536"), ("async", "host_wait_us", "bytes=65536")),
    (("decomposition", "duration_us", "size_bytes=1048576,mode=direct"),
     ("decomposition", "duration_us", "bytes=1048576;mode=direct")),
    (("fragmentation", "duration_us", "fragment_count=8"), ("fragmentation", "duration_us_for_80MiB", "count=8;")),
    (("decode", "duration_us", "tokens=4"), ("decode", "replay_total_us", "tokens=4;")),
]
PLANT_SCRIPT = os.path.join(os.path.dirname(os.path.abspath(__file__)), "plant-factor.py")


def compare(binary, runs, *ids):
    out = subprocess.run([binary, "compare", *ids, "--runs", runs, "--format", "json"],
                         capture_output=True, text=True)
    if out.returncode not in (0, 1):
        sys.exit(f"compare {' '.join(ids)} failed ({out.returncode}): {out.stderr.strip()}")
    return out.returncode, json.loads(out.stdout)


def flagged(report):
    cases = [c for c in report["cases"] if c["verdict"] in ("slower", "faster")]
    shifts = [s for s in report["shifts"] if s["verdict"] in ("slower", "faster")]
    return cases, shifts


def run_ids(runs):
    return sorted(d for d in os.listdir(runs) if os.path.isdir(os.path.join(runs, d)))


def aa(binary, runs):
    ids = run_ids(runs)
    pairs = flagged_pairs = exit1 = 0
    lines = []
    for i, a in enumerate(ids):
        for b in ids[i + 1:]:
            code, report = compare(binary, runs, a, b)
            cases, shifts = flagged(report)
            pairs += 1
            exit1 += code == 1
            if cases or shifts:
                flagged_pairs += 1
                what = [f"{c['verdict']} {c['section']} {c['case']} {c['metric']}" for c in cases]
                what += [f"{s['family']}-side {s['verdict']}" for s in shifts]
                lines.append(f"  - {a} vs {b}: {'; '.join(what)}")
    print(f"- A/A `{runs}` ({len(ids)} runs): {flagged_pairs} of {pairs} pairs report a change, "
          f"{exit1} exit 1")
    print("\n".join(lines))


def is_planted(case, section, metric, text):
    return case["section"] == section and case["metric"] == metric and (
        case["case"] == text or (text.endswith(";") and case["case"].startswith(text)))


def power(binary, runs):
    work = tempfile.mkdtemp(prefix="calibrate-")
    try:
        copy = os.path.join(work, "runs")
        shutil.copytree(runs, copy)
        source = os.path.join(copy, run_ids(copy)[-1])
        print(f"- Planted on a copy of `{os.path.basename(source)}`, "
              f"judged against {len(run_ids(copy)) - 1} earlier runs:")
        for (section, column, rows), (json_section, metric, text) in PLANTS:
            found = None
            for factor in FACTORS:
                planted = os.path.join(copy, "zz-planted")
                subprocess.run([sys.executable, PLANT_SCRIPT, source, planted, section, column, rows,
                                str(factor)], check=True, capture_output=True)
                code, report = compare(binary, copy, "zz-planted")
                shutil.rmtree(planted)
                cases, shifts = flagged(report)
                mine = [c for c in cases if is_planted(c, json_section, metric, text)]
                if mine and all(c["verdict"] == "slower" for c in mine):
                    others = [f"{c['verdict']} {c['case']} {c['metric']}" for c in cases if c not in mine]
                    others += [f"{s['family']}-side {s['verdict']}" for s in shifts]
                    floor = mine[0]["effect_floor"]
                    found = (f"x{factor} (floor {floor * 100:.0f} %, exit {code}; "
                             f"also flagged: {'; '.join(others) or 'nothing'})")
                    break
            print(f"  - {json_section} `{metric}` {text}: {found or f'not found up to x{FACTORS[-1]}'}")
    finally:
        shutil.rmtree(work)


def main():
    args = [a for a in sys.argv[1:] if a != "--power"]
    if len(args) != 2:
        sys.exit(__doc__)
    binary, runs = os.path.abspath(args[0]), args[1]
    aa(binary, runs)
    if "--power" in sys.argv:
        power(binary, runs)


main()
