"""Correctness: secret trial seeds, input variants, and the harness's own judgement of one output.

Every torch function used to judge an output is captured in `_OPS` when this module is imported, which
the worker does before any submitted code runs: a kernel that later patches `torch.allclose` or
`torch.isnan` cannot change how it is judged (`runner/integrity.py` also flags the patch itself).
Large tensors are compared in chunks so the comparison never needs several full-size temporaries, and
each chunk's partial results stay on the device until one host read at the end: a comparison costs a
few passes over memory, not one round trip per chunk (it runs after every correctness and timed call).
"""

from __future__ import annotations

import hashlib
import math
from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from types import SimpleNamespace
from typing import Any

import torch

_OPS = SimpleNamespace(
    **{name: getattr(torch, name) for name in (
        "abs", "sub", "mul", "add", "div", "le", "lt", "eq", "ne", "gt", "isnan", "isinf", "isfinite", "isclose",
        "logical_and", "logical_or", "logical_not", "where", "amax", "sum", "dot", "stack", "clamp", "nan_to_num",
        "any", "all", "reshape", "take", "float64", "float32",
    )},
    tensor_type=torch.Tensor,
)
CHUNK = 1 << 24
"""Elements compared per step (64 MiB of float32)."""


@dataclass(frozen=True)
class Check:
    """Verdict on one output (or one input-mutation check): ok, or a reason code and message."""

    ok: bool
    code: str = ""
    message: str = ""
    max_abs: float = 0.0
    max_rel: float = 0.0


PASSED = Check(ok=True)


def derive_seed(secret: int, purpose: str, index: int = 0) -> int:
    """A seed for (purpose, index) that cannot be guessed without the per-run secret."""
    digest = hashlib.sha256(f"{secret}:{purpose}:{index}".encode()).digest()
    return int.from_bytes(digest[:8], "little") & ((1 << 63) - 1)


def float64_inputs(inputs: Sequence[Any], device: Any = None) -> list[Any]:
    """Floating tensor inputs as float64, for running a Model in float64, each tensor on `device` (default: its)."""
    return [x.to(device or x.device, torch.float64 if x.is_floating_point() else x.dtype)
            if isinstance(x, torch.Tensor) else x for x in inputs]


def poison(obj: Any) -> None:
    """Overwrite a harness-owned result before dropping it, so memory the allocator hands out next never
    still holds a correct answer (a no-op kernel returning `torch.empty_like(x)` must fail)."""
    for t in obj if isinstance(obj, list | tuple) else [obj]:
        if type(t) is not _OPS.tensor_type or t.numel() == 0:
            continue
        if t.is_floating_point() or t.is_complex():
            t.detach().fill_(float("nan"))
        elif t.dtype != torch.bool:
            t.detach().fill_(-7 if t.dtype.is_signed else 0xA5)


def output_tensors(out: Any) -> tuple[list[Any], type | None]:
    """A reference output as a flat list (a tensor, or a tuple/list of tensors) and its container type."""
    return (list(out), type(out)) if type(out) in (list, tuple) else ([out], None)


def _chunks(numel: int) -> Iterator[slice]:
    for start in range(0, numel, CHUNK):
        yield slice(start, min(start + CHUNK, numel))


def _flat(t: torch.Tensor) -> torch.Tensor:
    return _OPS.reshape(t.detach(), (-1,))


def output_scale(expected: torch.Tensor) -> float:
    """max(1, RMS of the finite reference values): the absolute tolerance is relative to this.

    An honest fp32 kernel's rounding error grows with the magnitude of what it sums, not with the
    magnitude of the (possibly cancelled) result, so a fixed atol fails correct kernels on the x100
    input variant (tests/evaluate/judge/test_evaluate.py holds the evidence). RMS scaling keeps atol as written for
    outputs of order one."""
    if expected.numel() == 0:
        return 1.0
    squares, counts = [], []
    flat = _flat(expected)
    for s in _chunks(expected.numel()):
        e = _OPS.nan_to_num(flat[s].to(_OPS.float64), nan=0.0, posinf=0.0, neginf=0.0)  # non-finite count 0
        squares.append(_OPS.dot(e, e))
        counts.append(_OPS.sum(_OPS.isfinite(flat[s])).to(_OPS.float64))
    total, count = _OPS.sum(_OPS.stack(squares)), _OPS.sum(_OPS.stack(counts))
    total, count = (float(x) for x in _OPS.stack([total, count]).tolist())
    return max(1.0, math.sqrt(total / count)) if count else 1.0


def compare_values(out: torch.Tensor, expected: torch.Tensor, atol: float, rtol: float) -> Check:
    """torch.allclose semantics, |out - exp| <= atol * scale + rtol * |exp| with scale from `output_scale`;
    NaN and ±Inf positions must match; also the largest absolute and relative errors over finite positions."""
    if not expected.is_floating_point():
        same = all(bool(_OPS.all(_OPS.eq(_flat(out)[s], _flat(expected)[s]))) for s in _chunks(expected.numel()))
        return PASSED if same else Check(False, "output-mismatch", "integer/bool output differs from reference")
    o_all, e_all = _flat(out), _flat(expected)
    work = _OPS.float64 if expected.dtype == _OPS.float64 else _OPS.float32
    scaled_atol = atol * output_scale(expected)
    close = _close_everywhere(o_all, e_all, work, scaled_atol, rtol)
    if close is not None:
        return Check(True, max_abs=close[0], max_rel=close[1])
    return _first_difference(o_all, e_all, work, atol=atol, scaled_atol=scaled_atol, rtol=rtol)


def _close_everywhere(o_all: torch.Tensor, e_all: torch.Tensor, work: torch.dtype, scaled_atol: float,
                      rtol: float) -> tuple[float, float] | None:  # fmt: skip
    """(max abs error, max rel error) when every element is finite in both and within tolerance, else None.

    The common case, in few passes: a finite |out - exp| within a tolerance clamped to the largest finite
    value implies both values are finite (a NaN or an infinity in either makes the difference NaN or
    infinite), so NaN/Inf positions match and every position counts. Anything else is left to
    `_first_difference`, which finds and names what differs."""
    limit = torch.finfo(work).max
    oks, worst_abs, worst_rel = [], [], []
    for s in _chunks(e_all.numel()):
        o, e = o_all[s].to(work), e_all[s].to(work)
        diff = _OPS.abs(_OPS.sub(o, e))
        mag = _OPS.abs(e)
        tolerance = _OPS.clamp(_OPS.add(_OPS.mul(mag, rtol), scaled_atol), max=limit)
        oks.append(_OPS.all(_OPS.le(diff, tolerance)))
        worst_abs.append(_OPS.amax(diff))
        worst_rel.append(_OPS.amax(_OPS.where(_OPS.gt(mag, 0), _OPS.div(diff, mag), 0.0)))
    if not oks:
        return 0.0, 0.0
    ok, max_abs, max_rel = _OPS.stack([
        _OPS.all(_OPS.stack(oks)).to(work), _OPS.amax(_OPS.stack(worst_abs)), _OPS.amax(_OPS.stack(worst_rel)),
    ]).tolist()  # fmt: skip
    return (max_abs, max_rel) if ok else None


def _first_difference(o_all: torch.Tensor, e_all: torch.Tensor, work: torch.dtype, *, atol: float,
                      scaled_atol: float, rtol: float) -> Check:  # fmt: skip
    """The full check, chunk by chunk, naming the first kind of difference found."""
    max_abs = max_rel = 0.0
    bad = 0
    for s in _chunks(e_all.numel()):
        o, e = o_all[s].to(work), e_all[s].to(work)
        if bool(_OPS.any(_OPS.ne(_OPS.isnan(o), _OPS.isnan(e)))):
            return Check(False, "output-mismatch", "NaN positions differ from the reference")
        o_inf, e_inf = _OPS.isinf(o), _OPS.isinf(e)
        inf_differs = _OPS.logical_or(_OPS.ne(o_inf, e_inf), _OPS.logical_and(e_inf, _OPS.ne(o, e)))
        if bool(_OPS.any(inf_differs)):
            return Check(False, "output-mismatch", "±Inf positions or signs differ from the reference")
        finite = _OPS.logical_and(_OPS.isfinite(o), _OPS.isfinite(e))
        diff = _OPS.where(finite, _OPS.abs(_OPS.sub(o, e)), 0.0)
        mag = _OPS.where(finite, _OPS.abs(e), 0.0)
        bad += int(_OPS.sum(_OPS.logical_not(_OPS.le(diff, _OPS.add(_OPS.mul(mag, rtol), scaled_atol)))))
        if diff.numel():
            max_abs = max(max_abs, float(_OPS.amax(diff)))
            rel = _OPS.where(mag > 0, diff / _OPS.where(mag > 0, mag, 1.0), 0.0)
            max_rel = max(max_rel, float(_OPS.amax(rel)))
    if bad:
        return Check(
            False,
            "output-mismatch",
            f"{bad} of {e_all.numel()} elements outside atol={atol:g} (x{scaled_atol / atol:.3g} output scale) "
            f"rtol={rtol:g} (max abs error {max_abs:.3g}, max rel error {max_rel:.3g})",
            max_abs,
            max_rel,
        )
    return Check(True, max_abs=max_abs, max_rel=max_rel)


def tolerance_for(dtype: torch.dtype, tolerances: dict[str, Any]) -> tuple[float, float]:
    """(atol, rtol) for an output dtype; integer and bool outputs must match exactly."""
    tol = tolerances.get(str(dtype).removeprefix("torch."))
    if tol is None:
        return 0.0, 0.0
    return float(tol.atol), float(tol.rtol)


def check_values(outs: list[torch.Tensor], expected: list[torch.Tensor], tolerances: dict[str, Any]) -> Check:
    """Values of every output against the reference; the worst errors across outputs."""
    max_abs = max_rel = 0.0
    for o, e in zip(outs, expected, strict=True):
        atol, rtol = tolerance_for(e.dtype, tolerances)
        verdict = compare_values(o, e, atol, rtol)
        if not verdict.ok:
            return verdict
        max_abs, max_rel = max(max_abs, verdict.max_abs), max(max_rel, verdict.max_rel)
    return Check(True, max_abs=max_abs, max_rel=max_rel)


def inputs_unchanged(given: Sequence[Any], pristine: Sequence[Any]) -> Check:
    """The inputs a kernel was called with still equal the harness's pristine copies (NaN == NaN)."""
    for i, (g, p) in enumerate(zip(given, pristine, strict=True)):
        if not isinstance(p, torch.Tensor):
            continue
        if type(g) is not _OPS.tensor_type or g.shape != p.shape or g.dtype != p.dtype:
            return Check(False, "input-mutated", f"input {i} was replaced or reshaped in place")
        for s in _chunks(p.numel()):
            a, b = _flat(g)[s], _flat(p)[s]
            same = _OPS.eq(a, b)
            if p.is_floating_point():
                same = _OPS.logical_or(same, _OPS.logical_and(_OPS.isnan(a), _OPS.isnan(b)))
            if not bool(_OPS.all(same)):
                return Check(False, "input-mutated", f"input {i} was modified by the kernel")
    return PASSED


# ---- Reference outputs, computed before any submitted code is imported ---------------------------------


def reference_output(model: Any, inputs: Sequence[Any]) -> tuple[list[torch.Tensor], type | None]:
    """The reference's outputs on one call's inputs, as a flat list, and their container."""
    with torch.no_grad():
        tensors, container = output_tensors(model(*inputs))
    if not all(type(x) is _OPS.tensor_type for x in tensors):
        raise TypeError("the reference Model must return a tensor or a tuple/list of tensors")
    return [x.detach() for x in tensors], container
