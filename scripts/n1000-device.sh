#!/usr/bin/env bash
# Cold and +1-run builds at N = 1000 with the cache, two release binaries alternating (for a
# host without a Rust toolchain; the H200 host of the device tool):
#   scripts/n1000-device.sh OLD_BIN NEW_BIN
# Corpus: `synth --count 1001 --seed 7` (bench-device.sh's +1 corpus: runs without logs), the
# newest set aside; with LOG_BYTES > 0, `--log-bytes $LOG_BYTES --gzip-every 4` too (the
# corpus of issue #27's own N = 1000 figures: 2 MiB of NCCL logs a rank, 13 GB in all). Each round, for each binary: the site and cache removed, a cold build of
# the 1000 oldest, then the newest added and built again. Prints each build's wall time, and
# for the last round each binary's `--timings` stages over 10 ms and its peak RSS. The new
# binary runs with NEW_FLAGS (default --no-evidence: the previous wave has no evidence to
# publish), the old one with OLD_FLAGS (default none; --no-evidence for an old binary that has
# it, or for either binary when the two are given in the other order). Environment:
# ROUNDS (3), JOBS (16), LOG_BYTES (0), SITES (the folder the site is built in: the work folder),
# CORPUS (a folder kept between calls, so that a second call, under `taskset` say, reuses the
# corpus the first one made: default a temporary folder removed at exit).
set -euo pipefail
export NCCL_NVLS_ENABLE=0 TORCH_SYMM_MEM_DISABLE_MULTICAST=1 NVSHMEM_DISABLE_NVLS=1
OLD=$(readlink -f "${1:?usage: n1000-device.sh OLD_BIN NEW_BIN}")
NEW=$(readlink -f "${2:?usage: n1000-device.sh OLD_BIN NEW_BIN}")
ROUNDS=${ROUNDS:-3}
JOBS=${JOBS:-16}
LOG_BYTES=${LOG_BYTES:-0}
if [ -n "${CORPUS:-}" ]; then
  W=$CORPUS
  mkdir -p "$W"
  drop=()
else
  W=$(mktemp -d /tmp/n1000.XXXXXX)
  drop=("$W")
fi
trap 'rm -rf "${drop[@]}"' EXIT
if [ ! -d "$W/runs" ]; then
  logs=()
  [ "$LOG_BYTES" -gt 0 ] && logs=(--log-bytes "$LOG_BYTES" --gzip-every 4)
  "$NEW" synth --out "$W/all" --count 1001 --seed 7 "${logs[@]}" >/dev/null 2>&1
  mkdir -p "$W/runs"
  newest=$(ls "$W/all" | sort | tail -1)
  (cd "$W/all" && ls | grep -vx "$newest" | xargs mv -t "$W/runs/")
fi
newest=$( (ls "$W/all"; ls "$W/runs") | sort | tail -1)
SITES=${SITES:-$W}
S=$(mktemp -d "$SITES/n1000-site.XXXXXX")
drop+=("$S")
echo "corpus: 1001 runs, $(du -sh "$W" | cut -f1), LOG_BYTES=$LOG_BYTES; --jobs $JOBS; site in $SITES"
# The runs settle, as archived runs have: a build keeps a run's layout only of folders last
# changed 3 s before it walks them (src/ingest/layout.rs), and a move changes a folder's ctime.
sleep 3
now() { date +%s.%N; }
since() { awk -v a="$1" -v b="$(now)" 'BEGIN { printf "%.3f", b - a }'; }
stages() { tail -1 "$1" | python3 -c "
import json, sys
d = json.loads(sys.stdin.read())
print(round(d['total_seconds'], 3), 's, peak RSS', d.get('peak_rss_kib'), 'KiB,', {k: round(v, 3) for k, v in d['stages'].items() if v > 0.01})"; }
for r in $(seq "$ROUNDS"); do
  for bin in "$OLD" "$NEW"; do
    rm -rf "$S/site" "$S/.nccl-report-cache"
    [ -d "$W/runs/$newest" ] && mv "$W/runs/$newest" "$W/all/"
    flags=(--timings)
    [ "$bin" = "$NEW" ] && flags+=(${NEW_FLAGS-"--no-evidence"})
    [ "$bin" = "$OLD" ] && flags+=(${OLD_FLAGS:-})
    a=$(now)
    "$bin" build --runs "$W/runs" --out "$S/site" --jobs "$JOBS" "${flags[@]}" >/dev/null 2>"$W/cold.err"
    cold=$(since "$a")
    mv "$W/all/$newest" "$W/runs/"
    a=$(now)
    "$bin" build --runs "$W/runs" --out "$S/site" --jobs "$JOBS" "${flags[@]}" >/dev/null 2>"$W/plus.err"
    echo "round $r $(basename "$bin"): cold $cold s, +1 $(since "$a") s"
    if [ "$r" = "$ROUNDS" ]; then
      echo "  cold: $(stages "$W/cold.err")"
      echo "  +1:   $(stages "$W/plus.err")"
    fi
  done
done
