"""The judge's SIGSTOP and SIGCONT of its runner's process group, and the rule that no member stays stopped.

The judge stops the runner's group while it times the reference alone (`remote.Runner.pause`). A process of
the group can end up stopped after the continue: seen on a loaded 2-core machine when a pause fell in
bubblewrap's start-up, where the namespace's init (forked by bubblewrap just then) sat in state T for good and
the runner it was to start never did; the judge waited for the runner's first message until CI's time ran out.
A process being forked while both signals are sent gets them only afterwards, and the init of a pid namespace
discards a SIGCONT it has no handler for while it still obeys a SIGSTOP from an ancestor namespace; that is
the likely path. Hence two rules, both in `remote.Runner`: the judge pauses a runner only once it has said it
started, and while the judge waits for a reply any stopped member of the group is continued (`Group.tick`).
"""

from __future__ import annotations

import contextlib
import os
import signal
import threading
import time
from pathlib import Path

RESUME_TRIES = 200
CHECK_AFTER_S = 1.0
"""A reply the judge has waited this long for starts the checks for stopped members (none before: the
checks read /proc, and most replies come in milliseconds)."""
CHECK_EVERY_S = 1.0


def stopped_members(pgid: int) -> list[int]:
    """The processes of group `pgid` that are stopped (state T or t in their /proc stat line)."""
    found = []
    for stat in Path("/proc").glob("[0-9]*/stat"):
        try:
            fields = stat.read_text().rsplit(")", 1)[1].split()
        except (OSError, IndexError):
            continue
        if len(fields) > 2 and fields[2] == str(pgid) and fields[0] in ("T", "t"):
            found.append(int(stat.parent.name))
    return found


class Group:
    """The runner's process group as the judge controls it: stopped on purpose (`pause` ... `resume`), and
    otherwise never left stopped (`tick`, called from the watchdog's thread while the judge waits for a reply).
    The lock makes `pause` and a tick's check exclusive, so a member the judge has just stopped is never continued."""

    def __init__(self, pgid: int) -> None:
        self.pgid = pgid
        self.stopped = False
        """The judge holds the group stopped now."""
        self.lock = threading.Lock()
        self.last_check = 0.0
        self.continued: list[int] = []
        """Members found stopped while the judge waited, and continued (a diagnosis for the judge's log)."""

    def pause(self) -> None:
        """SIGSTOP the group (nothing when it is gone or not ours to signal)."""
        with self.lock:
            try:
                os.killpg(self.pgid, signal.SIGSTOP)
            except (ProcessLookupError, PermissionError):
                return
            self.stopped = True

    def resume(self) -> None:
        """SIGCONT the group until /proc shows no member stopped (a quick stop and continue under load was seen
        to leave one stopped), giving up after RESUME_TRIES: `tick` covers a member that stops later."""
        if not self.stopped:
            return
        for _ in range(RESUME_TRIES):
            self._continue()
            if not stopped_members(self.pgid):
                break
            time.sleep(0.001)
        self.stopped = False

    def tick(self, since: float) -> None:
        """During a wait that began at `since` (monotonic): after its first second, at most once a second,
        continue any stopped member, unless the judge holds the group stopped."""
        now = time.monotonic()
        if now - since < CHECK_AFTER_S or now - self.last_check < CHECK_EVERY_S:
            return
        self.last_check = now
        with self.lock:
            if self.stopped:
                return
            stuck = stopped_members(self.pgid)
            if stuck:
                self.continued.extend(stuck)
                self._continue()

    def _continue(self) -> None:
        with contextlib.suppress(ProcessLookupError, PermissionError):
            os.killpg(self.pgid, signal.SIGCONT)
