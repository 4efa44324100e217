"""Can a trusted process see another process's GPU work without reading the host's state? (`Protocol.contention_ms`.)

Protocols 14-21 compared the twin's reference in the rounds with the twin's reference before the kernel loaded
(`reference-slowed`). On the H200 (bench/p21-h200-2026-11-29.txt) a reference under 0.1 ms moved a median 26% between
the two, all placements agreeing with each other: its device time is mostly its launch, so it reads the host's state,
which moves. The threat the hold stood for is GPU work that the kernel's stopped runner left queued, which takes time
slices from the twin.

Two sensors in the twin, which the kernel cannot touch:
  probe       the GPU kept busy by a short sleep kernel, a start event behind it, a sleep of fixed cycles, an end
              event: no host work between the events, so its time is the GPU's alone. Another context's work shows
              in it only if a time slice lands inside it.
  round-trip  the runner's round trip (`Runner._gpu_wait`, which the twin's `Runner.settle` repeats): the host's
              time for a tiny op and a synchronize, tens of microseconds idle; where another context's work is
              queued, the wait for the GPU's next time slice (milliseconds on the red team's spin). `contention_ms`
              is set from its rows.
against what the twin measures today: a launch-bound reference's device time (ReLU on 16x16384, KernelBench 91bfc2c's
level1/19) and the host's time of its whole call as the runner makes it (flush, synchronize, events, call,
synchronize). Four conditions, each in one process on one GPU:
  idle          nothing else running
  cpu-load      one busy Python process per CPU core
  stopped-idle  another process holds a CUDA context and is stopped with nothing queued
  queued-spin   another process queued a long sleep kernel on a side stream, then stopped itself (the red team's
                sandbox-escape/queued_spin_slows_twin)
and prints, per condition and measure, the median, the spread (1.4826 MAD) and the maximum, in ms.

    python bench/contention_probe.py [--calls 200] [--probe-us 200] > $OUT/contention.txt
"""

from __future__ import annotations

import argparse
import multiprocessing
import os
import signal
import statistics
import subprocess
import sys
import time
from pathlib import Path

import torch

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
from validator.evaluate.judge.timing import flush_buffer  # the runner's flush, sized as a round sizes it
from validator.evaluate.runner.serve import Runner
from validator.protocol import PROTOCOL

OTHER = r"""
import os, signal, sys, torch
torch.cuda.init()
x = torch.ones(1, device="cuda")
if sys.argv[1] == "spin":
    side = torch.cuda.Stream()
    with torch.cuda.stream(side):
        torch.cuda._sleep(int(float(sys.argv[2]) * 1.98e9))
print("ready", flush=True)
os.kill(os.getpid(), signal.SIGSTOP)
"""


def busy() -> None:
    while True:
        pass


def probe(cycles: int) -> float:
    start, end = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
    torch.cuda._sleep(20_000)  # the GPU is busy when the start event is reached: no launch latency inside
    start.record()
    torch.cuda._sleep(cycles)
    end.record()
    torch.cuda.synchronize()
    return start.elapsed_time(end)


def relu(x: torch.Tensor, flush: torch.Tensor) -> float:
    flush.zero_()
    torch.cuda.synchronize()
    start, end = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
    start.record()
    torch.relu(x)
    end.record()
    torch.cuda.synchronize()
    return start.elapsed_time(end)


def call(x: torch.Tensor, flush: torch.Tensor) -> tuple[float, float]:
    """The runner's timed call of the reference: its device time and the host's time of the whole of it."""
    t0 = time.perf_counter()
    device = relu(x, flush)
    return device, (time.perf_counter() - t0) * 1e3


def summary(values: list[float]) -> str:
    median = statistics.median(values)
    spread = 1.4826 * statistics.median(abs(v - median) for v in values)
    return f"{median:9.4f} {spread:8.4f} {max(values):9.4f}"


MEASURES = ("probe", "round-trip", "ReLU device", "ReLU call")


def measure(calls: int, cycles: int) -> dict[str, list[float]]:
    x = torch.randn(16, 16384, device="cuda")
    flush = flush_buffer(torch.device("cuda", 0), PROTOCOL.l2_flush_factor)
    runner = Runner()
    runner._start_device(interpret=False)
    for _ in range(10):
        probe(cycles), runner._gpu_wait(), call(x, flush)
    out: dict[str, list[float]] = {m: [] for m in MEASURES}
    for _ in range(calls):
        out["probe"].append(probe(cycles))
        out["round-trip"].append(runner._gpu_wait())
        device, host = call(x, flush)
        out["ReLU device"].append(device)
        out["ReLU call"].append(host)
    return out


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--calls", type=int, default=200)
    parser.add_argument("--probe-us", type=float, default=200.0)
    args = parser.parse_args()
    torch.cuda.init()
    cycles = int(args.probe_us * 1e-6 * 1.98e9)  # the H200's SM clock; the probe's time is read, not assumed
    rows = []
    for condition in ("idle", "cpu-load", "stopped-idle", "queued-spin"):
        helpers: list[multiprocessing.Process] = []
        other = None
        if condition == "cpu-load":
            helpers = [multiprocessing.Process(target=busy, daemon=True) for _ in range(os.cpu_count() or 1)]
            for h in helpers:
                h.start()
            time.sleep(0.5)
        if condition in ("stopped-idle", "queued-spin"):
            mode = "spin" if condition == "queued-spin" else "idle"
            other = subprocess.Popen([sys.executable, "-c", OTHER, mode, "120"], stdout=subprocess.PIPE, text=True)
            other.stdout.readline()
            time.sleep(0.2)
        t0 = time.perf_counter()
        measured = measure(args.calls, cycles)
        wall = time.perf_counter() - t0
        for h in helpers:
            h.kill()
        if other is not None:
            other.send_signal(signal.SIGKILL)
            other.wait()
        rows.append((condition, measured))
        print(f"# {condition}: {args.calls} calls in {wall:.2f} s", flush=True)
    print(f"probe: {args.probe_us:g} us of cycles; per measure: median, spread, max (ms)")
    print(f"{'condition':13} " + " | ".join(f"{m:^28}" for m in MEASURES))
    for condition, measured in rows:
        print(f"{condition:13} " + " | ".join(summary(measured[m]) for m in MEASURES))
    return 0


if __name__ == "__main__":
    sys.exit(main())
