"""Uncertainty on fast_p: each counted kernel's speedup drawn from its own interval (a two-sided log-normal that
puts 95% of its draws inside it), fast_p's 95% interval over those draws, and the kernels whose interval
straddles p (ambiguous: fast_p may count them either way on a rerun)."""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

UNCERTAINTY_DRAWS = 2000
UNCERTAINTY_SEED = 21
Z95 = 1.959964


def speedup_draws(counted: np.ndarray, low: np.ndarray, high: np.ndarray, draws: int,
                  rng: np.random.Generator) -> np.ndarray:  # fmt: skip
    """(draws, kernels) speedups, each kernel's log-normal with separate spreads below and above its speedup so
    that its [low, high] holds 95% of its draws (no interval: the speedup itself)."""
    log_s = np.log(counted)
    below = (log_s - np.log(np.where(np.isfinite(low), low, counted))) / Z95
    above = (np.log(np.where(np.isfinite(high), high, counted)) - log_s) / Z95
    z = rng.standard_normal((draws, len(counted)))
    return np.exp(log_s + np.where(z < 0, z * below, z * above))


def fast_p_interval(counted: Sequence[float], low: Sequence[float], high: Sequence[float], n: int, p: float, *,
                    draws: int = UNCERTAINTY_DRAWS, seed: int = UNCERTAINTY_SEED) -> tuple[float, float]:  # fmt: skip
    """95% interval of fast_p with each counted kernel's speedup drawn from its own uncertainty."""
    if n <= 0 or not len(counted):
        return 0.0, 0.0
    values = speedup_draws(np.asarray(counted, float), np.asarray(low, float), np.asarray(high, float), draws,
                           np.random.default_rng(seed))
    lo, hi = np.percentile((values > p).sum(axis=1) / n, [2.5, 97.5])
    point = float(np.sum(np.asarray(counted, float) > p)) / n  # fast_p itself: kept inside the interval
    return float(min(lo, point)), float(max(hi, point))


def ambiguous(low: Sequence[float], high: Sequence[float], p: float) -> int:
    """Counted kernels whose interval straddles p: low <= p < high (fast_p counts a speedup strictly above p)."""
    return int(np.sum((np.asarray(low, float) <= p) & (np.asarray(high, float) > p)))
