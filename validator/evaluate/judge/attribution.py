"""The judge's profiler pass, run in the runner: which kernels ran, on how many streams, and how much of the
GPU time was the submission's own. Advisory where it can only count against the kernel (the runner reports
it); a second stream with work the timed stream did not see is rejected (`side-stream`).

A mixin of `run.Evaluation`, which provides `runner`, `job`, `spec`, `note` and `own_fraction`.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from validator.evaluate.judge.stops import Stop
from validator.results.records import Status


class Attributing:
    runner: Any
    job: Any
    own_fraction: float | None

    spec: Callable[..., dict[str, Any]]
    note: Callable[..., None]

    def attribute(self) -> None:
        """Profiler pass in the runner: advisory (it can only count against the kernel; the fraction it reports
        is recorded as the runner's)."""
        from validator.evaluate.anticheat import Attribution

        reply = self.runner.request({"op": "attribute", "inputs": [self.spec(i, "profile") for i in range(3)],
                                     "own": list(self.job.own_kernel_names)})
        data = reply.get("found")
        if not isinstance(data, dict):
            self.note("profile-unavailable", "the profiler recorded no GPU activity; attribution skipped", "warning")
            return
        try:
            found = Attribution(float(data["own_ms"]), float(data["total_ms"]), tuple(map(int, data["streams"])),
                                tuple(map(str, data["kernels"])), tuple(map(str, data["side_work"])))
        except (KeyError, TypeError, ValueError, OverflowError):  # a number past float's range too
            raise Stop(Status.RUNTIME_ERROR, "runner-protocol", "the runner's profile could not be read") from None
        self.own_fraction = round(min(max(found.own_fraction, 0.0), 1.0), 4)
        streams = [s for s in found.streams if s >= 0]
        suspects = found.side_suspects(self.job.own_kernel_names)
        if len(streams) > 1 and suspects:
            raise Stop(Status.REJECTED, "side-stream", f"GPU work ran on {len(streams)} streams during calls "
                       f"({', '.join(map(str, streams))}), the timed stream not seeing all of it; off it ran "
                       f"{', '.join(s[:80] for s in suspects[:4])}")
        if found.own_ms <= 0 and self.job.backend != "torch-compile":  # a compiler writes its own kernels
            shown = ", ".join(found.kernels[:6]) or "none"
            self.note("no-custom-kernel", f"no GPU time in the submission's own kernels "
                      f"({', '.join(self.job.own_kernel_names) or 'none found'}); kernels that ran: {shown}",
                      "warning")
