"""Issue 46 (6): a sandbox's /tmp and /dev/shm have a size, and a confined process a memory bound."""

from __future__ import annotations

import dataclasses
import sys
from pathlib import Path

import pytest

from tests.isolation.test_bwrap import inside, needs_sandbox
from validator.isolation import bwrap, sandbox
from validator.isolation.limits import LIMITS

FILL = """
    import errno, json, os
    seen = {}
    for scratch in ("/tmp", "/dev/shm"):
        try:
            with open(os.path.join(scratch, "fill"), "wb") as f:
                for _ in range(8):
                    f.write(b"x" * (1 << 20))
                    f.flush()
            seen[scratch] = "written"
        except OSError as exc:
            seen[scratch] = errno.errorcode[exc.errno]
    print(json.dumps(seen))
"""


@needs_sandbox
def test_scratch_directories_hold_no_more_than_their_bound(tmp_path: Path, monkeypatch: pytest.MonkeyPatch):
    monkeypatch.setattr(bwrap, "LIMITS", dataclasses.replace(LIMITS, scratch_bytes=4 << 20))
    assert inside(FILL, tmp_path) == {"/tmp": "ENOSPC", "/dev/shm": "ENOSPC"}


@needs_sandbox
def test_the_probe_requires_bounded_scratch():
    assert bwrap.REQUIRED["scratch_bounded"] is True
    assert bwrap.probe().properties["scratch_bounded"] is True


def test_a_confined_process_cannot_take_more_memory_than_its_bound(tmp_path: Path):
    limits = sandbox.Limits.for_timeout(30, 1 << 20, memory_bytes=256 << 20)
    done = sandbox.run([sys.executable, "-c", "x = bytearray(1 << 30)"], workdir=tmp_path, timeout_s=30,
                       limits=limits)
    assert done.returncode != 0 and "MemoryError" in done.stderr
    unbounded = dataclasses.replace(limits, memory_bytes=None)
    done = sandbox.run([sys.executable, "-c", "x = bytearray(1 << 30)"], workdir=tmp_path, timeout_s=30,
                       limits=unbounded)
    assert done.ok, done.stderr


def test_runners_get_the_recorded_memory_and_process_bounds(monkeypatch: pytest.MonkeyPatch, tmp_path: Path):
    from validator.evaluate.judge import launch

    seen = {}

    def capture(argv, limits, network, status_fd):
        seen["limits"] = limits
        raise RuntimeError("stop here")

    monkeypatch.setattr(sandbox, "confined_argv", capture)
    with pytest.raises(RuntimeError, match="stop here"):
        launch.spawn_unconfined(tmp_path, {}, 60)
    assert seen["limits"].memory_bytes == LIMITS.runner_memory_bytes
    assert seen["limits"].processes == LIMITS.runner_processes
