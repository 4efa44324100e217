"""Runners started ahead of their judges: the scheduler's next one while a problem runs, and the first one of each
device at the very start of a `kb-validate` run (`head_start`), while the stages before evaluation run.

A runner's start-up (bubblewrap, the interpreter, torch, the compilers' modules, CUDA) took about 9 s on an H200,
and the first judge of a run, which starts in about 4 s, waited the rest: 4.8 s of a 24.7 s one-problem pull
request. Started at the head of the run, that wait overlaps loading, the static policy and the build cache's
check. Both of the first judge's runners are started there, its kernel's and its twin: with the kernel's
alone, an H100's one-problem run still spent 6.5 s of its 15.9 s judge in `start_runner` (session 40), starting the
twin. A runner started ahead is generic until a judge adopts it (`launch.prepare`), so one started this early
is the same thing as one the scheduler starts between problems; it is adopted only if it was started with the
environment the scheduler would give it, and ended with the run if no judge took it.
"""

from __future__ import annotations

import contextlib
import subprocess
import threading
from collections.abc import Callable, Iterator, Mapping
from dataclasses import dataclass
from pathlib import Path

from validator.isolation import process_tree, sandbox


@dataclass
class Prepared:
    """A runner started ahead, with the private directory it lives in and what it was started with."""

    base: Path
    process: subprocess.Popen
    stack: contextlib.ExitStack
    env: dict[str, str]


def prepare(env: Mapping[str, str], *, gpu: bool) -> Prepared:
    """A runner waiting in a private directory of ours (removed with `release`), with a ring directory on tmpfs
    where there is one. Raises OSError or SubprocessError when it cannot be started."""
    from validator.evaluate.judge import launch

    stack = contextlib.ExitStack()
    try:
        base = stack.enter_context(sandbox.private_dir("kb-runner-")) / "runner"
        process = launch.prepare(base, env, gpu=gpu, hold=stack, ring=launch.ring_dir(stack))
    except BaseException:
        stack.close()
        raise
    return Prepared(base, process, stack, launch.runner_env(env))


def release(runner: Prepared | None) -> None:
    if runner is not None:
        process_tree.kill_and_reap(runner.process)
        runner.stack.close()


RUNNERS_PER_JUDGE = 2
"""A judge's runners: the kernel's and its twin, the reference's (`judge/remote.py`)."""

_waiting: dict[str, list[Prepared]] = {}
_lock = threading.Lock()
_settled = threading.Event()
_settled.set()
"""Clear while a head start is still deciding what to start (its work is a part of what the evaluate stage does
before its first job, so it is done first unless the machine is very busy)."""
SETTLE_WAIT_S = 15.0


def claim(visible: str, env: Mapping[str, str]) -> Prepared | None:
    """A runner started at the head of the run for the device `visible` (each is claimed once), if it was started
    with what `env` gives a runner; one started otherwise is ended (its toolchain variables decide whether a cached
    extension loads as built)."""
    from validator.evaluate.judge import launch

    _settled.wait(SETTLE_WAIT_S)
    with _lock:
        waiting = _waiting.get(visible, [])
        runner = waiting.pop(0) if waiting else None
    if runner is not None and runner.env != launch.runner_env(env):
        release(runner)
        return None
    return runner


@contextlib.contextmanager
def head_start(plan: Callable[[], list[tuple[str, dict[str, str], bool]]]) -> Iterator[None]:
    """While the block runs, start a judge's runners (`RUNNERS_PER_JUDGE`) for each (device, environment, gpu) that
    `plan` returns, in a thread of its own so nothing waits for it; afterwards end those no judge claimed. `plan`
    raising, or a runner that does not start, leaves the run as it would have been: the scheduler then starts its
    runners itself."""
    stop = threading.Event()

    def start() -> None:
        with contextlib.suppress(Exception):
            for visible, env, gpu in plan() * RUNNERS_PER_JUDGE:  # every device's first before any second
                if stop.is_set():
                    return
                with contextlib.suppress(OSError, subprocess.SubprocessError):
                    runner = prepare(env, gpu=gpu)
                    with _lock:
                        _waiting.setdefault(visible, []).append(runner)

    def settle() -> None:
        try:
            start()
        finally:
            _settled.set()
        # bwrap dies with the thread that started it (--die-with-parent is a parent-death signal, which Linux
        # sends when that thread ends, not its process), so this one lives as long as the run
        stop.wait()

    _settled.clear()
    thread = threading.Thread(target=settle, name="kb-runners-ahead", daemon=True)
    thread.start()
    try:
        yield
    finally:
        stop.set()
        thread.join()
        with _lock:
            left = [runner for runners in _waiting.values() for runner in runners]
            _waiting.clear()
        for runner in left:
            release(runner)
