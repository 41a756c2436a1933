"""CPU tests of suite/worker.py's pure logic, with a stub of the torch API (no GPU, no PyTorch).

Run from the repository root: python3 -m unittest discover suite/tests
(`cargo test` runs this too, through tests/suite_python.rs)."""

import contextlib
import importlib.util
import io
import itertools
import os
import sys
import unittest
from fractions import Fraction
from pathlib import Path
from unittest import mock

from suite.tests import torch_stub

MULTICAST_OFF = {"NCCL_NVLS_ENABLE": "0", "TORCH_SYMM_MEM_DISABLE_MULTICAST": "1",
                 "NVSHMEM_DISABLE_NVLS": "1"}


def load_worker():
    torch_stub.install()
    path = Path(__file__).resolve().parent.parent / "worker.py"
    spec = importlib.util.spec_from_file_location("suite_worker", path)
    module = importlib.util.module_from_spec(spec)
    with mock.patch.dict(os.environ, MULTICAST_OFF):
        spec.loader.exec_module(module)
    return module


worker = load_worker()


def fp16_round(x: float) -> float:
    """Round to the nearest FP16 value (ties to even), inf beyond the largest finite one."""
    import struct
    try:
        return struct.unpack("<e", struct.pack("<e", x))[0]
    except OverflowError:
        return float("inf") if x > 0 else float("-inf")


class Placements(unittest.TestCase):
    def test_every_distinct_placement_is_enumerated(self):
        for n in range(1, 9):
            for name, values in worker.numerics_scenarios(n).items():
                got = [tuple(a) for a in worker.distinct_arrangements(values)]
                expected = sorted(set(itertools.permutations(values)))
                self.assertEqual(got, expected, f"{name} at N={n}")
                self.assertEqual(worker.arrangement_count(values), len(expected))

    def test_eight_ranks_need_at_most_70_calls_per_scenario(self):
        counts = {k: worker.arrangement_count(v) for k, v in worker.numerics_scenarios(8).items()}
        self.assertEqual(counts, {"overflow": 70, "absorption": 56})

    def test_scenario_names_are_canonical_at_every_world_size(self):
        for n in range(1, 24):
            self.assertEqual(list(worker.numerics_scenarios(n)), ["overflow", "absorption"])

    def test_real_sum_is_exact_in_fp16_and_has_one_value_per_rank(self):
        for n in range(1, 24):
            for name, values in worker.numerics_scenarios(n).items():
                self.assertEqual(len(values), n)
                real = float(sum(Fraction(v) for v in values))
                self.assertEqual(fp16_round(real), real, f"{name} at N={n}")

    def test_some_order_is_a_counterexample_from_three_ranks(self):
        # Left-to-right FP16 sums of the placements: at N >= 3 some order loses the real sum.
        for n in (3, 4, 8):
            for name, values in worker.numerics_scenarios(n).items():
                real = sum(Fraction(v) for v in values)
                wrong = 0
                for a in worker.distinct_arrangements(values):
                    acc = a[0]
                    for v in a[1:]:
                        acc = fp16_round(acc + v)
                    wrong += not worker.matches(acc, real)
                self.assertGreater(wrong, 0, f"{name} at N={n}")

    def test_permutation_label_indexes_the_sorted_values(self):
        base = [-1.0, 1.0, 1.0, 2.0]
        self.assertEqual(worker.permutation_label(base, [1.0, 2.0, -1.0, 1.0]), "1-3-0-2")

    def test_matches_needs_finite_and_exact(self):
        self.assertTrue(worker.matches(2050.0, Fraction(2050)))
        self.assertFalse(worker.matches(2048.0, Fraction(2050)))
        self.assertFalse(worker.matches(float("inf"), Fraction(65504)))

    def test_same_bits_across_ranks(self):
        self.assertTrue(worker.same_bits([float("inf"), float("inf")]))
        self.assertFalse(worker.same_bits([2048.0, 2050.0]))
        self.assertFalse(worker.same_bits([float("nan"), float("nan")]))


class Columns(unittest.TestCase):
    SEED = {
        "async": ["world_size", "rank", "cycle", "dtype", "size_bytes", "host_enqueue_us",
                  "host_wait_us", "gpu_dependency_us", "work_completed_after_return",
                  "event_ready_after_wait", "correct"],
        "decomposition": ["world_size", "rank", "cycle", "dtype", "size_bytes", "mode",
                          "duration_us", "correct"],
        "fragmentation": ["world_size", "rank", "cycle", "dtype", "total_bytes",
                          "fragment_count", "fragment_bytes", "duration_us", "correct"],
        "decode": ["world_size", "rank", "cycle", "dtype", "tokens", "hidden_size",
                   "message_bytes", "collectives", "duration_us", "correct"],
    }

    def test_seed_columns_come_first_and_new_ones_after(self):
        for section, seed in self.SEED.items():
            self.assertEqual(worker.COLUMNS[section][:len(seed)], seed, section)
        for section in ("decomposition", "fragmentation", "decode"):
            self.assertEqual(worker.COLUMNS[section][-3:],
                             ["host_issue_us", "device_us", "device_queued"])
        self.assertEqual(worker.COLUMNS["async"][-2:], ["dependent_correct", "device_queued"])

    def test_sleep_queues_more_than_the_host_issue_time(self):
        for host_us in (0.0, 25.0, 5000.0):
            ticks = worker.sleep_cycles(host_us)
            self.assertGreater(ticks / 2000.0, 2 * host_us)  # at 2 GHz or slower


class CpuLists(unittest.TestCase):
    def test_parse_and_format_round_trip(self):
        self.assertEqual(worker.parse_cpu_list("0-3,8,10-11"), {0, 1, 2, 3, 8, 10, 11})
        self.assertEqual(worker.format_cpus({0, 1, 2, 3, 8, 10, 11}), "0-3,8,10-11")
        for bad in ("", "x", "3-1", "1-", "0,,2"):
            with self.assertRaises(ValueError, msg=bad):
                worker.parse_cpu_list(bad)

    def test_entries_per_local_rank(self):
        self.assertEqual(worker.affinity_entries("0-47,96-143;48-95"), ["0-47,96-143", "48-95"])
        self.assertEqual(worker.affinity_entries("0,2,4,6"), ["0", "2", "4", "6"])


class Environment(unittest.TestCase):
    def test_timing_env_keeps_prefixes_and_drops_secrets(self):
        env = {"NCCL_ALGO": "Ring", "TORCH_NCCL_BLOCKING_WAIT": "0", "CUDA_VISIBLE_DEVICES": "0",
               "NCCL_IB_KEY": "x", "TORCH_HUB_TOKEN": "y", "CUDA_PASSWORD_FILE": "z",
               "HF_TOKEN": "w", "PATH": "/bin", "nccl_lower": "1"}
        self.assertEqual(worker.timing_env(env), [("CUDA_VISIBLE_DEVICES", "0"),
                                                  ("NCCL_ALGO", "Ring"),
                                                  ("TORCH_NCCL_BLOCKING_WAIT", "0")])

    def test_blocking_env(self):
        self.assertEqual(worker.blocking_env({"TORCH_NCCL_BLOCKING_WAIT": "0"}), [])
        self.assertEqual(worker.blocking_env({"CUDA_LAUNCH_BLOCKING": "1"}),
                         ["CUDA_LAUNCH_BLOCKING=1"])


class Arguments(unittest.TestCase):
    def parse(self, *argv, env=None):
        with mock.patch.dict(os.environ, env or {}), contextlib.redirect_stderr(io.StringIO()):
            return worker.parse_args(["--output-dir", "out", *argv])

    def test_defaults(self):
        with mock.patch.dict(os.environ, {}, clear=True):
            args = worker.parse_args(["--output-dir", "out"])
        self.assertEqual((args.cycles, args.warmups, args.timeout_s), (10, 3, 300.0))
        self.assertEqual(args.sections, list(worker.SECTIONS))

    def test_zero_warmups_refused(self):
        with self.assertRaises(SystemExit):
            self.parse("--warmups", "0")
        self.assertEqual(self.parse("--warmups", "1").warmups, 1)

    def test_other_limits(self):
        for argv in (("--cycles", "0"), ("--decode-collectives", "0"), ("--timeout-s", "0"),
                     ("--sections", "bogus"), ("--sections", ",")):
            with self.assertRaises(SystemExit, msg=argv):
                self.parse(*argv)

    def test_blocking_env_refused_unless_forced(self):
        for key in ("TORCH_NCCL_BLOCKING_WAIT", "CUDA_LAUNCH_BLOCKING"):
            with self.assertRaises(SystemExit, msg=key):
                self.parse(env={key: "1"})
            self.assertTrue(self.parse("--force", env={key: "1"}).force)


if __name__ == "__main__":
    unittest.main()
