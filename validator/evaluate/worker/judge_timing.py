"""Timing across the trust boundary: the judge times the reference itself while the runner is stopped, asks
the runner for one timed kernel call at a time, and bounds what the runner reports by its own clock.

Per round (reference and kernel in a random order): the reference is timed here exactly as `timing.timed_call`
does; for the kernel the runner first makes the round's inputs (`prepare`, outside any span), then the judge
measures the wall-clock span of `go` (flush, events, call, synchronize, reply). Afterwards the judge decides,
by its secret order seed, whether to `fetch` that call's outputs and compare them with the reference's on
the same inputs: half the rounds are checked, and the runner learns which only after it has answered.

The bound: a kernel whose reported device time is below what the judge saw by more than the harness's own
overhead is `timing-unverified` (rejected). The overhead allowed is the runner's answer time to an empty
request (capped at PING_CAP_MS, however slowly it answers), the judge's own L2-flush time, three times the
reference's host-over-device excess, and SPAN_RELATIVE of the kernel's time.
"""

from __future__ import annotations

import math
import random
from collections.abc import Callable
from typing import Any

import numpy as np
import torch

from validator.evaluate.worker import timing
from validator.evaluate.worker.correctness import PASSED, Check, check_values, clone_inputs, poison

PING_CAP_MS = 0.5
"""The most answer time the bound credits per timed call (a pipe round trip takes tens of microseconds)."""
SPAN_FLOOR_MS = 0.05
SPAN_RELATIVE = 0.05
CPU_FLOOR_MS, CPU_RELATIVE = 5.0, 0.5
"""Under --interpret the clocks are the CPU's, shared with everything else on the machine: the bound only has
to catch reports that are off by a large factor (the red-team's), not to make a time trustworthy."""
CHECK_FRACTION = 0.5
PINGS = 15


def span_verdict(ker_ms: list[float], spans_ms: list[float], allowance_ms: float,
                 relative: float = SPAN_RELATIVE) -> Check:  # fmt: skip
    """`timing-unverified` when the median of (judge's span - reported device time) exceeds the allowance."""
    if not ker_ms:
        return PASSED
    excess = float(np.median(np.asarray(spans_ms) - np.asarray(ker_ms)))
    allowed = allowance_ms + relative * float(np.median(ker_ms))
    if excess > allowed:
        return Check(False, "timing-unverified", f"the runner reported a median of {np.median(ker_ms):.4f} ms per "
                     f"call, but the judge's own clock saw {excess:.4f} ms more per call than that (allowed "
                     f"{allowed:.4f} ms of harness overhead): the reported times are not the calls' times")
    return PASSED


class JudgeSide:
    def __init__(self, reference: Any, runner: Any, *, inputs: Callable[[int], list[Any]],
                 spec: Callable[[int], dict[str, Any]], shape: Any, tolerances: dict[str, Any],
                 device: torch.device) -> None:  # fmt: skip
        self.reference, self.runner, self.inputs, self.spec = reference, runner, inputs, spec
        self.shape, self.tolerances, self.device = shape, tolerances, device
        self.ping_ms = self.flush_ms = self.allowance_ms = 0.0
        self.relative = SPAN_RELATIVE

    def run(self, protocol: Any, seed: int, *, gpu: bool) -> timing.Series:
        self.gpu = gpu
        self.flush = timing.flush_buffer(self.device, protocol.l2_flush_factor) if gpu else None
        self.calibrate()
        order = random.Random(seed)
        for i in range(protocol.warmup_calls):
            _, verdict = self.round(-1 - i, kernel_first=i % 2 == 0, check=True)
            if not verdict.ok:
                return timing.Series((), (), (), (), "failed", verdict)
        samples: list[tuple[float, ...]] = []
        started, stop = timing._perf_counter(), "max-rounds"
        for i in range(protocol.max_rounds):
            sample, verdict = self.round(i, kernel_first=order.random() < 0.5, check=order)
            if not verdict.ok:
                return timing._series(samples, "failed", verdict)
            samples.append(sample)
            ref, ker = [s[0] for s in samples], [s[1] for s in samples]
            if gpu and (i + 1) % timing.CHECK_EVERY == 0 and timing.converged(ref, ker, protocol, seed + i):
                stop = "converged"
                break
            if timing._perf_counter() - started > protocol.time_budget_s and len(samples) >= protocol.min_rounds:
                stop = "budget"
                break
        series = timing._series(samples, stop, None)
        ref_excess = max(0.0, float(np.median(series.ref_host_ms)) - float(np.median(series.ref_ms)))
        floor, self.relative = (SPAN_FLOOR_MS, SPAN_RELATIVE) if gpu else (CPU_FLOOR_MS, CPU_RELATIVE)
        self.allowance_ms = self.ping_ms + self.flush_ms + max(floor, 3.0 * ref_excess)
        verdict = span_verdict(list(series.ker_ms), list(series.spans_ms), self.allowance_ms, self.relative)
        return series if verdict.ok else timing._series(samples, "failed", verdict)

    def calibrate(self) -> None:
        """The runner's answer time to an empty request (capped), and the judge's own flush time."""
        pings = []
        for _ in range(PINGS):
            t0 = timing._perf_counter()
            self.runner.request({"op": "ping"})
            pings.append((timing._perf_counter() - t0) * 1e3)
        self.ping_ms = min(float(np.median(pings)), PING_CAP_MS if self.gpu else CPU_FLOOR_MS)
        if self.flush is not None:
            flushes = []
            for _ in range(5):
                timing._synchronize()
                t0 = timing._perf_counter()
                self.flush.zero_()
                timing._synchronize()
                flushes.append((timing._perf_counter() - t0) * 1e3)
            self.flush_ms = float(np.median(flushes))

    def round(self, i: int, *, kernel_first: bool, check: Any) -> tuple[tuple[float, ...], Check]:
        inputs = self.inputs(i)
        ref_out = None
        values: dict[str, tuple[float, float]] = {}
        for side in ("ker", "ref") if kernel_first else ("ref", "ker"):
            if side == "ref":
                ref_out, dev, host = self.time_reference(inputs)
                values["ref"] = (dev, host)
            else:
                values["ker"] = self.time_kernel(i)
        verdict = PASSED
        if values["ker"][0] < 0:
            return (0.0,) * 5, Check(False, "timing-unverified", "the runner reported an impossible device time "
                                     "(not a positive number no larger than the judge's span of the call)")
        checked = check is True or (check is not True and check.random() < CHECK_FRACTION)
        if checked:
            expected = list(ref_out) if self.shape.container else [ref_out]
            outs = self.runner.outputs(self.runner.request({"op": "fetch"}), self.shape, self.device)
            verdict = check_values(outs, expected, self.tolerances)
            if not verdict.ok:
                verdict = Check(False, "timed-output-mismatch", verdict.message)
        poison(ref_out)
        (ref_dev, ref_host), (ker_dev, ker_host, span) = values["ref"], values["ker"]
        return (ref_dev, ker_dev, ref_host, ker_host, span), verdict

    def time_reference(self, inputs: list[Any]) -> tuple[Any, float, float]:
        """The reference on a fresh copy of the round's inputs, with the runner's processes stopped."""
        args = clone_inputs(inputs)
        self.runner.pause()
        try:
            with torch.no_grad():
                if self.gpu:
                    return timing.timed_call(self.reference, args, self.flush)
                t0 = timing._perf_counter()
                out = self.reference(*args)
                host = (timing._perf_counter() - t0) * 1e3
                return out, host, host
        finally:
            self.runner.resume()

    def time_kernel(self, i: int) -> tuple[float, float, float]:
        self.runner.request({"op": "prepare", "inputs": self.spec(i),
                             "flush_bytes": self.flush.numel() * 4 if self.flush is not None else 0})
        t0 = timing._perf_counter()
        reply = self.runner.request({"op": "go"})
        span = (timing._perf_counter() - t0) * 1e3
        try:
            dev, host = float(reply["device_ms"]), float(reply["host_ms"])
        except (KeyError, TypeError, ValueError):
            dev = host = float("nan")
        if not (math.isfinite(dev) and math.isfinite(host) and 0 < dev <= span and host >= 0):
            dev = -1.0  # unreadable or impossible (more than the judge saw elapse): refused in `round`
        return dev, host, span

    def describe_bound(self) -> str:
        return (f"reported kernel times bounded by the judge's spans: overhead allowed {self.allowance_ms:.3f} ms "
                f"per call + {self.relative:.0%} (answer time {self.ping_ms:.3f} ms, flush {self.flush_ms:.3f} ms)")
