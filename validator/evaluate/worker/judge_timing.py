"""Timing across the trust boundary: the judge times the reference itself while the runner is stopped, asks
the runner for one timed kernel call at a time, and bounds what the runner reports by its own clock.

The rounds run in `protocol.timing_blocks` independent blocks (more, up to `max_timing_blocks`, while the blocks'
speedups disagree by more than `block_spread`): each starts on fresh allocations (the judge's
and the runner's flush buffers and the runner's input buffers made anew, the caching allocators emptied)
after a pause, warms up again, and opens with the other side than the block before; inside a block the
order of each round is random. NVML's clock state is read after the block's warm-up and after its last
round; a block that ran throttled or down-clocked is measured again (`clocks.py`). Each block is bounded
on its own (`JudgeSide.bound`).

Per round (reference and kernel in a random order): the reference is timed here exactly as `timing.timed_call`
does; for the kernel the runner first readies the call (`prepare`, outside any span: guards, flush buffer),
then the judge measures the wall-clock span of `go` (the inputs made from the seed it brings, flush, events,
call, synchronize, digest, reply; for each call of the span, `span_calls`). Afterwards the judge decides, by its
secret order seed, whether to `fetch` one call's outputs, and which, and compare them with the reference's on the
same inputs (`check_share`); the runner learns which only after it has answered.

The bound: a kernel whose reported device time is below what the judge saw by more than the harness's own
overhead is `timing-unverified` (rejected). That overhead is measured, not guessed: before any submitted code
is loaded, the runner times honest calls of this very problem through the path of `go` (`measure_overhead`):
inputs of the problem's shapes made inside the span, the reference model called on them, its outputs digested
and the digest sent back, so an honest kernel's call exceeds its device time by as much, and a kernel cannot have
shaped the measure. The allowance is the calibration's median excess, plus three standard errors of the
difference between the two medians (at least SPAN_FLOOR_MS), plus SPAN_RELATIVE of the kernel's time and of that
median. The standard errors come from each side's spread (a median's standard error is about 1.25 sigma /
sqrt(n)), so a noisy machine widens the bound and a quiet one keeps it tight.

Why the reference (protocol 12): each earlier calibration estimated part of an honest call from somewhere else,
and each estimate came up short on some card. Protocol 10 credited the judge's own time to make a round's
inputs (an honest Triton GEMM refused on the H200 by 0.008 ms); protocol 11 timed calls of nothing that made the
inputs and added the judge's own time to digest outputs of this size, and on an H100 the honest Triton
LayerNorm's calls exceeded their device time by 0.37 ms more than those two parts (1.98 ms against 1.85 ms
allowed), while other honest kernels were refused in some runs and not in others. Measuring a whole honest
call, in the runner's own process, leaves no part estimated elsewhere.
"""

from __future__ import annotations

import dataclasses
import math
import os
import random
import time
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import numpy as np
import torch

from validator.evaluate.worker import clocks, stream_span, timing
from validator.evaluate.worker.correctness import PASSED, Check, check_values, clone_inputs, poison
from validator.evaluate.worker.digest import output_digest
from validator.results.records import BlockTiming

SPAN_FLOOR_MS = 0.05
OVERHEAD_CAP_MS, CAP_BYTES_PER_MS = 5.0, 1e9
"""However slow the calibration's calls were, the bound credits at most 5 ms per call besides a pass over the
bytes each call makes and digests at 1 TB/s (upstream's 6.4 GB element-wise problems: about 6 ms)."""
SPAN_BYTES = 1 << 30
"""The inputs and outputs of one span's calls together at most: the runner holds them all until the judge has
chosen which call to fetch."""
SPAN_RELATIVE = 0.05
CPU_FLOOR_MS, CPU_RELATIVE, CPU_QUANTILE = 7.0, 0.5, 0.0
"""Under --interpret the clocks are the CPU's, shared with everything else on the machine: the bound only has
to catch reports that are off by a large factor on every call (the red-team's), not to make a time trustworthy,
and no CPU time is ever published. It reads the calls' least excess there: contention delays calls, a forged
report shortens every one. (The lower quartile was not enough: on a loaded 2-core CI machine, three judges at
once, an honest Triton GEMM's lower-quartile excess passed the 7.6 ms allowed; a forgery's least excess is its
whole call, 11 ms. The floor was 5 ms until the judge's resume stopped scanning all of /proc: calls of nothing
then measured 0.19-0.26 ms of overhead instead of 0.59-0.82 ms, the allowance shrank by about half a millisecond,
and a CI machine running 1.6x slower than usual rejected an honest kernel whose least excess passed the 5.7 ms
allowed. The forgeries' least excess, idle: 11.8 and 19.6 ms, and more under load.)"""
CHECK_FRACTION = 0.5
CHECK_BYTES = 1 << 30
"""Timed outputs fetched per problem, in expectation; for outputs of gigabytes the checked share falls, to no
fewer than MIN_CHECKS expected checks among the protocol's minimum rounds (the runner still cannot tell which)."""
MIN_CHECKS = 2
NULL_CALLS, MIN_NULL_CALLS, NULL_BUDGET_S = 21, 9, 2.0
"""Calibration spans: 21 where the reference is quick; spans of 0.25 s or more get 9 (NULL_BUDGET_S is spent)."""


@dataclass(frozen=True)
class Overhead:
    """The span of an honest timed call (the reference, run by the runner before the kernel loads) minus its
    reported device time."""

    median_ms: float
    median_se_ms: float
    """The median's standard error (from the spread of the calls)."""


def span_calls(reference_ms: float, call_bytes: int, protocol: Any, *, gpu: bool) -> int:
    """Calls of the kernel per timed span: enough for the reference's time to add up to `span_target_ms`, at
    most `max_span_calls` and SPAN_BYTES of inputs and outputs; on the CPU at most 2 (the path exercised, the
    interpreter's time spared); one under all-stream timing (a trace covers one call)."""
    if protocol.all_stream_timing:
        return 1
    wanted = math.ceil(protocol.span_target_ms / max(reference_ms, 1e-3))
    calls = min(wanted, protocol.max_span_calls, SPAN_BYTES // max(call_bytes, 1))
    return max(1, calls if gpu else min(calls, 2))


def reported(reply: dict[str, Any], calls: int) -> tuple[list[float], list[float]] | None:
    """The device and host times a span's reply gives for each of its `calls` calls; None if it does not."""
    try:
        dev, host = [float(v) for v in reply["device_ms"]], [float(v) for v in reply["host_ms"]]
    except (KeyError, TypeError, ValueError):
        return None
    return (dev, host) if len(dev) == len(host) == calls else None


def measure_overhead(runner: Any, flush_bytes: int, *, gpu: bool, judge_work: Callable[[], None],
                     inputs: Callable[[int], dict[str, Any]] = lambda k: {},
                     call_bytes: int = 0) -> Overhead:  # fmt: skip
    """Time up to NULL_CALLS calibration spans through the runner's `go` path, each of the calls a timed span
    holds (`inputs(k)`: the request's fields that say which inputs, of the problem's own shapes, from seeds no
    timed call uses, and which model to call on them); at least MIN_NULL_CALLS, then until NULL_BUDGET_S have
    passed. The excess per call is the span's excess over its calls. Only valid before `load`: the runner
    refuses it afterwards, and until then it holds no submitted code that could slow these calls down.

    Before each, the judge does what it does before a timed kernel call (`judge_work`: stop the runner, run GPU
    work in its own context, let the runner go on), so the calls pay the same wake-up and the same switch
    between two processes' CUDA contexts; measured on the H200 that switch is most of an honest call's excess."""
    excess = []
    started = timing._perf_counter()
    for k in range(NULL_CALLS):
        if k >= MIN_NULL_CALLS and timing._perf_counter() - started > NULL_BUDGET_S:
            break  # a slow reference: fewer calls, each a larger share of the time it costs
        judge_work()
        request = {"op": "null", "flush_bytes": flush_bytes, "interpret": not gpu, **inputs(k)}
        calls = len(request.get("inputs") or [None])
        t0 = timing._perf_counter()
        reply = runner.request(request)
        span = (timing._perf_counter() - t0) * 1e3
        times = reported(reply, calls)
        dev = sum(max(d, 0.0) for d in times[0]) if times else 0.0
        excess.append((span - min(dev, span)) / calls)
    excess = excess[1:]  # the first pays for allocating the flush buffer and the reference's first call
    median = float(np.median(excess))
    cap = OVERHEAD_CAP_MS + call_bytes / CAP_BYTES_PER_MS if gpu else CPU_FLOOR_MS
    return Overhead(min(median, cap), min(median_se(excess), cap))


def median_se(values: list[float]) -> float:
    """Standard error of the median, from the median absolute deviation (robust to a few disturbed calls)."""
    data = np.asarray(values, dtype=float)
    if data.size < 2:
        return 0.0
    sigma = 1.4826 * float(np.median(np.abs(data - np.median(data))))
    return 1.2533 * sigma / math.sqrt(data.size)


def span_verdict(ker_ms: list[float], spans_ms: list[float], allowance_ms: float,
                 relative: float = SPAN_RELATIVE, quantile: float = 0.5) -> Check:  # fmt: skip
    """`timing-unverified` when the `quantile` (the median unless told) of (judge's span - reported device time)
    exceeds the allowance."""
    if not ker_ms:
        return PASSED
    excess = float(np.quantile(np.asarray(spans_ms) - np.asarray(ker_ms), quantile))
    allowed = allowance_ms + relative * float(np.median(ker_ms))
    if excess > allowed:
        which = {0.5: "", 0.0: " (on its least delayed call)"}.get(quantile, f" (at the {quantile:.0%} quantile of "
                                                                               "its calls)")
        return Check(False, "timing-unverified", f"the runner reported a median of {np.median(ker_ms):.4f} ms per "
                     f"call, but the judge's own clock saw {excess:.4f} ms more per call than that{which} (allowed "
                     f"{allowed:.4f} ms of harness overhead): the reported times are not the calls' times")
    return PASSED


def block_speedup(block: Block) -> float:
    return timing.speedup([s[0] for s in block.samples], [s[1] for s in block.samples])


@dataclass(frozen=True)
class Block:
    """One measured block: its rounds' samples and the clock state read around them."""

    samples: tuple[tuple[float, ...], ...]
    stop: str
    kernel_first: bool
    before: clocks.ClockState | None = None
    after: clocks.ClockState | None = None
    failure: Check | None = None
    attempts: int = 1


def no_clocks() -> clocks.ClockState | None:
    """Where NVML is not available: nothing is read, no block is judged on its clocks."""
    return None


def check_share(output_bytes: int, rounds: int) -> float:
    """The chance that a timed call's outputs are fetched and compared."""
    floor = min(CHECK_FRACTION, MIN_CHECKS / max(rounds, 1))
    return max(floor, min(CHECK_FRACTION, CHECK_BYTES / max(output_bytes * rounds, 1)))


def time_stopped(runner: Any, reference: Any, args: list[Any], flush: torch.Tensor | None, *, gpu: bool,
                 trace: bool) -> tuple[Any, float, float]:  # fmt: skip
    """(out, device ms, host ms) of one reference call with the runner's processes stopped: CUDA events, or under
    all-stream timing (`trace`) its span of GPU activity on any stream, as the kernel is timed; the host clock on
    the CPU. The rounds and `run.Evaluation.time_reference_alone` time the reference through here alike."""
    runner.pause()
    try:
        with torch.no_grad():
            if gpu and trace:
                return _traced(reference, args, flush)
            if gpu:
                return timing.timed_call(reference, args, flush)
            t0 = timing._perf_counter()
            out = reference(*args)
            host = (timing._perf_counter() - t0) * 1e3
            return out, host, host
    finally:
        runner.resume()


def _traced(reference: Any, args: list[Any], flush: torch.Tensor | None) -> tuple[Any, float, float]:
    tracer = stream_span.Tracer()
    tracer.start()

    def marked(*given: Any) -> Any:
        with tracer.mark():
            return reference(*given)

    out, dev, host = timing.timed_call(marked, args, flush)
    span = tracer.stop()
    return out, span if span is not None else dev, host


class JudgeSide:
    def __init__(self, reference: Any, runner: Any, *, inputs: Callable[[int, int], list[Any]],
                 spec: Callable[[int, int], dict[str, Any]], shape: Any, tolerances: dict[str, Any],
                 device: torch.device, overhead: Overhead,
                 read_clocks: Callable[[], Any] = no_clocks,
                 compare: Callable[[list, list], Check] | None = None,
                 own_pids: Callable[[], set[int]] = lambda: {os.getpid()}, calls: int = 1) -> None:  # fmt: skip
        self.reference, self.runner, self.inputs, self.spec = reference, runner, inputs, spec
        """`inputs(i, j)` and `spec(i, j)`: call j of round i's span (call 0's inputs are the reference's too)."""
        self.calls = calls
        """Calls of the kernel per timed span (`span_calls`)."""
        self.own_pids = own_pids
        """The judge's and its runner's processes: any other on the GPU is named when the bound fails."""
        self.shape, self.tolerances, self.device, self.read_clocks = shape, tolerances, device, read_clocks
        self.overhead = overhead
        self.compare = compare or (lambda outs, expected: check_values(outs, expected, tolerances))
        """How a checked timed call's outputs are judged (the judge's: each rule the kernel still passes)."""
        self.allowance_ms = self.excess_ms = self.unseen_ms = 0.0
        """`unseen_ms`: how much of a call's time, at most over the blocks, the bound could not have seen: the
        allowance above the calibration's median, and as much again where this kernel's calls exceeded their
        reported time by less than that median (the calibration was too high for them, and a call could have
        hidden the difference)."""
        self.committed: list[str | None] = []
        """The runner's digests of the last span's calls' outputs, sent inside the span (see digest.py)."""
        self.relative = SPAN_RELATIVE
        self.flush: torch.Tensor | None = None
        self.timed = self.warmed = 0  # input indices used so far: every round gets inputs never used before
        self.unstable: list[str] = []
        """Blocks still down-clocked or throttled after every attempt, described."""

    def run(self, protocol: Any, seed: int, *, gpu: bool) -> timing.Series:
        """Every block in turn (each measured again while its clocks say it ran slowed, up to
        `block_attempts`); the series of all kept blocks, or the first failure."""
        self.gpu = gpu
        self.trace = gpu and protocol.all_stream_timing
        self.fresh_allocations(protocol)
        self.check_share = check_share(self.shape.nbytes, protocol.min_rounds)
        order = random.Random(seed)
        kept: list[Block] = []
        while timing.another_block([block_speedup(k) for k in kept], protocol):
            b = len(kept)
            for attempt in range(1, protocol.block_attempts + 1):
                if kept or attempt > 1:
                    time.sleep(protocol.block_gap_s)
                    self.fresh_allocations(protocol)
                block = self.block(b % 2 == 0, protocol, order, seed)
                if block.failure is not None:
                    return timing._series([s for k in kept for s in k.samples] + list(block.samples), "failed",
                                          block.failure)
                slowed = clocks.slowed(block.before, block.after, protocol.clock_floor)
                if not slowed or attempt == protocol.block_attempts:
                    break
            if slowed:
                self.unstable.append(f"block {b + 1}: {slowed} after {attempt} attempts")
            kept.append(dataclasses.replace(block, attempts=attempt))
        return self.series(kept)

    def block(self, kernel_first: bool, protocol: Any, order: random.Random, seed: int) -> Block:
        """Warm-up calls, then rounds until the block's own interval is tight, its share of the budget is
        spent, or it has max_rounds / timing_blocks rounds; then the judge's bound on the block."""
        for i in range(protocol.warmup_calls):
            self.warmed += 1
            _, verdict = self.round(-self.warmed, kernel_first=(i % 2 == 0) == kernel_first,
                                    check=self.warmed == 1 or order)
            if not verdict.ok:
                return Block((), "failed", kernel_first, failure=verdict)
        before = self.read_clocks()
        samples: list[tuple[float, ...]] = []
        rule = timing.per_block(protocol)
        cap, budget_s = rule.max_rounds, rule.time_budget_s
        started, stop = timing._perf_counter(), "max-rounds"
        for j in range(cap):
            index, self.timed = self.timed, self.timed + 1
            first = kernel_first if j == 0 else order.random() < 0.5
            sample, verdict = self.round(index, kernel_first=first, check=order)
            if not verdict.ok:
                return Block(tuple(samples), "failed", kernel_first, failure=verdict)
            samples.append(sample)
            ref, ker = [s[0] for s in samples], [s[1] for s in samples]
            if self.gpu and (j + 1) % timing.CHECK_EVERY == 0 and timing.converged(ref, ker, rule, seed + index):
                stop = "converged"
                break
            if timing._perf_counter() - started > budget_s and len(samples) >= rule.min_rounds:
                stop = "budget"
                break
        after = self.read_clocks()
        verdict = self.bound(timing._series(samples, stop, None))
        shared = clocks.others((before, after), self.own_pids()) if not verdict.ok else []
        if shared:  # the verdict stands (a bound never bends); the record says what else ran on the GPU
            verdict = dataclasses.replace(verdict, message=f"{verdict.message}; {len(shared)} other process(es) "
                                          f"used this GPU meanwhile ({', '.join(shared[:4])}), which delays the "
                                          "judge's clock: measure on a GPU of its own")
        return Block(tuple(samples), stop, kernel_first, before, after, None if verdict.ok else verdict)

    def bound(self, series: timing.Series) -> Check:
        """The judge's bound on one block's reported times: the allowance for the harness's own overhead and
        the verdict (the one place the allowance formula lives)."""
        floor, self.relative = (SPAN_FLOOR_MS, SPAN_RELATIVE) if self.gpu else (CPU_FLOOR_MS, CPU_RELATIVE)
        excess = list(np.asarray(series.spans_ms) - np.asarray(series.ker_ms))
        self.excess_ms = float(np.median(excess)) if excess else 0.0
        spread = 3.0 * math.hypot(self.overhead.median_se_ms, median_se(excess))
        # The median, like the excess it is compared with (the minimum left an honest 6.4 GB ReLU on an H100
        # 0.015 ms over); the relative slack covers the calibration too, most of it the digest's GPU work on
        # outputs of gigabytes.
        self.allowance_ms = self.overhead.median_ms * (1 + self.relative) + max(floor, spread)
        unseen = self.allowance_ms - self.overhead.median_ms + max(0.0, self.overhead.median_ms - self.excess_ms)
        self.unseen_ms = max(self.unseen_ms, unseen)
        verdict = span_verdict(list(series.ker_ms), list(series.spans_ms), self.allowance_ms, self.relative,
                               0.5 if self.gpu else CPU_QUANTILE)
        if verdict.ok:
            return verdict
        return dataclasses.replace(verdict, message=f"{verdict.message} [allowed: an honest call's excess "
                                   f"{self.overhead.median_ms:.4f} ms (the reference, timed by the runner before "
                                   f"the kernel loaded), noise {max(floor, spread):.4f} ms, {self.relative:.0%} of "
                                   "that and of the kernel's time]")

    def series(self, kept: list[Block]) -> timing.Series:
        """The kept blocks as one series: rounds labelled by block, and each block summarised."""
        samples = [s for k in kept for s in k.samples]
        stops = {k.stop for k in kept}
        stop = next((s for s in ("budget", "max-rounds") if s in stops), "converged")
        summaries = []
        for k in kept:
            ref, ker = [s[0] for s in k.samples], [s[1] for s in k.samples]
            state = clocks.merged(k.before, k.after)
            summaries.append(BlockTiming(float(np.median(ref)), float(np.median(ker)), timing.speedup(ref, ker),
                                         len(ref), k.kernel_first, state.sm_mhz if state else None,
                                         state.mem_mhz if state else None, state.reasons if state else (), k.attempts))
        block_of = tuple(b for b, k in enumerate(kept) for _ in k.samples)
        return dataclasses.replace(timing._series(samples, stop, None), block_of=block_of, blocks=tuple(summaries))

    def fresh_allocations(self, protocol: Any) -> None:
        """A new flush buffer here, and the runner told to make its own anew at its next `prepare`."""
        self.fresh = True
        if not self.gpu:
            return
        self.flush = None
        torch.cuda.empty_cache()
        self.flush = timing.flush_buffer(self.device, protocol.l2_flush_factor)

    def round(self, i: int, *, kernel_first: bool, check: Any) -> tuple[tuple[float, ...], Check]:
        inputs = self.inputs(i, 0)
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
        if checked:
            call = check.randrange(self.calls) if check is not True and self.calls > 1 else 0
            expected = self.expected(ref_out if call == 0 else self.call_reference(i, call))
            outs = self.runner.outputs(self.runner.request({"op": "fetch", "call": call}), self.shape, self.device)
            verdict = self.compare(outs, expected)
            if not verdict.ok:
                verdict = Check(False, "timed-output-mismatch", verdict.message)
            elif self.committed[call] != str(output_digest(outs)):
                verdict = Check(False, "timed-output-mismatch", "the outputs fetched after a timed call are not "
                                "the ones the runner committed to inside it: computed after the span, not in it")
        poison(ref_out)
        (ref_dev, ref_host), (ker_dev, ker_host, span) = values["ref"], values["ker"]
        return (ref_dev, ker_dev, ref_host, ker_host, span), verdict

    def expected(self, out: Any) -> list[Any]:
        return list(out) if self.shape.container else [out]

    def call_reference(self, i: int, call: int) -> Any:
        """The reference's outputs for a fetched call other than a span's first (untimed)."""
        with torch.no_grad():
            return self.reference(*self.inputs(i, call))

    def time_reference(self, inputs: list[Any]) -> tuple[Any, float, float]:
        """The reference on a fresh copy of the round's inputs, with the runner's processes stopped."""
        return time_stopped(self.runner, self.reference, clone_inputs(inputs), self.flush, gpu=self.gpu,
                            trace=self.trace)

    def time_kernel(self, i: int) -> tuple[float, float, float]:
        """One timed span of `calls` calls: (device ms, host ms, the judge's span) per call."""
        self.runner.request({"op": "prepare", "fresh": self.fresh, "trace": self.trace,
                             "flush_bytes": self.flush.numel() * 4 if self.flush is not None else 0})
        self.fresh = False
        specs = [self.spec(i, j) for j in range(self.calls)]  # the seeds, first seen inside the span
        t0 = timing._perf_counter()
        reply = self.runner.request({"op": "go", "inputs": specs})
        span = (timing._perf_counter() - t0) * 1e3
        digests = reply.get("digests")
        self.committed = [d if isinstance(d, str) else None for d in digests] \
            if isinstance(digests, list) and len(digests) == self.calls else [None] * self.calls
        times = reported(reply, self.calls)
        if times is not None and self.trace:  # the all-stream span, read after the judge's span closed
            try:
                times = ([float(self.runner.request({"op": "trace"})["span_ms"])], times[1])
            except (KeyError, TypeError, ValueError):
                times = None
        if times is None or not all(math.isfinite(d) and d > 0 for d in times[0]) or sum(times[0]) > span \
                or not all(math.isfinite(h) and h >= 0 for h in times[1]):
            return -1.0, 0.0, span / self.calls  # unreadable or impossible (more than the judge saw): refused
        return sum(times[0]) / self.calls, sum(times[1]) / self.calls, span / self.calls

    def describe_bound(self) -> str:
        return (f"reported kernel times bounded by the judge's spans: overhead allowed {self.allowance_ms:.3f} ms "
                f"per call + {self.relative:.0%} (an honest call's excess, the reference timed by the runner before "
                f"the kernel loaded: {self.overhead.median_ms:.3f} ms ± {self.overhead.median_se_ms:.3f}; this "
                f"kernel's calls: {self.excess_ms:.3f} ms; {self.calls} call(s) per span)")
