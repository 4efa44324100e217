"""A confined program's whole process tree, stopped, continued and killed as one: the judge's pause of its runner
(SIGSTOP and SIGCONT, and the rule that no member stays stopped), and the end of every sandboxed job.

The judge stops the runner while it times the reference alone (`remote.Runner.pause`). The runner is every
process under the one the judge started (bubblewrap), not only its process group: a helper that calls `setsid`
or `setpgid` leaves the group but not the tree, since bubblewrap's init of the pid namespace adopts any orphan.
Stopping the group alone let such a helper run, free to load the GPU exactly while the reference was timed and
so inflate the kernel's speedup. Members outside the group are signalled through pidfds, so a pid that ended
and was reused between reading /proc and signalling is never hit.

A process can end up stopped after the continue: seen on a loaded 2-core machine when a pause fell in
bubblewrap's start-up, where the namespace's init (forked by bubblewrap just then) sat in state T for good and
the runner it was to start never did; the judge waited for the runner's first message until CI's time ran out.
A process being forked while both signals are sent gets them only afterwards, and the init of a pid namespace
discards a SIGCONT it has no handler for while it still obeys a SIGSTOP from an ancestor namespace; that is
the likely path. Hence two rules, both in `remote.Runner`: the judge pauses a runner only once it has said it
started, and while the judge waits for a reply any stopped member of the tree is continued (`Tree.tick`).
"""

from __future__ import annotations

import contextlib
import os
import signal
import threading
import time
from collections.abc import Iterable
from pathlib import Path
from typing import Any, NamedTuple

RESUME_TRIES = 200
CHECK_AFTER_S = 1.0
"""A reply the judge has waited this long for starts the checks for stopped members (none before: the
checks read /proc, and most replies come in milliseconds)."""
CHECK_EVERY_S = 1.0
STOP_WALKS = 64
"""Walks of the tree a pause makes at most while it keeps finding members it has not stopped yet (a member
forking as fast as it is stopped); the pause then holds what it found."""
VERIFY_GAP_S = 0.0005
VERIFY_CLEAN_WALKS = 2
"""Walks in a row that must find every member stopped: one clean walk still let a forking chain run on in about
one pause of 10,000 in CI (a child mid-reparenting is in no parent's list for that instant)."""
SETTLE_S = 0.05
"""How long a pause waits for the members it stopped outside the group to show as stopped (one in a long
uninterruptible call stops only when it returns)."""


STOPPED = ("T", "t")
ENDED = ("Z", "X")
"""States of a process that has exited (a zombie waits for its parent): nothing to stop or continue."""


class Proc(NamedTuple):
    pid: int
    ppid: int
    pgid: int
    state: str


def _proc(pid: int) -> Proc | None:
    """A process as its /proc stat line shows it now; None once it has gone."""
    try:
        fields = Path(f"/proc/{pid}/stat").read_bytes().rsplit(b")", 1)[1].split()
        return Proc(pid, int(fields[1]), int(fields[2]), fields[0].decode())
    except (OSError, IndexError, ValueError):
        return None


CHILDREN_FILES = Path(f"/proc/{os.getpid()}/task/{os.getpid()}/children").exists()
"""Kernels built with CONFIG_PROC_CHILDREN list each thread's children; without it the tree comes from one scan
of every process."""


def _children(pid: int) -> list[int]:
    found: list[int] = []
    with contextlib.suppress(OSError):
        for task in os.scandir(f"/proc/{pid}/task"):
            with contextlib.suppress(OSError, ValueError):
                found.extend(int(child) for child in Path(task.path, "children").read_bytes().split())
    return found


def members(root: int, *, scan: bool | None = None) -> dict[int, Proc]:
    """`root` and every process under it, as /proc shows them now (empty once `root` has gone); by one scan of
    /proc where `scan` (by default where the kernel lists no children). A pid that /proc no longer shows under
    the parent it was listed with has ended (and may be someone else's now)."""
    if scan if scan is not None else not CHILDREN_FILES:
        table = {proc.pid: proc for proc in map(_proc, _numbered()) if proc is not None}
        under: dict[int, list[int]] = {}
        for proc in table.values():
            under.setdefault(proc.ppid, []).append(proc.pid)

        def listed(pid: int) -> Iterable[int]:
            return under.get(pid, ())

        def look(pid: int) -> Proc | None:
            return table.get(pid)
    else:
        listed, look = _children, _proc
    top = look(root)
    if top is None:
        return {}
    found, queue = {root: top}, [root]
    while queue:
        parent = queue.pop()
        for pid in listed(parent):
            proc = look(pid)
            if proc is not None and proc.ppid == parent and pid not in found:
                found[pid] = proc
                queue.append(pid)
    return found


def _numbered() -> Iterable[int]:
    return (int(entry.name) for entry in os.scandir("/proc") if entry.name.isdigit())


def stopped_members(root: int) -> list[int]:
    """The processes of `root`'s tree that are stopped (state T or t)."""
    return sorted(proc.pid for proc in _stopped(root))


def _stopped(root: int) -> list[Proc]:
    return [proc for proc in members(root).values() if proc.state in STOPPED]


class Tree:
    """The runner's process tree as the judge controls it: stopped on purpose (`pause` ... `resume`), and
    otherwise never left stopped (`tick`, called from the watchdog's thread while the judge waits for a reply).
    `root` is the process the judge started, leader of its own session and group: the group is signalled at
    once, members that left it one by one. The lock makes `pause` and a tick's check exclusive, so a member
    the judge has just stopped is never continued."""

    def __init__(self, root: int) -> None:
        self.root = root
        self.stopped = False
        """The judge holds the tree stopped now."""
        self.held: dict[int, int] = {}
        """Members outside the group that the pause stopped: pid to pidfd (-1 where pidfds are missing)."""
        self.lock = threading.Lock()
        self.last_check = 0.0
        self.continued: list[int] = []
        """Members found stopped while the judge waited, and continued (a diagnosis for the judge's log)."""
        self.strays: list[int] = []
        """Members found outside the runner's process group by a pause (a diagnosis for the judge's log)."""

    def pause(self) -> None:
        """SIGSTOP the group and every member outside it, walking the tree again until a walk can have missed no
        member: a stopped process forks no more, but a stop sent to one process (unlike one sent to a group)
        does not reach the child of a fork already under way, and a member that exits while the tree is walked
        hands its children to an ancestor whose list may have been read already. So a walk that stopped a new
        member or found a new exit is followed by another, and with members outside the group the last walk comes
        after all of them show as stopped, then `_verify`. Members already seen outside the group are stopped
        before the group, so a helper watching the runner never sees it stopped while it still runs itself; a
        new one is stopped a walk after the group. Nothing when the tree is gone or not ours to signal."""
        with self.lock:
            self.stopped = True
            if self.strays:
                self._walk()
            try:
                os.killpg(self.root, signal.SIGSTOP)
            except (ProcessLookupError, PermissionError):
                self.stopped = bool(self.held)
                return
            exits: set[int] = set()
            confirming = False
            for _ in range(STOP_WALKS):
                stopped, ended = self._walk()
                fresh, exits = ended - exits, exits | ended
                if stopped or fresh:
                    confirming = False
                elif not self.held or confirming or not self._settled():
                    break
                else:
                    confirming = True
            if self.held:
                self._verify()

    def _settled(self) -> bool:
        """Wait (at most SETTLE_S) until every member the pause stopped outside the group shows as stopped."""
        ends = time.monotonic() + SETTLE_S
        while time.monotonic() < ends:
            states = [_proc(pid) for pid in self.held]
            if all(proc is None or proc.state in (*STOPPED, *ENDED) for proc in states):
                return True
            time.sleep(0.0002)
        return False

    def _verify(self) -> None:
        """With members outside the group, walk until VERIFY_CLEAN_WALKS walks in a row, VERIFY_GAP_S apart, show
        every member stopped and the members unchanged, stopping again any that is not: a chain of processes that
        fork, leave their session and exit got one past the walks above in about one pause of a hundred on the CPU
        machine (a stress of tests/isolation/test_process_tree.py). Two all-stopped walks in a row still let one
        run on in one of several clean-clone CI runs (pause 59 of 300 at 5d5d43d), by a path not found; a walk now
        counts only if it also sees the members the walk before it saw, which asks for one walk more at least and
        for a tree that has stopped changing, whatever the path."""
        clean, seen = 0, None
        for _ in range(STOP_WALKS):
            time.sleep(VERIFY_GAP_S)
            tree = members(self.root)
            running = [proc for proc in tree.values() if proc.state not in (*STOPPED, *ENDED)]
            # clean: every member stopped, and the same members as the walk before (a tree still changing is not)
            clean = clean + 1 if not running and tree.keys() == seen else 0
            seen = tree.keys()
            if clean == VERIFY_CLEAN_WALKS:
                return
            for proc in running:
                if proc.pgid == self.root:
                    with contextlib.suppress(ProcessLookupError, PermissionError):
                        os.killpg(self.root, signal.SIGSTOP)
                elif proc.pid in self.held:
                    _signal(proc.pid, self.held[proc.pid], signal.SIGSTOP)
                else:
                    self._hold(proc, tree)

    def _walk(self) -> tuple[int, set[int]]:
        """One walk of the tree: SIGSTOP the members outside the group not stopped yet; how many it stopped (one
        it may not signal is left to the watchdog's deadline, not walked for again and again), and the members
        seen exited."""
        tree = members(self.root)
        strays = [proc for proc in tree.values()
                  if proc.pgid != self.root and proc.pid not in self.held and proc.state not in ENDED]
        before = len(self.held)
        for proc in strays:
            self._hold(proc, tree)
        return len(self.held) - before, {pid for pid, proc in tree.items() if proc.state in ENDED}

    def _hold(self, proc: Proc, tree: dict[int, Proc]) -> None:
        handle = _handle(proc, tree)
        if handle is not None and _signal(proc.pid, handle, signal.SIGSTOP):
            self.held[proc.pid] = handle
            if proc.pid not in self.strays:
                self.strays.append(proc.pid)
        elif handle is not None and handle >= 0:
            os.close(handle)

    def resume(self) -> None:
        """SIGCONT the group and every member the pause stopped, until /proc shows no member stopped (a quick
        stop and continue under load was seen to leave one stopped), giving up after RESUME_TRIES: `tick`
        covers a member that stops later."""
        if not self.stopped:
            return
        with self.lock:
            with contextlib.suppress(ProcessLookupError, PermissionError):
                os.killpg(self.root, signal.SIGCONT)
            for pid, handle in self.held.items():
                _release(pid, handle, signal.SIGCONT)
            self.held.clear()
            for _ in range(RESUME_TRIES):
                stuck = _stopped(self.root)
                if not stuck:
                    break
                self._continue(stuck)
                time.sleep(0.001)
            self.stopped = False

    def tick(self, since: float) -> None:
        """During a wait that began at `since` (monotonic): after its first second, at most once a second,
        continue any stopped member, unless the judge holds the tree stopped."""
        now = time.monotonic()
        if now - since < CHECK_AFTER_S or now - self.last_check < CHECK_EVERY_S:
            return
        self.last_check = now
        with self.lock:
            if self.stopped:
                return
            stuck = _stopped(self.root)
            if stuck:
                self.continued.extend(proc.pid for proc in stuck)
                self._continue(stuck)

    def kill(self) -> None:
        """SIGKILL every member: all stopped first (so none forks meanwhile), those outside the group by pidfd
        and before the group, since the group's end would orphan them out of the tree where no pid namespace
        ends them (a program run without bubblewrap)."""
        self.pause()
        with self.lock:
            for pid, handle in self.held.items():
                _release(pid, handle, signal.SIGKILL)
            self.held.clear()
            with contextlib.suppress(ProcessLookupError, PermissionError):
                os.killpg(self.root, signal.SIGKILL)

    def _continue(self, stuck: list[Proc]) -> None:
        with contextlib.suppress(ProcessLookupError, PermissionError):
            os.killpg(self.root, signal.SIGCONT)
        tree = {proc.pid: proc for proc in stuck}
        for proc in stuck:
            if proc.pgid != self.root:
                handle = _handle(proc, tree, check_parent=False)
                if handle is not None:
                    _release(proc.pid, handle, signal.SIGCONT)


def kill_tree(root: int) -> None:
    """SIGKILL `root`'s whole tree. Safe once `root` is reaped: its pid is not reused while its group lives (the
    walk then finds nothing and the group is killed), and nothing is done once the group is gone."""
    Tree(root).kill()


def kill_and_reap(process: Any, settle_s: float = 10.0) -> None:
    """SIGKILL `process`'s whole tree, then reap it (a Popen, or a runner adopted from the scheduler), and wait at
    most `settle_s` for every member to have ended. A killed process holds its memory until its exit is done, the
    GPU's included: at 423217d's sizes on an 80 GB H100, the next problem's judge, given the GPU's turn at once, found
    74 GiB still held by the processes of the problem before it, and ran out of memory."""
    tree = members(process.pid)
    kill_tree(process.pid)
    process.wait()
    deadline = time.monotonic() + settle_s
    while any(_alive(pid) for pid in tree) and time.monotonic() < deadline:
        time.sleep(0.01)


def _alive(pid: int) -> bool:
    """Not yet through its exit (a zombie has let go of its memory and files); a pid taken again since only makes
    the wait run to its bound."""
    proc = _proc(pid)
    return proc is not None and proc.state not in ("Z", "X")


def _handle(proc: Proc, tree: dict[int, Proc], *, check_parent: bool = True) -> int | None:
    """A pidfd for `proc`, once /proc shows that pid still under the same parent (so not a reused pid); -1
    where the kernel has no pidfds (the process is then signalled by pid, just after that check); None when
    it has gone."""
    try:
        handle = os.pidfd_open(proc.pid)
    except ProcessLookupError:
        return None
    except OSError:  # ENOSYS: a kernel before 5.3
        handle = -1
    now = _proc(proc.pid)
    if now is None or now.ppid != proc.ppid or (check_parent and proc.ppid not in tree):
        if handle >= 0:
            os.close(handle)
        return None
    return handle


def _release(pid: int, handle: int, number: int) -> None:
    """Send `number` through `handle` (as `_signal`), then close it."""
    _signal(pid, handle, number)
    if handle >= 0:
        os.close(handle)


def _signal(pid: int, handle: int, number: int) -> bool:
    try:
        if handle >= 0:
            signal.pidfd_send_signal(handle, number)
        else:
            os.kill(pid, number)
    except (ProcessLookupError, PermissionError):
        return False
    return True
