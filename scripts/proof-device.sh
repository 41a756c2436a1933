#!/usr/bin/env bash
# Issue #27's speed proof in one device call (about 5 minutes on the 16-core H200 host), two
# release binaries side by side:
#   scripts/proof-device.sh OLD_BIN NEW_BIN
# 1. bench-device.sh: the 200-run corpus, `--jobs` 1 to 16, warm (2 rounds, alternating) and
#    with the page cache dropped, the seed's summarization and the 16-reader read floor, the
#    new binary's --timings, +1 run at N = 1000; the built sites on tmpfs (/dev/shm), so the
#    file system's cost of creating files is not in the figures (BENCHMARKS.md, "Stop 35").
# 2. n1000-device.sh: cold and +1 run at N = 1000, 3 alternating rounds, stages and peak RSS;
#    then again on runs with 2 MiB of NCCL logs a rank (13 GB: the corpus of the issue's own
#    N = 1000 figures), LOG_ROUNDS rounds, the sites on tmpfs.
# The new binary builds with --no-evidence (the previous wave had no evidence to publish).
# Environment: SEED_DIR (.device/seed), ROUNDS (2; 3 or more also prints each binary's
# median), SEED_ROUNDS (2), JOBS (bench-device.sh's list of thread counts), N_ROUNDS (3),
# N_JOBS (16: n1000-device.sh's thread count), LOG_ROUNDS (2; 0: no runs with logs).
set -u
export NCCL_NVLS_ENABLE=0 TORCH_SYMM_MEM_DISABLE_MULTICAST=1 NVSHMEM_DISABLE_NVLS=1
OLD=${1:?usage: proof-device.sh OLD_BIN NEW_BIN}
NEW=${2:?usage: proof-device.sh OLD_BIN NEW_BIN}
here=$(dirname "$0")
lscpu | grep -E "Model name|^CPU\(s\)"
SEED_DIR=${SEED_DIR:-.device/seed} TIMINGS=1 SITES=/dev/shm ROUNDS=${ROUNDS:-2} NEW_FLAGS=--no-evidence \
    "$here/bench-device.sh" "$OLD" "$NEW"
echo
# n1000-device.sh reads JOBS as one thread count (bench-device.sh's list would reach the build
# as `--jobs 1 16`).
JOBS=${N_JOBS:-16} ROUNDS=${N_ROUNDS:-3} "$here/n1000-device.sh" "$OLD" "$NEW"
LOG_ROUNDS=${LOG_ROUNDS:-2}
if [ "$LOG_ROUNDS" -gt 0 ]; then
    echo
    JOBS=${N_JOBS:-16} ROUNDS=$LOG_ROUNDS LOG_BYTES=2097152 SITES=/dev/shm "$here/n1000-device.sh" "$OLD" "$NEW"
fi
