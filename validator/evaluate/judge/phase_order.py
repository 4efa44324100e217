"""The judge's phase order as data: what each phase needs to have run before it, and why.

`run.Evaluation.run` checks this before every phase, so a reordering that would let submitted code run before
the judge's references exist, or call a kernel without its deadline, fails loudly instead of quietly
weakening a verdict.
"""

from __future__ import annotations

from collections.abc import Container

NEEDS: dict[str, tuple[str, ...]] = {
    "start_runner": ("setup",),
    # the GPU's turn once the runners have started: what they do on the GPU before it (CUDA's start, the digest's load)
    # is harness work, and from it on this judge's GPU work measures or could be felt by a measurement
    "take_gpu": ("start_runner",),
    "compute_references": ("setup", "take_gpu"),
    # the twin of the reference, timed alone while no submitted code can have work on the GPU: its warm time sets the
    # calls per span and the deadlines
    "load_twin": ("start_runner", "compute_references"),
    # no submitted code before every reference the judge computes up front, and the twin that times the reference,
    # exist
    "load_kernel": ("compute_references", "load_twin"),
    "arm_deadline": ("compute_references", "load_kernel"),
    # no call of the kernel without its deadline; every call is timed, and the calls read are judged as they come
    "time": ("load_kernel", "arm_deadline"),
    # the profiler pass after timing: it leaves CUPTI's callbacks in the runner's process, and every later launch
    # of a PyTorch operator there cost more (measured on an H200, bench/span_parts.py --attribute: PyTorch's ReLU
    # at the red-team's size 0.028 -> 0.051 ms per call, its span's excess 0.36 -> 0.60 ms); the twin runs none,
    # so a kernel profiled before it was timed lost to its own reference operator (speedup 0.69 for a tie).
    # A side-stream rejection found afterwards still stops the evaluation, and nothing timed is published.
    "attribute": ("time",),
}


class PhaseOrderError(RuntimeError):
    """A phase was about to run before one it depends on: a harness bug, never a kernel's doing."""


def check(phase: str, done: Container[str]) -> None:
    missing = [name for name in NEEDS.get(phase, ()) if name not in done]
    if missing:
        raise PhaseOrderError(f"the judge's phase {phase!r} would run before {', '.join(missing)}")
