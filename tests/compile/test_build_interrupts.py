"""A signal during the build stage ends every build's process tree; one kernel directory, one build."""

from __future__ import annotations

import fcntl
import os
import signal
import subprocess
import sys
import threading
import time
from pathlib import Path

import pytest

from tests.conftest import REPO
from validator.compile.interrupts import LOCK_NAME, extension_lock

SCRIPT = REPO / "tests" / "fixtures" / "compile" / "interrupted_builds.py"


def _alive(pid: int) -> bool:
    try:
        state = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0]
    except (FileNotFoundError, ProcessLookupError, IndexError):
        return False
    return state != "Z"  # a zombie has ended; only its parent's reaping is left


@pytest.mark.parametrize("sig", [signal.SIGTERM, signal.SIGINT])
def test_a_signal_during_the_build_stage_kills_every_build_within_5_s_and_starts_no_more(tmp_path: Path, sig) -> None:
    env = {**os.environ, "PYTHONPATH": str(REPO)}
    run = subprocess.Popen([sys.executable, str(SCRIPT), str(tmp_path)], env=env, cwd=REPO)
    pids_file = tmp_path / "pids"
    deadline = time.monotonic() + 60
    while (not pids_file.exists() or len(pids_file.read_text().split()) < 4) and time.monotonic() < deadline:
        time.sleep(0.1)
    pids = [int(p) for p in pids_file.read_text().split()]
    assert len(pids) == 4 and all(_alive(p) for p in pids)  # two builds in flight, each a shell and its sleep
    run.send_signal(sig)
    signalled = time.monotonic()
    assert run.wait(timeout=5) == 130
    while any(_alive(p) for p in pids) and time.monotonic() - signalled < 5:
        time.sleep(0.05)
    assert not [p for p in pids if _alive(p)], "a build outlived the run"
    assert (tmp_path / "interrupted").read_text() == "yes"
    time.sleep(0.5)
    assert len(pids_file.read_text().split()) == 4  # the four queued builds never started


def test_a_second_build_of_one_directory_waits_for_the_first(tmp_path: Path) -> None:
    order: list[str] = []

    def second() -> None:
        with extension_lock(tmp_path):
            order.append("second")

    with extension_lock(tmp_path):
        waiter = threading.Thread(target=second)
        waiter.start()
        time.sleep(0.3)
        order.append("first done")
    waiter.join(timeout=5)
    assert order == ["first done", "second"]


def test_the_lock_outlives_the_validator_in_a_build_it_handed_the_descriptor_to(tmp_path: Path) -> None:
    with extension_lock(tmp_path) as fd:
        orphan = subprocess.Popen(["sleep", "30"], pass_fds=(fd,))
    probe = os.open(tmp_path / LOCK_NAME, os.O_RDWR)
    try:
        with pytest.raises(BlockingIOError):  # our descriptor is closed; the build's copy still holds it
            fcntl.flock(probe, fcntl.LOCK_EX | fcntl.LOCK_NB)
        orphan.kill()
        orphan.wait()
        fcntl.flock(probe, fcntl.LOCK_EX | fcntl.LOCK_NB)
    finally:
        os.close(probe)
