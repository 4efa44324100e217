"""All-stream device time: from the first GPU activity of a call to the last, on any stream, read from the
profiler's CUDA activity records (CUPTI through torch.profiler), beside the events' one-stream time.

CUDA events time one stream: work a kernel puts on a side stream is outside them, which is why side streams
are banned by policy and caught by attribution. The span of every kernel, copy and memset a call launched,
on any stream, is what SOL-ExecBench and FlashInfer-Bench time instead. Off by default
(`Protocol.all_stream_timing`): on an H200 it did not agree with events on single-stream kernels (the profiler
lengthened their device time by up to 48%), so it stays an option for study, not the method.

The profiler starts before a timed call and stops after it, both outside the judge's span of the call (the
runner's `prepare` and `trace` requests); inside, a `record_function` range marks the call, and only
activity that starts after the range opens counts (the L2 flush ran, and was synchronised, before it).
"""

from __future__ import annotations

import json
import tempfile
from collections.abc import Iterable
from pathlib import Path
from typing import Any

GPU_CATEGORIES = frozenset({"kernel", "gpu_memcpy", "gpu_memset"})
MARK = "kb-timed-call"
"""The record_function range around a timed call."""


def device_span_ms(events: Iterable[dict[str, Any]], after_us: float) -> float | None:
    """First start to last end, in ms, of GPU activity starting at or after `after_us` (chrome-trace events,
    microseconds); None when there is none."""
    gpu = [e for e in events if str(e.get("cat", "")).lower() in GPU_CATEGORIES and float(e.get("ts", 0)) >= after_us]
    if not gpu:
        return None
    start = min(float(e["ts"]) for e in gpu)
    end = max(float(e["ts"]) + float(e.get("dur", 0.0)) for e in gpu)
    return (end - start) / 1e3


def mark_start_us(events: Iterable[dict[str, Any]]) -> float | None:
    """When the timed call's range opened (the host's clock, as the GPU events are)."""
    starts = [float(e["ts"]) for e in events if e.get("name") == MARK and "ts" in e]
    return min(starts) if starts else None


def span_of(events: list[dict[str, Any]]) -> float | None:
    mark = mark_start_us(events)
    return None if mark is None else device_span_ms(events, mark)


class Tracer:
    """A profiler held open across one timed call: `start` before it, `stop` after it (GPU only)."""

    def __init__(self) -> None:
        from torch.profiler import ProfilerActivity, profile

        self.profile = profile(activities=[ProfilerActivity.CPU, ProfilerActivity.CUDA])

    def start(self) -> None:
        self.profile.start()

    def mark(self) -> Any:
        from torch.profiler import record_function

        return record_function(MARK)

    def stop(self) -> float | None:
        """The call's all-stream span in ms (None: the profiler saw no GPU activity inside the mark)."""
        self.profile.stop()
        with tempfile.TemporaryDirectory() as tmp:
            path = Path(tmp) / "trace.json"
            self.profile.export_chrome_trace(str(path))
            events = json.loads(path.read_text(encoding="utf-8")).get("traceEvents", [])
        return span_of(events)
