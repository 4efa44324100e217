"""The precision check: a kernel's norm-wise error against the reference run in float64, beside the fp32
reference's own error, on two draws (the problem's distribution, and the same spread over decades); on large
outputs, at positions sampled by the judge (`PRECISION_SAMPLE`)."""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

import torch

from validator.evaluate.worker.correctness import (
    _OPS,
    _chunks,
    _flat,
    clone_inputs,
    float64_inputs,
    output_tensors,
    poison,
    widen_dynamic_range,
)
from validator.protocol import PROTOCOL

PRECISION_FACTOR = PROTOCOL.precision_factor
PRECISION_FLOOR = PROTOCOL.precision_floor


def normwise_error(out: torch.Tensor, ref64: torch.Tensor) -> float:
    """‖out − ref‖ / ‖ref‖ in float64 over positions where both are finite (inf when the mask is empty)."""
    if ref64.numel() == 0:
        return 0.0
    parts = []
    o_all, r_all = _flat(out), _flat(ref64)
    for s in _chunks(ref64.numel()):
        o, r = o_all[s].to(_OPS.float64), r_all[s].to(_OPS.float64)
        finite = _OPS.logical_and(_OPS.isfinite(o), _OPS.isfinite(r))
        d = _OPS.where(finite, _OPS.sub(o, r), 0.0)
        kept = _OPS.where(finite, r, 0.0)
        parts.append(_OPS.stack([_OPS.dot(d, d), _OPS.dot(kept, kept), _OPS.sum(finite).to(_OPS.float64)]))
    num, den, count = _OPS.sum(_OPS.stack(parts), 0).tolist()
    if count * 2 < ref64.numel():
        return math.inf
    if den == 0.0:
        return 0.0 if num == 0.0 else math.inf
    return math.sqrt(num / den)


@dataclass(frozen=True)
class Precision:
    """A kernel's norm-wise error against a float64 reference, beside the fp32 reference's own error."""

    kernel_error: float
    reference_error: float
    bound: float

    @property
    def lowered(self) -> bool:
        return not self.kernel_error <= self.bound

    def describe(self) -> str:
        return (
            f"relative error vs float64: kernel {self.kernel_error:.3g}, fp32 reference "
            f"{self.reference_error:.3g}, bound {self.bound:.3g}"
        )


def precision_verdict(kernel_error: float, reference_error: float) -> Precision:
    bound = max(PRECISION_FACTOR * reference_error, PRECISION_FLOOR)
    return Precision(kernel_error, reference_error, bound)


PRECISION_SAMPLE = PROTOCOL.precision_sample
"""Outputs larger than this many elements are compared with their float64 reference at this many positions,
drawn uniformly (with replacement) by the judge's secret seed, instead of everywhere.

Why the check keeps its power: the norm-wise error is sqrt(mean(d^2) / mean(r^2)); a uniform sample estimates
both means without bias, to a relative error of about sqrt(Var(d^2) / m) / mean(d^2) for m positions. A kernel
that lowers precision (fp16, bf16, TF32 internals: errors 10x to 10^4x over the bound) anywhere in more than a
few thousandths of its output moves the sampled estimate as much as the full one; one that lowers it on fewer
positions moves the full norm-wise error by less than the 10x bound could see either. The positions are drawn
by the judge from the run's secret and never sent to the runner. What the judge keeps is 16M float64 values per
output (128 MiB) instead of the whole float64 output (12.8 GB for upstream's 19_ReLU), per set."""


def sample_positions(t: torch.Tensor, seed: int) -> torch.Tensor | None:
    """The flat positions checked in `t` (None: every position, the tensor is small enough)."""
    if t.numel() <= PRECISION_SAMPLE:
        return None
    gen = torch.Generator(device=t.device).manual_seed(seed)
    return torch.randint(0, t.numel(), (PRECISION_SAMPLE,), generator=gen, device=t.device)


def sampled(t: torch.Tensor, positions: torch.Tensor | None) -> torch.Tensor:
    return t if positions is None else _OPS.take(t.detach(), positions)


@dataclass(frozen=True)
class PrecisionSet:
    ref64: list[torch.Tensor]
    """The reference run in float64 (parameters and floating inputs upcast), at `positions` only."""
    reference_error: float
    """Norm-wise error of the fp32 reference itself against `ref64`, at the same positions."""
    index: int = 0
    """0: a draw from the problem's distribution; 1: the same widened over decades (`widen_dynamic_range`)."""
    positions: tuple[torch.Tensor | None, ...] = ()
    """Per output, the flat positions compared (None: all of them; `PRECISION_SAMPLE`)."""

    def kernel_error(self, outs: Sequence[torch.Tensor]) -> float:
        """The kernel's norm-wise error over the same positions as the reference's."""
        positions = self.positions or (None,) * len(outs)
        return max(normwise_error(sampled(o, p), r) for o, p, r in zip(outs, positions, self.ref64, strict=True))


def precision_references(model: Any, make: Callable[[int], list[Any]], widen_seed: int,
                         sample_seed: int = 0) -> list[PrecisionSet]:  # fmt: skip
    """Float64 references for a draw from the problem's distribution and for one whose values are spread
    over four decades of magnitude, kept at the positions the check compares (`PRECISION_SAMPLE`); sets whose
    fp32 reference overflows are left out."""
    import copy

    model64 = copy.deepcopy(model).double()
    sets = []
    with torch.no_grad():
        for index in (0, 1):
            inputs = make(index) if index == 0 else widen_dynamic_range(make(index), widen_seed)
            ref32, _ = output_tensors(model(*clone_inputs(inputs)))
            ref64, _ = output_tensors(model64(*float64_inputs(inputs)))
            del inputs
            seeds = [(sample_seed + 7919 * (index + 1) + i) & ((1 << 63) - 1) for i in range(len(ref64))]
            positions = tuple(sample_positions(r, seed) for r, seed in zip(ref64, seeds, strict=True))
            ref64 = [sampled(r, p).clone() for r, p in zip(ref64, positions, strict=True)]
            error = max(normwise_error(sampled(a, p), b) for a, p, b in zip(ref32, positions, ref64, strict=True))
            poison(ref32)
            if math.isfinite(error):
                sets.append(PrecisionSet(ref64, error, index, positions))
    return sets
