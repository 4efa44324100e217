"""What the judge and the runner share of the anti-cheat checks: the reason codes that reject a result or hold it
for review, the harness's full-precision settings (the judge's reference and the runner's kernel alike), and the
profiler attribution the runner measures (`runner/integrity.py`) and the judge reads (`judge/attribution.py`).

The checks themselves run in the runner (`runner/integrity.py`); the judge imports only this, never the runner's
package.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass

import torch

REJECT_CODES = frozenset(
    {
        "harness-patched",
        "output-aliases-input",
        "output-aliases-reference",
        "output-replayed",
        "side-stream",
        "background-thread",
        "persisting-l2",
        "precision-lowered",
        "timing-unverified",
        "kernel-changed",
        "cache-tampered",
    }
)
"""Evidence of an exploit: the result is REJECTED. (The last three are the judge's: a reported time its own
clock contradicts, a kernel file or a cache entry changed after it was hashed.)"""
REVIEW_CODES = frozenset(
    {"speedup-review", "speed-of-light", "timing-unresolved", "gpu-contention"}
)
"""Plausible but suspicious: a correct result is held as NEEDS_REVIEW."""


def force_full_precision() -> None:
    """The harness's settings for reference and kernel alike: no TF32 anywhere."""
    torch.backends.cuda.matmul.allow_tf32 = False
    torch.backends.cudnn.allow_tf32 = False
    torch.set_float32_matmul_precision("highest")


# ---- Kernel names for profiler attribution -----------------------------------------------------------


def kernel_base_name(profiled: str) -> str:
    """`void at::native::foo<4, float>(int, float*)` -> `foo`; `relu_vec4(float4 const*, ...)` -> `relu_vec4`."""
    name = profiled.replace("(anonymous namespace)::", "").strip()
    name = name.removeprefix("void ").split("(", 1)[0].split("<", 1)[0].strip()
    return name.rsplit("::", 1)[-1]


def is_own_kernel(profiled: str, own: Sequence[str]) -> bool:
    base = kernel_base_name(profiled)
    for name in own:
        if base == name:
            return True
        rest = base.removeprefix(name + "_") if base.startswith(name + "_") else None
        if rest and re.fullmatch(r"[0-9a-z]+", rest):  # older Triton: `softmax_rows_0d1d2d3de`
            return True
    return False


@dataclass(frozen=True)
class Attribution:
    """Which GPU work a kernel's calls launched, from a torch.profiler pass."""

    own_ms: float
    total_ms: float
    streams: tuple[int, ...]
    kernels: tuple[str, ...]
    """Distinct base names of every GPU kernel seen, own and library."""
    side_work: tuple[str, ...] = ()
    """Distinct names of the GPU work that ran off the harness's stream (full profiler names)."""

    def side_suspects(self, own: Sequence[str]) -> tuple[str, ...]:
        """Side-stream work a kernel could have put there itself: its own kernels, Triton kernels, PyTorch's
        own ops and copies. cuDNN and cuBLAS fork their kernels onto internal streams and join them before
        returning; PyTorch ops and Triton launches run on the caller's current stream unless it was changed."""
        return tuple(
            name
            for name in self.side_work
            if is_own_kernel(name, own)
            or kernel_base_name(name).startswith("triton_")
            or re.search(r"(?<!\w)at::", name)
            or name.lower().startswith(("memcpy", "memset"))
        )

    @property
    def own_fraction(self) -> float:
        return self.own_ms / self.total_ms if self.total_ms > 0 else 0.0
