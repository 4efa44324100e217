"""The catalogue's GPU measurement of a problem's eager reference: its time (CUDA events, L2 flushed as the
protocol does) and its peak memory, checked against the design's targets."""

from __future__ import annotations

import statistics
from types import ModuleType
from typing import Any

from validator.catalogue.problem_module import make_inputs, make_model
from validator.findings import Severity
from validator.protocol import PROTOCOL

MAX_PEAK_BYTES = 24 * 10**9  # DESIGN.md: every reference fits in 24 GB of GPU memory
TARGET_EAGER_MS = (1.0, 15.0)  # DESIGN.md: each reference runs about 1-15 ms on an H100-class GPU


def measure_issues(module: ModuleType, device: str, generate_on_device: bool, seed: int,
                   measured: dict[str, Any]) -> list[tuple[str, str, Severity]]:  # fmt: skip
    """Time the eager forward; fill `measured` with eager_ms and peak_mem_bytes; the issues found."""
    try:
        eager_ms, peak = measure_eager(module, device, seed, generate_on_device=generate_on_device)
    except Exception as exc:  # an OOM or a kernel error while timing is this problem's result
        code = "out-of-memory" if type(exc).__name__ == "OutOfMemoryError" else "runtime-error"
        return [(code, f"while timing: {type(exc).__name__}: {exc}"[:500], Severity.ERROR)]
    measured.update(eager_ms=eager_ms, peak_mem_bytes=peak)
    issues: list[tuple[str, str, Severity]] = []
    if peak > MAX_PEAK_BYTES:
        issues.append(("too-much-memory", f"peak GPU memory {peak / 1e9:.1f} GB exceeds 24 GB", Severity.ERROR))
    low, high = TARGET_EAGER_MS
    if not low <= eager_ms <= high:  # a design target (SIZE NOTE comments explain exceptions), not a filter
        message = f"eager reference takes {eager_ms:.2f} ms; the target is {low:g}-{high:g} ms"
        issues.append(("outside-time-target", message, Severity.WARNING))
    return issues


def measure_eager(module: ModuleType, device: str, seed: int, *, generate_on_device: bool,
                  warmup: int = 3, calls: int = 5) -> tuple[float, int]:
    """(median CUDA-event ms of the eager forward, peak bytes of model + inputs + forward).

    The L2 cache is flushed before each call, as the protocol does; the flush buffer is left out of the peak.
    """
    import torch

    torch.cuda.synchronize(device)
    torch.cuda.empty_cache()
    l2_bytes = torch.cuda.get_device_properties(device).L2_cache_size
    flush = torch.empty(int(l2_bytes * PROTOCOL.l2_flush_factor) // 4 + 1, dtype=torch.float32, device=device)
    torch.cuda.reset_peak_memory_stats(device)
    model = make_model(module, seed, device, generate_on_device=generate_on_device)
    inputs = make_inputs(module, seed, device, generate_on_device=generate_on_device)
    times: list[float] = []
    with torch.no_grad():
        for call in range(warmup + calls):
            flush.zero_()
            start, end = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
            start.record()
            model(*inputs)
            end.record()
            torch.cuda.synchronize(device)
            if call >= warmup:
                times.append(start.elapsed_time(end))
    peak = torch.cuda.max_memory_allocated(device) - flush.numel() * 4
    del model, inputs, flush
    torch.cuda.empty_cache()
    return statistics.median(times), peak
