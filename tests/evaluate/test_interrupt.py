"""An interrupted run (Ctrl-C, or SIGTERM as a cancelled CI job sends) ends as "interrupted" and leaves nothing of
its judges and runners behind: no directory in /tmp, no ring in /dev/shm."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from tests.engine_kit import make_submission
from tests.paths import REPO
from validator.isolation import leftovers

SHM = Path("/dev/shm")


def test_what_this_process_made_and_did_not_remove_is_removed_and_nothing_else(tmp_path: Path):
    made, removed, other = tmp_path / "made", tmp_path / "removed", tmp_path / "other"
    for path in (made, removed, other):
        path.mkdir()
        (path / "file").write_text("x")
    leftovers.track(made)
    leftovers.track(removed)
    leftovers.done(removed)
    assert leftovers.remove_left() == [made]
    assert not made.exists() and removed.exists() and other.exists()


def test_children_still_running_are_ended_before_their_directories_are_removed(tmp_path: Path):
    """A zygote still importing at exit writes into its home: it is killed first, or the removal races it."""
    from validator.isolation import sandbox

    home = tmp_path / "home"
    home.mkdir()
    writer = subprocess.Popen([sys.executable, "-c", "import itertools, pathlib, sys\n"
                               "for i in itertools.count(): pathlib.Path(sys.argv[1], f'f{i}').write_text('x')",
                               str(home)], start_new_session=True)
    sandbox.live_group(writer.pid)
    try:
        leftovers.track(home)
        assert leftovers.remove_left() == [home]
        assert writer.wait(timeout=10) == -signal.SIGKILL and not home.exists()
    finally:
        sandbox.ended_group(writer.pid)
        writer.kill()
        writer.wait()
    quick = sandbox.run([sys.executable, "-c", "print('still runs')"], workdir=tmp_path, timeout_s=60,
                        limits=sandbox.Limits(cpu_seconds=60, file_bytes=1 << 20, processes=64, open_files=64))
    assert "still runs" in quick.stdout  # the exit-time stop refuses no later run (this test process goes on)


def test_once_the_exit_has_begun_a_late_thread_makes_no_directory_and_its_children_are_killed(tmp_path: Path):
    """The scheduler's device threads outlive an interrupt of the main thread: what they start after the exit-time
    removal must not outlive it."""
    script = (
        "import subprocess, sys\n"
        "from validator.isolation import leftovers, sandbox\n"
        "leftovers._at_exit()\n"
        "try:\n"
        "    with sandbox.private_dir('kb-late-'):\n"
        "        print('made')\n"
        "except leftovers.Exiting:\n"
        "    print('refused')\n"
        "child = subprocess.Popen([sys.executable, '-c', 'import time; time.sleep(60)'], start_new_session=True)\n"
        "sandbox.live_group(child.pid)\n"
        "print('killed' if child.wait(timeout=30) < 0 else 'lived')\n"
    )
    proc = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, cwd=REPO, timeout=120,
                          env={**os.environ, "TMPDIR": str(tmp_path)}, check=False)
    assert proc.stdout.split() == ["refused", "killed"], proc.stderr[-2000:]
    assert list(tmp_path.iterdir()) == []


def _rings() -> set[str]:
    return {p.name for p in SHM.glob("kb-ring-*")} if SHM.is_dir() else set()


@pytest.mark.slow
def test_sigterm_during_evaluation_interrupts_the_run_and_leaves_nothing_behind(tmp_path: Path):
    source = (REPO / "submissions" / "kernelbench-team-examples" / "level1_23_softmax_triton.py").read_text()
    document = make_submission(tmp_path, {"softmax.py": (1, 23, "triton", source)})
    scratch = tmp_path / "tmp"
    scratch.mkdir()
    (tmp_path / "results").mkdir()
    rings = _rings()
    env = {**os.environ, "TMPDIR": str(scratch)}
    run = subprocess.Popen([sys.executable, "-m", "validator", str(document), "--interpret", "--results-dir",
                            str(tmp_path / "results"), "--cache-dir", str(tmp_path / "cache")],
                           env=env, cwd=REPO, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
    deadline = time.monotonic() + 120
    while not any(scratch.glob("kb-job-*")) and run.poll() is None and time.monotonic() < deadline:
        time.sleep(0.05)
    assert run.poll() is None, "the run ended before its first judge started"
    run.send_signal(signal.SIGTERM)
    out, _ = run.communicate(timeout=60)
    assert run.returncode == 130, out[-2000:]
    assert "interrupted" in out
    time.sleep(1)  # the judges and runners end with their parent
    assert sorted(p.name for p in scratch.iterdir()) == []
    assert _rings() <= rings
