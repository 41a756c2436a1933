#!/usr/bin/env bash
# Collects back-to-back runs of the suite on a lent GPU host, for calibrating verdicts on
# real noise (A/A runs) and real planted changes. Runs from the repository root there, with
# the release binary at .device/nccl-report and nccl-tests sources at .device/nccl-tests.
#
#   scripts/device-collect.sh OUT_DIR TAG N_AA [planted...]
#
# planted: hog (every CPU busy with a spinning process during the run), core1 (every rank
# pinned to CPU 0), blocking (CUDA_LAUNCH_BLOCKING=1, --force); each collected twice after
# the A/A runs. Stops starting runs after $DEADLINE_S seconds (default 480) and always packs
# what it has into OUT_DIR/runs-TAG.tgz.
set -u
out=$1 tag=$2 n=$3
shift 3
deadline=${DEADLINE_S:-480}
export NCCL_NVLS_ENABLE=0 TORCH_SYMM_MEM_DISABLE_MULTICAST=1 NVSHMEM_DISABLE_NVLS=1
root=$(pwd)
nccl=$(python3 -c 'import nvidia.nccl as m, os; print(list(m.__path__)[0])')
mkdir -p /tmp/nccl-lib && ln -sf "$nccl/lib/libnccl.so.2" /tmp/nccl-lib/libnccl.so
export LD_LIBRARY_PATH="/tmp/nccl-lib:$nccl/lib:${LD_LIBRARY_PATH:-}"
if [ ! -x .device/nccl-tests/build/all_reduce_perf ]; then
  make -C .device/nccl-tests -j16 MPI=0 CUDA_HOME=/usr/local/cuda NCCL_HOME="$nccl" \
    NVCC_GENCODE="-gencode=arch=compute_90,code=sm_90" src.build >/tmp/nccl-tests-build.log 2>&1 ||
    { tail -20 /tmp/nccl-tests-build.log; exit 1; }
fi
runs=/tmp/runs-$tag
mkdir -p "$runs"
start=$SECONDS
collect() { # ID [collect args...]
  local id=$1
  shift
  if [ $((SECONDS - start)) -gt "$deadline" ]; then echo "deadline: skipping $id"; return; fi
  "$root/.device/nccl-report" collect --runs "$runs" --run-id "$id" --worker "$root/suite/worker.py" \
    --nccl-tests "$root/.device/nccl-tests/build/all_reduce_perf" "$@" >"/tmp/collect-$id.log" 2>&1 ||
    { echo "collect $id failed:"; tail -5 "/tmp/collect-$id.log"; }
  echo "$id done at $((SECONDS - start)) s"
}
stamp() { date -u +%Y%m%dT%H%M%SZ; }
for _ in $(seq "$n"); do collect "$(stamp)"; done
for plant in "$@"; do
  for _ in 1 2; do
    case $plant in
      hog)
        pids=()
        for _ in $(seq "$(nproc)"); do python3 -c 'while True: pass' & pids+=($!); done
        collect "$(stamp)-hog"
        kill "${pids[@]}" 2>/dev/null
        wait "${pids[@]}" 2>/dev/null
        ;;
      core1) collect "$(stamp)-core1" --cpu-affinity 0 ;;
      blocking) CUDA_LAUNCH_BLOCKING=1 collect "$(stamp)-blocking" --force ;;
    esac
  done
done
ls "$runs"
tar -czf "$out/runs-$tag.tgz" -C "$runs" .
