"""A confined program's process tree is stopped, continued and killed as one: members that left its process group
(setsid) included, and a pid that may be someone else's by now is never signalled."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from tests.evaluate.judge.test_run import REPO, make_job
from validator.isolation import process_tree
from validator.isolation.process_tree import Proc, Tree, kill_tree, members, stopped_members

HELPER_KERNEL = REPO / "tests" / "fixtures" / "engine" / "kernels" / "helper_watches_pause.py"

TREE = """
import ctypes, os, sys, time
ctypes.CDLL(None).prctl(36, 1)  # adopts orphans, as the sandbox launcher (or a pid namespace's init) does
end = time.monotonic() + 120  # whatever a test does, nothing of this outlives it long
read, write = os.pipe()
first = os.fork()
if first == 0:
    os.setsid()  # out of the root's session and group
    if os.fork() == 0:
        os.write(write, b"%d\\n" % os.getpid())
        while time.monotonic() < end:
            time.sleep(0.005)
        os._exit(0)
    os._exit(0)
os.waitpid(first, 0)
print(os.read(read, 32).decode().strip(), flush=True)
while True:
    time.sleep(0.005)
"""


CHAIN = """
import ctypes, os, time
ctypes.CDLL(None).prctl(36, 1)
root, end = os.getpid(), time.monotonic() + 120
if os.fork() == 0:
    # Each generation forks, its child leaves for a session of its own, the parent exits. It ends itself once
    # the root is gone: a chain that escaped a kill would otherwise fork on the machine for good.
    while time.monotonic() < end:
        try:
            os.kill(root, 0)
        except ProcessLookupError:
            break
        if os.fork() != 0:
            os._exit(0)
        os.setsid()
        time.sleep(0.0002)
    os._exit(0)
while True:  # reaps what it adopts, as bubblewrap's init does
    try:
        while os.waitpid(-1, os.WNOHANG)[0]:
            pass
    except ChildProcessError:
        pass
    time.sleep(0.01)
"""


def _state(pid: int) -> str:
    proc = process_tree._proc(pid)
    return proc.state if proc is not None else "gone"


def _becomes(pid: int, states: str, within: float = 5.0) -> bool:
    ends = time.monotonic() + within
    while time.monotonic() < ends:
        if _state(pid) in states:
            return True
        time.sleep(0.005)
    return False


@pytest.fixture
def detached() -> tuple[subprocess.Popen, int]:
    """A root leading its own group, and a grandchild of it in a session of its own (its parent has exited)."""
    root = subprocess.Popen([sys.executable, "-c", TREE], stdout=subprocess.PIPE, start_new_session=True)
    helper = int(root.stdout.readline())
    yield root, helper
    kill_tree(root.pid)
    root.wait()
    if _state(helper) not in ("gone", "Z"):  # never leave one behind, whatever the test found
        os.kill(helper, signal.SIGKILL)


def test_the_tree_holds_a_grandchild_that_left_the_group(detached):
    root, helper = detached
    assert process_tree._proc(helper).pgid != root.pid
    assert set(members(root.pid)) == {root.pid, helper}
    if process_tree.CHILDREN_FILES:  # both views of the tree agree where the kernel offers both
        assert set(members(root.pid, scan=True)) == set(members(root.pid, scan=False))


def test_a_pause_stops_a_member_outside_the_group_and_resume_continues_it(detached):
    root, helper = detached
    os.killpg(root.pid, signal.SIGSTOP)  # what a pause of the group alone did: the helper ran on
    assert _becomes(root.pid, "T") and not _becomes(helper, "T", within=0.3)
    os.killpg(root.pid, signal.SIGCONT)
    tree = Tree(root.pid)
    tree.pause()
    assert _becomes(root.pid, "T") and _becomes(helper, "T")
    assert tree.strays == [helper] and tree.stopped
    tree.resume()
    assert stopped_members(root.pid) == [] and not tree.stopped and not tree.held
    tree.pause()  # a helper already seen is stopped before the group
    assert _state(helper) == "T"
    tree.resume()
    assert _becomes(helper, "SR")


def test_kill_tree_ends_a_member_the_group_kill_misses(detached):
    root, helper = detached
    kill_tree(root.pid)
    assert _becomes(helper, "Z") or _state(helper) == "gone"
    assert root.wait(timeout=5) == -signal.SIGKILL


class _NotOurChild:
    """A runner adopted from the scheduler, as its judge holds it: `wait` reaps nothing."""

    def __init__(self, pid: int) -> None:
        self.pid = pid

    def wait(self) -> None:
        return None


def test_kill_and_reap_returns_once_every_member_has_ended_even_a_root_that_is_not_its_child(detached, monkeypatch):
    """A killed process holds its memory until its exit is done (a runner's GPU memory: the next problem's judge
    found 74 GiB still taken by the problem before it): `kill_and_reap` returns once no member is left running, not
    once the root is reaped, and for a root it cannot reap (an adopted runner) too; a member that never ends only
    makes it wait its bound."""
    root, helper = detached
    real, polls = process_tree._proc, []

    def slow_exit(pid: int) -> Proc | None:  # the helper's exit takes a while, as one freeing device memory does
        if pid == helper and len(polls) < 20:
            polls.append(pid)
            return Proc(pid, root.pid, helper, "R")
        return real(pid)

    monkeypatch.setattr(process_tree, "_proc", slow_exit)
    process_tree.kill_and_reap(_NotOurChild(root.pid))
    assert len(polls) == 20 and _state(helper) in ("Z", "gone")
    monkeypatch.setattr(process_tree, "_proc", lambda pid: Proc(pid, 1, pid, "R"))  # never ends
    started = time.monotonic()
    process_tree.kill_and_reap(_NotOurChild(root.pid), settle_s=0.2)
    assert time.monotonic() - started < 2.0


def test_a_pid_no_longer_under_its_recorded_parent_is_never_signalled():
    child = subprocess.Popen(["sleep", "30"])
    try:
        wrong = Proc(child.pid, ppid=child.pid + 1, pgid=0, state="S")  # as if the pid had been reused
        assert process_tree._handle(wrong, {wrong.ppid: wrong}) is None
        right = Proc(child.pid, ppid=os.getpid(), pgid=0, state="S")
        handle = process_tree._handle(right, {os.getpid(): right})
        assert handle is not None
        if handle >= 0:
            os.close(handle)
    finally:
        child.kill()
        child.wait()


def test_kill_tree_after_the_root_is_reaped_and_its_group_gone_signals_nothing():
    child = subprocess.Popen(["true"], start_new_session=True)
    child.wait()
    kill_tree(child.pid)  # no group of that id exists: nothing to do, and no error
    assert Tree(child.pid).stopped is False


def _load(runner, job) -> dict:
    from validator.catalogue.problem_module import load_problem_module, reduced_sizes

    problem = load_problem_module(job.problem_path, reduced=True)
    return runner.request({"op": "load", "kernel": runner.inside("kernel.py"), "kernel_sha256": job.kernel_sha256,
                           "problem": runner.inside("problem.py"), "problem_sha256": job.problem_sha256,
                           "backend": job.backend, "model_seed": 1, "reduced": True,
                           "reduced_sizes": reduced_sizes(problem), "interpret": True})


def _pauses_seen_by_helper(tmp_path: Path, group_only: bool, monkeypatch: pytest.MonkeyPatch) -> tuple[bool, list]:
    """Three pauses of 0.3 s of a runner whose kernel started a detached helper; (the helper saw the runner
    stopped while it ran, the members the pauses found outside the group)."""
    from validator.evaluate.judge.remote import Runner

    tmp_path.mkdir()
    job = make_job("level1/19_ReLU", HELPER_KERNEL, tmp_path, interpret=True)
    runner = Runner(job, tmp_path, job.sandbox)
    try:
        assert _load(runner, job)["ok"] is True
        with monkeypatch.context() as patch:
            if group_only:  # the judge before the tree: the group was all it stopped
                patch.setattr(process_tree, "members", lambda root, **_: {})
            for _ in range(3):
                runner.pause()
                time.sleep(0.3)
                runner.resume()
        time.sleep(0.1)
        return (tmp_path / "runner" / "seen-stopped").exists(), list(runner.tree.strays)
    finally:
        runner.close()


@pytest.mark.slow  # over 10 s alone on a 2-core machine
def test_a_detached_helper_of_a_kernel_never_runs_while_the_judge_has_the_runner_stopped(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch):  # fmt: skip
    seen, strays = _pauses_seen_by_helper(tmp_path / "tree", False, monkeypatch)
    assert not seen and len(strays) == 1
    seen, strays = _pauses_seen_by_helper(tmp_path / "group", True, monkeypatch)
    assert seen and strays == []  # the same helper against a pause of the group alone


@pytest.mark.slow
def test_a_chain_that_forks_leaves_its_session_and_exits_is_held_by_every_pause():
    """Before the walks looked for exits and checked the result, about one pause in a hundred let this chain run
    on (a child handed to the root after the walk had read the root's children)."""
    root = subprocess.Popen([sys.executable, "-c", CHAIN], start_new_session=True)
    tree = Tree(root.pid)
    escaped = []
    try:
        time.sleep(0.3)
        for i in range(300):
            tree.pause()
            time.sleep(0.02)
            running = [p.pid for p in members(root.pid).values() if p.state not in ("T", "t", "Z", "X")]
            if running:
                escaped.append((i, running))
            tree.resume()
            time.sleep(0.02)
    finally:
        kill_tree(root.pid)
        root.wait()
    assert escaped == []
