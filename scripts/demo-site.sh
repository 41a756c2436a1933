#!/usr/bin/env bash
# Builds a demo site into DIR/site from the bundled runs plus three `nccl-report synth` runs
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
rm -rf "$dir/runs" "$dir/synth" "$dir/site"
cp -r "$repo/runs" "$dir/runs"
"$bin" synth --out "$dir/synth" --count 3 --seed 7 >/dev/null
cp -r "$dir/synth"/. "$dir/runs/"
"$bin" build --runs "$dir/runs" --out "$dir/site" "$@"
