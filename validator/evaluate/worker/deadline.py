"""The judge's deadline for one kernel call, set from the reference's measured time.

The parent's bound on a whole judge (`problem_timeout_s`, 300 s) has to cover imports, loading the build and
every phase of the slowest problem, so a kernel that spins would cost that much. The judge knows more: once it
has run the reference it knows how long one call of the work takes, and a kernel that takes
`call_deadline_factor` times as long (plus a fixed slack, never less than the floor) is not slow, it is hung.
Each request that runs the kernel (`call`, `prepare`, `go`, `fetch`, `attribute`) gets that deadline from the
runner handle's watchdog (`remote.Runner.request`), which kills the runner when it passes; the first request
of each kind gets `first_call_slack_s` more, for a JIT compile. Loading the kernel module keeps the parent's
bound alone: an extension's import may legitimately take long.
"""

from __future__ import annotations

from typing import Any

INTERPRET_SCALE = 10.0
"""Under --interpret a Triton kernel runs every program in Python: its deadline is this many times longer."""
KERNEL_OPS = ("call", "prepare", "go", "fetch")
PROFILED_CALLS = 3
"""The attribution pass calls the kernel this many times under the profiler in one request."""


def call_deadline(reference_s: float, protocol: Any, *, interpret: bool) -> float:
    """Seconds one kernel call may take: a generous multiple of the reference's, plus slack, above a floor."""
    seconds = max(protocol.call_deadline_floor_s,
                  protocol.call_deadline_factor * reference_s + protocol.call_deadline_slack_s)
    return seconds * (INTERPRET_SCALE if interpret else 1.0)


def arm(runner: Any, seconds: float, protocol: Any, *, interpret: bool) -> None:
    """Give the runner handle its per-request deadlines."""
    runner.deadlines = dict.fromkeys(KERNEL_OPS, seconds) | {"attribute": PROFILED_CALLS * seconds}
    runner.first_slack_s = protocol.first_call_slack_s * (INTERPRET_SCALE if interpret else 1.0)
