#!/usr/bin/env bash
# The NCCL log scan of GRAPH lines and the issue's cold builds, two release binaries side by
# side on one host (written for the device tool's hosts, which have no Rust toolchain and no
# `bc`):
#   scripts/graph-device.sh OLD_BIN NEW_BIN
# 1. `build --no-cache --no-evidence` of `synth --count $COUNT --seed 7 --log-bytes 2097152
#    --gzip-every 4` (the issue's corpus) at --jobs 1 and 16: one untimed build of each binary,
#    whose sites must be identical, then $ROUNDS rounds, alternating (the old binary first in
#    odd rounds), with each binary's median; then the new binary's `--timings` at 1 and 16.
# 2. Two logs of GRAPH lines, `inspect` of each by both binaries, whether their JSON is
#    identical, and 7 alternating rounds: one rank's init of 2,000 communicators (25.8 MB; per
#    channel three connections, a ring, a tree, a channel listing), and one process's init of
#    300 communicators of eight ranks whose lines interleave (30.5 MB; nccl-tests `-g 8`).
# Environment: COUNT (200), ROUNDS (5). Work files go to a temporary folder in /dev/shm,
# removed at exit (BENCHMARKS.md, "Stop 46").
set -euo pipefail
export NCCL_NVLS_ENABLE=0 TORCH_SYMM_MEM_DISABLE_MULTICAST=1 NVSHMEM_DISABLE_NVLS=1
OLD=$(readlink -f "${1:?usage: graph-device.sh OLD_BIN NEW_BIN}")
NEW=$(readlink -f "${2:?usage: graph-device.sh OLD_BIN NEW_BIN}")
ROUNDS=${ROUNDS:-5}
W=$(mktemp -d /dev/shm/graph.XXXXXX); trap 'rm -rf "$W"' EXIT
"$NEW" synth --out "$W/corpus" --count "${COUNT:-200}" --seed 7 --log-bytes 2097152 --gzip-every 4 > /dev/null 2>&1
now() { date +%s.%N; }
since() { awk -v a="$1" -v b="$(now)" 'BEGIN { printf "%.3f", b - a }'; }
build() {
    rm -rf "$W/site-$3"
    local a
    a=$(now)
    "$1" build --runs "$W/corpus" --out "$W/site-$3" --no-cache --no-evidence --jobs "$2" > /dev/null 2>&1
    since "$a"
}
median() { printf '%s\n' "$@" | sort -n | awk '{ v[NR] = $1 } END { print v[int((NR + 1) / 2)] }'; }
for j in 1 16; do build "$OLD" "$j" old > /dev/null; build "$NEW" "$j" new > /dev/null; done
if diff -r "$W/site-old" "$W/site-new" > /dev/null; then echo "sites identical"; else echo "SITES DIFFER"; fi
for j in 1 16; do
    old=()
    new=()
    for r in $(seq 1 "$ROUNDS"); do
        if [ $((r % 2)) = 1 ]; then
            old+=("$(build "$OLD" "$j" old)")
            new+=("$(build "$NEW" "$j" new)")
        else
            new+=("$(build "$NEW" "$j" new)")
            old+=("$(build "$OLD" "$j" old)")
        fi
    done
    echo "jobs $j: old ${old[*]} (median $(median "${old[@]}")); new ${new[*]} (median $(median "${new[@]}"))"
done
for j in 1 16; do
    "$NEW" build --runs "$W/corpus" --out "$W/site-t" --no-cache --no-evidence --jobs "$j" --timings 2>&1 > /dev/null | tail -1
done
python3 - "$W" <<'PY'
import sys
lines = []
for comm in range(2000):
    for ch in range(32):
        for peer in ["0[0] -> 1[1] via P2P/CUMEM/read", "1[1] -> 2[2] via P2P/CUMEM/read", "3[3] -> 0[0] via NET/IB/0/GDRDMA"]:
            lines.append(f"host-{comm % 4}:1234:5678 [0] NCCL INFO Channel {ch:02d}/0 : {peer}")
        lines.append(f"host-{comm % 4}:1234:5678 [0] NCCL INFO Ring {ch:02d} : 3 -> 0 -> 1")
        lines.append(f"host-{comm % 4}:1234:5678 [0] NCCL INFO Tree {ch} : -1 -> 0 -> 1/-1/-1")
        lines.append(f"host-{comm % 4}:1234:5678 [0] NCCL INFO Channel {ch:02d}/32 : 0 1 2 3")
open(sys.argv[1] + "/graph.log", "w").write("\n".join(lines) + "\n")
lines = []
for comm in range(300):
    for ch in range(32):
        for r in range(8):
            prefix = f"host:1234:5678 [{r}] NCCL INFO "
            for p in range(3):
                peer = (r + p + 1) % 8
                lines.append(prefix + f"Channel {ch:02d}/0 : {r}[{r}] -> {peer}[{peer}] via P2P/CUMEM/read")
            lines.append(prefix + f"Ring {ch:02d} : {(r + 7) % 8} -> {r} -> {(r + 1) % 8}")
            lines.append(prefix + f"Tree {ch} : {r - 1} -> {r} -> {r + 1}/-1/-1")
            lines.append(prefix + f"Channel {ch:02d}/32 : 0 1 2 3 4 5 6 7")
open(sys.argv[1] + "/interleaved.log", "w").write("\n".join(lines) + "\n")
PY
for log in graph interleaved; do
    echo "$log log bytes: $(wc -c < "$W/$log.log")"
    if cmp -s <("$OLD" inspect "$W/$log.log") <("$NEW" inspect "$W/$log.log"); then echo "inspect identical"; else echo "INSPECT DIFFERS"; fi
    old=()
    new=()
    for _ in 1 2 3 4 5 6 7; do
        a=$(now); "$OLD" inspect "$W/$log.log" > /dev/null; old+=("$(since "$a")")
        a=$(now); "$NEW" inspect "$W/$log.log" > /dev/null; new+=("$(since "$a")")
    done
    echo "$log log inspect: old ${old[*]} (median $(median "${old[@]}")); new ${new[*]} (median $(median "${new[@]}"))"
done
