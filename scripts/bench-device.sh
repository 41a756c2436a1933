#!/usr/bin/env bash
# Side-by-side build benchmark of two release binaries on one host (written for the 16-core
# H200 host), printed as markdown tables:
#   scripts/bench-device.sh OLD_BIN NEW_BIN
# 1. Corpus: `synth --count $COUNT --seed 7 --log-bytes $LOG_BYTES --gzip-every 4` (by NEW_BIN).
# 2. The read floor: every input byte read by $READERS readers (`xargs -P`), page cache warm.
# 3. `build --no-cache --jobs J` for J in $JOBS, both binaries alternating (old first on odd
#    rounds), $ROUNDS rounds, page cache warm (one untimed warm-up build first); then one
#    round with the page cache dropped before each build, if /proc/sys/vm/drop_caches is
#    writable.
# 4. +1 run at N = $BIG: a cached site of $BIG runs (small runs, no logs), one run added; wall
#    time and files written (NEW_BIN's --timings; the old binary's by counting changed inodes).
# Every build of a round must produce the same site (tree hash) for every J.
# Environment: COUNT (200), LOG_BYTES (2097152), JOBS ("1 2 4 8 16"), ROUNDS (2), BIG (1000),
# READERS (16), FLOOR_BIN (the read_floor example: read, +inflate, +newlines), DROP (1;
# 0: never drop the page cache), SEED_DIR (the seed's folder: its own
# summarization of the corpus is timed too, `benches/seed_summarize.py`, SEED_ROUNDS times
# (2); the best is the figure), ROUNDS >= 3 adds each binary's median per J, TIMINGS (1: the new
# binary's --timings at --jobs 1 and 16), NEW_FLAGS (extra build flags of the new binary only),
# OLD_FLAGS (of the old binary only),
# WORK (a temporary folder, removed at the end), SITES (a folder in which a temporary folder
# for the built sites is made: $WORK). Total about 5-7 minutes on the H200 host with the
# defaults.
set -euo pipefail

OLD=$(readlink -f "${1:?usage: bench-device.sh OLD_BIN NEW_BIN}")
NEW=$(readlink -f "${2:?usage: bench-device.sh OLD_BIN NEW_BIN}")
COUNT=${COUNT:-200}
LOG_BYTES=${LOG_BYTES:-2097152}
JOBS=${JOBS:-"1 2 4 8 16"}
ROUNDS=${ROUNDS:-2}
SEED_ROUNDS=${SEED_ROUNDS:-2}
BIG=${BIG:-1000}
READERS=${READERS:-16}
WORK=${WORK:-$(mktemp -d /tmp/bench-device.XXXXXX)}
mkdir -p "$WORK"
SITES_TMP=
trap 'rm -rf "$WORK" ${SITES_TMP:+"$SITES_TMP"}' EXIT
# Where the built sites (and their cache) go: a tmpfs folder such as /dev/shm/bench takes the
# file system's cost of creating files out of the figures (an ext4 without a journal looks
# past every inode freed in the last minute for each file it creates: BENCHMARKS.md, "Stop 35").
mkdir -p "${SITES:-$WORK}"
SITES_TMP=$(mktemp -d "${SITES:-$WORK}/sites.XXXXXX")
SITES=$SITES_TMP

NEW_FLAGS=${NEW_FLAGS:-}
OLD_FLAGS=${OLD_FLAGS:-}
# Each binary's extra build flags ($NEW_FLAGS, e.g. --no-evidence: like for like with an old
# binary that had no such feature; $OLD_FLAGS for an old binary that has it too).
flags() { if [ "$1" = "$NEW" ]; then echo "$NEW_FLAGS"; else echo "$OLD_FLAGS"; fi; }
now() { date +%s.%N; }
elapsed() { awk -v a="$1" -v b="$2" 'BEGIN { printf "%.3f", b - a }'; }
tree_hash() { (cd "$1" && find . -type f ! -name '.nccl-report-site' -print0 | sort -z | xargs -0 sha256sum | sha256sum | cut -c1-16); }
can_drop() { [ "${DROP:-1}" = 1 ] && [ -w /proc/sys/vm/drop_caches ] && sync && echo 3 > /proc/sys/vm/drop_caches 2>/dev/null; }
drop_caches() { sync; echo 3 > /proc/sys/vm/drop_caches; }

echo "old: $OLD"
echo "new: $NEW ${NEW_FLAGS}"
echo "host: $(nproc) cores, $(awk '/MemTotal/ {printf "%.0f GiB", $2/1048576}' /proc/meminfo)"
# The file system the sites are written to and the kernel's huge-page mode both change the
# write and allocation costs a build pays.
mount_of() { findmnt -no SOURCE,FSTYPE,OPTIONS -T "$1" 2>/dev/null | head -1 || stat -f -c %T "$1"; }
echo "work folder: $WORK on $(mount_of "$WORK")"
echo "sites: $SITES on $(mount_of "$SITES")"
echo "file systems with a journal (/proc/fs/jbd2): $(ls /proc/fs/jbd2 2>/dev/null | tr '\n' ' ')"
echo "transparent huge pages: $(cat /sys/kernel/mm/transparent_hugepage/enabled 2>/dev/null || echo unknown)"
echo

t0=$(now)
"$NEW" synth --out "$WORK/corpus" --count "$COUNT" --seed 7 --log-bytes "$LOG_BYTES" --gzip-every 4 > /dev/null 2>&1
t1=$(now)
files=$(find "$WORK/corpus" -type f | wc -l)
bytes=$(du -sb "$WORK/corpus" | cut -f1)
echo "corpus: $COUNT runs, $files files, $(awk -v b="$bytes" 'BEGIN { printf "%.2f GB", b / 1e9 }') (made in $(elapsed "$t0" "$t1") s)"

# The read floor, warm: best of 3.
read_floor() {
    local best=
    for _ in 1 2 3; do
        local a b t
        a=$(now)
        find "$WORK/corpus" -type f -print0 | xargs -0 -n 64 -P "$READERS" cat > /dev/null
        b=$(now)
        t=$(elapsed "$a" "$b")
        if [ -z "$best" ] || awk -v t="$t" -v b="$best" 'BEGIN { exit !(t < b) }'; then best=$t; fi
    done
    echo "$best"
}
read_floor > /dev/null
floor=$(read_floor)
echo "read floor ($READERS readers, warm, best of 3): $floor s"
# The floor under a cold build: FLOOR_BIN is the `read_floor` example (`cargo build --release
# --example read_floor`), at 1 and at $READERS threads: every file read, then also every *.gz
# inflated, then also every newline counted (best of 3 rounds each). No cold build takes less
# than the last.
if [ -n "${FLOOR_BIN:-}" ]; then
    for j in 1 "$READERS"; do
        floor_json=$("$FLOOR_BIN" "$WORK/corpus" --jobs "$j" --rounds 3)
        echo "read_floor --jobs $j: $floor_json"
    done
fi
if [ -n "${SEED_DIR:-}" ]; then
    seeds=$(for _ in $(seq 1 "$SEED_ROUNDS"); do
        python3 "$(dirname "$0")/../benches/seed_summarize.py" --seed-dir "$SEED_DIR" --runs "$WORK/corpus" --limit "$COUNT" |
            python3 -c 'import json,sys; print(round(json.load(sys.stdin)["seconds"], 3))'
    done | sort -n)
    echo "seed summarize ($COUNT runs, module loaded once, best of $SEED_ROUNDS): $(echo "$seeds" | head -1) s (all: $(echo $seeds))"
fi
echo

# `BIN build ARGS...` with the binary's own flags, its output to LOG; when it fails, says so
# with the end of LOG and returns 1. Callers add `|| return 1`: inside a command substitution
# (`t=$(timed_build ...)`) `set -e` does not hold, and without the check a binary refusing a
# flag printed a time of 0.005 s.
must_build() {
    local log=$1 bin=$2
    shift 2
    if ! "$bin" build "$@" $(flags "$bin") > "$log" 2>&1; then
        echo "build failed: $bin build $* $(flags "$bin"):" >&2
        tail -5 "$log" >&2
        return 1
    fi
}

# One timed build: prints seconds; the site's tree hash goes to $WORK/hash.
timed_build() {
    local bin=$1 jobs=$2 out=$3
    rm -rf "$out" "$SITES/.nccl-report-cache"
    local a b
    a=$(now)
    must_build "$WORK/build.log" "$bin" --runs "$WORK/corpus" --out "$out" --no-cache --jobs "$jobs" || return 1
    b=$(now)
    tree_hash "$out" > "$WORK/hash"
    elapsed "$a" "$b"
}

declare -A warm_old warm_new cold_old cold_new
hashes=""
timed_build "$NEW" 16 "$SITES/site" > /dev/null
for round in $(seq 1 "$ROUNDS"); do
    for j in $JOBS; do
        if [ $((round % 2)) = 1 ]; then order="old new"; else order="new old"; fi
        for which in $order; do
            bin=$OLD; [ "$which" = new ] && bin=$NEW
            t=$(timed_build "$bin" "$j" "$SITES/site-$which")
            if [ "$which" = old ]; then warm_old[$j]="${warm_old[$j]:-}${warm_old[$j]:+ / }$t"; else warm_new[$j]="${warm_new[$j]:-}${warm_new[$j]:+ / }$t"; fi
            [ "$which" = new ] && hashes="$hashes $(cat "$WORK/hash")"
        done
    done
done
dropped=no
if can_drop; then
    dropped=yes
    for j in $JOBS; do
        for which in old new; do
            bin=$OLD; [ "$which" = new ] && bin=$NEW
            drop_caches
            t=$(timed_build "$bin" "$j" "$SITES/site-$which")
            if [ "$which" = old ]; then cold_old[$j]=$t; else cold_new[$j]=$t; fi
        done
    done
fi
distinct=$(echo "$hashes" | tr ' ' '\n' | sed '/^$/d' | sort -u | wc -l)
if [ "${TIMINGS:-0}" = 1 ]; then
    for j in 1 16; do
        echo "new --timings, --jobs $j, warm:"
        rm -rf "$SITES/site-t" "$SITES/.nccl-report-cache"
        "$NEW" build --runs "$WORK/corpus" --out "$SITES/site-t" --no-cache --jobs "$j" $NEW_FLAGS --timings 2>&1 >/dev/null | tail -1
    done
    plain=$(find "$WORK/corpus" -path '*/nccl/*' -name '*.log' -printf '%s\n' | awk '{ s += $1 } END { print s + 0 }')
    gz=$(find "$WORK/corpus" -path '*/nccl/*' -name '*.log.gz' -print0 | xargs -0 -r gzip -l | awk '$1 ~ /^[0-9]+$/ && NF == 4 && $4 != "(totals)" { s += $2 } END { print s + 0 }')
    echo "NCCL log bytes in the corpus, decompressed: $plain plain + $gz gzipped"
    echo
fi

echo "### build --no-cache, $COUNT runs (seconds; rounds separated by /)"
echo
header="| --jobs |"; rule="|---|"
for j in $JOBS; do header="$header $j |"; rule="$rule---:|"; done
echo "$header"; echo "$rule"
row() { local name=$1; shift; local line="| $name |"; for v in "$@"; do line="$line $v |"; done; echo "$line"; }
vals=(); for j in $JOBS; do vals+=("${warm_old[$j]}"); done; row "old, warm" "${vals[@]}"
vals=(); for j in $JOBS; do vals+=("${warm_new[$j]}"); done; row "new, warm" "${vals[@]}"
if [ "$ROUNDS" -ge 3 ]; then
    # The lent hosts move by up to 1.5x between rounds: the median of the rounds is the figure.
    median() { echo "$1" | tr '/' '\n' | sort -n | awk '{ v[NR] = $1 } END { print (NR % 2) ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2 }'; }
    vals=(); for j in $JOBS; do vals+=("$(median "${warm_old[$j]}")"); done; row "old, warm, median" "${vals[@]}"
    vals=(); for j in $JOBS; do vals+=("$(median "${warm_new[$j]}")"); done; row "new, warm, median" "${vals[@]}"
fi
if [ "$dropped" = yes ]; then
    vals=(); for j in $JOBS; do vals+=("${cold_old[$j]}"); done; row "old, caches dropped" "${vals[@]}"
    vals=(); for j in $JOBS; do vals+=("${cold_new[$j]}"); done; row "new, caches dropped" "${vals[@]}"
else
    echo
    echo "(page cache not dropped: DROP=0 or /proc/sys/vm/drop_caches not writable)"
fi
echo
echo "read floor ($READERS readers): $floor s; new site identical at every --jobs: $([ "$distinct" = 1 ] && echo yes || echo "NO ($distinct trees)")"
echo

# +1 run at N = BIG, small runs (no logs), with the cache.
"$NEW" synth --out "$WORK/big-all" --count "$((BIG + 1))" --seed 7 > /dev/null 2>&1
mkdir -p "$WORK/big"
newest=$(ls "$WORK/big-all" | sort | tail -1)
for run in $(ls "$WORK/big-all"); do [ "$run" = "$newest" ] || mv "$WORK/big-all/$run" "$WORK/big/"; done
# The runs settle, as archived runs have: a build keeps a run's layout only of folders last
# changed 3 s before it walks them (src/ingest/layout.rs), and a move changes a folder's ctime.
sleep 3
plus_one() {
    local bin=$1 out=$SITES/big-site-$2
    rm -rf "$out" "$SITES/.nccl-report-cache"
    [ -d "$WORK/big/$newest" ] && mv "$WORK/big/$newest" "$WORK/big-all/"
    local a b c
    a=$(now)
    must_build "$WORK/build.log" "$bin" --runs "$WORK/big" --out "$out" || return 1
    b=$(now)
    local cold; cold=$(elapsed "$a" "$b")
    find "$out" -type f -printf '%i %P\n' | sort > "$WORK/inodes-before"
    mv "$WORK/big-all/$newest" "$WORK/big/"
    a=$(now)
    must_build "$WORK/plus-one.txt" "$bin" --runs "$WORK/big" --out "$out" || return 1
    c=$(now)
    local plus; plus=$(elapsed "$a" "$c")
    find "$out" -type f -printf '%i %P\n' | sort > "$WORK/inodes-after"
    local changed; changed=$(comm -13 "$WORK/inodes-before" "$WORK/inodes-after" | wc -l)
    local total; total=$(wc -l < "$WORK/inodes-after")
    local pct; pct=$(awk -v p="$plus" -v c="$cold" 'BEGIN { printf "%.1f", 100 * p / c }')
    echo "| $2 | $cold | $plus ($pct %) | $changed of $total |"
}
echo "### +1 run at N = $BIG (synth runs without logs; cache on)"
echo
echo "| binary | cold build (s) | +1 run (s, % of cold) | files written (new inodes; a hard link keeps its inode, so the old binary's relinking of every run is not in it) |"
echo "|---|---:|---:|---:|"
plus_one "$OLD" old
plus_one "$NEW" new
echo
echo "new binary's summary of the +1 build: $(tail -1 "$WORK/plus-one.txt")"
