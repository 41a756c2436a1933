#!/usr/bin/env python3
"""GPU worker of the focused NCCL experiment suite (one process per GPU, under torchrun).

    torchrun --standalone --nproc_per_node=N suite/worker.py --output-dir DIR \
        --sections async,decomposition,fragmentation,decode,numerics \
        --cycles 10 --warmups 3 --decode-collectives 160 --cpu-affinity 0,2,4,6

Writes DIR/rank<R>_<section>.csv for every section that ran, plus DIR/rank<R>_contracts.csv.
Exits non-zero if a section raises or any contract check is false (the CSVs are still written).
See suite/README.md for what each section measures.
"""

from __future__ import annotations

import argparse
import csv
import math
import os
import sys
import time
from fractions import Fraction
from pathlib import Path

# --- NVLink multicast must stay off. This runs before torch is imported and before the
# process group exists, so NCCL, PyTorch symmetric memory and NVSHMEM all see it.
_NO_MULTICAST = {
    "NCCL_NVLS_ENABLE": "0",
    "TORCH_SYMM_MEM_DISABLE_MULTICAST": "1",
    "NVSHMEM_DISABLE_NVLS": "1",
}
if any(os.environ.get(k) != v for k, v in _NO_MULTICAST.items()):
    print(
        "worker: NVLink multicast was not disabled in the environment "
        f"(NCCL_NVLS_ENABLE={os.environ.get('NCCL_NVLS_ENABLE')!r}); setting "
        + " ".join(f"{k}={v}" for k, v in _NO_MULTICAST.items()),
        file=sys.stderr,
    )
    os.environ.update(_NO_MULTICAST)
assert os.environ["NCCL_NVLS_ENABLE"] == "0"

import torch  # noqa: E402  (must come after the multicast guard)
import torch.distributed as dist  # noqa: E402

SECTIONS = ("async", "decomposition", "fragmentation", "decode", "numerics")

COLUMNS = {
    "contracts": ["world_size", "rank", "section", "check", "correct", "detail"],
    "async": [
        "world_size", "rank", "cycle", "dtype", "size_bytes", "host_enqueue_us",
        "host_wait_us", "gpu_dependency_us", "work_completed_after_return",
        "event_ready_after_wait", "correct",
    ],
    "decomposition": [
        "world_size", "rank", "cycle", "dtype", "size_bytes", "mode", "duration_us", "correct",
    ],
    "fragmentation": [
        "world_size", "rank", "cycle", "dtype", "total_bytes", "fragment_count",
        "fragment_bytes", "duration_us", "correct",
    ],
    "decode": [
        "world_size", "rank", "cycle", "dtype", "tokens", "hidden_size", "message_bytes",
        "collectives", "duration_us", "correct",
    ],
    "numerics": [
        "world_size", "rank", "dtype", "scenario", "permutation", "values", "real_sum",
        "fp16_result", "fp32_result", "fp16_matches_real_sum", "fp32_matches_real_sum",
    ],
}

KIB, MIB = 1024, 1024 * 1024
ASYNC_SIZES = [8 * KIB, 64 * KIB, 256 * KIB, 1 * MIB, 4 * MIB, 16 * MIB, 64 * MIB]  # FP32
DECOMPOSITION_SIZES = [8 * KIB, 64 * KIB, 1 * MIB, 16 * MIB, 64 * MIB]  # FP32, rounded to N
FRAGMENTATION_TOTAL = 80 * MIB  # FP16, 83886080 bytes
FRAGMENT_COUNTS = [1 << i for i in range(9)]  # 1, 2, 4, ..., 256
DECODE_TOKENS = [1, 2, 4, 8, 16, 32, 64, 128]
HIDDEN = 4096
NUMERICS_MAX_PERMUTATIONS = 24
# Inputs are (index % period + 1) * (rank + 1): small integers, so every sum is exact in the
# dtype (FP16 stays exact while 7 * N(N+1)/2 <= 2048, i.e. up to N = 23).
PATTERN_PERIOD = {torch.float32: 251, torch.float16: 7}


class Ctx:
    """Process-group facts and the shared helpers every section uses."""

    def __init__(self, args: argparse.Namespace) -> None:
        self.args = args
        self.rank = dist.get_rank()
        self.world = dist.get_world_size()
        self.local_rank = int(os.environ.get("LOCAL_RANK", "0"))
        self.device = torch.device("cuda", self.local_rank)
        self.tri = self.world * (self.world + 1) // 2  # sum over ranks of (rank + 1)
        self.contracts: list[dict[str, object]] = []

    def sync(self) -> None:
        """Drain this GPU, then line all ranks up so the next measurement starts together."""
        torch.cuda.synchronize(self.device)
        dist.barrier(device_ids=[self.local_rank])

    def iterations(self):
        """Yield (cycle, timed): warmups with timed=False first, then the timed cycles."""
        for i in range(self.args.warmups + self.args.cycles):
            yield i - self.args.warmups, i >= self.args.warmups

    def pattern(self, numel: int, dtype: torch.dtype) -> tuple[torch.Tensor, torch.Tensor]:
        """This rank's input and the analytic AllReduce sum of all ranks' inputs."""
        base = torch.arange(numel, device=self.device) % PATTERN_PERIOD[dtype] + 1
        return (base * (self.rank + 1)).to(dtype), (base * self.tri).to(dtype)

    def timed_us(self, fn) -> float:
        """GPU time of fn() on the current stream (CUDA events), ranks started together."""
        self.sync()
        start = torch.cuda.Event(enable_timing=True)
        end = torch.cuda.Event(enable_timing=True)
        start.record()
        fn()
        end.record()
        end.synchronize()
        return start.elapsed_time(end) * 1000.0

    def row(self, **fields: object) -> dict[str, object]:
        return {"world_size": self.world, "rank": self.rank, **fields}

    def contract(self, section: str, check: str, correct: bool, detail: str) -> None:
        self.contracts.append(
            self.row(section=section, check=check, correct=bool(correct), detail=detail)
        )


def dtype_name(dtype: torch.dtype) -> str:
    return str(dtype).removeprefix("torch.")


def equal(a: torch.Tensor, b: torch.Tensor) -> bool:
    return bool(torch.equal(a, b))


# ----------------------------------------------------------------------------- sections


def section_async(ctx: Ctx) -> list[dict[str, object]]:
    """Host enqueue/wait time of an async AllReduce vs the GPU time until a dependent kernel."""
    rows, bad = [], 0
    dtype = torch.float32
    cases = []
    for size in ASYNC_SIZES:
        src, expected = ctx.pattern(size // 4, dtype)
        cases.append((size, src, expected, torch.empty_like(src), torch.empty(1, dtype=dtype, device=ctx.device)))
    for cycle, timed in ctx.iterations():
        for size, src, expected, t, probe in cases:
            t.copy_(src)
            ctx.sync()
            start = torch.cuda.Event(enable_timing=True)
            end = torch.cuda.Event(enable_timing=True)
            start.record()
            t0 = time.perf_counter()
            work = dist.all_reduce(t, async_op=True)
            t1 = time.perf_counter()
            completed = work.is_completed()
            t2 = time.perf_counter()
            work.wait()
            t3 = time.perf_counter()
            torch.mul(t[:1], 2.0, out=probe)  # tiny kernel that depends on the result
            end.record()
            ready = end.query()
            end.synchronize()
            correct = equal(t, expected)
            bad += not correct
            if timed:
                rows.append(ctx.row(
                    cycle=cycle, dtype=dtype_name(dtype), size_bytes=size,
                    host_enqueue_us=(t1 - t0) * 1e6, host_wait_us=(t3 - t2) * 1e6,
                    gpu_dependency_us=start.elapsed_time(end) * 1000.0,
                    work_completed_after_return=bool(completed),
                    event_ready_after_wait=bool(ready), correct=correct,
                ))
    ctx.contract("async", "allreduce_equals_analytic_sum", bad == 0,
                 f"float32 all_reduce of (i%251+1)*(rank+1) == (i%251+1)*{ctx.tri}; "
                 f"sizes {ASYNC_SIZES}; {bad} wrong results")
    return rows


def section_decomposition(ctx: Ctx) -> list[dict[str, object]]:
    """AllReduce vs ReduceScatter + AllGather on the same FP32 payload."""
    rows, bad_direct, bad_rsag, mismatch = [], 0, 0, 0
    dtype, n = torch.float32, ctx.world
    cases = []
    for size in DECOMPOSITION_SIZES:
        numel = (size // 4) // n * n  # divisible by the world size
        src, expected = ctx.pattern(numel, dtype)
        cases.append((numel * 4, src, expected, torch.empty_like(src), torch.empty_like(src),
                      torch.empty(numel // n, dtype=dtype, device=ctx.device), torch.empty_like(src)))
    for cycle, timed in ctx.iterations():
        for size, src, expected, direct, rs_in, shard, gathered in cases:
            direct.copy_(src)
            us_direct = ctx.timed_us(lambda: dist.all_reduce(direct))
            rs_in.copy_(src)

            def rs_ag() -> None:
                dist.reduce_scatter_tensor(shard, rs_in)
                dist.all_gather_into_tensor(gathered, shard)

            us_rsag = ctx.timed_us(rs_ag)
            ok_direct, ok_rsag = equal(direct, expected), equal(gathered, expected)
            bad_direct += not ok_direct
            bad_rsag += not ok_rsag
            mismatch += not equal(gathered, direct)
            if timed:
                for mode, us, ok in (("direct", us_direct, ok_direct),
                                     ("reduce_scatter_all_gather", us_rsag, ok_rsag)):
                    rows.append(ctx.row(cycle=cycle, dtype=dtype_name(dtype), size_bytes=size,
                                        mode=mode, duration_us=us, correct=ok))
    sizes = [c[0] for c in cases]
    ctx.contract("decomposition", "allreduce_equals_analytic_sum", bad_direct == 0,
                 f"float32 sizes {sizes}; {bad_direct} wrong results")
    ctx.contract("decomposition", "rs_ag_equals_allreduce", mismatch == 0 and bad_rsag == 0,
                 f"reduce_scatter_tensor + all_gather_into_tensor vs all_reduce; "
                 f"{mismatch} differ, {bad_rsag} differ from the analytic sum")
    return rows


def section_fragmentation(ctx: Ctx) -> list[dict[str, object]]:
    """One 80 MiB FP16 payload all-reduced as 1, 2, 4, ..., 256 collectives over views."""
    rows, bad, mismatch = [], 0, 0
    dtype = torch.float16
    numel = FRAGMENTATION_TOTAL // 2
    src, expected = ctx.pattern(numel, dtype)
    buf = torch.empty_like(src)
    one_call = torch.empty_like(src)
    for cycle, timed in ctx.iterations():
        for count in FRAGMENT_COUNTS:
            views = buf.view(count, numel // count).unbind(0)  # contiguous fragments
            buf.copy_(src)

            def run() -> None:
                for v in views:
                    dist.all_reduce(v)

            us = ctx.timed_us(run)
            ok = equal(buf, expected)
            bad += not ok
            if count == 1:
                one_call.copy_(buf)
            else:
                mismatch += not equal(buf, one_call)
            if timed:
                rows.append(ctx.row(cycle=cycle, dtype=dtype_name(dtype),
                                    total_bytes=FRAGMENTATION_TOTAL, fragment_count=count,
                                    fragment_bytes=FRAGMENTATION_TOTAL // count,
                                    duration_us=us, correct=ok))
    ctx.contract("fragmentation", "fragmented_equals_one_call", mismatch == 0 and bad == 0,
                 f"float16 {FRAGMENTATION_TOTAL} bytes in {FRAGMENT_COUNTS} calls; "
                 f"{mismatch} differ from the one-call result, {bad} from the analytic sum")
    return rows


def section_decode(ctx: Ctx) -> list[dict[str, object]]:
    """Tensor-parallel decode replay: C back-to-back AllReduces of (tokens x 4096) FP16."""
    rows, bad = [], 0
    dtype, calls = torch.float16, ctx.args.decode_collectives
    cases = []
    for tokens in DECODE_TOKENS:
        src, expected = ctx.pattern(tokens * HIDDEN, dtype)
        shape = (tokens, HIDDEN)
        # One buffer per call (as each layer all-reduces its own activation): re-reducing
        # one tensor would multiply it by N per call and overflow FP16.
        buf = torch.empty((calls, *shape), dtype=dtype, device=ctx.device)
        cases.append((tokens, src.view(1, *shape).expand(calls, *shape),
                      expected.view(1, *shape), buf, buf.unbind(0)))
    for cycle, timed in ctx.iterations():
        for tokens, src, expected, buf, views in cases:
            buf.copy_(src)

            def step() -> None:
                for v in views:
                    dist.all_reduce(v)

            us = ctx.timed_us(step)
            ok = bool((buf == expected).all().item())
            bad += not ok
            if timed:
                rows.append(ctx.row(cycle=cycle, dtype=dtype_name(dtype), tokens=tokens,
                                    hidden_size=HIDDEN, message_bytes=tokens * HIDDEN * 2,
                                    collectives=calls, duration_us=us, correct=ok))
    ctx.contract("decode", "replay_equals_analytic_sum", bad == 0,
                 f"float16 tokens {DECODE_TOKENS} x {HIDDEN}, {calls} all_reduce per step; "
                 f"{bad} wrong steps")
    return rows


def numerics_scenarios(n: int) -> dict[str, list[float]]:
    """N values per scenario; the real sum is always exactly representable in FP16."""
    k = (n + 1) // 2
    overflow = [65504.0] * k + [-65504.0] * (n - k)  # some orders pass +-65504 -> inf
    if n % 2:
        absorption = [2048.0] + [1.0] * (n - 1)  # 2048 + 1 rounds back to 2048 in FP16
    else:
        absorption = [2048.0] + [1.0] * (n - 2) + [2.0]  # keeps the real sum even
    return {"overflow": overflow, "absorption": absorption}


def distinct_arrangements(values: list[float], limit: int):
    """Distinct orderings of values in lexicographic order (next-permutation), at most limit."""
    a = sorted(values)
    for _ in range(limit):
        yield list(a)
        i = len(a) - 2
        while i >= 0 and a[i] >= a[i + 1]:
            i -= 1
        if i < 0:
            return
        j = len(a) - 1
        while a[j] <= a[i]:
            j -= 1
        a[i], a[j] = a[j], a[i]
        a[i + 1:] = reversed(a[i + 1:])


def permutation_label(base: list[float], arrangement: list[float]) -> str:
    """Rank r holds base[p[r]] (base sorted; equal values take their first unused index)."""
    used, out = set(), []
    for v in arrangement:
        idx = next(i for i, b in enumerate(base) if b == v and i not in used)
        used.add(idx)
        out.append(str(idx))
    return "-".join(out)


def matches(result: float, real: Fraction) -> bool:
    return math.isfinite(result) and Fraction(result) == real


def section_numerics(ctx: Ctx) -> list[dict[str, object]]:
    """FP16 reduction-order counterexamples: every placement of N values on N ranks."""
    rows, fp32_bad = [], 0
    for scenario, values in numerics_scenarios(ctx.world).items():
        base = sorted(values)
        real = sum((Fraction(v) for v in values), Fraction(0))
        for arrangement in distinct_arrangements(values, NUMERICS_MAX_PERMUTATIONS):
            mine = arrangement[ctx.rank]
            results = {}
            for dtype in (torch.float16, torch.float32):
                t = torch.tensor([mine], dtype=dtype, device=ctx.device)
                ctx.sync()
                dist.all_reduce(t)
                results[dtype] = float(t.item())
            fp16, fp32 = results[torch.float16], results[torch.float32]
            fp32_bad += not matches(fp32, real)
            rows.append(ctx.row(
                dtype=dtype_name(torch.float16), scenario=scenario,
                permutation=permutation_label(base, arrangement),
                values=";".join(repr(float(v)) for v in arrangement),
                real_sum=float(real), fp16_result=repr(fp16), fp32_result=repr(fp32),
                fp16_matches_real_sum=matches(fp16, real),
                fp32_matches_real_sum=matches(fp32, real),
            ))
    ctx.contract("numerics", "fp32_allreduce_equals_real_sum", fp32_bad == 0,
                 f"{len(rows)} placements of scenarios {list(numerics_scenarios(ctx.world))}; "
                 f"{fp32_bad} FP32 results differ from the exact sum")
    return rows


SECTION_FUNCS = {
    "async": section_async,
    "decomposition": section_decomposition,
    "fragmentation": section_fragmentation,
    "decode": section_decode,
    "numerics": section_numerics,
}


# ----------------------------------------------------------------------------- driver


def write_csv(path: Path, columns: list[str], rows: list[dict[str, object]]) -> None:
    with path.open("w", newline="", encoding="utf-8") as handle:
        writer = csv.DictWriter(handle, fieldnames=columns)
        writer.writeheader()
        writer.writerows(rows)


def pin_cpu(local_rank: int, spec: str) -> str:
    """Pin this process to entry local_rank of --cpu-affinity; skip with a note if unusable."""
    entries = [e.strip() for e in spec.split(",") if e.strip()]
    if local_rank >= len(entries):
        note = f"no --cpu-affinity entry for local rank {local_rank} ({spec!r}); not pinned"
    elif not entries[local_rank].isdigit():
        note = f"--cpu-affinity entry {entries[local_rank]!r} is not a CPU number; not pinned"
    else:
        cpu = int(entries[local_rank])
        try:
            if cpu not in os.sched_getaffinity(0):
                note = f"CPU {cpu} is not available to this process; not pinned"
            else:
                os.sched_setaffinity(0, {cpu})
                return f"cpu={cpu}"
        except OSError as exc:
            note = f"sched_setaffinity to CPU {cpu} failed ({exc}); not pinned"
    print(f"worker local_rank={local_rank}: {note}", file=sys.stderr)
    return "cpu=unpinned"


def parse_args() -> argparse.Namespace:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--output-dir", type=Path, required=True)
    parser.add_argument("--sections", default=",".join(SECTIONS))
    parser.add_argument("--cycles", type=int, default=10)
    parser.add_argument("--warmups", type=int, default=3)
    parser.add_argument("--decode-collectives", type=int, default=160)
    parser.add_argument("--cpu-affinity", default="0,2,4,6")
    args = parser.parse_args()
    args.sections = [s.strip() for s in args.sections.split(",") if s.strip()]
    unknown = [s for s in args.sections if s not in SECTIONS]
    if not args.sections or unknown:
        parser.error(f"--sections must name some of {','.join(SECTIONS)}; got {unknown or 'none'}")
    if args.cycles < 1 or args.warmups < 0 or args.decode_collectives < 1:
        parser.error("need --cycles >= 1, --warmups >= 0, --decode-collectives >= 1")
    return args


def main() -> int:
    args = parse_args()
    local_rank = int(os.environ.get("LOCAL_RANK", "0"))
    pinned = pin_cpu(local_rank, args.cpu_affinity)
    torch.cuda.set_device(local_rank)
    dist.init_process_group(backend="nccl", device_id=torch.device("cuda", local_rank))
    failed = False
    try:
        ctx = Ctx(args)
        args.output_dir.mkdir(parents=True, exist_ok=True)
        print(f"worker rank={ctx.rank}/{ctx.world} local_rank={local_rank} "
              f"device={torch.cuda.get_device_name(ctx.device)} {pinned} "
              f"torch={torch.__version__} nccl={'.'.join(map(str, torch.cuda.nccl.version()))} "
              f"NCCL_NVLS_ENABLE={os.environ['NCCL_NVLS_ENABLE']}", flush=True)
        contracts_path = args.output_dir / f"rank{ctx.rank}_contracts.csv"
        for name in args.sections:
            t0 = time.perf_counter()
            try:
                rows = SECTION_FUNCS[name](ctx)
            except Exception as exc:
                ctx.contract(name, "section_completed", False, f"{type(exc).__name__}: {exc}")
                write_csv(contracts_path, COLUMNS["contracts"], ctx.contracts)
                raise
            write_csv(args.output_dir / f"rank{ctx.rank}_{name}.csv", COLUMNS[name], rows)
            write_csv(contracts_path, COLUMNS["contracts"], ctx.contracts)
            ok = all(c["correct"] for c in ctx.contracts if c["section"] == name)
            if ctx.rank == 0:
                print(f"worker section={name} rows={len(rows)} "
                      f"seconds={time.perf_counter() - t0:.1f} correct={ok}", flush=True)
        bad = [c for c in ctx.contracts if not c["correct"]]
        for c in bad:
            print(f"worker rank={ctx.rank} CONTRACT FAILED: {c}", file=sys.stderr, flush=True)
        failed = bool(bad)
        ctx.sync()
    except BaseException:
        failed = True
        raise
    finally:
        dist.destroy_process_group()
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
