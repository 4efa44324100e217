"""The judge's deadline for one kernel call, set from the reference's measured time.

The parent's bound on a whole judge (`problem_timeout_s`, 300 s) has to cover imports, loading the build and
every phase of the slowest problem, so a kernel that spins would cost that much. The judge knows more: once it
has run the reference it knows how long one call of the work takes, and a kernel that takes
`call_deadline_factor` times as long (plus a fixed slack, never less than the floor) is not slow, it is hung.
Each request that runs the kernel (`call`, `prepare`, `go`, `fetch`, `attribute`) gets that deadline from the
runner handle's watchdog (`Watchdog`, armed by `remote.Runner.request`), which kills the runner when it passes;
the first request of each kind gets `first_call_slack_s` more, for a JIT compile, and a request past its
deadline is let run while the runner's compile cache is being written (a cold Triton autotune). Loading the
kernel module (`load`) has a deadline of its own, from the judge's time to construct the reference
(`load_deadline`): an extension compiled at import writes to the cache as it goes, so it is let finish. Every
multiple, rate and quiet period here is the protocol's (`Protocol.interpret_deadline_scale` and those after it).
"""

from __future__ import annotations

import contextlib
import math
import threading
import time
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

KERNEL_OPS = ("prepare", "go", "fetch", "release")
PROFILED_CALLS = 3
"""The attribution pass calls the kernel this many times under the profiler in one request."""


def call_deadline(reference_s: float, protocol: Any, *, interpret: bool) -> float:
    """Seconds one kernel call may take until its reply's header arrives: a generous multiple of the
    reference's, plus slack, above a floor. The payload's transfer has its own `payload_deadline`."""
    seconds = max(protocol.call_deadline_floor_s,
                  protocol.call_deadline_factor * reference_s + protocol.call_deadline_slack_s)
    return seconds * (protocol.interpret_deadline_scale if interpret else 1.0)


def load_deadline(model_s: float, protocol: Any) -> float:
    """Seconds the runner may take to import the kernel and construct ModelNew. Not scaled under --interpret:
    the interpreter runs at calls, not at import."""
    return max(protocol.load_deadline_s, protocol.load_deadline_factor * model_s)


def payload_deadline(nbytes: int, protocol: Any, *, interpret: bool) -> float:
    """Seconds a reply's tensors may take to cross once its header is in: the floor plus their bytes at a slow
    rate. Apart from the call's, so a spinning kernel on a 6.4 GB output is caught in seconds, not minutes."""
    seconds = protocol.call_deadline_floor_s + nbytes / protocol.payload_bytes_per_s
    return seconds * (protocol.interpret_deadline_scale if interpret else 1.0)


def arm(runner: Any, seconds: float, protocol: Any, *, interpret: bool, backend: str = "",
        payload_bytes: int = 0, span_seconds: float | None = None) -> None:  # fmt: skip
    """Give the runner handle its per-request deadlines (`span_seconds` for a timed span of several calls), and
    the one for reading a reply of `payload_bytes`. A torch.compile kernel's first call traces the model (from the
    warm-up's cache, but tracing a large model takes long and writes nothing): only the parent's bound."""
    runner.deadlines = dict.fromkeys(KERNEL_OPS, seconds) | {"attribute": PROFILED_CALLS * seconds,
                                                               "go": span_seconds or seconds}
    runner.payload_s = payload_deadline(payload_bytes, protocol, interpret=interpret)
    runner.first_slack_s = protocol.first_call_slack_s * (protocol.interpret_deadline_scale if interpret else 1.0)
    if backend == "torch-compile":
        runner.first_slack_s = protocol.problem_timeout_s


POLL_S = 0.25


def last_write(root: Path) -> float:
    """The newest modification time under `root` (0 when empty or absent)."""
    newest = 0.0
    for path in root.rglob("*"):
        with contextlib.suppress(OSError):
            newest = max(newest, path.stat().st_mtime)
    return newest


class Watchdog:
    """One thread per runner handle. While a request is armed it calls `tick(since)` every poll (the
    `process_tree.Tree`'s check for stopped members), and, when the request has a limit, `expire(why)`
    once it has run that long, unless `activity()` (a time.time()) says the runner was compiling within `quiet_s`
    (`Protocol.compile_quiet_s`).
    Arming and disarming only set an attribute: nothing is started inside the judge's span of a timed call."""

    def __init__(self, activity: Callable[[], float], expire: Callable[[str], None],
                 tick: Callable[[float], None] | None = None, *, quiet_s: float = 0.0) -> None:  # fmt: skip
        self.activity, self.expire, self.tick, self.quiet_s = activity, expire, tick, quiet_s
        self.armed: tuple[float, float, str, float] | None = None
        """(monotonic deadline, limit, request, monotonic start) of the request in flight, or None."""
        self.closed = threading.Event()
        self.thread = threading.Thread(target=self._watch, name="kb-deadline", daemon=True)
        self.thread.start()

    def arm(self, limit: float | None, what: str) -> None:
        """A wait for the runner begins; with no `limit` it has no deadline (the parent's bound only)."""
        now = time.monotonic()
        self.armed = (now + limit if limit else math.inf, limit or 0.0, what, now)

    def disarm(self) -> None:
        self.armed = None

    @contextlib.contextmanager
    def watching(self, limit: float | None, what: str) -> Iterator[None]:
        """Armed for the duration of the block."""
        self.arm(limit, what)
        try:
            yield
        finally:
            self.disarm()

    def close(self) -> None:
        self.closed.set()

    def _watch(self) -> None:
        while not self.closed.wait(POLL_S):
            armed = self.armed
            if armed is None:
                continue
            if self.tick is not None:
                self.tick(armed[3])
            if time.monotonic() < armed[0]:
                continue
            if time.time() - self.activity() < self.quiet_s:
                continue  # compiling: let it finish (the parent's bound still holds)
            if self.armed is armed:  # not answered meanwhile
                self.armed = None
                self.expire(f"its `{armed[2]}` request did not answer within {armed[1]:.1f} s")
