"""Timing statistics on synthetic samples (CPU), and the interleaved timed loop itself (GPU)."""

from __future__ import annotations

import random
from dataclasses import replace

import pytest

from validator.evaluate.judge import timing
from validator.protocol import PROTOCOL


def _noisy(median: float, spread: float, n: int, seed: int) -> list[float]:
    rng = random.Random(seed)
    return [median * (1 + rng.gauss(0, spread)) for _ in range(n)]


def test_summary_reports_median_quartiles_minimum_and_count():
    summary = timing.summarize([5.0, 1.0, 3.0, 2.0, 4.0])
    assert (summary.median, summary.q1, summary.q3, summary.minimum, summary.n) == (3.0, 2.0, 4.0, 1.0, 5)


def test_speedup_is_the_ratio_of_medians():
    assert timing.speedup([4.0, 4.0, 100.0], [1.0, 2.0, 2.0]) == 2.0


def test_the_bootstrap_interval_covers_the_true_speedup_and_narrows_with_more_rounds():
    ref, ker = _noisy(2.0, 0.02, 400, 1), _noisy(1.0, 0.02, 400, 2)
    short = timing.bootstrap_interval(ref[:20], ker[:20], 2000, seed=3)
    long = timing.bootstrap_interval(ref, ker, 2000, seed=3)
    assert short[0] < 2.0 < short[1] and long[0] < 2.0 < long[1]
    assert long[1] - long[0] < short[1] - short[0]


def test_the_bootstrap_is_reproducible_for_a_seed():
    ref, ker = _noisy(2.0, 0.05, 50, 1), _noisy(1.0, 0.05, 50, 2)
    assert timing.bootstrap_interval(ref, ker, 500, 9) == timing.bootstrap_interval(ref, ker, 500, 9)


def test_pairing_rounds_cancels_drift_shared_by_both_sides():
    drift = [1.0 + 0.5 * i / 40 for i in range(40)]  # both sides slow down together over the run
    ref, ker = [2.0 * d for d in drift], [1.0 * d for d in drift]
    low, high = timing.bootstrap_interval(ref, ker, 1000, seed=0)
    assert low == pytest.approx(2.0) and high == pytest.approx(2.0)


def test_relative_halfwidth_takes_the_wider_side():
    assert timing.relative_halfwidth(2.0, (1.9, 2.02)) == pytest.approx(0.05)


def test_rounds_stop_only_after_the_minimum_and_once_the_interval_is_tight():
    protocol = replace(PROTOCOL, min_rounds=10, target_ci_halfwidth=0.01, bootstrap_resamples=500)
    tight_ref, tight_ker = _noisy(2.0, 0.001, 30, 1), _noisy(1.0, 0.001, 30, 2)
    assert not timing.converged(tight_ref[:9], tight_ker[:9], protocol, seed=0)
    assert timing.converged(tight_ref, tight_ker, protocol, seed=0)
    noisy_ref, noisy_ker = _noisy(2.0, 0.2, 30, 1), _noisy(1.0, 0.2, 30, 2)
    assert not timing.converged(noisy_ref, noisy_ker, protocol, seed=0)


def test_result_fields_fill_medians_speedup_interval_and_rounds():
    series = timing.Series(tuple(_noisy(2.0, 0.01, 20, 1)), tuple(_noisy(1.0, 0.01, 20, 2)))
    fields = timing.result_fields(series, PROTOCOL, seed=1)
    assert fields["rounds"] == 20
    assert fields["speedup"] == pytest.approx(2.0, rel=0.02)
    assert fields["speedup_ci"][0] <= fields["speedup"] <= fields["speedup_ci"][1]
    assert fields["reference"].median == pytest.approx(2.0, rel=0.02)
