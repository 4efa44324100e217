"""Timing across the trust boundary: the judge times the reference itself while the runner is stopped, asks
the runner for one timed kernel call at a time, and bounds what the runner reports by its own clock.

Per round (reference and kernel in a random order): the reference is timed here exactly as `timing.timed_call`
does; for the kernel the runner first makes the round's inputs (`prepare`, outside any span), then the judge
measures the wall-clock span of `go` (flush, events, call, synchronize, reply). Afterwards the judge decides,
by its secret order seed, whether to `fetch` that call's outputs and compare them with the reference's on
the same inputs: half the rounds are checked, and the runner learns which only after it has answered.

The bound: a kernel whose reported device time is below what the judge saw by more than the harness's own
overhead is `timing-unverified` (rejected). That overhead is measured, not guessed: before any submitted code
is loaded, the runner times calls of nothing through the very path of `go` (`measure_overhead`), so the span
of an honest call exceeds its device time by that much (on the H200 about 0.4 ms: two processes' CUDA
contexts, the pipe, a flush and two synchronizes), and a kernel cannot have shaped it. The allowance is that
median, plus three standard errors of the difference between the two medians (at least SPAN_FLOOR_MS), plus
SPAN_RELATIVE of the kernel's time. The standard errors come from each side's spread (a median's standard error
is about 1.25 sigma / sqrt(n)), so a noisy machine widens the bound and a quiet one keeps it tight.
"""
from __future__ import annotations

import math
import random
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import numpy as np
import torch

from validator.evaluate.worker import timing
from validator.evaluate.worker.correctness import PASSED, Check, check_values, clone_inputs, poison
from validator.evaluate.worker.digest import output_digest

SPAN_FLOOR_MS = 0.05
OVERHEAD_CAP_MS = 5.0
"""However slow the calls of nothing were, the bound credits at most this much per call."""
SPAN_RELATIVE = 0.05
CPU_FLOOR_MS, CPU_RELATIVE = 5.0, 0.5
"""Under --interpret the clocks are the CPU's, shared with everything else on the machine: the bound only has
to catch reports that are off by a large factor (the red-team's), not to make a time trustworthy."""
CHECK_FRACTION = 0.5
CHECK_BYTES = 1 << 30
"""Timed outputs fetched per problem, in expectation; for outputs of gigabytes the checked share falls, to no
fewer than MIN_CHECKS expected checks among the protocol's minimum rounds (the runner still cannot tell which)."""
MIN_CHECKS = 2
NULL_CALLS = 21


@dataclass(frozen=True)
class Overhead:
    """The span of a timed call of nothing minus its reported device time, measured before the kernel loads."""

    median_ms: float
    median_se_ms: float
    """The median's standard error (from the spread of the calls)."""


def measure_overhead(runner: Any, flush_bytes: int, *, gpu: bool, judge_work: Callable[[], None]) -> Overhead:
    """Time NULL_CALLS calls of nothing through the runner's `go` path. Only valid before `load`: the runner
    refuses it afterwards, and until then it holds no submitted code that could slow these calls down.

    Before each, the judge does what it does before a timed kernel call (`judge_work`: stop the runner, run GPU
    work in its own context, let the runner go on), so the calls pay the same wake-up and the same switch
    between two processes' CUDA contexts; measured on the H200 that switch is most of an honest call's excess."""
    excess = []
    for _ in range(NULL_CALLS):
        judge_work()
        t0 = timing._perf_counter()
        reply = runner.request({"op": "null", "flush_bytes": flush_bytes, "interpret": not gpu})
        span = (timing._perf_counter() - t0) * 1e3
        try:
            dev = float(reply["device_ms"])
        except (KeyError, TypeError, ValueError):
            dev = 0.0
        excess.append(span - min(max(dev, 0.0), span))
    excess = excess[1:]  # the first pays for allocating the flush buffer
    median = float(np.median(excess))
    cap = OVERHEAD_CAP_MS if gpu else CPU_FLOOR_MS
    return Overhead(min(median, cap), min(median_se(excess), cap))


def median_se(values: list[float]) -> float:
    """Standard error of the median, from the median absolute deviation (robust to a few disturbed calls)."""
    data = np.asarray(values, dtype=float)
    if data.size < 2:
        return 0.0
    sigma = 1.4826 * float(np.median(np.abs(data - np.median(data))))
    return 1.2533 * sigma / math.sqrt(data.size)


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


def check_share(output_bytes: int, rounds: int) -> float:
    """The chance that a timed call's outputs are fetched and compared."""
    floor = min(CHECK_FRACTION, MIN_CHECKS / max(rounds, 1))
    return max(floor, min(CHECK_FRACTION, CHECK_BYTES / max(output_bytes * rounds, 1)))


class JudgeSide:
    def __init__(self, reference: Any, runner: Any, *, inputs: Callable[[int], list[Any]],
                 spec: Callable[[int], dict[str, Any]], shape: Any, tolerances: dict[str, Any],
                 device: torch.device, overhead: Overhead,
                 compare: Callable[[list, list], Check] | None = None) -> None:  # fmt: skip
        self.reference, self.runner, self.inputs, self.spec = reference, runner, inputs, spec
        self.shape, self.tolerances, self.device, self.overhead = shape, tolerances, device, overhead
        self.compare = compare or (lambda outs, expected: check_values(outs, expected, tolerances))
        """How a checked timed call's outputs are judged (the judge's: each rule the kernel still passes)."""
        self.allowance_ms = self.excess_ms = self.digest_ms = 0.0
        self.committed: str | None = None
        """The runner's digest of the last timed call's outputs, sent inside the span (see digest.py)."""
        self.digest_times: list[float] = []
        self.relative = SPAN_RELATIVE

    def run(self, protocol: Any, seed: int, *, gpu: bool) -> timing.Series:
        self.gpu = gpu
        self.flush = timing.flush_buffer(self.device, protocol.l2_flush_factor) if gpu else None
        order = random.Random(seed)
        self.check_share = check_share(self.shape.nbytes, protocol.min_rounds)
        for i in range(protocol.warmup_calls):
            _, verdict = self.round(-1 - i, kernel_first=i % 2 == 0, check=i == 0 or order)
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
        floor, self.relative = (SPAN_FLOOR_MS, SPAN_RELATIVE) if gpu else (CPU_FLOOR_MS, CPU_RELATIVE)
        excess = list(np.asarray(series.spans_ms) - np.asarray(series.ker_ms))
        self.excess_ms = float(np.median(excess)) if excess else 0.0
        spread = 3.0 * math.hypot(self.overhead.median_se_ms, median_se(excess))
        self.digest_ms = float(np.median(self.digest_times)) if self.digest_times else 0.0
        self.allowance_ms = self.overhead.median_ms + self.digest_ms + max(floor, spread)
        verdict = span_verdict(list(series.ker_ms), list(series.spans_ms), self.allowance_ms, self.relative)
        return series if verdict.ok else timing._series(samples, "failed", verdict)

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
        checked = check is True or (check is not False and check.random() < self.check_share)
        expected = list(ref_out) if self.shape.container else [ref_out]
        if i < 0:  # warm-up: what digesting outputs of this size costs, the part of the span the runner spends on it
            self.digest_times.append(self.time_digest(expected))
        if checked:
            outs = self.runner.outputs(self.runner.request({"op": "fetch"}), self.shape, self.device)
            verdict = self.compare(outs, expected)
            if not verdict.ok:
                verdict = Check(False, "timed-output-mismatch", verdict.message)
            elif self.committed != str(output_digest(outs)):
                verdict = Check(False, "timed-output-mismatch", "the outputs fetched after a timed call are not "
                                "the ones the runner committed to inside it: computed after the span, not in it")
        poison(ref_out)
        (ref_dev, ref_host), (ker_dev, ker_host, span) = values["ref"], values["ker"]
        return (ref_dev, ker_dev, ref_host, ker_host, span), verdict

    def time_digest(self, outputs: list[Any]) -> float:
        if self.gpu:
            timing._synchronize()
        t0 = timing._perf_counter()
        output_digest(outputs)
        return (timing._perf_counter() - t0) * 1e3

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
        self.committed = reply.get("digest") if isinstance(reply.get("digest"), str) else None
        try:
            dev, host = float(reply["device_ms"]), float(reply["host_ms"])
        except (KeyError, TypeError, ValueError):
            dev = host = float("nan")
        if not (math.isfinite(dev) and math.isfinite(host) and 0 < dev <= span and host >= 0):
            dev = -1.0  # unreadable or impossible (more than the judge saw elapse): refused in `round`
        return dev, host, span

    def describe_bound(self) -> str:
        return (f"reported kernel times bounded by the judge's spans: overhead allowed {self.allowance_ms:.3f} ms "
                f"per call + {self.relative:.0%} (a call of nothing, timed before the kernel loaded: "
                f"{self.overhead.median_ms:.3f} ms ± {self.overhead.median_se_ms:.3f}; digesting the outputs: "
                f"{self.digest_ms:.3f} ms); this kernel's calls: "
                f"{self.excess_ms:.3f} ms")
