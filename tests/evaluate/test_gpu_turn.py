"""The GPU's turn passes when its judge's process ends, not when it stops measuring: a process holds its device memory
until its exit is done, and the next judge must find it free."""

from __future__ import annotations

import fcntl
import os
import subprocess
import sys
from pathlib import Path

from validator.evaluate import gpu_turn

HOLDER = """
import sys, time
from validator.evaluate import gpu_turn
fd = gpu_turn.take(sys.argv[1], limit_s=1)
gpu_turn.until_exit(fd)
print(fd, flush=True)
sys.stdin.readline()  # past the turn's alarm: measuring is over, so it no longer ends the process
time.sleep(1.5)
"""


def _free(path: Path) -> bool:
    fd = os.open(path, os.O_RDWR)
    try:
        fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        return True
    except BlockingIOError:
        return False
    finally:
        os.close(fd)


def test_the_turn_is_held_past_measuring_until_the_process_ends_at_a_high_descriptor(tmp_path: Path):
    turn = tmp_path / "turn"
    turn.touch()
    holder = subprocess.Popen([sys.executable, "-c", HOLDER, str(turn)], stdin=subprocess.PIPE,
                              stdout=subprocess.PIPE, text=True)
    fd = int(holder.stdout.readline())
    assert fd >= gpu_turn.HIGH_FD  # closed after the GPU driver's descriptors at the exit
    assert not _free(turn)
    holder.stdin.write("\n")
    holder.stdin.flush()
    assert holder.wait(timeout=30) == 0  # the alarm was disarmed
    assert _free(turn)

