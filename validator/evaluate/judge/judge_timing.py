"""Timing across the trust boundary: the judge asks two runners for timed spans in turn, the kernel's and its twin
(a runner started and confined alike that holds the reference and never the kernel), and bounds what the kernel's
runner reports by its own clock, against what the twin's honest calls cost on the same path in the same round.

The rounds run in `protocol.timing_blocks` independent blocks: each starts on fresh allocations (the judge's flush
buffer, and both runners' flush and input buffers, made anew, the caching allocators emptied) after a pause, warms up
again, and opens with the other side than the block before; inside a block the order of each round is random. NVML's
clock state is read after the block's warm-up and after its last round; a block that ran throttled or
down-clocked is measured again (`clocks.py`). Each block is bounded on its own (`JudgeSide.bound`).

Per round (reference and kernel in a random order), each side's runner first readies its span (`prepare`,
outside it: guards, flush buffer), then the judge measures the wall-clock span of `go`: for each call of the span
(`span_calls`, the same number on both sides, on the same specs: `trial_inputs`), the inputs made from the seed and
kind it brings, flush, events, call, synchronize, digest; then the reply. The kernel's runner is stopped while the
twin's span runs. Then the judge decides, by its secret order seed, which of the kernel's calls to `fetch` and
judge (`trial_inputs.read`, `read_share`); the runner learns which only after it has committed to every output.
Every call of the kernel is such a call: there are no others to tell apart.

The bound: per round, each side's excess is its span minus its reported device time, per call. A kernel whose
excess exceeds the twin's in the same round, at the median over a block's rounds, by more than the allowance is
`timing-unverified` (rejected). The allowance is `span_sigmas` (3) standard errors of that paired difference (at least
`Protocol.span_floor_ms`), plus `span_relative` of the kernel's time and of the twin's excess: so a noisy machine
widens it and a quiet one keeps it tight, and what changes during the run (clocks, the machine's load) moves both
sides alike.

Why a twin (protocol 13): protocol 12 calibrated the bound with honest calls of the reference through the kernel's
runner before the kernel was loaded, and timed the reference in the judge's own process, one call per round.
On an H200 that left two errors. A tie came out a win: PyTorch itself, submitted as the kernel, was held for
`timing-unresolved` because its 31 calls per span timed faster than the judge's single call of the same operator.
And honest kernels' calls exceeded their device time by more than the calibration's, measured minutes earlier:
0.22 ms more per call for the diagonal matmul (level1/12, refused), 0.41 ms more for level1/5 (1.00 of its
allowance used). A twin times the reference exactly as the kernel is timed, in the same rounds, so neither the
path nor the time of measurement differs between the two sides.
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

from validator.evaluate.correctness import PASSED, Check
from validator.evaluate.digest import output_digest
from validator.evaluate.judge import clocks, timing
from validator.protocol import PROTOCOL
from validator.results.records import BlockTiming

SPACER_PAGE = 2 << 20
"""A spacer is a whole number of these: the granule in which the CUDA driver maps device memory."""


NOT_COMMITTED = Check(False, "timed-output-mismatch", "the outputs fetched after a timed call are not the ones the "
                      "runner committed to inside it: computed after the span, not in it")


def placement(seed: int) -> random.Random:
    """The draw of a run's spacer sizes, from its secret seed (apart from the draw of the blocks' order)."""
    return random.Random(seed ^ 0x5ACE)


def spacer_bytes(rng: random.Random, protocol: Any) -> int:
    """A block's spacer for one runner: 0 to `placement_spacer_mib` MiB in whole pages, drawn uniformly."""
    return rng.randrange(protocol.placement_spacer_mib * (1 << 20) // SPACER_PAGE + 1) * SPACER_PAGE


def span_calls(reference_ms: float, call_bytes: int, protocol: Any, *, gpu: bool) -> int:
    """Calls of the kernel per timed span: enough for the reference's time to add up to `span_target_ms`, at
    most `max_span_calls` and `span_bytes` of inputs and outputs; on the CPU at most 2 (the path exercised, the
    interpreter's time spared)."""
    wanted = math.ceil(protocol.span_target_ms / max(reference_ms, 1e-3))
    calls = min(wanted, protocol.max_span_calls, protocol.span_bytes // max(call_bytes, 1))
    return max(1, calls if gpu else min(calls, 2))


def median_se(values: list[float]) -> float:
    """Standard error of the median, from the median absolute deviation (robust to a few disturbed calls)."""
    data = np.asarray(values, dtype=float)
    if data.size < 2:
        return 0.0
    sigma = 1.4826 * float(np.median(np.abs(data - np.median(data))))
    return 1.2533 * sigma / math.sqrt(data.size)


def crossover(differences: list[float], kernel_first: list[bool] | None) -> tuple[float, float]:
    """The paired difference between the sides' excess, and its standard error, as a crossover design estimates it:
    the mean of its medians over the rounds the kernel went first and over those the reference did, so whatever the
    first span of a round pays (the GPU's state after the judge's own work between rounds) cancels. The plain median
    where the rounds do not hold both orders."""
    data = np.asarray(differences, dtype=float)
    order = np.asarray(kernel_first if kernel_first is not None and len(kernel_first) == data.size else [],
                       dtype=bool)
    if not order.size or order.all() or not order.any():
        return float(np.median(data)), median_se(list(data))
    first, second = data[order], data[~order]
    estimate = 0.5 * (float(np.median(first)) + float(np.median(second)))
    return estimate, 0.5 * math.hypot(median_se(list(first)), median_se(list(second)))


def timed_span(runner: Any, specs: list[dict[str, Any]], *, fresh: bool, flush_bytes: int,
               spacer_bytes: int = 0) -> tuple[tuple[float, float, float], dict[str, Any]]:  # fmt: skip
    """One timed span through `runner`: `prepare` (untimed), then `go` on `specs` inside the judge's clock.
    (device ms, host ms, the judge's span) per call, with a negative device time for a reply that is unreadable or
    impossible (more than the judge saw); and the reply. The rounds time both sides through here, and the twin's
    spans before the kernel loads (`Evaluation.warm_reference`)."""
    calls = len(specs)
    runner.request({"op": "prepare", "fresh": fresh, "flush_bytes": flush_bytes, "spacer_bytes": spacer_bytes})
    t0 = timing._perf_counter()
    reply = runner.request({"op": "go", "inputs": specs})
    span = (timing._perf_counter() - t0) * 1e3
    try:
        dev, host = [float(v) for v in reply["device_ms"]], [float(v) for v in reply["host_ms"]]
    except (KeyError, TypeError, ValueError, OverflowError):  # a number past float's range too
        dev = host = []
    if not len(dev) == len(host) == calls or not all(math.isfinite(d) and d > 0 for d in dev) or sum(dev) > span \
            or not all(math.isfinite(h) and h >= 0 for h in host):
        return (-1.0, 0.0, span / calls), reply  # unreadable or impossible (more than the judge saw)
    return (sum(dev) / calls, sum(host) / calls, span / calls), reply


def settle(twin: Any, protocol: Any) -> tuple[float, bool]:
    """Wait for the GPU to go idle before the twin's span (`Runner.settle`): the last round trip's ms, and whether
    the GPU went idle within `Protocol.settle_ms`. The twin runs no submitted code: a reply it cannot account for is
    the harness's failure."""
    reply = twin.request({"op": "settle", "idle_ms": protocol.contention_ms, "trips": protocol.settle_trips,
                          "budget_ms": protocol.settle_ms})
    wait, settled = reply.get("wait_ms"), reply.get("settled")
    if not (isinstance(settled, bool) and isinstance(wait, (int, float)) and not isinstance(wait, bool)
            and math.isfinite(wait) and wait >= 0):
        raise RuntimeError(f"the twin runner's settle before its timed span replied {str(reply)[:200]}")
    return float(wait), settled


@dataclass(frozen=True)
class Block:
    """One measured block: its rounds' samples and the clock state read around them."""

    samples: tuple[tuple[float, ...], ...]
    kernel_first: bool
    before: clocks.ClockState | None = None
    after: clocks.ClockState | None = None
    failure: Check | None = None
    attempts: int = 1
    wait_ms: float = 0.0
    """The longest of the twin's last round trips before its spans (`settle`), in ms."""
    unsettled: int = 0
    """The twin's spans in the block that began before the GPU went idle (`Protocol.settle_ms`)."""
    shared: tuple[str, ...] = ()
    """Other processes NVML saw on the GPU, looked up where the bound failed or the twin waited."""


def read_share(output_bytes: int, rounds: int, protocol: Any) -> float:
    """The kernel's calls read per span, in expectation (`Protocol.read_share`); for outputs of gigabytes fewer, to
    `read_bytes` per problem over the minimum rounds but no fewer than `min_reads` (the runner cannot tell which)."""
    floor = min(protocol.read_share, protocol.min_reads / max(rounds, 1))
    return max(floor, min(protocol.read_share, protocol.read_bytes / max(output_bytes * rounds, 1)))


class JudgeSide:
    def __init__(self, runner: Any, twin: Any, *, spec: Callable[[int], dict[str, Any]],
                 judge: Callable[[int, Callable[[], list[Any] | Check]], Check],
                 read: Callable[[int, random.Random, float, int], bool],
                 required: int, shape: Any, device: torch.device, read_clocks: Callable[[], Any],
                 own_pids: Callable[[], set[int]] = lambda: {os.getpid()}, calls: int = 1) -> None:  # fmt: skip
        self.runner, self.twin, self.spec, self.judge, self.read = runner, twin, spec, judge, read
        """`twin`: the runner that holds the reference and times it as `runner` times the kernel. `spec(n)`: call n's
        inputs, on both sides; `judge(n, fetch)`: the judge's verdict on the kernel's call n, whose outputs `fetch()`
        brings (or the digest's failing check); `read(n, rng, share,
        calls)`: whether call n is read, drawn after its span."""
        self.required = required
        """Calls that are always read (the required trials): the first block warms up until they have run."""
        self.calls = calls
        """Calls per timed span (`span_calls`), the reference's as the kernel's."""
        self.own_pids = own_pids
        """The judge's and its runners' processes: any other on the GPU is named when the bound fails."""
        self.shape, self.device, self.read_clocks = shape, device, read_clocks
        self.allowance_ms = self.excess_ms = self.honest_ms = self.difference_ms = 0.0
        """Of the last block bounded: the allowance, the kernel's median excess per call, the twin's (`honest_ms`) and
        the crossover estimate of their difference (`difference_ms`)."""
        self.unseen_parts = (0.0, 0.0)
        """`unseen_ms` as the allowance and the difference between the sides' excess."""
        self.over_ms = 0.0
        """How far the kernel's calls exceeded the twin's beyond the noise allowance, at most over the blocks: above
        zero, inside the skew the bound tolerates (`Protocol.span_skew_ms`), so a win is held rather than published."""
        self.committed: list[str | None] = []
        """The runner's digests of the last span's calls' outputs, sent inside the span (see digest.py)."""
        self.relative = 0.0
        self.protocol: Any = PROTOCOL
        """The run's protocol (`run` sets it): the bound's allowance reads it."""
        self.flush: torch.Tensor | None = None
        self.next_call = 0
        """The number of the next call: every call, on both sides, gets inputs never used before."""
        self.fresh: dict[str, int] = {}
        """The sides whose runner has not yet been told, at its `prepare`, to make its allocations anew, each with
        the bytes of device memory it holds ahead of them through the block (`Protocol.placement_spacer_mib`)."""
        self.placement = random.Random()
        self.unstable: list[str] = []
        """Blocks still down-clocked or throttled after every attempt, described."""
        self.settled = (0.0, True)
        """The twin's last `settle`: its last round trip's ms, and whether the GPU went idle before its span."""
        self.contended: list[str] = []
        """Blocks with a twin's span begun on a busy GPU at every attempt (`Protocol.settle_ms`), described."""

    def run(self, protocol: Any, seed: int, *, gpu: bool) -> timing.Series:
        """Every block in turn (each measured again while its clocks say it ran slowed, or a twin's span in it began
        before the GPU went idle, up to `block_attempts`); the series of all kept blocks, or the first failure."""
        self.gpu, self.protocol = gpu, protocol
        self.placement = placement(seed)
        self.fresh_allocations(protocol)
        self.share = read_share(self.shape.nbytes, protocol.min_rounds, protocol)
        order = random.Random(seed)
        kept: list[Block] = []
        for b in range(protocol.timing_blocks):
            for attempt in range(1, protocol.block_attempts + 1):
                if kept or attempt > 1:
                    time.sleep(protocol.block_gap_s)
                    self.fresh_allocations(protocol)
                block = self.block(b % 2 == 0, protocol, order, seed)
                if block.failure is not None:
                    return timing._series([s for k in kept for s in k.samples] + list(block.samples), block.failure)
                slowed = clocks.slowed(block.before, block.after, protocol.clock_floor)
                contended = block.unsettled > 0
                if not (slowed or contended) or attempt == protocol.block_attempts:
                    break
            if slowed:
                self.unstable.append(f"block {b + 1}: {slowed} after {attempt} attempts")
            if contended:
                others = f" beside {', '.join(block.shared[:4])}" if block.shared else ""
                self.contended.append(f"block {b + 1}: {block.unsettled} of {len(block.samples)} spans, round trips "
                                      f"of {block.wait_ms:.3g} ms, after {attempt} attempts"
                                      + others)
            kept.append(dataclasses.replace(block, attempts=attempt))
        series = self.series(kept)
        self.unseen(series)
        return series

    @property
    def unseen_ms(self) -> float:
        """How much of a call's time, over every kept round pooled (`unseen`), the bound could not have seen: the
        allowance, and as much again where the kernel's calls exceeded their reported time by less than the twin's, or
        more by less than the skew the bound tolerates (a call could have hidden the difference)."""
        return sum(self.unseen_parts)

    def unseen(self, series: timing.Series) -> None:
        """What the judge's clock could not see of a call of the published median (`unseen_ms`), from every kept
        round pooled, as that median is: the allowance the bound would give them, and the difference between the sides'
        excess. Each block is still bounded on its own, so a forgery is rejected in any block it shows in; but until
        protocol 22 this took the largest over the blocks, and one block measured while the machine was busy set it
        alone (on the H200 the team's RMSNorm: 3.62 ms of allowance in one block, 4.48 ms unseen against a 4.14 ms
        median, held; its other blocks' allowances were a third of that)."""
        saved = (self.excess_ms, self.honest_ms, self.allowance_ms, self.difference_ms, self.over_ms)
        self.bound(series)  # the verdicts are the blocks', given already: only its figures are taken
        self.unseen_parts = (self.allowance_ms, abs(self.difference_ms))
        self.excess_ms, self.honest_ms, self.allowance_ms, self.difference_ms, self.over_ms = saved

    def block(self, kernel_first: bool, protocol: Any, order: random.Random, seed: int) -> Block:
        """Warm-up calls, then rounds until the block's own interval is tight, its share of the budget is
        spent, or it has max_rounds / timing_blocks rounds; then the judge's bound on the block, and how often the
        twin's span began before the GPU went idle."""
        warmups = protocol.warmup_calls
        if self.next_call < self.required:  # the first block: until every required trial has run
            warmups = max(warmups, -(-(self.required - self.next_call) // self.calls))
        for i in range(warmups):
            _, verdict = self.round(kernel_first=(i % 2 == 0) == kernel_first, order=order)
            if not verdict.ok:
                return Block((), kernel_first, failure=verdict)
        before = self.read_clocks()
        samples: list[tuple[float, ...]] = []
        waits: list[tuple[float, bool]] = []
        rule = timing.per_block(protocol)
        cap, budget_s = rule.max_rounds, rule.time_budget_s
        started = timing._perf_counter()
        first = kernel_first
        for j in range(cap):
            # Rounds in pairs, the second in the other order: each side goes first as often (see `crossover`).
            first = not first if j % 2 else (kernel_first if j == 0 else order.random() < 0.5)
            sample, verdict = self.round(kernel_first=first, order=order)
            if not verdict.ok:
                return Block(tuple(samples), kernel_first, failure=verdict)
            samples.append(sample)
            waits.append(self.settled)
            ref, ker = [s[0] for s in samples], [s[1] for s in samples]
            if self.gpu and (j + 1) % protocol.converge_check_every == 0 and \
                    timing.converged(ref, ker, rule, seed + self.next_call):
                break
            if timing._perf_counter() - started > budget_s and len(samples) >= rule.min_rounds:
                break
        after = self.read_clocks()
        verdict = self.bound(timing._series(samples))
        wait, unsettled = max((w for w, _ in waits), default=0.0), sum(not ok for _, ok in waits)
        contended = unsettled > 0
        shared = tuple(clocks.others((before, after), self.own_pids())) if contended or not verdict.ok else ()
        if shared and not verdict.ok:  # the verdict stands (a bound never bends); the record says what else ran
            verdict = dataclasses.replace(verdict, message=f"{verdict.message}; {len(shared)} other process(es) "
                                          f"used this GPU meanwhile ({', '.join(shared[:4])}), which delays the "
                                          "judge's clock: measure on a GPU of its own")
        return Block(tuple(samples), kernel_first, before, after, None if verdict.ok else verdict, wait_ms=wait,
                     unsettled=unsettled, shared=shared)

    def bound(self, series: timing.Series) -> Check:
        """The judge's bound on one block's reported times, paired round by round with the twin's honest calls:
        the allowance and the verdict (the one place the allowance formula lives). `timing-unverified` when the
        kernel's excess (the judge's span less the reported device time, per call) exceeds the twin's in the same
        round by more than the allowance: at the median over the rounds, estimated as a crossover (`crossover`, with
        each round's order); on the CPU, on the least delayed round (`Protocol.interpret_floor_ms`)."""
        # The floor is the judge's clock's resolution per span (most of it the crossing between processes), paid once
        # for all of the span's calls; on the CPU, a fixed allowance per call.
        floor, self.relative = (self.protocol.span_floor_ms / self.calls, self.protocol.span_relative) if self.gpu \
            else (self.protocol.interpret_floor_ms, self.protocol.interpret_relative)
        kernel = np.asarray(series.spans_ms) - np.asarray(series.ker_ms)
        honest = np.asarray(series.ref_spans_ms) - np.asarray(series.ref_ms)
        if not kernel.size or kernel.size != honest.size:
            return PASSED if not kernel.size else Check(False, "timing-unverified", "rounds without both spans")
        self.excess_ms, self.honest_ms = float(np.median(kernel)), float(np.median(honest))
        difference, se = crossover(list(kernel - honest), list(series.kernel_first) or None)
        # Both sides' excess moves with the machine (clocks, load), so the pairs' spread, not each side's, is the
        # noise; the relative slack covers what differs between two processes' identical paths.
        spread = self.protocol.span_sigmas * se
        self.allowance_ms = self.relative * self.honest_ms + max(floor, spread)
        skew = self.protocol.span_skew_ms if self.gpu else 0.0
        self.difference_ms = difference
        kernel_ms = float(np.median(series.ker_ms))
        self.over_ms = max(self.over_ms, difference - (self.allowance_ms + self.relative * kernel_ms))
        excess = difference if self.gpu else float(np.min(kernel - honest))
        allowed = self.allowance_ms + skew + self.relative * kernel_ms
        if excess > allowed:
            least = "" if self.gpu else " (on its least delayed round)"
            return Check(False, "timing-unverified", f"the runner reported a median of {kernel_ms:.4f} ms per call, "
                         f"but the judge's own clock saw {excess:.4f} ms more per call than that, beyond what the "
                         f"reference's honest calls cost on the same path in the same rounds,{least} (allowed "
                         f"{allowed:.4f} ms): the reported times are not the calls' times [the twin's honest calls "
                         f"exceeded their device time by {self.honest_ms:.4f} ms per call, this kernel's by "
                         f"{self.excess_ms:.4f} ms; allowed: noise {max(floor, spread):.4f} ms, {self.relative:.0%} of "
                         f"the twin's excess and of the kernel's time, and {skew:.2f} ms that honest kernels' runners "
                         "have shown against the twin]")
        return PASSED

    def series(self, kept: list[Block]) -> timing.Series:
        """The kept blocks as one series: rounds labelled by block, and each block summarised."""
        samples, summaries = [s for k in kept for s in k.samples], []
        for k in kept:
            ref, ker = [s[0] for s in k.samples], [s[1] for s in k.samples]
            state = clocks.merged(k.before, k.after)
            summaries.append(BlockTiming(float(np.median(ref)), float(np.median(ker)), timing.speedup(ref, ker),
                                         len(ref), k.kernel_first, state.sm_mhz if state else None,
                                         state.mem_mhz if state else None, state.reasons if state else (), k.attempts,
                                         k.wait_ms))
        block_of = tuple(b for b, k in enumerate(kept) for _ in k.samples)
        return dataclasses.replace(timing._series(samples), block_of=block_of, blocks=tuple(summaries))

    def fresh_allocations(self, protocol: Any) -> None:
        """A new flush buffer here, and both runners told to make their own anew at their next `prepare`, each
        behind a spacer of its own random size."""
        self.fresh = {side: spacer_bytes(self.placement, protocol) if self.gpu else 0
                      for side in ("kernel", "reference")}
        if not self.gpu:
            return
        self.flush = None
        torch.cuda.empty_cache()
        self.flush = timing.flush_buffer(self.device, protocol.l2_flush_factor)

    def round(self, *, kernel_first: bool, order: random.Random) -> tuple[tuple[float, ...], Check]:
        """One round: both sides' spans on the same specs, then the kernel's calls the judge reads, judged; the
        round's sample as `timing._series` reads it."""
        first = self.next_call
        self.next_call += self.calls
        specs = [self.spec(n) for n in range(first, self.next_call)]  # first seen by the runners inside their spans
        values: dict[str, tuple[float, float, float]] = {}
        for side in ("kernel", "reference") if kernel_first else ("reference", "kernel"):
            values[side] = self.time_kernel(specs) if side == "kernel" else self.time_reference(specs)
        if values["kernel"][0] < 0:
            return (0.0,) * 5, Check(False, "timing-unverified", "the runner reported an impossible device time "
                                     "(not a positive number no larger than the judge's span of the call)")
        verdict = PASSED
        for j in range(self.calls):
            if verdict.ok and self.read(first + j, order, self.share, self.calls):
                verdict = self.judge(first + j, lambda j=j: self.fetch(j))  # fetched after the judge's references
        (ref_dev, _, ref_span), (ker_dev, _, span) = values["reference"], values["kernel"]
        return (ref_dev, ker_dev, span, ref_span, float(kernel_first)), verdict

    def fetch(self, j: int) -> list[Any] | Check:
        """Call j of the last span's outputs, held to the digest committed inside the span."""
        outs = self.runner.outputs(self.runner.request({"op": "fetch", "call": j}), self.shape, self.device)
        return outs if self.committed[j] == str(output_digest(outs)) else NOT_COMMITTED

    def time_reference(self, specs: list[dict[str, Any]]) -> tuple[float, float, float]:
        """The twin's timed span on the kernel's specs, with the kernel's runner stopped and, first, the GPU let go
        idle (`settle`). The twin runs no submitted code: a reply it cannot account for is the harness's failure, not
        the kernel's."""
        self.runner.pause()
        try:
            self.settled = settle(self.twin, self.protocol)
            times, _ = self.span(self.twin, "reference", specs)
        finally:
            self.runner.resume()
        if times[0] < 0:
            raise RuntimeError("the twin runner's timed span of the reference reported impossible device times")
        return times

    def time_kernel(self, specs: list[dict[str, Any]]) -> tuple[float, float, float]:
        times, reply = self.span(self.runner, "kernel", specs)
        digests = reply.get("digests")
        self.committed = [d if isinstance(d, str) else None for d in digests] \
            if isinstance(digests, list) and len(digests) == self.calls else [None] * self.calls
        return times

    def span(self, runner: Any, side: str, specs: list[dict[str, Any]]) -> tuple[tuple[float, float, float],
                                                                             dict[str, Any]]:
        """One side's timed span of a round (`timed_span`)."""
        fresh, spacer = side in self.fresh, self.fresh.pop(side, 0)
        return timed_span(runner, specs, fresh=fresh,
                          flush_bytes=self.flush.numel() * 4 if self.flush is not None else 0, spacer_bytes=spacer)

    def describe_bound(self) -> str:
        return (f"reported kernel times bounded by the judge's spans: per call, this kernel's calls exceeded their "
                f"reported time by {self.excess_ms:.3f} ms, the reference's honest calls, timed by the twin runner on "
                f"the same path in the same rounds, by {self.honest_ms:.3f} ms; noise allowed {self.allowance_ms:.3f} "
                f"ms more + {self.relative:.0%} of the kernel's time"
                + (f", exceeded by {self.over_ms:.3f} ms (within the skew tolerated, so a win is held)"
                   if self.over_ms > 0 else "") + f"; {self.calls} call(s) per span")
