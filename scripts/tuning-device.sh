#!/usr/bin/env bash
# The NCCL log scan of TUNING lines, two release binaries side by side on one host (written for
# the device tool's hosts, which have no Rust toolchain and no `bc`):
#   scripts/tuning-device.sh OLD_BIN NEW_BIN
# 1. From NEW_BIN's `synth --count 1 --seed 7 --log-bytes 16777216 --tuning` run, one 4-rank
#    world log with a planned-task (TUNING) line added after each of its COLL lines, four times
#    over (104 MB, half of it TUNING lines), and the same with the added lines' collectives in
#    turn over AllReduce, ReduceScatter and AllGather, and the same with every added line an
#    AllReduce of eight sizes in turn (a training step's gradient buckets); `inspect` of each
#    by both binaries, alternating, 7 rounds, and whether their JSON is identical.
# 2. `build --no-cache --no-evidence` of `synth --count 200 --seed 7 --log-bytes 2097152
#    --gzip-every 4 --tuning` (the issue's corpus with TUNING lines in the 4-rank nccl-tests
#    logs) at --jobs 16 (5 rounds) and 1 (3 rounds), alternating, with each site's tree hash.
# Work files go to a temporary folder in /dev/shm, removed at exit (BENCHMARKS.md, "Stop 45",
# "Stop 46").
set -euo pipefail
export NCCL_NVLS_ENABLE=0 TORCH_SYMM_MEM_DISABLE_MULTICAST=1 NVSHMEM_DISABLE_NVLS=1
OLD=$(readlink -f "${1:?usage: tuning-device.sh OLD_BIN NEW_BIN}")
NEW=$(readlink -f "${2:?usage: tuning-device.sh OLD_BIN NEW_BIN}")
W=$(mktemp -d /dev/shm/tun.XXXXXX); trap 'rm -rf "$W"' EXIT
"$NEW" synth --out "$W/one" --count 1 --seed 7 --log-bytes 16777216 --tuning > /dev/null 2>&1
python3 - "$W" <<'PY'
import re, glob, sys
w = sys.argv[1]
src = open(glob.glob(w + '/one/*/raw/nccl/world4_full*.log')[0]).read().splitlines()
out = []
for line in src:
    out.append(line)
    m = re.match(r'(.* NCCL INFO )(\w+): opCount \S+ sendbuff \S+ recvbuff \S+ count (\d+) datatype (\d+)', line)
    if m:
        b = int(m.group(3)) * 2
        algo, proto = ("RING", "SIMPLE") if b >= 1 << 20 else ("TREE", "LL")
        out.append(f"{m.group(1)}{m.group(2)}: {b} Bytes -> Algo {algo} proto {proto} channel{{Lo..Hi}}={{0..31}}")
open(w + '/tuning50.log', 'w').write(("\n".join(out) + "\n") * 4)
names, k, alt = ["AllReduce", "ReduceScatter", "AllGather"], 0, []
for line in (("\n".join(out) + "\n") * 4).splitlines():
    if "Bytes -> Algo" in line:
        pre, rest = line.split(" NCCL INFO ", 1)
        line = f"{pre} NCCL INFO {names[k % 3]}: {rest.split(': ', 1)[1]}"
        k += 1
    alt.append(line)
open(w + '/alternating.log', 'w').write("\n".join(alt) + "\n")
sizes, j, buckets = [1 << s for s in range(16, 24)], 0, []
for line in (("\n".join(out) + "\n") * 4).splitlines():
    if "Bytes -> Algo" in line:
        pre = line.split(" NCCL INFO ", 1)[0]
        b = sizes[j % 8]
        j += 1
        algo, proto = ("RING", "SIMPLE") if b >= 1 << 20 else ("TREE", "LL")
        line = f"{pre} NCCL INFO AllReduce: {b} Bytes -> Algo {algo} proto {proto} channel{{Lo..Hi}}={{0..31}}"
    buckets.append(line)
open(w + '/buckets.log', 'w').write("\n".join(buckets) + "\n")
PY
now() { date +%s.%N; }
for name in tuning50 alternating buckets; do
  f=$W/$name.log; echo "$name: $(stat -c %s $f) bytes, $(wc -l < $f) lines, $(grep -c 'Bytes -> Algo' $f) TUNING lines"
  for r in 1 2 3 4 5 6 7; do for b in "$OLD" "$NEW"; do a=$(now); "$b" inspect "$f" > "$W/out-$(basename $b)"; e=$(now); echo "inspect $name $(basename $b) $(awk -v a="$a" -v e="$e" 'BEGIN { printf "%.3f", e - a }')"; done; done
  cmp "$W/out-$(basename $OLD)" "$W/out-$(basename $NEW)" && echo "$name: inspect outputs identical"
done
"$NEW" synth --out "$W/c" --count 200 --seed 7 --log-bytes 2097152 --gzip-every 4 --tuning > /dev/null 2>&1
echo "corpus with TUNING: $(du -sb $W/c | cut -f1) bytes"
for spec in "16 5" "1 3"; do set -- $spec; for r in $(seq $2); do for b in "$OLD" "$NEW"; do rm -rf "$W/s"; a=$(now); "$b" build --runs "$W/c" --out "$W/s" --no-cache --no-evidence --jobs $1 > /dev/null 2>&1; e=$(now); echo "build j$1 $(basename $b) $(awk -v a="$a" -v e="$e" 'BEGIN { printf "%.3f", e - a }') $( (cd $W/s && find . -type f ! -name .nccl-report-site -print0 | sort -z | xargs -0 sha256sum | sha256sum | cut -c1-12) )"; done; done; done
