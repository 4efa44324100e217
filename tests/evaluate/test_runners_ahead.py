"""Runners started at the head of a run: each device's first judge adopts the one started for it, only if it was
started with the environment the scheduler would give it, and none outlives the run."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.engine_kit import make_submission
from tests.paths import REPO
from validator.evaluate import runners_ahead
from validator.isolation import bwrap

ENV = {"CUDA_VISIBLE_DEVICES": "0", "CUDA_DEVICE_ORDER": "PCI_BUS_ID", "TORCH_CUDA_ARCH_LIST": "9.0"}


class FakeProcess:
    pid = 0


@pytest.fixture
def started(monkeypatch) -> list[runners_ahead.Prepared]:
    """Every runner `prepare` started, none of them real; `released` on each says whether it was ended."""
    made: list[runners_ahead.Prepared] = []

    def prepare(env, *, gpu):
        import contextlib

        from validator.evaluate.judge import launch

        runner = runners_ahead.Prepared(Path(f"/nonexistent/{len(made)}"), FakeProcess(), contextlib.ExitStack(),
                                        launch.runner_env(env))
        runner.released = False
        made.append(runner)
        return runner

    def release(runner):
        if runner is not None:
            runner.released = True

    monkeypatch.setattr(runners_ahead, "prepare", prepare)
    monkeypatch.setattr(runners_ahead, "release", release)
    return made


def test_a_judge_s_two_runners_started_ahead_are_claimed_once_each_and_the_rest_end_with_the_run(started):
    with runners_ahead.head_start(lambda: [("0", ENV, True), ("1", {**ENV, "CUDA_VISIBLE_DEVICES": "1"}, True)]):
        kernel, twin = runners_ahead.claim("0", ENV), runners_ahead.claim("0", ENV)
        assert runners_ahead.claim("0", ENV) is None  # each once
    # every device's first runner is started before any device's second
    assert [r.env["CUDA_VISIBLE_DEVICES"] for r in started] == ["0", "1", "0", "1"]
    assert (kernel, twin) == (started[0], started[2]) and not kernel.released and not twin.released
    assert started[1].released and started[3].released  # device 1's: nobody took them
    assert runners_ahead.claim("1", ENV) is None


def test_a_runner_started_with_another_toolchain_is_ended_not_adopted(started):
    with runners_ahead.head_start(lambda: [("0", ENV, True)]):
        # a cached extension loads as built only with the build's toolchain variables
        assert runners_ahead.claim("0", {**ENV, "TORCH_CUDA_ARCH_LIST": "8.0"}) is None
        assert started[0].released and not started[1].released
        assert runners_ahead.claim("0", ENV) is started[1]


def test_a_plan_that_fails_starts_nothing_and_the_run_goes_on(started):
    def plan():
        raise RuntimeError("no GPU after all")

    with runners_ahead.head_start(plan):
        assert runners_ahead.claim("0", ENV) is None
    assert started == []


@pytest.mark.slow
def test_an_interpreted_run_s_first_judge_adopts_the_runner_its_head_start_began(tmp_path: Path, monkeypatch):
    from validator.cli import main

    isolation = bwrap.probe()
    if not isolation.confined:
        pytest.skip(f"needs the bubblewrap sandbox: {isolation.detail}")

    source = (REPO / "submissions" / "kernelbench-team-examples" / "level1_23_softmax_triton.py").read_text()
    document = make_submission(tmp_path, {"softmax.py": (1, 23, "triton", source)})
    claimed: list[bool] = []
    claim = runners_ahead.claim

    def recorded(visible, env):
        runner = claim(visible, env)
        claimed.append(runner is not None)
        return runner

    monkeypatch.setattr(runners_ahead, "claim", recorded)
    before = {p.name for p in Path("/tmp").glob("kb-runner-*")}
    (tmp_path / "results").mkdir()
    with (tmp_path / "out.txt").open("w") as stream:
        code = main(["validate", str(document), "--interpret", "--results-dir", str(tmp_path / "results"),
                     "--cache-dir", str(tmp_path / "cache")], stdout=stream, stderr=stream)
    assert code == 0, (tmp_path / "out.txt").read_text()[-3000:]
    assert claimed[:2] == [True, True]  # its kernel's runner and its twin
    assert {p.name for p in Path("/tmp").glob("kb-runner-*")} <= before  # the spare and all else ended
