"""The red-team corpus: every hostile or broken kernel gets the status and reason code it must get.

CPU cases run through real workers in Triton's interpreter (tests/redteam/runner.py, one subprocess that
forks a worker per case); GPU cases run the same way under the gpu marker; the static policy is checked
on every case that names what it must do.
"""

from __future__ import annotations

import json
import os
import secrets
import subprocess
import sys
from pathlib import Path

import pytest

from tests.paths import TESTS

sys.path.insert(0, str(TESTS / "redteam"))
from runner import Case, Outcome, caught, load_cases

RUNNER = TESTS / "redteam" / "runner.py"
CASES = load_cases()
STATUS_DIRECTORIES = {"runtime-error", "timeout", "oom", "compile-error", "control", "policy", "sandbox-escape",
                      "split"}
"""Directories named for a status or a class of attack rather than a reason code (`sandbox-escape`: attempts
on the judge, the sandbox and the host, whose failure looks like wrong output or a dead runner; `split`: kernels
exact only on the calls they take for checks, caught by whichever rule their cheat breaks)."""


def _ids(cases: list[Case]) -> list[str]:
    return [c.name.rsplit("/", 1)[-1] for c in cases]


def _run_corpus(mode: str, tmp: Path, parallel: int) -> tuple[dict[str, Outcome], list[str]]:
    out = tmp / f"redteam-{mode}.json"
    command = [sys.executable, str(RUNNER), "--mode", mode, "-j", str(parallel), "--json", str(out)]
    env = {**os.environ, "KB_REDTEAM_CANARY": secrets.token_hex(16)}  # in the runner's environment from exec on
    done = subprocess.run(command, capture_output=True, text=True, timeout=1500, check=False, env=env)
    if not out.exists():
        pytest.fail(f"the red-team runner wrote no outcomes:\n{done.stdout[-3000:]}\n{done.stderr[-3000:]}")
    print(done.stdout)
    data = json.loads(out.read_text())
    outcomes = {name: Outcome(**{**o, "codes": tuple(o["codes"])}) for name, o in data["outcomes"].items()}
    return outcomes, data["leftovers"]


def test_the_corpus_has_at_least_25_hostile_or_broken_kernels_each_with_an_expectation():
    hostile = [c for c in CASES if not c.file.startswith(("control/", "submissions/"))]
    assert len(hostile) >= 25
    for case in CASES:
        assert case.path.is_file(), case.file
        assert case.attack and case.expect["status"]
        assert case.runs_in("cpu") or case.runs_in("gpu") or case.policy is not None


def test_each_case_lives_in_a_directory_named_for_its_reason_code():
    for case in CASES:
        directory = case.file.split("/", 1)[0]
        if case.file.startswith("submissions/"):
            continue
        codes = {case.expect.get("code"), *(alt["code"] for alt in case.expect.get("also", ()))}
        assert directory in codes or directory in STATUS_DIRECTORIES, case.file


@pytest.fixture(scope="module")
def cpu_run(tmp_path_factory: pytest.TempPathFactory) -> tuple[dict[str, Outcome], list[str]]:
    return _run_corpus("cpu", tmp_path_factory.mktemp("redteam"), parallel=2)


@pytest.fixture(scope="module")
def cpu_outcomes(cpu_run: tuple[dict[str, Outcome], list[str]]) -> dict[str, Outcome]:
    return cpu_run[0]


CPU_CASES = [c for c in CASES if c.runs_in("cpu")]
@pytest.mark.slow  # over 10 s alone on a 2-core machine
@pytest.mark.parametrize("case", CPU_CASES, ids=_ids(CPU_CASES))
def test_the_case_is_caught_on_cpu(case: Case, cpu_outcomes: dict[str, Outcome]):
    got = cpu_outcomes[case.name]
    if got.status == "skipped":  # an escape case, never run without the runner sandbox
        pytest.skip(got.error)
    assert caught(case, got, "cpu"), f"expected {case.expected('cpu')}, got {got}"


@pytest.mark.slow  # over 10 s alone on a 2-core machine
def test_no_case_leaves_a_mark_or_a_process_outside_its_sandbox_on_cpu(cpu_run):
    assert cpu_run[1] == []


@pytest.fixture(scope="module")
def gpu_run(tmp_path_factory: pytest.TempPathFactory) -> tuple[dict[str, Outcome], list[str]]:
    return _run_corpus("gpu", tmp_path_factory.mktemp("redteam"), parallel=4)


@pytest.fixture(scope="module")
def gpu_outcomes(gpu_run: tuple[dict[str, Outcome], list[str]]) -> dict[str, Outcome]:
    return gpu_run[0]


@pytest.mark.gpu
def test_no_case_leaves_a_mark_or_a_process_outside_its_sandbox_on_the_gpu(gpu_run):
    assert gpu_run[1] == []


GPU_CASES = [c for c in CASES if c.runs_in("gpu")]


@pytest.mark.gpu
@pytest.mark.parametrize("case", GPU_CASES, ids=_ids(GPU_CASES))
def test_the_case_is_caught_on_gpu(case: Case, gpu_outcomes: dict[str, Outcome]):
    got = gpu_outcomes[case.name]
    if got.status == "skipped":  # an escape case, never run without the runner sandbox
        pytest.skip(got.error)
    assert caught(case, got, "gpu"), f"expected {case.expected('gpu')}, got {got}"


POLICY_CASES = [c for c in CASES if c.policy]


@pytest.mark.parametrize("case", POLICY_CASES, ids=_ids(POLICY_CASES))
def test_the_static_policy_rejects_or_flags_the_case(case: Case):
    policy = pytest.importorskip("validator.policy.stage")
    from validator.findings import Severity

    findings = policy.policy_findings(case.path.read_text(encoding="utf-8"), case.file, "triton")
    severity = Severity.ERROR if case.policy["must"] == "reject" else Severity.WARNING
    assert (case.policy["code"], severity) in {(f.code, f.severity) for f in findings}, findings


def test_the_static_policy_passes_the_control_kernels():
    policy = pytest.importorskip("validator.policy.stage")
    from validator.findings import Severity

    for case in (c for c in CASES if c.file.startswith(("control/", "submissions/"))):
        findings = policy.policy_findings(case.path.read_text(encoding="utf-8"), case.file, "triton")
        assert not [f for f in findings if f.severity == Severity.ERROR], case.file


def test_a_case_the_timing_bound_refused_is_judged_again_alone_and_a_second_refusal_stands(monkeypatch, tmp_path):
    import runner

    refused = Outcome("rejected", ("sandbox", "timing-unverified"), "over the allowance", 3.0)
    first = {"a": refused, "b": refused, "c": Outcome("incorrect", ("output-mismatch",), "", 2.0)}
    calls = []

    def again(cases, mode, root, parallel, timeout_s):
        calls.append(([c.name for c in cases], parallel))
        return {"a": Outcome("incorrect", ("output-mismatch",), "", 4.0), "b": refused}

    monkeypatch.setattr(runner, "run_cases", again)
    cases = [Case(f"{name}.py", "level1/19_ReLU", "x", {"status": "incorrect"}) for name in "abc"]
    got = runner.rejudged(cases, first, "gpu", tmp_path, 60.0)
    assert calls == [(["a", "b"], 1)]
    assert got["a"].status == "incorrect" and "timing-rejudged" in got["a"].codes and got["a"].seconds == 7.0
    assert got["b"].status == "rejected" and "timing-unverified" in got["b"].codes
    assert "c" not in got
