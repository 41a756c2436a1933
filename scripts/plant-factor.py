#!/usr/bin/env python3
"""Copies a run folder and multiplies one case's per-cycle values in its rank CSVs, to test
that a verdict finds a known change in real data (docs/CALIBRATION.md, "Calibrated on real runs").

    scripts/plant-factor.py SRC_RUN DST_RUN SECTION COLUMN KEY=VALUE FACTOR [...]

e.g. `async gpu_dependency_us size_bytes=65536 1.3` multiplies gpu_dependency_us of every
row with size_bytes 65536 in every rank<N>_async.csv; `size_bytes=8192,mode=direct` matches
rows with both values. Several (SECTION COLUMN KEY=VALUE
FACTOR) groups may follow. The manifest's run_id and timestamp are moved one second after
the source's, so the copy is the newest run of its configuration.
"""
import csv, datetime, glob, io, os, shutil, sys

src, dst, *plants = sys.argv[1:]
if not plants or len(plants) % 4:
    sys.exit(__doc__)
shutil.copytree(src, dst)
for i in range(0, len(plants), 4):
    section, column, match, factor = plants[i:i + 4]
    wanted = dict(part.split("=", 1) for part in match.split(","))
    for path in glob.glob(os.path.join(dst, "raw/results/*", f"rank*_{section}.csv")):
        with open(path, newline="") as f:
            rows = list(csv.DictReader(f))
        fields = list(rows[0].keys()) if rows else []
        changed = 0
        for row in rows:
            if all(row[k] == v for k, v in wanted.items()):
                row[column] = repr(float(row[column]) * float(factor))
                changed += 1
        out = io.StringIO()
        writer = csv.DictWriter(out, fieldnames=fields, lineterminator="\r\n")
        writer.writeheader()
        writer.writerows(rows)
        with open(path, "w", newline="") as f:
            f.write(out.getvalue())
        print(f"{path}: {column} x{factor} in {changed} rows")
manifest = os.path.join(dst, "manifest.txt")
lines = open(manifest).read().splitlines()
for n, line in enumerate(lines):
    if line.startswith("timestamp_utc="):
        when = datetime.datetime.fromisoformat(line.split("=", 1)[1]) + datetime.timedelta(seconds=1)
        lines[n] = "timestamp_utc=" + when.isoformat()
    elif line.startswith("run_id="):
        lines[n] = "run_id=" + os.path.basename(dst.rstrip("/"))
open(manifest, "w").write("\n".join(lines) + "\n")
