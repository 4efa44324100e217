"""How a runner started ahead ended, as its judge (not its parent) learns it: bwrap's own record on its status fd,
so a judge in a user namespace of its own (an unprivileged judge: its network namespace needs one), to which
/proc hides a zombie's exit status, still says the runner died of SIGSEGV rather than "killed by SIGKILL"."""

from __future__ import annotations

import contextlib
import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from validator.evaluate.judge import launch
from validator.evaluate.judge.remote import describe_exit
from validator.isolation import bwrap, process_tree

REPO = Path(__file__).resolve().parents[3]
READER = """
import ctypes, json, sys
from pathlib import Path
if sys.argv[3] == "own-user-namespace":
    libc = ctypes.CDLL(None, use_errno=True)
    assert libc.unshare(0x10000000) == 0, ctypes.get_errno()  # CLONE_NEWUSER, as sandbox.py does for the judge
from validator.evaluate.judge import launch
proc = Path(f"/proc/{sys.argv[2]}/stat").read_text().rsplit(")", 1)[1].split()
ended = launch.ended_status(int(sys.argv[2]), Path(sys.argv[1]) / "status")
print(json.dumps({"poll": ended, "proc": int(proc[49])}))
"""


def _python_in(tree: dict, root: int) -> int | None:
    """The runner's interpreter: the tree's member running python (the others are bwrap), once it has started. Not
    the root: until it execs bwrap, that is the resource-limit launcher, a python too (killed there, under load, it
    was the launcher's own SIGSEGV that the test then read, not bwrap's record of its runner's)."""
    for pid in tree:
        if pid == root:
            continue
        argv0 = Path(f"/proc/{pid}/cmdline").read_bytes().split(b"\0")[0]
        if b"python" in Path(argv0.decode()).name.encode():
            return pid
    return None


def _state(pid: int) -> str:
    return Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0]


def _read_as_judge(base: Path, pid: int, where: str) -> dict:
    done = subprocess.run([sys.executable, "-c", READER, str(base), str(pid), where], cwd=REPO, capture_output=True,
                          text=True, timeout=60, check=False)
    if where == "own-user-namespace" and done.returncode != 0 and "AssertionError" in done.stderr:
        pytest.skip(f"no user namespace here: {done.stderr[-200:]}")
    assert done.returncode == 0, done.stderr[-2000:]
    return json.loads(done.stdout)


@pytest.fixture
def crashed_runner(tmp_path: Path):
    if not bwrap.machine_isolation().confined:
        pytest.skip(f"bubblewrap unavailable here: {bwrap.machine_isolation().detail}")
    base = tmp_path / "runner"
    hold = contextlib.ExitStack()
    process = launch.prepare(base, {"TRITON_INTERPRET": "1"}, gpu=False, hold=hold)
    try:
        deadline = time.monotonic() + 30
        while (python := _python_in(process_tree.members(process.pid), process.pid)) is None:
            assert time.monotonic() < deadline, "the runner's interpreter never started"
            time.sleep(0.05)
        os.kill(python, signal.SIGSEGV)
        while _state(process.pid) != "Z":
            assert time.monotonic() < deadline, "bwrap did not end after its runner crashed"
            time.sleep(0.05)
        yield base, process.pid  # a zombie until the test, its parent, reaps it below
    finally:
        process_tree.kill_tree(process.pid)
        process.wait()
        hold.close()


@pytest.mark.parametrize("where", ["judge-beside-it", "own-user-namespace"])
def test_a_judge_reads_how_a_runner_started_ahead_ended_even_where_proc_hides_it(crashed_runner, where):
    base, pid = crashed_runner
    seen = _read_as_judge(base, pid, where)
    assert seen["poll"] == 128 + signal.SIGSEGV, seen
    assert "SIGSEGV" in describe_exit(seen["poll"], True)
    if where == "own-user-namespace" and os.getuid() != 0:
        assert seen["proc"] == 0, seen  # what the status file is for: /proc shows this judge no exit status


def test_bwraps_exit_code_is_its_last_status_line_and_nothing_else_counts(tmp_path: Path):
    status = tmp_path / "status"
    assert launch.bwrap_exit_code(status) is None  # never written
    status.write_text('{ "child-pid": 7, "pid-namespace": 4026532181 }\n')
    assert launch.bwrap_exit_code(status) is None  # started, not ended
    status.write_text('{ "child-pid": 7 }\n{ "exit-code": 139 }\n')
    assert launch.bwrap_exit_code(status) == 139
    status.write_text('{ "child-pid": 7 }\n{ "exit-code": true }\n{ "exit-co')
    assert launch.bwrap_exit_code(status) is None  # a cut line, a boolean: not an exit code
