"""Hidden input variants made from upstream's own `get_inputs()` draw, without touching the problem file.

KernelBench draws most inputs uniform on [0, 1): positive, similar draw to draw, so a kernel that assumes
non-negative inputs, hard-codes a mean, or ignores an input can pass on them. Judging each trial also on
these variants, of the same shapes and dtypes, takes those shortcuts away:

    scaled-x3        every floating input times 3
    scaled-x0.01     every floating input times 0.01
    negated          every floating input negated
    standard-normal  a fresh N(0, 1) draw of every floating input (seeded by the harness's secret)

Integer and bool inputs (indices, labels, masks) and non-tensor inputs are passed through untouched: scaling
an index or a label changes what the problem means. Pure functions; the worker wiring is the judge's.
(Kept apart from correctness.py, already at the module-size limit.)
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

import torch

VARIANTS = ("scaled-x3", "scaled-x0.01", "negated", "standard-normal")


def _map_floating(value: Any, change: Callable[[torch.Tensor], torch.Tensor]) -> Any:
    if isinstance(value, torch.Tensor):
        return change(value) if value.is_floating_point() or value.is_complex() else value
    if isinstance(value, list | tuple):
        return type(value)(_map_floating(v, change) for v in value)
    return value


def _normal_like(seed: int) -> Callable[[torch.Tensor], torch.Tensor]:
    generators: dict[torch.device, torch.Generator] = {}

    def draw(t: torch.Tensor) -> torch.Tensor:
        if t.device not in generators:  # one generator per device, each seeded alike: reproducible per input
            generators[t.device] = torch.Generator(device=t.device).manual_seed(seed)
        fresh = torch.randn(t.shape, dtype=torch.float32 if t.is_complex() else t.dtype, device=t.device,
                            generator=generators[t.device])
        return fresh.to(t.dtype)

    return draw


def make_variant(inputs: Sequence[Any], variant: str, seed: int = 0) -> list[Any]:
    """New inputs of `variant` (one of VARIANTS) from `inputs`; `inputs` themselves are left as they are.
    `seed` only matters for standard-normal."""
    changes: dict[str, Callable[[torch.Tensor], torch.Tensor]] = {
        "scaled-x3": lambda t: t * 3,
        "scaled-x0.01": lambda t: t * 0.01,
        "negated": lambda t: -t,
        "standard-normal": _normal_like(seed),
    }
    if variant not in changes:
        raise ValueError(f"unknown input variant {variant!r}; expected one of {', '.join(VARIANTS)}")
    return [_map_floating(v, changes[variant]) for v in inputs]


def all_variants(inputs: Sequence[Any], seed: int = 0) -> dict[str, list[Any]]:
    """Upstream's draw (`upstream`, the inputs as given) and every hidden variant of it."""
    return {"upstream": list(inputs), **{name: make_variant(inputs, name, seed) for name in VARIANTS}}
