#!/usr/bin/env python3
"""GPU worker of the focused NCCL experiment suite (one process per GPU, under torchrun).

    torchrun --standalone --nproc_per_node=N suite/worker.py --output-dir DIR \
        --sections async,decomposition,fragmentation,decode,numerics \
        --cycles 10 --warmups 3 --decode-collectives 160 --cpu-affinity "0-47;48-95"

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
import threading
import time
from datetime import timedelta
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

# Added after the seed's columns of every timed section (see suite/README.md, "Two clocks").
CLOCK_COLUMNS = ["host_issue_us", "device_us", "device_queued"]

SECTIONS = ("async", "decomposition", "fragmentation", "decode", "numerics")

COLUMNS = {
    "contracts": ["world_size", "rank", "section", "check", "correct", "detail"],
    "async": [
        "world_size", "rank", "cycle", "dtype", "size_bytes", "host_enqueue_us",
        "host_wait_us", "gpu_dependency_us", "work_completed_after_return",
        "event_ready_after_wait", "correct", "dependent_correct", "device_queued",
    ],
    "decomposition": [
        "world_size", "rank", "cycle", "dtype", "size_bytes", "mode", "duration_us", "correct",
        *CLOCK_COLUMNS,
    ],
    "fragmentation": [
        "world_size", "rank", "cycle", "dtype", "total_bytes", "fragment_count",
        "fragment_bytes", "duration_us", "correct", *CLOCK_COLUMNS,
    ],
    "decode": [
        "world_size", "rank", "cycle", "dtype", "tokens", "hidden_size", "message_bytes",
        "collectives", "duration_us", "correct", *CLOCK_COLUMNS,
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
# Environment that changes timing: recorded on rank 0's stdout (collect puts it in the manifest).
TIMING_ENV_PREFIXES = ("NCCL_", "TORCH_", "CUDA_")
SECRET_MARKERS = ("TOKEN", "KEY", "SECRET", "PASSWORD", "CREDENTIAL")
# Settings that serialize the host with the GPU and so change every timing: refused unless --force.
BLOCKING_ENV = {"TORCH_NCCL_BLOCKING_WAIT": "1", "CUDA_LAUNCH_BLOCKING": "1"}
# torch.cuda._sleep spins for a number of GPU clock ticks; 2 GHz is above the H100/H200 boost
# clock, so the queue is at least as long as asked for (and device_queued verifies it anyway).
SLEEP_CYCLES_PER_US = 2000
# Inputs are (index % period + 1) * (rank + 1): small integers, so every sum is exact in the
# dtype (FP16 stays exact while 7 * N(N+1)/2 <= 2048, i.e. up to N = 23).
PATTERN_PERIOD = {torch.float32: 251, torch.float16: 7}


class Watchdog:
    """Ends the process when no step finished for `timeout_s` seconds, naming the rank and step.

    PyTorch's own NCCL watchdog (the process-group timeout) covers collectives that never
    complete on the GPU; this one also covers a rank stuck on the host (a barrier, an event
    synchronize), so one failing rank ends the run instead of leaving the others hanging.
    """

    def __init__(self, rank_label: str, timeout_s: float) -> None:
        self.rank_label, self.timeout_s = rank_label, timeout_s
        self.step, self.last = "start", time.monotonic()
        self.stopped = threading.Event()
        threading.Thread(target=self._watch, name="worker-watchdog", daemon=True).start()

    def beat(self, step: str) -> None:
        self.step, self.last = step, time.monotonic()

    def stop(self) -> None:
        self.stopped.set()

    def _watch(self) -> None:
        while not self.stopped.wait(min(5.0, self.timeout_s / 4)):
            idle = time.monotonic() - self.last
            if idle > self.timeout_s:
                print(f"worker {self.rank_label}: no progress for {idle:.0f} s (limit "
                      f"--timeout-s {self.timeout_s:g}) in {self.step}; ending the run",
                      file=sys.stderr, flush=True)
                os._exit(3)


class Ctx:
    """Process-group facts and the shared helpers every section uses."""

    def __init__(self, args: argparse.Namespace, watchdog: Watchdog) -> None:
        self.args = args
        self.watchdog = watchdog
        self.rank = dist.get_rank()
        self.world = dist.get_world_size()
        self.local_rank = int(os.environ.get("LOCAL_RANK", "0"))
        self.device = torch.device("cuda", self.local_rank)
        self.tri = self.world * (self.world + 1) // 2  # sum over ranks of (rank + 1)
        self.contracts: list[dict[str, object]] = []

    def sync(self, step: str = "sync") -> None:
        """Drain this GPU, then line all ranks up so the next measurement starts together."""
        torch.cuda.synchronize(self.device)
        dist.barrier(device_ids=[self.local_rank])
        self.watchdog.beat(step)

    def iterations(self):
        """Yield (cycle, timed): warmups with timed=False first, then the timed cycles."""
        for i in range(self.args.warmups + self.args.cycles):
            yield i - self.args.warmups, i >= self.args.warmups

    def pattern(self, numel: int, dtype: torch.dtype) -> tuple[torch.Tensor, torch.Tensor]:
        """This rank's input and the analytic AllReduce sum of all ranks' inputs."""
        base = torch.arange(numel, device=self.device) % PATTERN_PERIOD[dtype] + 1
        return (base * (self.rank + 1)).to(dtype), (base * self.tri).to(dtype)

    def measure(self, reset, fn, check) -> tuple[dict[str, object], bool]:
        """Runs fn() twice, each after reset(), and returns its three clocks and correctness.

        Span (the seed's `duration_us`): CUDA events around fn() on an idle GPU, so it includes
        the host launch cost. `host_issue_us`: perf_counter around the same fn() call.
        `device_us`: a second run queued behind a torch.cuda._sleep longer than the host issue
        time, so the GPU runs the launches back to back; `device_queued` says the start event
        was still pending after fn() returned (else the queue ran dry and it is a span again).
        Both are the minimum (device_us) / conjunction (device_queued) over ranks. check() runs
        after each run; the result is correct only if both runs were.
        """
        reset()
        self.sync("span")
        start, end = timing_events()
        start.record()
        t0 = time.perf_counter()
        fn()
        t1 = time.perf_counter()
        end.record()
        end.synchronize()
        span_us, host_us = start.elapsed_time(end) * 1000.0, (t1 - t0) * 1e6
        ok = check()
        reset()
        self.sync("device")
        start, end = timing_events()
        torch.cuda._sleep(sleep_cycles(host_us))
        start.record()
        fn()
        end.record()
        queued = not start.query()
        end.synchronize()
        device_us, queued = self.min_over_ranks(start.elapsed_time(end) * 1000.0, queued)
        ok = check() and ok
        return {"duration_us": span_us, "host_issue_us": host_us, "device_us": device_us,
                "device_queued": queued}, ok

    def min_over_ranks(self, value: float, flag: bool) -> tuple[float, bool]:
        """(min of value, all of flag) over ranks: the last rank to start bounds the collective."""
        t = torch.tensor([value, 1.0 if flag else 0.0], dtype=torch.float64, device=self.device)
        dist.all_reduce(t, op=dist.ReduceOp.MIN)
        return float(t[0].item()), float(t[1].item()) == 1.0

    def row(self, **fields: object) -> dict[str, object]:
        return {"world_size": self.world, "rank": self.rank, **fields}

    def contract(self, section: str, check: str, correct: bool, detail: str) -> None:
        self.contracts.append(
            self.row(section=section, check=check, correct=bool(correct), detail=detail)
        )


def timing_events():
    return torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)


def sleep_cycles(host_issue_us: float) -> int:
    """GPU clock ticks to queue ahead of the launches: twice their host issue time + 1 ms."""
    return int((2.0 * host_issue_us + 1000.0) * SLEEP_CYCLES_PER_US)


def dtype_name(dtype: torch.dtype) -> str:
    return str(dtype).removeprefix("torch.")


def equal(a: torch.Tensor, b: torch.Tensor) -> bool:
    return bool(torch.equal(a, b))


# ----------------------------------------------------------------------------- sections


def dependency_on_gpu(ctx: Ctx, src, t, probe, probe_expected, host_us: float):
    """GPU time from the collective's completion dependency to the dependent kernel's end.

    The same AllReduce + wait() + dependent kernel, queued behind a torch.cuda._sleep so the
    host has issued everything before the GPU gets there: a marker recorded right after wait()
    completes when the stream's wait on the collective is satisfied, the end event after the
    dependent kernel, so marker -> end holds no host launch gap. Returns (microseconds, min
    over ranks; queued: the marker was still pending after issue, on every rank; the dependent
    kernel's result was right).
    """
    t.copy_(src)
    probe.fill_(float("nan"))
    ctx.sync("async dependency")
    marker, end = timing_events()
    torch.cuda._sleep(sleep_cycles(host_us + 100.0))
    dist.all_reduce(t, async_op=True).wait()
    marker.record()
    torch.mul(t[:1], 2.0, out=probe)
    end.record()
    queued = not marker.query()
    end.synchronize()
    us, queued = ctx.min_over_ranks(marker.elapsed_time(end) * 1000.0, queued)
    return us, queued, equal(probe, probe_expected)


def section_async(ctx: Ctx) -> list[dict[str, object]]:
    """Host enqueue/wait time of an async AllReduce and the GPU time of a dependent kernel."""
    rows, bad = [], 0
    dtype = torch.float32
    cases = []
    for size in ASYNC_SIZES:
        src, expected = ctx.pattern(size // 4, dtype)
        cases.append((size, src, expected, torch.empty_like(src),
                      torch.empty(1, dtype=dtype, device=ctx.device), expected[:1] * 2.0))
    for cycle, timed in ctx.iterations():
        for size, src, expected, t, probe, probe_expected in cases:
            t.copy_(src)
            probe.fill_(float("nan"))
            ctx.sync("async")
            t0 = time.perf_counter()
            work = dist.all_reduce(t, async_op=True)
            t1 = time.perf_counter()
            completed = work.is_completed()
            t2 = time.perf_counter()
            work.wait()
            t3 = time.perf_counter()
            # Marker on the current stream right after wait(), queried at once: the seed's
            # "event ready after wait" (is the stream's dependency on the result satisfied?).
            marker = torch.cuda.Event()
            marker.record()
            ready = marker.query()
            torch.mul(t[:1], 2.0, out=probe)  # a kernel that reads the result
            torch.cuda.synchronize(ctx.device)
            first_ok = equal(t, expected)
            dependent_ok = equal(probe, probe_expected)
            dependency_us, queued, queued_ok = dependency_on_gpu(
                ctx, src, t, probe, probe_expected, (t3 - t0) * 1e6)
            dependent_ok = dependent_ok and queued_ok
            correct = first_ok and dependent_ok and equal(t, expected)
            bad += not correct
            if timed:
                rows.append(ctx.row(
                    cycle=cycle, dtype=dtype_name(dtype), size_bytes=size,
                    host_enqueue_us=(t1 - t0) * 1e6, host_wait_us=(t3 - t2) * 1e6,
                    gpu_dependency_us=dependency_us,
                    work_completed_after_return=bool(completed),
                    event_ready_after_wait=bool(ready), correct=correct,
                    dependent_correct=dependent_ok, device_queued=queued,
                ))
    ctx.contract("async", "allreduce_equals_analytic_sum", bad == 0,
                 f"float32 all_reduce of (i%251+1)*(rank+1) == (i%251+1)*{ctx.tri}, and the "
                 f"dependent kernel's 2*t[0]; sizes {ASYNC_SIZES}; {bad} wrong results")
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
            direct_clocks, ok_direct = ctx.measure(
                lambda: direct.copy_(src), lambda: dist.all_reduce(direct),
                lambda: equal(direct, expected))

            def reset_rsag() -> None:
                rs_in.copy_(src)
                shard.fill_(float("nan"))  # a collective that did nothing cannot pass
                gathered.fill_(float("nan"))

            def rs_ag() -> None:
                dist.reduce_scatter_tensor(shard, rs_in)
                dist.all_gather_into_tensor(gathered, shard)

            rsag_clocks, ok_rsag = ctx.measure(reset_rsag, rs_ag, lambda: equal(gathered, expected))
            bad_direct += not ok_direct
            bad_rsag += not ok_rsag
            mismatch += not equal(gathered, direct)
            if timed:
                for mode, clocks, ok in (("direct", direct_clocks, ok_direct),
                                         ("reduce_scatter_all_gather", rsag_clocks, ok_rsag)):
                    rows.append(ctx.row(cycle=cycle, dtype=dtype_name(dtype), size_bytes=size,
                                        mode=mode, correct=ok, **clocks))
    sizes = [c[0] for c in cases]
    ctx.contract("decomposition", "allreduce_equals_analytic_sum", bad_direct == 0,
                 f"float32 sizes {sizes}; {bad_direct} wrong results")
    ctx.contract("decomposition", "rs_ag_equals_allreduce", mismatch == 0 and bad_rsag == 0,
                 f"reduce_scatter_tensor + all_gather_into_tensor (outputs NaN before each run) "
                 f"vs all_reduce; {mismatch} differ, {bad_rsag} differ from the analytic sum")
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

            def run() -> None:
                for v in views:
                    dist.all_reduce(v)

            clocks, ok = ctx.measure(lambda: buf.copy_(src), run, lambda: equal(buf, expected))
            bad += not ok
            if count == 1:
                one_call.copy_(buf)
            else:
                mismatch += not equal(buf, one_call)
            if timed:
                rows.append(ctx.row(cycle=cycle, dtype=dtype_name(dtype),
                                    total_bytes=FRAGMENTATION_TOTAL, fragment_count=count,
                                    fragment_bytes=FRAGMENTATION_TOTAL // count,
                                    correct=ok, **clocks))
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

            def step() -> None:
                for v in views:
                    dist.all_reduce(v)

            clocks, ok = ctx.measure(lambda: buf.copy_(src), step,
                                     lambda: bool((buf == expected).all().item()))
            bad += not ok
            if timed:
                rows.append(ctx.row(cycle=cycle, dtype=dtype_name(dtype), tokens=tokens,
                                    hidden_size=HIDDEN, message_bytes=tokens * HIDDEN * 2,
                                    collectives=calls, correct=ok, **clocks))
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


def distinct_arrangements(values: list[float]):
    """Every distinct ordering of values, in lexicographic order (next-permutation)."""
    a = sorted(values)
    while True:
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


def arrangement_count(values: list[float]) -> int:
    """How many distinct orderings values have: N! / (product of each value's count)!."""
    count = math.factorial(len(values))
    for v in set(values):
        count //= math.factorial(values.count(v))
    return count


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


def same_bits(results: list[float]) -> bool:
    """All ranks' results are the same value (inf == inf; NaN never equals anything)."""
    return all(r == results[0] for r in results)


def section_numerics(ctx: Ctx) -> list[dict[str, object]]:
    """FP16 reduction-order counterexamples: every distinct placement of N values on N ranks."""
    rows, fp32_bad, fp16_split = [], 0, 0
    scenarios = numerics_scenarios(ctx.world)
    for scenario, values in scenarios.items():
        base = sorted(values)
        real = sum((Fraction(v) for v in values), Fraction(0))
        for arrangement in distinct_arrangements(values):
            mine = arrangement[ctx.rank]
            results = {}
            for dtype in (torch.float16, torch.float32):
                t = torch.tensor([mine], dtype=dtype, device=ctx.device)
                ctx.sync("numerics")
                dist.all_reduce(t)
                gathered = torch.empty(ctx.world, dtype=dtype, device=ctx.device)
                dist.all_gather_into_tensor(gathered, t)
                everyone = [float(x) for x in gathered.tolist()]
                results[dtype] = everyone[ctx.rank]
                fp16_split += not same_bits(everyone)
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
    counts = {name: arrangement_count(v) for name, v in scenarios.items()}
    ctx.contract("numerics", "fp32_allreduce_equals_real_sum", fp32_bad == 0,
                 f"{len(rows)} placements (all distinct ones: {counts}); "
                 f"{fp32_bad} FP32 results differ from the exact sum")
    ctx.contract("numerics", "results_identical_on_all_ranks", fp16_split == 0,
                 f"all_gather of every FP16 and FP32 result; {fp16_split} reductions gave "
                 f"different values on different ranks")
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


def parse_cpu_list(text: str) -> set[int]:
    """A Linux CPU list ("0-3,8,10-11") as a set; ValueError if it is not one."""
    cpus: set[int] = set()
    for part in text.split(","):
        low, sep, high = part.strip().partition("-")
        if not low.isdigit() or (sep and not high.isdigit()):
            raise ValueError(f"{text!r} is not a CPU list")
        first, last = int(low), int(high) if sep else int(low)
        if last < first:
            raise ValueError(f"{text!r} has a descending range")
        cpus.update(range(first, last + 1))
    return cpus


def affinity_entries(spec: str) -> list[str]:
    """One CPU list per local rank: ';'-separated lists, or the old one-CPU-per-rank "0,2,4,6"."""
    if ";" in spec:
        return [e.strip() for e in spec.split(";") if e.strip()]
    return [e.strip() for e in spec.split(",") if e.strip()]


def format_cpus(cpus: set[int]) -> str:
    """The CPU set as a compact Linux CPU list."""
    out, ordered = [], sorted(cpus)
    i = 0
    while i < len(ordered):
        j = i
        while j + 1 < len(ordered) and ordered[j + 1] == ordered[j] + 1:
            j += 1
        out.append(str(ordered[i]) if i == j else f"{ordered[i]}-{ordered[j]}")
        i = j + 1
    return ",".join(out)


def pin_cpu(local_rank: int, spec: str) -> str:
    """Pin this (main) thread to entry local_rank of --cpu-affinity; skip with a note if unusable.

    Called after the process group and its NCCL communicator exist, so NCCL's proxy thread and
    PyTorch's watchdog keep the CPU set they were created with. Returns the CPUs this thread
    runs on afterwards ("cpus=<list>", "unpinned" noted when the entry was unusable).
    """
    entries = affinity_entries(spec)
    note = None
    if local_rank >= len(entries):
        note = f"no --cpu-affinity entry for local rank {local_rank} ({spec!r}); not pinned"
    else:
        try:
            wanted = parse_cpu_list(entries[local_rank])
            allowed = os.sched_getaffinity(0)
            if not wanted & allowed:
                note = f"CPUs {entries[local_rank]} are not available to this process; not pinned"
            else:
                os.sched_setaffinity(0, wanted & allowed)
        except (ValueError, OSError) as exc:
            note = f"cannot pin to --cpu-affinity entry {entries[local_rank]!r} ({exc}); not pinned"
    if note:
        print(f"worker local_rank={local_rank}: {note}", file=sys.stderr)
    return f"cpus={format_cpus(os.sched_getaffinity(0))}" + (" (unpinned)" if note else "")


def timing_env(environ: dict[str, str]) -> list[tuple[str, str]]:
    """The variables that change timing (NCCL_*, TORCH_*, CUDA_*), secrets left out by name."""
    return sorted((k, v) for k, v in environ.items()
                  if k.startswith(TIMING_ENV_PREFIXES)
                  and not any(m in k.upper() for m in SECRET_MARKERS))


def blocking_env(environ: dict[str, str]) -> list[str]:
    """The set variables that make launches or waits blocking (refused unless --force)."""
    return [f"{k}={v}" for k, v in BLOCKING_ENV.items() if environ.get(k, "").strip() == v]


def parse_args(argv: list[str] | None = None) -> argparse.Namespace:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--output-dir", type=Path, required=True)
    parser.add_argument("--sections", default=",".join(SECTIONS))
    parser.add_argument("--cycles", type=int, default=10)
    parser.add_argument("--warmups", type=int, default=3)
    parser.add_argument("--decode-collectives", type=int, default=160)
    parser.add_argument("--cpu-affinity", default="0,2,4,6",
                        help="per local rank a CPU list, ';'-separated (\"0-47;48-95\"), "
                             "or one CPU per rank, ','-separated")
    parser.add_argument("--timeout-s", type=float, default=300.0,
                        help="process-group init and collective timeout, and the watchdog's")
    parser.add_argument("--force", action="store_true",
                        help="run even with TORCH_NCCL_BLOCKING_WAIT=1 or CUDA_LAUNCH_BLOCKING=1")
    args = parser.parse_args(argv)
    args.sections = [s.strip() for s in args.sections.split(",") if s.strip()]
    unknown = [s for s in args.sections if s not in SECTIONS]
    if not args.sections or unknown:
        parser.error(f"--sections must name some of {','.join(SECTIONS)}; got {unknown or 'none'}")
    if args.cycles < 1 or args.warmups < 1 or args.decode_collectives < 1:
        parser.error("need --cycles >= 1, --warmups >= 1 (cycle 0 would hold NCCL's lazy "
                     "connection setup), --decode-collectives >= 1")
    if args.timeout_s <= 0:
        parser.error("need --timeout-s > 0")
    blocking = blocking_env(dict(os.environ))
    if blocking and not args.force:
        parser.error(f"{' '.join(blocking)} makes every launch or wait blocking and changes "
                     "all timings; unset it or pass --force")
    return args


def main() -> int:
    args = parse_args()
    local_rank = int(os.environ.get("LOCAL_RANK", "0"))
    rank_label = f"rank={os.environ.get('RANK', '?')} local_rank={local_rank}"
    watchdog = Watchdog(rank_label, args.timeout_s)
    torch.cuda.set_device(local_rank)
    dist.init_process_group(backend="nccl", device_id=torch.device("cuda", local_rank),
                            timeout=timedelta(seconds=args.timeout_s))
    failed = False
    try:
        ctx = Ctx(args, watchdog)
        ctx.sync("first collective")  # the communicator exists after this barrier
        pinned = pin_cpu(local_rank, args.cpu_affinity)
        args.output_dir.mkdir(parents=True, exist_ok=True)
        print(f"worker rank={ctx.rank}/{ctx.world} local_rank={local_rank} "
              f"device={torch.cuda.get_device_name(ctx.device)} {pinned} "
              f"torch={torch.__version__} nccl={'.'.join(map(str, torch.cuda.nccl.version()))} "
              f"NCCL_NVLS_ENABLE={os.environ['NCCL_NVLS_ENABLE']}", flush=True)
        if ctx.rank == 0:
            for key, value in timing_env(dict(os.environ)):
                print(f"worker env {key}={value}", flush=True)
        contracts_path = args.output_dir / f"rank{ctx.rank}_contracts.csv"
        for name in args.sections:
            t0 = time.perf_counter()
            watchdog.beat(name)
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
        ctx.sync("end")
    except BaseException:
        failed = True
        raise
    finally:
        dist.destroy_process_group()
        watchdog.stop()
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
