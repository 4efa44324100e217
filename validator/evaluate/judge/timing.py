"""Timing's statistics: pure functions over lists of milliseconds (tested on the CPU), the series a judge's rounds
make (`judge_timing.JudgeSide`), and the size of the buffer whose zeroing flushes L2 before each timed call (the calls
themselves are timed in the runners: `runner/serve.py`). The judge's clock and the statistics' functions are captured
at import, before any submitted code runs.
"""

from __future__ import annotations

import dataclasses
import math
import time
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np
import torch

from validator.evaluate.correctness import Check
from validator.results.records import BlockTiming, Timing

_perf_counter = time.perf_counter
_median = np.median
_percentile = np.percentile


# ---- Statistics ----------------------------------------------------------------------------------------


def summarize(samples: Sequence[float]) -> Timing:
    data = np.asarray(samples, dtype=float)
    q1, med, q3 = _percentile(data, [25, 50, 75])
    return Timing(median=float(med), q1=float(q1), q3=float(q3), minimum=float(data.min()), n=len(data))


def speedup(reference: Sequence[float], kernel: Sequence[float]) -> float:
    return float(_median(reference) / _median(kernel))


def bootstrap_interval(reference: Sequence[float], kernel: Sequence[float], resamples: int,
                       seed: int) -> tuple[float, float]:  # fmt: skip
    """95% percentile-bootstrap interval of median(reference)/median(kernel), resampling rounds as pairs
    (a round's two samples share the GPU's state at that moment, so they move together)."""
    ref, ker = np.asarray(reference, dtype=float), np.asarray(kernel, dtype=float)
    idx = np.random.default_rng(seed).integers(0, len(ref), size=(resamples, len(ref)))
    ratios = _median(ref[idx], axis=1) / _median(ker[idx], axis=1)
    lo, hi = _percentile(ratios, [2.5, 97.5])
    return float(lo), float(hi)


def _block_groups(blocks: Sequence[int], n: int) -> list[np.ndarray]:
    """Round indices of each block, in block order (no block labels: every round is one block)."""
    labels = np.asarray(blocks if len(blocks) == n else [0] * n)
    return [np.flatnonzero(labels == b) for b in np.unique(labels)]


def hierarchical_replicates(reference: Sequence[float], kernel: Sequence[float], blocks: Sequence[int],
                            resamples: int, rng: np.random.Generator) -> np.ndarray:  # fmt: skip
    """Bootstrap replicates of the pooled speedup, median(reference)/median(kernel): blocks drawn with
    replacement, then rounds drawn with replacement (as pairs) inside each drawn block. Resampling blocks
    first carries the spread *between* blocks (fresh allocations, another moment of the GPU) into the
    replicates, which resampling rounds alone does not see."""
    ref, ker = np.asarray(reference, dtype=float), np.asarray(kernel, dtype=float)
    groups = _block_groups(blocks, len(ref))
    sizes = np.array([len(g) for g in groups])
    starts = np.concatenate([[0], np.cumsum(sizes)[:-1]])
    order = np.concatenate(groups)
    picks = rng.integers(0, len(groups), size=(resamples, len(groups)))
    drawn = sizes[picks][..., None]  # (resamples, blocks, 1): each drawn block keeps its own round count
    slots = np.arange(sizes.max())
    idx = order[starts[picks][..., None] + (rng.random((*picks.shape, len(slots))) * drawn).astype(int)]
    keep = slots < drawn  # a smaller block's unused slots are left out of the medians
    pooled = [np.where(keep, side[idx], np.nan).reshape(resamples, -1) for side in (ref, ker)]
    return np.nanmedian(pooled[0], axis=1) / np.nanmedian(pooled[1], axis=1)


def rerun_interval(reference: Sequence[float], kernel: Sequence[float], blocks: Sequence[int], resamples: int,
                   seed: int, *, rerun_sigma: float = 0.0) -> tuple[float, float]:  # fmt: skip
    """95% interval for the speedup a rerun would publish: the estimate times the 2.5th and 97.5th percentiles
    of the ratio of two independent hierarchical replicates. A rerun's estimate carries its own noise as
    well as ours, so it falls in a plain 95% interval for the true value only about 83% of the time; the
    ratio of two replicates has the spread of (rerun - this run), about sqrt(2) times wider. `rerun_sigma` is
    the relative sd per run of what the blocks cannot see (the protocol's); both runs carry it, so each bound
    is widened in log space, in quadrature, by 1.96 * sqrt(2) * rerun_sigma."""
    rng = np.random.default_rng(seed)
    first = hierarchical_replicates(reference, kernel, blocks, resamples, rng)
    second = hierarchical_replicates(reference, kernel, blocks, resamples, rng)
    count = len(_block_groups(blocks, len(reference)))
    # Resampling B blocks sees (B-1)/B of their variance; widened back in log space (3 blocks: x1.22).
    widen = np.sqrt(count / (count - 1)) if count > 1 else 1.0
    low, high = np.exp(widen * np.log(_percentile(first / second, [2.5, 97.5])))
    estimate = speedup(reference, kernel)
    return with_rerun_sigma(estimate, (float(estimate * low), float(estimate * high)), rerun_sigma)


def with_rerun_sigma(estimate: float, interval: tuple[float, float], rerun_sigma: float) -> tuple[float, float]:
    """`interval` with each bound's distance from `estimate` widened in log space, in quadrature, by
    1.96 * sqrt(2) * rerun_sigma (never narrowed)."""
    between = 1.96 * math.sqrt(2.0) * rerun_sigma
    low, high = math.log(interval[0] / estimate), math.log(interval[1] / estimate)
    return (estimate * math.exp(-math.hypot(min(low, 0.0), between)),
            estimate * math.exp(math.hypot(max(high, 0.0), between)))


def relative_halfwidth(estimate: float, interval: tuple[float, float]) -> float:
    """The interval's larger distance from the estimate, as a fraction of it."""
    return max(interval[1] / estimate - 1.0, 1.0 - interval[0] / estimate)


def converged(reference: Sequence[float], kernel: Sequence[float], protocol: Any, seed: int) -> bool:
    if len(reference) < protocol.min_rounds:
        return False
    interval = bootstrap_interval(reference, kernel, protocol.bootstrap_resamples, seed)
    return relative_halfwidth(speedup(reference, kernel), interval) <= protocol.target_ci_halfwidth


def per_block(protocol: Any) -> Any:
    """The protocol's round counts and budget as one block's share: min_rounds, max_rounds and time_budget_s
    are per problem, spread over `timing_blocks` (a block runs at least 2 rounds)."""
    blocks = max(1, protocol.timing_blocks)
    return dataclasses.replace(protocol, min_rounds=max(2, math.ceil(protocol.min_rounds / blocks)),
                               max_rounds=max(2, protocol.max_rounds // blocks),
                               time_budget_s=protocol.time_budget_s / blocks)


# ---- The series of timed rounds ------------------------------------------------------------------------


@dataclass(frozen=True)
class Series:
    """Samples of one timing run, in milliseconds, one per round (index i of each list is round i)."""

    ref_ms: tuple[float, ...]
    ker_ms: tuple[float, ...]
    """The device time per call the runners reported, round by round: the reference's (the twin's) and the kernel's."""
    failure: Check | None = None
    """Why the run stopped early, if it did: a round's failure or a block's bound."""
    spans_ms: tuple[float, ...] = ()
    """The judge's own wall-clock span of each timed kernel call (request to reply, per call), round by round."""
    ref_spans_ms: tuple[float, ...] = ()
    """The same span of the reference's calls, timed through the twin runner on the kernel's path."""
    kernel_first: tuple[bool, ...] = ()
    """Whether the kernel's span came first in each round."""
    block_of: tuple[int, ...] = ()
    """The block each round belongs to (empty: one block)."""
    blocks: tuple[BlockTiming, ...] = ()
    """Each block's summary, in order."""


def flush_bytes(device: torch.device, factor: float) -> int:
    """The size of the buffer whose zeroing evicts L2 before each timed call (a multiple of 4 bytes)."""
    return max(1, int(torch.cuda.get_device_properties(device).L2_cache_size * factor) // 4) * 4


def flush_buffer(device: torch.device, factor: float) -> torch.Tensor:
    return torch.empty(flush_bytes(device, factor) // 4, dtype=torch.float32, device=device)


def _series(samples: list[tuple[float, ...]], failure: Check | None = None) -> Series:
    """Rounds' samples, each (the reference's device ms, the kernel's, the judge's span of the kernel's calls, of the
    reference's, whether the kernel went first), as a series."""
    ref, ker, spans, ref_spans, firsts = (tuple(c) for c in zip(*samples, strict=True)) if samples else ((),) * 5
    return Series(ref, ker, failure, spans, ref_spans, tuple(bool(v) for v in firsts))


def result_fields(series: Series, protocol: Any, seed: int) -> dict[str, Any]:
    """The ProblemResult fields a finished series fills: medians with spread, the pooled speedup, the interval a
    rerun is expected to fall in (hierarchical over blocks and rounds), and each block's summary."""
    interval = rerun_interval(series.ref_ms, series.ker_ms, series.block_of, protocol.bootstrap_resamples, seed,
                              rerun_sigma=protocol.rerun_sigma)
    return {"blocks": series.blocks, "reference": summarize(series.ref_ms), "kernel": summarize(series.ker_ms),
            "speedup": speedup(series.ref_ms, series.ker_ms), "speedup_ci": interval, "rounds": len(series.ref_ms)}
