"""The reference in float64, beside the judge's fp32 one, on the inputs of every call the judge reads.

Two measures come of it, each a kernel's norm-wise error against float64 beside the fp32 reference's own:
- `error`: ‖out − ref64‖ / ‖ref64‖, the strict rule's precision check (`Protocol.precision_factor`, `_floor`):
  fp32 re-ordered sums land at 1e-7 to 1e-6, fp16, bf16 and TF32 internals at 1e-4 to 1e-2;
- `moving`: ‖out − ref64‖ / ‖ref64 − mean(ref64)‖, the error on the part of the output that moves with the inputs,
  which the headline holds to KernelBench's 1e-2 (`Protocol.tracks_inputs`). Upstream's U[0,1) draws make many
  outputs nearly constant from draw to draw (a sum over a large window, a large-K matmul's mean): an output computed
  once without reading the input, or rowsum(A)·colsum(B)/K for A·B, is within allclose's 1e-2 of the reference
  but off by about its whole moving part (an error near 1 here), while reduced-precision arithmetic stays near 1e-3.
On large outputs both compare a sample of positions drawn by the judge (`Protocol.precision_sample`): the norms are
means of squares, which a uniform sample estimates without bias, and the positions are never sent to the runner.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

import torch

from validator.evaluate.correctness import _OPS, _chunks, _flat, float64_inputs, output_tensors


def normwise_error(out: torch.Tensor, ref64: torch.Tensor, *, centered: bool = False) -> float:
    """‖out − ref‖ / ‖ref − c‖ in float64 over the positions `out`'s dtype carries (c: the mean of ref there when
    `centered`, else 0); inf when fewer than half of them are finite in both. A position is carried unless ref is
    non-zero below the dtype's smallest normal number: there the dtype holds a few bits or none, so an error says where
    the arithmetic underflowed, not how precise it was. A product of 256 standard-normal draws (91bfc2c's level1/50)
    is about 1e-70; the few outputs that reach float32's subnormals set the whole norm, and an honest sequential
    product was `precision-lowered` at 15 times the fp32 reference's error on an H100 (protocol 24)."""
    if ref64.numel() == 0:
        return 0.0
    o_all, r_all, tiny, sums = _flat(out), _flat(ref64), torch.finfo(out.dtype).tiny, []
    for s in _chunks(ref64.numel()):
        o, r = o_all[s].to(_OPS.float64), r_all[s].to(_OPS.float64)
        carried = _OPS.logical_not(_OPS.logical_and(_OPS.ne(r, 0.0), _OPS.lt(_OPS.abs(r), tiny)))
        finite = _OPS.logical_and(carried, _OPS.logical_and(_OPS.isfinite(o), _OPS.isfinite(r)))
        d, kept = _OPS.where(finite, _OPS.sub(o, r), 0.0), _OPS.where(finite, r, 0.0)
        sums.append(_OPS.stack([_OPS.dot(d, d), _OPS.dot(kept, kept), _OPS.sum(kept), _OPS.sum(finite).to(d.dtype),
                                _OPS.sum(carried).to(d.dtype)]))  # fmt: skip
    num, squares, total, count, positions = _OPS.sum(_OPS.stack(sums), 0).tolist()
    if count * 2 < positions:
        return math.inf
    den = squares - total * total / max(count, 1) if centered else squares  # none carried: 0 of nothing
    if den <= 1e-30 * max(squares, 1e-300):
        return 0.0 if num == 0.0 else math.inf
    return math.sqrt(num / den)


@dataclass(frozen=True)
class Errors:
    """A read call's errors against float64: the kernel's and the fp32 reference's, whole and on the moving part."""

    kernel: float
    reference: float
    kernel_moving: float
    reference_moving: float


Picked = tuple[torch.Tensor | None, torch.Tensor]
"""A float64 reference output at the flat positions the judge compares, and those positions (None: all of them)."""


class Float64:
    """The reference model run in float64: a model of its own (its parameters and buffers, tensors it keeps as plain
    attributes such as an RNN's initial state, and floating inputs upcast)."""

    def __init__(self, model: Any, sample: int) -> None:
        self.model, self.sample = model.double(), sample
        for module in self.model.modules():  # `.double()` converts parameters and buffers only
            for name, value in list(vars(module).items()):
                if type(value) is torch.Tensor and value.is_floating_point():
                    setattr(module, name, value.double())
        self.device: torch.device | None = None
        """Where the float64 pass runs: with the reference (None), or on the CPU once it did not fit on the GPU."""

    def reference(self, inputs: list[Any], seed: int) -> list[Picked | None]:
        """The float64 reference of one call, only at the positions compared of each output (`picked`; None for one
        that is not floating). It empties `inputs` once they are upcast, so the judge holds the float64 call's inputs
        and output alone while it runs, and keeps none of the output beyond those positions."""
        wide = float64_inputs(inputs, self.device)
        inputs.clear()
        with torch.no_grad():
            ref64 = output_tensors(self.model(*wide))[0]
        return [self.picked(r, seed + 7919 * k) if r.is_floating_point() else None for k, r in enumerate(ref64)]

    def errors(self, picked: Sequence[Picked | None], ref32: Sequence[Any], outs: Sequence[Any]) -> Errors | None:
        """The worst over outputs of each error on one call, against its float64 reference (`reference`); None where
        the fp32 reference is itself not finite against float64 (an overflow: the check says nothing there). An
        output with no moving part (constant, or one element) counts 0 there."""
        worst = [0.0, 0.0, 0.0, 0.0]
        for wide, out, r32 in zip(picked, outs, ref32, strict=True):
            if wide is None:
                continue
            positions, r64 = (t if t is None else t.to(out.device) for t in wide)
            o, r = (t if positions is None else _OPS.take(t.detach(), positions) for t in (out, r32))
            moving = normwise_error(o, r64, centered=True), normwise_error(r, r64, centered=True)
            moving = moving if math.isfinite(moving[1]) else (0.0, 0.0)
            values = (normwise_error(o, r64), normwise_error(r, r64), *moving)
            worst = [max(a, b) for a, b in zip(worst, values, strict=True)]
        return Errors(*worst) if math.isfinite(worst[1]) else None

    def picked(self, t: torch.Tensor, seed: int) -> Picked:
        """`t` at the flat positions compared, drawn by `seed`, and those positions (None: all of them, the tensor is
        small enough)."""
        if t.numel() <= self.sample:
            return None, t
        gen = torch.Generator(device=t.device).manual_seed(seed & ((1 << 63) - 1))
        positions = torch.randint(0, t.numel(), (self.sample,), generator=gen, device=t.device)
        return positions, _OPS.take(t.detach(), positions)
