"""A stand-in for the few `torch` names worker.py touches at import time, so that its pure logic
(placements, CPU lists, environment checks, arguments, columns) is tested without a GPU or
PyTorch. Nothing here runs a collective: calling one raises, so a test that reaches one fails."""

import sys
import types


class _Dtype:
    def __init__(self, name: str) -> None:
        self.name = name

    def __repr__(self) -> str:
        return f"torch.{self.name}"

    __str__ = __repr__


def _no_gpu(*_args, **_kwargs):
    raise RuntimeError("torch stub: no GPU work in CPU tests")


def install() -> None:
    """Registers the stub as `torch` and `torch.distributed` unless a real torch is imported."""
    if "torch" in sys.modules:
        return
    torch = types.ModuleType("torch")
    torch.float16, torch.float32, torch.float64 = (_Dtype(n) for n in ("float16", "float32", "float64"))
    torch.dtype = _Dtype
    torch.Tensor = object
    torch.device = _no_gpu
    torch.tensor = _no_gpu
    torch.cuda = types.SimpleNamespace(Event=_no_gpu, synchronize=_no_gpu, _sleep=_no_gpu)
    dist = types.ModuleType("torch.distributed")
    dist.all_reduce = dist.barrier = dist.init_process_group = _no_gpu
    torch.distributed = dist
    sys.modules["torch"] = torch
    sys.modules["torch.distributed"] = dist
