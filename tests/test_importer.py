"""Importing a KernelBench run directory into a submission."""

from __future__ import annotations

import json
from pathlib import Path

from tests.conftest import REPO

KERNEL = (REPO / "submissions" / "kernelbench-team-examples" / "level1_23_softmax_triton.py").read_text()
CUDA_KERNEL = (REPO / "submissions" / "kernelbench-team-examples" / "level1_19_relu_cuda.py").read_text()


def _run_dir(root: Path) -> Path:
    run = root / "runs" / "my_run"
    run.mkdir(parents=True)
    (run / "level_1_problem_23_sample_0_kernel.py").write_text(KERNEL)
    (run / "level_1_problem_23_sample_1_kernel.py").write_text(KERNEL)
    (run / "level_1_problem_19_sample_0_kernel.py").write_text(CUDA_KERNEL)
    (run / "level_1_problem_999_sample_0_kernel.py").write_text(KERNEL)
    (run / "level_2_problem_76_sample_0_kernel.py").write_text("class Model:\n    pass\n")
    (run / "notes.py").write_text("x = 1\n")
    (run / "eval_result.json").write_text("{}")
    return run


def _import(cli, root: Path, *extra: str):
    (root / "submissions").mkdir(exist_ok=True)
    return cli("import", str(root / "runs" / "my_run"), "--slug", "my-model-run", "--name", "My model",
               "--method", "repeated-sampling", "--model", "some-llm", "--author", "A. Person",
               "--hardware", "H100", "--date", "2026-11-01", "--submissions-dir", str(root / "submissions"),
               "--problems-dir", str(REPO / "problems"), *extra)


def test_a_run_directory_becomes_a_submission_that_validates(tmp_path, cli):
    _run_dir(tmp_path)
    result = _import(cli, tmp_path)
    assert result.exit_code == 0, result.output
    document = json.loads((tmp_path / "submissions" / "my-model-run.json").read_text())
    by_problem = {(k["level"], k["problem_id"]): k for k in document["kernels"]}
    assert set(by_problem) == {(1, 19), (1, 23)}
    assert by_problem[(1, 19)]["backend"] == "cuda"
    assert by_problem[(1, 23)]["backend"] == "triton"
    assert (tmp_path / "submissions" / "my-model-run" / by_problem[(1, 23)]["path"]).read_text() == KERNEL
    check = cli(str(tmp_path / "submissions" / "my-model-run.json"), "--problems-dir", str(REPO / "problems"),
                "--no-gpu")
    assert check.exit_code == 0, check.output


def test_unknown_and_unmatched_files_are_reported_with_reasons(tmp_path, cli):
    _run_dir(tmp_path)
    result = _import(cli, tmp_path)
    assert "level 1 id 999" in result.stdout
    assert "defines no top-level class ModelNew" in result.stdout
    assert "notes.py" in result.stdout
    assert "sample 0 was chosen" in result.stdout


def test_an_existing_submission_is_not_overwritten_without_force(tmp_path, cli):
    _run_dir(tmp_path)
    assert _import(cli, tmp_path).exit_code == 0
    again = _import(cli, tmp_path)
    assert again.exit_code == 2 and "--force" in again.stderr
    assert _import(cli, tmp_path, "--force").exit_code == 0


def test_a_bad_slug_is_refused_before_anything_is_written(tmp_path, cli):
    _run_dir(tmp_path)
    (tmp_path / "submissions").mkdir()
    result = cli("import", str(tmp_path / "runs" / "my_run"), "--slug", "Bad Slug", "--name", "x", "--method",
                 "agent", "--author", "a", "--hardware", "H100", "--submissions-dir", str(tmp_path / "submissions"),
                 "--problems-dir", str(REPO / "problems"))
    assert result.exit_code == 2 and "$.slug" in result.stderr
    assert list((tmp_path / "submissions").iterdir()) == []


def test_a_missing_run_directory_is_a_usage_error(tmp_path, cli):
    result = cli("import", str(tmp_path / "nope"), "--slug", "x", "--name", "x", "--method", "agent",
                 "--author", "a", "--hardware", "H100")
    assert result.exit_code == 2 and "does not exist" in result.stderr
