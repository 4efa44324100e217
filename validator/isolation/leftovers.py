"""Directories this process made for its children (jobs, runners, rings), removed at exit if an interrupt left them.

Each is removed by the context that made it, as that context closes. Ctrl-C or SIGTERM during the evaluate stage
unwinds the main thread only: the scheduler's device threads, which hold the job and runner directories, are
still waiting on their judges when the interpreter exits, so nothing closes those contexts. Their processes end
with their parent (bubblewrap's --die-with-parent, the zygote's parent-death signal); this removes their files,
which would otherwise stay in /tmp and in RAM (/dev/shm). Only in the process that made them: a forked child that
exits through the interpreter must not remove its parent's directories.
"""

from __future__ import annotations

import atexit
import os
import shutil
import threading
import time
from collections.abc import Callable
from pathlib import Path

_made: dict[Path, int] = {}
_stoppers: list[tuple[Callable[[], object], int]] = []
_exiting: set[int] = set()
_lock = threading.Lock()


class Exiting(RuntimeError):
    """This process is exiting: a thread still at work (the scheduler's device threads outlive an interrupt of the
    main thread) makes nothing new, since the exit-time removal has run and would not see it."""


def exiting() -> bool:
    with _lock:
        return os.getpid() in _exiting


def stop_first(stopper: Callable[[], object]) -> None:
    """Call `stopper` (it ends this process's children) before removing what is left: a child still running
    at exit, such as a zygote importing torch into its home, would otherwise write into a directory while it
    is being removed, and the removal would leave it behind."""
    with _lock:
        _stoppers.append((stopper, os.getpid()))


def track(path: Path) -> None:
    """Remove `path` at exit if it is still there; raises Exiting (having removed it) once the exit has begun."""
    with _lock:
        if os.getpid() not in _exiting:
            _made[path] = os.getpid()
            return
    shutil.rmtree(path, ignore_errors=True)
    raise Exiting(f"{path}: not made, this process is exiting")


def done(path: Path) -> None:
    with _lock:
        _made.pop(path, None)


def remove_left() -> list[Path]:
    """Remove what this process made and did not remove; returns those paths."""
    with _lock:
        left = [path for path, pid in _made.items() if pid == os.getpid()]
        stoppers = [stop for stop, pid in _stoppers if pid == os.getpid()] if left else []
        _made.clear()
    for stop in stoppers:
        stop()
    for path in left:
        shutil.rmtree(path, ignore_errors=True)
        if path.exists():  # a killed child's last write raced the first pass
            time.sleep(0.2)
            shutil.rmtree(path, ignore_errors=True)
    return left


def _at_exit() -> None:
    with _lock:
        _exiting.add(os.getpid())
    remove_left()


atexit.register(_at_exit)
