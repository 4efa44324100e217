"""Catalogue quality filters: the fixture corpus, the comparison they rest on, the runner, the CLI verb,
and every problem of the real catalogue at reduced size."""

from __future__ import annotations

import ast
import json
import shutil
from pathlib import Path

import pytest
import torch

from tests.paths import FIXTURES, REPO
from validator.catalogue.check_worker import run_isolated
from validator.catalogue.checks import CheckSpec, ProblemCheck, check_problem, passes_correctness
from validator.catalogue.problems import Problem, load_catalogue
from validator.findings import Severity

CORPUS = FIXTURES / "catalogue"
CORPUS_PROBLEMS = load_catalogue(CORPUS).problems
SPEC = CheckSpec(slow_forward_s=None)  # timings depend on the machine; tests check behaviour


def _expect(path: Path) -> dict:
    tree = ast.parse(path.read_text(encoding="utf-8"))
    node = next(n for n in tree.body if isinstance(n, ast.Assign) and getattr(n.targets[0], "id", "") == "EXPECT")
    return ast.literal_eval(node.value)


def _codes(result: ProblemCheck, severity: Severity) -> list[str]:
    return sorted({f.code for f in result.findings if f.severity == severity})


@pytest.fixture
def catalogue_cli(cli, monkeypatch):
    """`kb-validate catalogue ...` in-process (registered here too, in case the verb list lacks it)."""
    from validator import commands

    monkeypatch.setitem(commands.VERBS, "catalogue", "validator.commands.catalogue")
    return lambda *argv: cli("catalogue", *argv)


@pytest.fixture(autouse=True)
def _modest_threads():
    before = torch.get_num_threads()
    torch.set_num_threads(2)
    yield
    torch.set_num_threads(before)


@pytest.mark.parametrize("problem", CORPUS_PROBLEMS, ids=[p.key for p in CORPUS_PROBLEMS])
def test_each_corpus_problem_gets_the_status_and_codes_it_declares(problem: Problem) -> None:
    expect = _expect(problem.path)
    result = check_problem(problem, SPEC)
    assert (result.status, _codes(result, Severity.ERROR), _codes(result, Severity.WARNING)) == (
        expect["status"], sorted(expect["errors"]), sorted(expect["warnings"])
    ), [f"{f.code}: {f.message}" for f in result.findings]


def test_findings_name_the_problem_file_and_stage() -> None:
    problem = next(p for p in CORPUS_PROBLEMS if p.name == "4_IgnoresInput")
    (finding,) = check_problem(problem, SPEC).findings
    assert (finding.stage, finding.file, finding.problem) == ("catalogue", "level1/4_IgnoresInput.py",
                                                              "level1/4_IgnoresInput")
    assert "input 1" in finding.message


def test_a_kept_problem_shows_the_documented_reason() -> None:
    problem = next(p for p in CORPUS_PROBLEMS if p.name == "14_Exempt")
    (finding,) = check_problem(problem, SPEC).findings
    assert finding.message.startswith("kept: the unused layer is part of the upstream problem's definition")


def test_a_passing_problem_records_its_output_shape_and_dtype() -> None:
    result = check_problem(CORPUS_PROBLEMS[0], SPEC)
    assert (result.output_shape, result.output_dtype) == ((8, 16), "float32")
    assert result.forward_ms is not None and result.eager_ms is None


def test_measured_memory_over_24_gb_fails_and_an_eager_time_off_target_only_warns(monkeypatch) -> None:
    from validator.catalogue import eager_timing

    monkeypatch.setattr(eager_timing, "measure_eager", lambda *args, **kwargs: (40.0, 25 * 10**9))
    result = check_problem(CORPUS_PROBLEMS[0], CheckSpec(measure=True, slow_forward_s=None))
    assert (result.eager_ms, result.peak_mem_bytes, result.status) == (40.0, 25 * 10**9, "failed")
    assert _codes(result, Severity.ERROR) == ["too-much-memory"]
    assert _codes(result, Severity.WARNING) == ["outside-time-target"]


def test_an_ill_conditioned_problem_fails_at_full_size_and_names_the_input_variant() -> None:
    problem = next(p for p in CORPUS_PROBLEMS if p.key == "level1/20_IllConditioned")
    result = check_problem(problem, CheckSpec(reduced=False, slow_forward_s=None))
    assert (result.status, _codes(result, Severity.ERROR)) == ("failed", ["ill-conditioned"])
    message = next(f.message for f in result.findings if f.code == "ill-conditioned")
    assert "on the scaled-x100 inputs the fp32 reference is not within half its tolerance of a float64 run" in message
    reduced = check_problem(problem, SPEC)  # at reduced sizes only CPU runs are affected: a warning
    assert "at reduced sizes" in next(f.message for f in reduced.findings if f.code == "ill-conditioned")


def test_zeros_pass_at_the_protocol_tolerance_only_when_every_element_is_tiny() -> None:
    small = torch.full((4, 4), 5e-5)
    assert passes_correctness(torch.zeros(4, 4), small)
    small[0, 0] = 1e-3
    assert not passes_correctness(torch.zeros(4, 4), small)


def test_integer_outputs_must_match_exactly_and_shapes_must_agree() -> None:
    labels = torch.tensor([1, 2, 3])
    assert passes_correctness(labels.clone(), labels)
    assert not passes_correctness(torch.tensor([1, 2, 4]), labels)
    assert not passes_correctness(torch.zeros(2, 2), torch.zeros(4))


def test_a_check_result_survives_a_json_round_trip() -> None:
    result = check_problem(next(p for p in CORPUS_PROBLEMS if p.name == "2_ZerosPass"), SPEC)
    again = ProblemCheck.from_dict(json.loads(json.dumps(result.to_dict())))
    assert again == result


@pytest.mark.slow
def test_the_isolated_runner_survives_a_hanging_and_a_crashing_problem(tmp_path: Path) -> None:
    level = tmp_path / "level1"
    level.mkdir()
    good = (CORPUS / "level1" / "1_Passes.py").read_text()
    forward = "return torch.relu(self.linear(x))"
    (level / "1_Hangs.py").write_text(good.replace(forward, "while True:\n            pass"))
    crash = "import os\n        import signal\n        os.kill(os.getpid(), signal.SIGKILL)"
    (level / "2_Crashes.py").write_text(good.replace(forward, crash))
    (level / "3_Passes.py").write_text(good)
    reduced = {"reduced_sizes": {"batch": 8, "n": 16}}
    overlay = {"schema_version": 1, "problems": {f"level1/{n}": reduced for n in ("1_Hangs", "2_Crashes", "3_Passes")}}
    (tmp_path / "overlay.json").write_text(json.dumps(overlay))
    problems = load_catalogue(tmp_path).problems
    results = run_isolated(problems, SPEC, per_problem_s=20, budget_s=120, log_path=tmp_path / "log.txt")
    assert [r.status for r in results] == ["failed", "failed", "passed"]
    assert [r.findings[0].code for r in results[:2]] == ["timeout", "worker-crashed"]


def _corpus_copy(tmp_path: Path, names: list[str]) -> Path:
    (tmp_path / "level1").mkdir()
    for name in names:
        shutil.copy(CORPUS / "level1" / name, tmp_path / "level1" / name)
    # the board's additions travel with the files: the corpus overlay's entries for the copied ones
    overlay = json.loads((CORPUS / "overlay.json").read_text())
    copied = {f"level1/{name.removesuffix('.py')}" for name in names}
    overlay["problems"] = {k: v for k, v in overlay["problems"].items() if k in copied}
    (tmp_path / "overlay.json").write_text(json.dumps(overlay))
    return tmp_path


def test_the_check_verb_exits_0_when_every_problem_passes_and_writes_json(tmp_path: Path, catalogue_cli) -> None:
    root = _corpus_copy(tmp_path, ["1_Passes.py", "14_Exempt.py"])
    report = tmp_path / "check.json"
    result = catalogue_cli("check", "--reduced", "--problems-dir", str(root), "--json", str(report))
    assert result.exit_code == 0, result.output
    data = json.loads(report.read_text())
    assert data["counts"] == {"passed": 1, "kept": 1, "failed": 0}
    assert data["mode"] == "reduced" and data["hardware"] is None
    assert "level1/14_Exempt" in result.stdout and "kept" in result.stdout


def test_the_check_verb_exits_1_when_a_problem_fails_a_filter(tmp_path: Path, catalogue_cli) -> None:
    root = _corpus_copy(tmp_path, ["1_Passes.py", "6_IgnoresWeights.py"])
    result = catalogue_cli("check", "--problems-dir", str(root))
    assert result.exit_code == 1
    assert "ignores-weights" in result.stdout


def test_only_selects_problems_by_key_or_level_and_id(tmp_path: Path, catalogue_cli) -> None:
    root = _corpus_copy(tmp_path, ["1_Passes.py", "6_IgnoresWeights.py"])
    result = catalogue_cli("check", "--problems-dir", str(root), "--only", "level1/1")
    assert result.exit_code == 0 and "IgnoresWeights" not in result.stdout


def test_usage_errors_exit_2_with_a_message(tmp_path: Path, catalogue_cli) -> None:
    root = _corpus_copy(tmp_path, ["1_Passes.py"])
    unknown = catalogue_cli("check", "--problems-dir", str(root), "--only", "level9/1")
    assert unknown.exit_code == 2 and "no such problem" in unknown.stderr
    if not torch.cuda.is_available():
        full = catalogue_cli("check", "--full", "--problems-dir", str(root))
        assert full.exit_code == 2 and "needs a CUDA GPU" in full.stderr
    assert catalogue_cli("check", "--reduced", "--full").exit_code == 2


REAL = load_catalogue(REPO / "problems").problems


@pytest.mark.slow
@pytest.mark.parametrize("problem", REAL, ids=[p.key for p in REAL])
def test_every_catalogue_problem_passes_the_reduced_filters(problem: Problem) -> None:
    result = check_problem(problem, SPEC)
    errors = [f"{f.code}: {f.message}" for f in result.findings if f.severity == Severity.ERROR]
    assert result.status in ("passed", "kept"), errors


@pytest.mark.gpu
def test_on_a_gpu_the_full_check_times_the_reference_and_records_peak_memory() -> None:
    spec = CheckSpec(reduced=False, device="cuda:0", generate_on_device=True, measure=True, slow_forward_s=None)
    result = check_problem(CORPUS_PROBLEMS[0], spec)
    assert result.status == "passed", result.findings
    assert result.eager_ms is not None and result.eager_ms > 0
    assert result.peak_mem_bytes is not None and result.peak_mem_bytes >= 64 * 32 * 4
