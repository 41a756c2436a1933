#!/usr/bin/env bash
# Builds a demo site into DIR/site from the bundled runs plus three `nccl-report synth` runs
# (4x H200, their own configuration), two fixture runs (a failed one, `synth-nccl-wrong`, and
# one with a warning, `synth-basic`, whose rank0_async.csv is also stored as .csv.gz) and a planted regression: `20261203T090000Z`, a copy of
# the bundled 20261203T084705Z dated later whose decode tokens=1 cycles are 1.5x slower
# (DIR/runs), with the debug binary. Used by docs/screenshots/take.sh and
# scripts/check-site.sh (dev tools, not CI). Extra arguments go to `nccl-report build`.
#
#   scripts/demo-site.sh DIR [build options...]
set -euo pipefail
dir=${1:?usage: scripts/demo-site.sh DIR [build options...]}
shift
repo=$(cd "$(dirname "$0")/.." && pwd)
(cd "$repo" && cargo build --quiet)
bin="$repo/target/debug/nccl-report"
mkdir -p "$dir"
rm -rf "$dir/runs" "$dir/synth" "$dir/site" "$dir/.nccl-report-cache"
cp -r "$repo/runs" "$dir/runs"
"$bin" synth --out "$dir/synth" --count 3 --seed 7 >/dev/null
cp -r "$dir/synth"/. "$dir/runs/"
cp -r "$repo/tests/fixtures/runs/synth-nccl-wrong" "$repo/tests/fixtures/runs/synth-basic" "$dir/runs/"
# a warning: one rank's CSV stored both plain and gzipped (only the plain one is read)
gzip -k "$dir/runs/synth-basic/raw/results/world4_full/rank0_async.csv"
planted="$dir/runs/20261203T090000Z"
cp -r "$repo/runs/20261203T084705Z" "$planted"
sed -i 's/^timestamp_utc=2026-12-03T08:47:05/timestamp_utc=2026-12-03T09:00:00/' "$planted/manifest.txt"
decode="$planted/raw/results/world1_full/rank0_decode.csv"
awk -F, -v OFS=, 'NR > 1 && $5 == "1" { $9 = $9 * 1.5 } { print }' "$decode" > "$decode.new" && mv "$decode.new" "$decode"
"$bin" build --runs "$dir/runs" --out "$dir/site" "$@"
