"""Speed-of-light: the least time a problem can take on a GPU, from its FLOPs and minimum bytes moved.

    bound_ms = max(flops / peak_flops(dtype), min_bytes / bandwidth)

A kernel faster than this bound is implausible and is held for review. The bound must be a floor,
so each ceiling is the highest rate a correct kernel can sustain, and the result names the ceilings used.

Ceilings (DESIGN.md "Measured facts"; measured unless marked datasheet):

| GPU (hardware key)     | bandwidth (copy, read+write) | bf16/fp16 tensor | fp32                        |
|------------------------|------------------------------|------------------|-----------------------------|
| H200 (`nvidia-h200*`)  | 4.3 TB/s                     | 788 TFLOP/s      | 67 TFLOP/s (datasheet)      |
| H100 SXM (`nvidia-h100-sxm*`, `nvidia-h100-80gb-hbm3*`) | 3.0 TB/s | 798 TFLOP/s | 67 TFLOP/s (datasheet) |

Which fp32 ceiling and why: an fp32 problem uses the datasheet fp32 (non-tensor-core) peak, 67 TFLOP/s,
not the 51 TFLOP/s measured for cuBLAS's 4096³ matmul on the H200: the measured figure is what one
library reaches, not a limit, and a hand-tuned kernel may get closer to the peak, so using 51 would let
a legitimate kernel "beat the speed of light". TF32 tensor cores are not a valid fp32 ceiling (the
protocol rejects the precision loss). Split-precision emulation (3xTF32) can exceed 67 TFLOP/s while
staying accurate; such a kernel is held for review, which is the intended outcome for a surprise.
Bandwidth uses the measured device-to-device copy rate: no kernel streams HBM faster than a copy.
float64 uses the datasheet fp64 tensor-core peak (67 TFLOP/s, full precision); integer and bool
problems get the bandwidth bound only.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Any


@dataclass(frozen=True)
class Ceiling:
    """One rate with where it comes from."""

    value: float
    """FLOP/s or bytes/s."""
    source: str
    """`measured: ...` or `datasheet: ...`."""


@dataclass(frozen=True)
class GpuCeilings:
    name: str
    pattern: str
    """Regex matched against the hardware key (validator.results.records.hardware_key)."""
    bandwidth: Ceiling
    compute: dict[str, Ceiling]
    """Peak FLOP/s per dtype name (`float32`, `bfloat16`, ...)."""


_H200_BF16 = Ceiling(788e12, "measured: bf16 matmul, H200")
_H100_BF16 = Ceiling(798e12, "measured: bf16 matmul, H100 SXM")
_FP64 = Ceiling(67e12, "datasheet: fp64 tensor-core peak (full fp64 precision)")
_FP32 = Ceiling(67e12, "datasheet: fp32 non-tensor-core peak (cuBLAS fp32 4096³ reaches 51 TFLOP/s measured)")

GPUS: tuple[GpuCeilings, ...] = (
    GpuCeilings(
        "NVIDIA H200", r"^nvidia-h200",
        Ceiling(4.3e12, "measured: device-to-device copy, bytes read + written, H200"),
        {"float32": _FP32, "bfloat16": _H200_BF16, "float16": _H200_BF16,
         "float64": _FP64},
    ),
    GpuCeilings(
        "NVIDIA H100 SXM", r"^nvidia-h100-(sxm|80gb-hbm3)",
        Ceiling(3.0e12, "measured: device-to-device copy, bytes read + written, H100 SXM"),
        {"float32": _FP32, "bfloat16": _H100_BF16, "float16": _H100_BF16,
         "float64": _FP64},
    ),
)


class UnknownHardware(ValueError):
    """No ceilings are recorded for this hardware key."""


@dataclass(frozen=True)
class Bound:
    """A speed-of-light time and what it rests on."""

    ms: float
    limited_by: str
    """`compute` or `memory`."""
    compute_ms: float | None
    """None when the FLOPs are unknown or the dtype has no compute ceiling (bound is memory only)."""
    memory_ms: float
    gpu: str
    compute_ceiling: Ceiling | None
    bandwidth_ceiling: Ceiling


def ceilings_for(hardware: str) -> GpuCeilings:
    """The ceilings whose pattern matches `hardware`, a hardware key like `nvidia-h100-80gb-hbm3`."""
    for gpu in GPUS:
        if re.search(gpu.pattern, hardware):
            return gpu
    known = ", ".join(g.name for g in GPUS)
    raise UnknownHardware(f"no speed-of-light ceilings for hardware {hardware!r} (known: {known})")


def speed_of_light(flops: int | None, min_bytes: int, hardware: str, dtype: str = "float32") -> Bound:
    """The bound for one problem; `dtype` is the problem's compute dtype (`float32`, `torch.bfloat16`, ...)."""
    gpu = ceilings_for(hardware)
    compute = gpu.compute.get(dtype.removeprefix("torch."))
    memory_ms = min_bytes / gpu.bandwidth.value * 1e3
    compute_ms = flops / compute.value * 1e3 if compute is not None and flops is not None else None
    if compute_ms is not None and compute_ms > memory_ms:
        return Bound(compute_ms, "compute", compute_ms, memory_ms, gpu.name, compute, gpu.bandwidth)
    return Bound(memory_ms, "memory", compute_ms, memory_ms, gpu.name, compute, gpu.bandwidth)


def bound_ms(flops: int | None, min_bytes: int, hardware: str, dtype: str = "float32") -> float:
    """max(flops / peak, bytes / bandwidth) in milliseconds; see speed_of_light for the ceilings used."""
    return speed_of_light(flops, min_bytes, hardware, dtype).ms


def entry_bound_ms(entry: Any, hardware: str) -> float | None:
    """The bound for a manifest entry (`manifest_entry.ManifestEntry`) on `hardware`, in ms; None where the entry has
    no byte count or the hardware no recorded ceilings. The judge's hold and the site's share both read it."""
    if entry.min_bytes is None:
        return None
    try:
        return bound_ms(entry.flops, entry.min_bytes, hardware, entry.compute_dtype())
    except UnknownHardware:
        return None
