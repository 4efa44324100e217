"""Hidden input variants made from upstream's own `get_inputs()` draw, without touching the problem file.

KernelBench draws most inputs uniform on [0, 1): positive, similar draw to draw, so a kernel that assumes
non-negative inputs, hard-codes a mean, or ignores an input can pass on them. Judging each trial also on
these variants, of the same shapes and dtypes, takes those shortcuts away:

    scaled-x3        every floating input times 3
    scaled-x0.01     every floating input times 0.01
    negated          every floating input negated
    standard-normal  a fresh N(0, 1) draw of every floating input (seeded by the harness's secret)

Integer and bool inputs (indices, labels, masks) and non-tensor inputs are passed through untouched: scaling
an index or a label changes what the problem means. The given inputs are changed only where a caller asks
(`consume`); the worker wiring is the judge's.
(Kept apart from correctness.py, already at the module-size limit.)
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

import torch

from validator.protocol import HIDDEN_VARIANTS as HIDDEN


def _map_floating(value: Any, change: Callable[[torch.Tensor], torch.Tensor]) -> Any:
    if isinstance(value, torch.Tensor):
        return change(value) if value.is_floating_point() or value.is_complex() else value
    if isinstance(value, list | tuple):
        return type(value)(_map_floating(v, change) for v in value)
    return value


def _normal_like(seed: int, consume: bool) -> Callable[[torch.Tensor], torch.Tensor]:
    generators: dict[torch.device, torch.Generator] = {}

    def draw(t: torch.Tensor) -> torch.Tensor:
        if t.device not in generators:  # one generator per device, each seeded alike: reproducible per input
            generators[t.device] = torch.Generator(device=t.device).manual_seed(seed)
        # torch.randn is normal_ on a new tensor: the same values in place or not
        into = t if consume and not t.is_complex() else torch.empty(
            t.shape, dtype=torch.float32 if t.is_complex() else t.dtype, device=t.device)
        return into.normal_(generator=generators[t.device]).to(t.dtype)

    return draw


def make_variant(inputs: Sequence[Any], variant: str, seed: int = 0, *, consume: bool = False) -> list[Any]:
    """New inputs of `variant` from `inputs`: `upstream` (the draw as given), `negated`, `standard-normal`
    (`seed` only matters for it) or `scaled-x<factor>` for any positive factor. The given inputs are left as
    they are, unless `consume`: then their floating tensors are changed in place and returned, for a caller that
    drew them for this trial alone (the judge and the runner): a second copy of upstream's inputs did not fit
    beside the first on an 80 GB GPU (level1/45 draws 16 GiB), with the same values either way."""
    if variant == "upstream":
        return list(inputs)
    consume = consume and not _unsafe_in_place(inputs)
    change: Callable[[torch.Tensor], torch.Tensor]
    if variant == "negated":
        change = torch.Tensor.neg_ if consume else torch.neg
    elif variant == "standard-normal":
        change = _normal_like(seed, consume)
    elif variant.startswith("scaled-x") and (factor := _factor(variant)) is not None:
        change = (lambda t: t.mul_(factor)) if consume else (lambda t: t * factor)
    else:
        raise ValueError(f"unknown input variant {variant!r}; expected upstream, negated, standard-normal or "
                         "scaled-x<factor>")
    return [_map_floating(v, change) for v in inputs]


def _unsafe_in_place(inputs: Sequence[Any]) -> bool:
    """Whether changing the floating inputs in place could differ from changing copies: two of them on one
    storage (`[x, x]`, `[a, a.T]`) would be changed twice; an expanded view cannot be written; a tensor that
    requires grad cannot be changed in place."""
    floating: list[torch.Tensor] = []
    _map_floating(list(inputs), lambda t: floating.append(t) or t)  # the tensors a variant would change
    storages = [t.untyped_storage().data_ptr() for t in floating]
    return len(set(storages)) < len(storages) or any(t.requires_grad or not t.is_contiguous() for t in floating)


def _factor(variant: str) -> float | None:
    try:
        factor = float(variant.removeprefix("scaled-x"))
    except ValueError:
        return None
    return factor if factor > 0 else None


def trial_variants(scales: Sequence[float], hidden: Sequence[str] = HIDDEN, upstream: int = 1) -> tuple[str, ...]:
    """The variant of each correctness trial, in turn: `upstream` draws of the problem's own inputs first
    (the judge makes as many as KernelBench's trials), then the hidden variants, then each scale the problem
    allows (the protocol's, or its overlay's narrower list)."""
    return (*("upstream",) * upstream, *hidden, *(f"scaled-x{s:g}" for s in scales if s != 1.0))
