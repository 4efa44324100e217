"""The judge's per-call deadline: set from the reference's time, it catches a hung kernel in seconds where the
parent's bound would wait minutes, and a slow kernel inside it is still judged."""

from __future__ import annotations

import json
import time
from dataclasses import replace
from pathlib import Path
from types import SimpleNamespace

import pytest

from tests.evaluate.judge.test_run import finish, make_job, start_worker
from tests.paths import REPO
from validator.evaluate.judge import deadline
from validator.protocol import PROTOCOL
from validator.results.records import Status

SPIN = REPO / "tests" / "redteam" / "timeout" / "infinite_loop.py"
HONEST = REPO / "tests" / "redteam" / "control" / "relu_triton.py"
SPIN_AT_IMPORT = REPO / "tests" / "fixtures" / "deadline" / "spin_at_import.py"
QUICK = {"call_deadline_floor_s": 0.3, "call_deadline_slack_s": 0.0, "first_call_slack_s": 0.3,
         "time_budget_s": 1.0, "min_rounds": 2, "max_rounds": 6}


def test_the_deadline_is_a_multiple_of_the_reference_plus_slack_above_a_floor_and_longer_when_interpreted():
    assert deadline.call_deadline(0.001, PROTOCOL, interpret=False) == PROTOCOL.call_deadline_floor_s
    slow = deadline.call_deadline(1.0, PROTOCOL, interpret=False)
    assert slow == PROTOCOL.call_deadline_factor * 1.0 + PROTOCOL.call_deadline_slack_s
    assert deadline.call_deadline(1.0, PROTOCOL, interpret=True) == PROTOCOL.interpret_deadline_scale * slow
    # A ReLU whose reference's first call (inputs made, lazy initialisation) takes 0.1 s: a spin is caught in 22 s.
    assert deadline.call_deadline(0.1, PROTOCOL, interpret=False) + PROTOCOL.first_call_slack_s <= 30
    # A reply's gigabytes (upstream's full sizes) have their own deadline, at a slow rate: 6.4 GB is not a hang.
    huge = deadline.payload_deadline(6_400_000_000, PROTOCOL, interpret=False)
    assert huge == pytest.approx(PROTOCOL.call_deadline_floor_s + 6.4e9 / PROTOCOL.payload_bytes_per_s)


@pytest.mark.slow  # over 10 s alone on a 2-core machine
def test_a_spinning_kernel_is_killed_at_the_judge_s_deadline_and_the_result_says_so(tmp_path: Path):
    job = make_job("level1/19_ReLU", SPIN, tmp_path, interpret=True, protocol=PROTOCOL.to_dict() | QUICK)
    started = time.monotonic()
    data = finish(*start_worker(job, tmp_path / "spin"), timeout=120)
    assert data["status"] == Status.TIMEOUT.value
    assert "kernel-deadline" in {f["code"] for f in data["flags"]}
    assert 0 < data["deadline_s"] <= 30 and "`go` request" in data["error"]  # busy CPU: longer
    assert time.monotonic() - started < 60  # the parent's 300 s bound never came into it


@pytest.mark.slow  # over 10 s alone on a 2-core machine
def test_a_kernel_that_spins_at_import_is_killed_at_the_load_deadline(tmp_path: Path):
    job = make_job("level1/19_ReLU", SPIN_AT_IMPORT, tmp_path, interpret=True,
                   protocol=PROTOCOL.to_dict() | QUICK | {"load_deadline_s": 2.0})
    started = time.monotonic()
    data = finish(*start_worker(job, tmp_path / "spin-at-import"), timeout=120)
    assert data["status"] == Status.TIMEOUT.value, data["error"]
    assert "kernel-deadline" in {f["code"] for f in data["flags"]} and "`load` request" in data["error"]
    assert time.monotonic() - started < 60  # not the parent's 300 s


def test_the_load_deadline_is_the_protocol_s_or_ten_times_the_reference_s_construction():
    assert deadline.load_deadline(0.01, PROTOCOL) == PROTOCOL.load_deadline_s
    assert deadline.load_deadline(30.0, PROTOCOL) == PROTOCOL.load_deadline_factor * 30.0


@pytest.mark.slow  # over 10 s alone on a 2-core machine
def test_an_honest_kernel_under_a_tight_deadline_is_still_judged(tmp_path: Path):
    protocol = PROTOCOL.to_dict() | QUICK | {"call_deadline_floor_s": 3.0, "load_deadline_s": 3.0}
    data = finish(*start_worker(make_job("level1/19_ReLU", HONEST, tmp_path, interpret=True, protocol=protocol),
                                tmp_path / "honest"), timeout=300)
    assert data["status"] == Status.CORRECT.value, data["error"]
    assert data["deadline_s"] >= 3.0 * PROTOCOL.interpret_deadline_scale


def test_the_runner_handle_arms_every_kernel_request_and_gives_a_first_call_its_slack():
    handle = SimpleNamespace(deadlines={}, first_slack_s=0.0)
    deadline.arm(handle, 2.0, replace(PROTOCOL, first_call_slack_s=7.0), interpret=False)
    assert handle.deadlines == {"prepare": 2.0, "go": 2.0, "fetch": 2.0, "release": 2.0,
                                "attribute": 6.0}
    assert handle.first_slack_s == 7.0 and "load" not in handle.deadlines  # the judge sets it before loading
    assert handle.payload_s == PROTOCOL.call_deadline_floor_s  # no payload announced: the floor alone
    deadline.arm(handle, 2.0, PROTOCOL, interpret=False, span_seconds=9.0)
    assert handle.deadlines["go"] == 9.0 and handle.deadlines["fetch"] == 2.0  # a span of several calls: its own


@pytest.mark.gpu
def test_on_the_gpu_a_spinning_kernel_on_relu_is_caught_within_30_seconds(tmp_path: Path):
    """The protocol's own deadline (no test overrides) on upstream's ReLU; the wall time is printed for the note."""
    job = make_job("level1/19_ReLU", SPIN, tmp_path, interpret=False)
    started = time.monotonic()
    process, out = start_worker(job, tmp_path / "spin")
    log, _ = process.communicate(timeout=400)
    caught = time.monotonic() - started
    assert process.returncode == 0, log.decode(errors="replace")[-3000:]
    data = json.loads(out.read_text(encoding="utf-8"))
    print(f"spinning kernel caught in {caught:.1f} s (deadline {data['deadline_s']} s per call)")
    print(log.decode(errors="replace")[-4000:])  # with KB_RUNNER_TRACE=1: the judge's phases, the runner's steps
    assert data["status"] == Status.TIMEOUT.value and "kernel-deadline" in {f["code"] for f in data["flags"]}
    assert caught <= 30


def test_a_runner_handle_s_watchdog_waits_out_the_job_protocol_s_compile_quiet(tmp_path: Path):
    from validator.evaluate.judge.remote import Runner

    job = make_job("level1/19_ReLU", HONEST, tmp_path, interpret=True,
                   protocol=PROTOCOL.to_dict() | {"compile_quiet_s": 3.5})
    runner = Runner(job, tmp_path, job.sandbox)
    try:
        assert runner.watchdog.quiet_s == 3.5
    finally:
        runner.close()


def test_the_watchdog_expires_an_overrun_request_once_but_waits_while_the_runner_compiles():
    expired: list[str] = []
    quiet = deadline.Watchdog(lambda: 0.0, expired.append, quiet_s=PROTOCOL.compile_quiet_s)
    quiet.arm(0.2, "call")
    time.sleep(1.0)
    assert expired == ["its `call` request did not answer within 0.2 s"]
    compiling = deadline.Watchdog(time.time, expired.append, quiet_s=PROTOCOL.compile_quiet_s)  # written just now
    compiling.arm(0.2, "go")
    answered = deadline.Watchdog(lambda: 0.0, expired.append)
    answered.arm(0.5, "fetch")
    answered.disarm()
    time.sleep(1.0)
    assert len(expired) == 1
    for dog in (quiet, compiling, answered):
        dog.close()


def test_the_last_write_under_the_cache_is_the_newest_file_s(tmp_path: Path):
    assert deadline.last_write(tmp_path / "absent") == 0.0
    (tmp_path / "triton" / "abc").mkdir(parents=True)
    (tmp_path / "triton" / "abc" / "k.cubin").write_bytes(b"x")
    assert abs(deadline.last_write(tmp_path) - time.time()) < 5


def test_a_torch_compile_kernel_s_first_call_has_only_the_parent_s_bound():
    handle = SimpleNamespace(deadlines={}, first_slack_s=0.0)
    deadline.arm(handle, 2.0, PROTOCOL, interpret=False, backend="torch-compile")
    assert handle.first_slack_s == PROTOCOL.problem_timeout_s and handle.deadlines["fetch"] == 2.0
