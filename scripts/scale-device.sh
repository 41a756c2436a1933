#!/usr/bin/env bash
# The scale benchmark of issue #27 with a release binary alone (for a host without a Rust
# toolchain; `benches/scale.rs` is the same measurement under `cargo bench`):
#   scripts/scale-device.sh BIN N
# N + 1000 small synthetic runs (`synth --small`: 2 ranks, 2 cycles, no logs); the 1000 newest
# set aside; a cold build of N with the cache (`--timings`: wall time, peak RSS); then the
# 1000 added and built again. Prints a markdown table row: cold and +1000 times and peak RSS,
# files written by the +1000 build, site files and bytes per run, the most entries in one
# folder of the site, the largest file and the largest runs.json shard. Environment: JOBS
# (all cores), WORK (a temporary folder, removed at the end), DEADLINE_S (stop before the
# +1000 build when the cold build ended after this many seconds; default 420), FLAGS (extra
# build flags, e.g. --no-evidence: the issue counts evidence apart), STAGE (all: both builds;
# cold: generate and build N, keeping WORK; more: the +1000 build on the WORK a cold stage
# kept, e.g. in a second device call on the same warm machine when both do not fit one).
set -euo pipefail
BIN=$(readlink -f "${1:?usage: scale-device.sh BIN N}")
N=${2:?usage: scale-device.sh BIN N}
JOBS=${JOBS:-$(nproc)}
WORK=${WORK:-$(mktemp -d /tmp/scale-device.XXXXXX)}
DEADLINE_S=${DEADLINE_S:-420}
FLAGS=${FLAGS:-}
STAGE=${STAGE:-all}
[ "$STAGE" = cold ] || trap 'rm -rf "$WORK"' EXIT
start=$SECONDS
field() { python3 -c "import json,sys; d=json.loads(open(sys.argv[1]).read().strip().splitlines()[-1]); print(d$2)" "$1"; }
build() { # LOG
  "$BIN" build --runs "$WORK/runs" --out "$WORK/site" --jobs "$JOBS" $FLAGS --timings >"$1.out" 2>"$1" || { tail -5 "$1"; exit 1; }
  tail -1 "$1.out"
}
if [ "$STAGE" != more ]; then
  "$BIN" synth --small --out "$WORK/all" --count $((N + 1000)) --seed 7 >/dev/null
  mkdir -p "$WORK/runs" "$WORK/later"
  (cd "$WORK/all" && ls | sort | sed -n "1,${N}p" | xargs mv -t "$WORK/runs/")
  (cd "$WORK/all" && ls | xargs mv -t "$WORK/later/")
  # The runs settle, as archived runs have: a build keeps a run's layout only of folders last
  # changed 3 s before it walks them (src/ingest/layout.rs), and a move changes a folder's ctime.
  sleep 3
  echo "generated $((N + 1000)) small runs in $((SECONDS - start)) s; $(find "$WORK/runs" -type f | wc -l) input files for N"
  t0=$(date +%s.%N)
  build "$WORK/cold.json"
  t1=$(date +%s.%N)
  cold=$(awk -v a="$t0" -v b="$t1" 'BEGIN { printf "%.1f", b - a }')
  cold_rss=$(field "$WORK/cold.json" "['peak_rss_kib']")
  files=$(find "$WORK/site" -type f | wc -l)
  bytes=$(du -sb "$WORK/site" | cut -f1)
  widest=$(find "$WORK/site" -mindepth 1 -printf '%h\n' | sort | uniq -c | sort -n | tail -1)
  largest=$(find "$WORK/site" -type f -printf '%s %P\n' | sort -n | tail -1)
  shard=$(find "$WORK/site/data" -name '*.json' -printf '%s %P\n' 2>/dev/null | sort -n | tail -1)
  echo "cold: $cold s, peak RSS $((cold_rss / 1024)) MiB; $files files, $bytes bytes; widest folder: $widest; largest file: $largest; largest data JSON: $shard"
  echo "$cold $cold_rss" >"$WORK/cold.figures"
  if [ "$STAGE" = cold ] || [ $((SECONDS - start)) -gt "$DEADLINE_S" ]; then
    echo "+1000 not built (STAGE=$STAGE, $((SECONDS - start)) s so far); WORK=$WORK"
    exit 0
  fi
fi
read -r cold cold_rss <"$WORK/cold.figures"
(cd "$WORK/later" && ls | xargs mv -t "$WORK/runs/")
t0=$(date +%s.%N)
build "$WORK/more.json"
t1=$(date +%s.%N)
more=$(awk -v a="$t0" -v b="$t1" 'BEGIN { printf "%.1f", b - a }')
more_rss=$(field "$WORK/more.json" "['peak_rss_kib']")
written=$(field "$WORK/more.json" ".get('files_written', 'n/a')")
total=$((N + 1000))
files=$(find "$WORK/site" -type f | wc -l)
bytes=$(du -sb "$WORK/site" | cut -f1)
echo "| runs | cold build | peak RSS | +1000 runs | peak RSS | files written (+1000) | site files / run | site KB / run |"
echo "|---:|---:|---:|---:|---:|---:|---:|---:|"
echo "| $N | $cold s | $((cold_rss / 1024)) MiB | $more s | $((more_rss / 1024)) MiB | $written | $(awk -v f="$files" -v n="$total" 'BEGIN { printf "%.1f", f / n }') | $(awk -v b="$bytes" -v n="$total" 'BEGIN { printf "%.1f", b / n / 1024 }') |"
