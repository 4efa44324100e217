"""The judge's phase order is checked before every phase: the order `Evaluation.phases` lists satisfies it, and
a phase run before one it needs stops the judge instead of weakening a verdict."""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path

import pytest

from tests.evaluate.judge.test_run import EXAMPLES, make_job
from validator.evaluate.judge import phase_order
from validator.evaluate.judge import run as worker
from validator.protocol import PROTOCOL


@pytest.mark.parametrize("interpret", [False, True])
def test_the_listed_phases_satisfy_every_stated_precondition(tmp_path: Path, interpret: bool):
    job = make_job("level1/23_Softmax", EXAMPLES / "level1_23_softmax_triton.py", tmp_path, interpret=interpret)
    done: list[str] = []
    for phase in worker.Evaluation(job, PROTOCOL).phases():
        phase_order.check(phase.__name__, done)
        done.append(phase.__name__)
    assert set(phase_order.NEEDS) <= set(done) | ({"attribute"} if interpret else set())
    assert done.index("load_kernel") > max(done.index("compute_references"), done.index("load_twin"))
    if not interpret:  # a profiler pass leaves the runner's process slower per launch: never before its timing
        assert done.index("attribute") > done.index("time")


def test_a_kernel_loaded_before_the_references_exist_stops_the_judge(tmp_path: Path):
    job = make_job("level1/23_Softmax", EXAMPLES / "level1_23_softmax_triton.py", tmp_path, interpret=True)
    evaluation = worker.Evaluation(job, PROTOCOL)
    ran: list[str] = []

    def fake(name: str):
        def phase() -> None:
            ran.append(name)
        phase.__name__ = name
        return phase

    evaluation.phases = lambda: [fake("setup"), fake("start_runner"), fake("load_kernel"), fake("time")]
    with pytest.raises(phase_order.PhaseOrderError, match="'load_kernel' would run before compute_references"):
        evaluation.run()
    assert ran == ["setup", "start_runner"]  # nothing of the kernel's ran


def test_a_warm_up_needs_no_references(tmp_path: Path):
    job = make_job("level1/23_Softmax", EXAMPLES / "level1_23_softmax_triton.py", tmp_path, interpret=True)
    names = [p.__name__ for p in worker.Evaluation(replace(job, warm_only=True), PROTOCOL).phases()]
    assert names == ["setup", "start_runner", "warm"]
    for i, name in enumerate(names):
        phase_order.check(name, names[:i])
