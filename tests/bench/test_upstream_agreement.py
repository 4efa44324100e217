"""bench/upstream_agreement.py's reading of a KernelBench run directory and its comparison, on a hand-written run
(the GPU part, the board's pipeline on each kernel, is the lead's to run)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from tests.paths import REPO, bench_module
from validator.results.records import Environment, ProblemResult, ResultsFile, Status, UpstreamVerdict

KERNEL = (REPO / "submissions" / "kernelbench-team-examples" / "level1_23_softmax_triton.py").read_text()


def _bench():
    return bench_module("upstream_agreement")


def _run_dir(root: Path) -> Path:
    """Level 1, problem 23 (samples 0 to 2) and 19 (sample 0), with KernelBench's verdicts on all but one."""
    run = root / "my_run"
    run.mkdir()
    for sample in range(3):
        (run / f"level_1_problem_23_sample_{sample}_kernel.py").write_text(KERNEL)
    (run / "level_1_problem_19_sample_0_kernel.py").write_text(KERNEL)
    (run / "level_1_problem_40_sample_0_kernel.py").write_text(KERNEL)  # no verdict: not compared
    (run / "23_Softmax.py").write_bytes((REPO / "problems" / "level1" / "23_Softmax.py").read_bytes())  # the version
    verdicts = {
        "23": [{"sample_id": 0, "compiled": True, "correctness": False, "runtime": -1.0},
               {"sample_id": 1, "compiled": True, "correctness": True, "runtime": 0.5},
               {"sample_id": 2, "compiled": True, "correctness": True, "runtime": 0.2}],
        "19": {"sample_id": 0, "compiled": False, "correctness": False, "runtime": -1.0},  # December 2024's shape
    }
    (run / "eval_results.json").write_text(json.dumps(verdicts))
    return run


def _results(*records: ProblemResult) -> ResultsFile:
    env = Environment("GPU", "1", "13.0", "2.14", "3.8", "3.11", "0.1", "3")
    return ResultsFile("s", "S", "c", "h200", env, {}, records, "t0", "t1")


def _record(problem_id: int, status: Status, upstream: UpstreamVerdict | None) -> ProblemResult:
    name = {23: "23_Softmax", 19: "19_ReLU"}[problem_id]
    return ProblemResult(f"level1/{name}", 1, problem_id, "p", f"level1_{name}.py", "k", "triton", status,
                         upstream=upstream)


def test_every_judged_sample_is_read_with_kernelbench_s_verdict(tmp_path):
    found = _bench().expected_verdicts(_run_dir(tmp_path))
    assert {(e.problem_id, e.sample, e.correct) for e in found} == {(23, 0, False), (23, 1, True), (23, 2, True),
                                                                    (19, 0, False)}


def test_the_sample_the_import_takes_is_the_one_compared(tmp_path):
    bench = _bench()
    run = _run_dir(tmp_path)
    assert bench.picked_samples(run, None, None)[(1, 23)] == 2  # the fastest correct, as kb-validate import picks
    assert bench.picked_samples(run, 0, None)[(1, 23)] == 0


def test_agreements_and_disagreements_with_the_board_s_errors(tmp_path):
    bench = _bench()
    expected = bench.expected_verdicts(_run_dir(tmp_path))
    strict_only = UpstreamVerdict(False, 1, 0.05, 1.2, error="not torch.allclose(...)")
    results = _results(_record(23, Status.CORRECT, strict_only), _record(19, Status.COMPILE_ERROR, None))
    rows = {r.problem_id: r for r in bench.compare(expected, results, {(1, 23): 2, (1, 19): 0})}
    assert not rows[23].agrees and (rows[23].upstream_says, rows[23].board_says) == (True, False)
    assert rows[23].max_abs_error == 0.05 and "allclose" in rows[23].why
    assert rows[19].agrees and rows[19].board_says is None  # never judged: not correct, as upstream says


def test_a_run_directory_mixing_levels_is_refused(tmp_path):
    run = _run_dir(tmp_path)
    (run / "level_2_problem_1_sample_0_kernel.py").write_text(KERNEL)
    with pytest.raises(SystemExit, match="exactly one level"):
        _bench().expected_verdicts(run)
