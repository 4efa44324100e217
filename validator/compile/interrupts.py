"""Builds end with the run: a signal stops every build's process tree, and one directory has one build.

- `stop_on_signals`: while the build stage runs, SIGINT or SIGTERM kills the process group of every build
  in flight (the confined Python, its ninja, nvcc and compilers: all in the group the sandbox made), marks
  the builds not yet started as stopped, and raises KeyboardInterrupt in the main thread so the command
  exits with "interrupted" (status 130). Without it, SIGTERM would end the validator and leave its builds,
  which run in their own sessions, compiling on.
- `extension_lock`: an exclusive lock on the kernel's cache directory for as long as its build lives. The
  lock's descriptor is handed to the build process, so even a validator killed outright (SIGKILL) keeps it
  held until its orphaned build ends, and a resumed run waits instead of starting a second ninja there.
"""

from __future__ import annotations

import fcntl
import os
import signal
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

from validator.isolation import sandbox

LOCK_NAME = "build.lock"
SIGNALS = (signal.SIGINT, signal.SIGTERM)


@contextmanager
def stop_on_signals(stopped: threading.Event) -> Iterator[None]:
    """Within the block, SIGINT/SIGTERM set `stopped`, kill every live build and raise KeyboardInterrupt.
    Only the main thread can take signals; elsewhere (a test's thread) the block runs unchanged."""
    if threading.current_thread() is not threading.main_thread():
        yield
        return

    def handler(signum: int, frame: object) -> None:
        stopped.set()
        sandbox.stop_all_groups()
        raise KeyboardInterrupt(f"signal {signal.Signals(signum).name} during the build stage")

    previous = {sig: signal.signal(sig, handler) for sig in SIGNALS}
    try:
        yield
    finally:
        for sig, old in previous.items():
            signal.signal(sig, old)


@contextmanager
def extension_lock(directory: Path) -> Iterator[int]:
    """Hold `directory/build.lock` exclusively (waiting for a build another run left behind); yields its
    descriptor, to be kept open in the build process."""
    directory.mkdir(parents=True, exist_ok=True)
    fd = os.open(directory / LOCK_NAME, os.O_RDWR | os.O_CREAT, 0o644)
    try:
        fcntl.flock(fd, fcntl.LOCK_EX)
        yield fd
    finally:
        os.close(fd)  # the build process's copy (if it outlives us) keeps the lock until it ends
