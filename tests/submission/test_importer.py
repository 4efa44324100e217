"""Importing KernelBench run directories (written here, in KernelBench's layout) into submissions."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

from tests.conftest import REPO

KERNEL = (REPO / "submissions" / "kernelbench-team-examples" / "level1_23_softmax_triton.py").read_text()
CUDA_KERNEL = (REPO / "submissions" / "kernelbench-team-examples" / "level1_19_relu_cuda.py").read_text()
PROBLEMS = REPO / "problems"
DECEMBER = PROBLEMS / "tracks" / "91bfc2c"

# level 2 / 41 as the December 2024 version defines it: three constructor arguments (423217d's takes two).
GEMM_GROUPNORM_KERNEL = '''import torch
import torch.nn as nn


class ModelNew(nn.Module):
    def __init__(self, in_features, out_features, num_groups):
        super().__init__()
        self.gemm = nn.Linear(in_features, out_features)
        self.batch_norm = nn.BatchNorm1d(out_features)
        self.group_norm = nn.GroupNorm(num_groups, out_features)

    def forward(self, x):
        x = torch.nn.functional.gelu(self.batch_norm(self.gemm(x)))
        return torch.relu(torch.mean(self.group_norm(x), dim=1, keepdim=True))
'''

# Reads `batch_size` and `dim`, globals its own file never defines, from the problem file: KernelBench runs a
# kernel in the problem's namespace, so such kernels are valid there.
USES_PROBLEM_GLOBALS = KERNEL.replace(
    "        rows, cols = x.shape\n",
    "        rows, cols = x.shape\n        assert (rows, cols) == (batch_size, dim)  # noqa: F821\n", 1)
assert USES_PROBLEM_GLOBALS != KERNEL


def _run_dir(root: Path) -> Path:
    run = root / "runs" / "my_run"
    run.mkdir(parents=True)
    (run / "level_1_problem_23_sample_0_kernel.py").write_text(KERNEL)
    (run / "level_1_problem_23_sample_1_kernel.py").write_text(KERNEL)
    (run / "level_1_problem_19_sample_0_kernel.py").write_text(CUDA_KERNEL)
    (run / "level_1_problem_999_sample_0_kernel.py").write_text(KERNEL)
    (run / "level_1_problem_76_sample_0_kernel.py").write_text("class Model:\n    pass\n")
    (run / "notes.py").write_text("x = 1\n")
    return run


def _import(cli, root: Path, *extra: str, run: str = "my_run"):
    (root / "submissions").mkdir(exist_ok=True)
    return cli("import", str(root / "runs" / run), "--slug", "my-model-run", "--name", "My model",
               "--method", "repeated-sampling", "--model", "some-llm", "--author", "A. Person",
               "--hardware", "H100", "--date", "2026-11-01", "--submissions-dir", str(root / "submissions"),
               "--problems-dir", str(PROBLEMS), *extra)


def _document(root: Path) -> dict:
    return json.loads((root / "submissions" / "my-model-run.json").read_text())


def _validate(cli, root: Path):
    return cli(str(root / "submissions" / "my-model-run.json"), "--problems-dir", str(PROBLEMS), "--no-gpu")


def test_a_run_directory_becomes_a_submission_that_validates(tmp_path, cli):
    _run_dir(tmp_path)
    result = _import(cli, tmp_path, "--kernelbench-commit", "423217d")
    assert result.exit_code == 0, result.output
    by_problem = {(k["level"], k["problem_id"]): k for k in _document(tmp_path)["kernels"]}
    assert set(by_problem) == {(1, 19), (1, 23)}
    assert by_problem[(1, 19)]["backend"] == "cuda"
    assert by_problem[(1, 23)]["backend"] == "triton"
    assert (tmp_path / "submissions" / "my-model-run" / by_problem[(1, 23)]["path"]).read_text() == KERNEL
    check = _validate(cli, tmp_path)
    assert check.exit_code == 0, check.output


def test_unknown_and_unmatched_files_are_reported_with_reasons(tmp_path, cli):
    _run_dir(tmp_path)
    result = _import(cli, tmp_path, "--kernelbench-commit", "423217d")
    assert "no level 1 problem 999" in result.stdout
    assert "defines no top-level class ModelNew" in result.stdout
    assert "notes.py" in result.stdout
    assert "sample 0 was chosen" in result.stdout
    assert "no usable eval_results.json" in result.stdout  # so the pick was not by correctness
    assert "2 kernel(s) imported" in result.stdout


def test_without_evidence_of_the_version_nothing_is_assigned_and_nothing_written(tmp_path, cli):
    _run_dir(tmp_path)
    result = _import(cli, tmp_path)
    assert result.exit_code == 2
    assert "--kernelbench-commit" in result.stderr and "423217d" in result.stderr and "91bfc2c" in result.stderr
    assert not (tmp_path / "submissions" / "my-model-run.json").exists()


def test_problem_copies_in_the_run_directory_tell_the_version(tmp_path, cli):
    run = tmp_path / "runs" / "old"
    run.mkdir(parents=True)
    (run / "problems").mkdir()
    shutil.copy(DECEMBER / "level2" / "41_Gemm_BatchNorm_GELU_GroupNorm_Mean_ReLU.py", run / "problems")
    (run / "level_2_problem_41_sample_0_kernel.py").write_text(GEMM_GROUPNORM_KERNEL)
    result = _import(cli, tmp_path, run="old")
    assert result.exit_code == 0, result.output
    assert "KernelBench version 91bfc2c: 1 problem file(s) in the run directory equal 91bfc2c's" in result.stdout
    (kernel,) = _document(tmp_path)["kernels"]
    old = (DECEMBER / "level2" / "41_Gemm_BatchNorm_GELU_GroupNorm_Mean_ReLU.py").read_bytes()
    import hashlib

    assert kernel["problem_sha256"] == hashlib.sha256(old).hexdigest()
    assert "redefined upstream" in result.stdout and "41_Gemm_BatchNorm_GELU_ReLU" in result.stdout


def test_a_kernel_for_the_older_version_validates_against_it_and_not_against_the_headline(tmp_path, cli):
    run = tmp_path / "runs" / "my_run"
    run.mkdir(parents=True)
    (run / "level_2_problem_41_sample_0_kernel.py").write_text(GEMM_GROUPNORM_KERNEL)
    assert _import(cli, tmp_path, "--kernelbench-commit", "91bfc2c").exit_code == 0
    assert _validate(cli, tmp_path).exit_code == 0
    wrong = _import(cli, tmp_path, "--kernelbench-commit", "423217d", "--force")
    assert wrong.exit_code == 0
    assert "it fits 91bfc2c's (check --kernelbench-commit)" in wrong.stdout  # told at import time already
    check = _validate(cli, tmp_path)
    assert check.exit_code == 1
    assert "kernel-arity-init" in check.output
    assert "ModelNew.__init__(self, in_features, out_features, num_groups)" in check.output
    assert "Model.__init__(self, in_features, out_features)" in check.output


def test_a_flag_that_contradicts_the_problem_copies_is_refused(tmp_path, cli):
    run = _run_dir(tmp_path)
    shutil.copy(PROBLEMS / "level1" / "19_ReLU.py", run)
    result = _import(cli, tmp_path, "--kernelbench-commit", "91bfc2c")
    assert result.exit_code == 2 and "disagrees" in result.stderr
    unknown = _import(cli, tmp_path, "--kernelbench-commit", "deadbeef")
    assert unknown.exit_code == 2 and "not a known version" in unknown.stderr


def _mixed_run(root: Path, layout: str = "list") -> Path:
    """Level 1 / 23 with four samples: 0 fails to compile, 1 incorrect, 2 correct at 2 ms, 3 correct at 1 ms;
    level 1 / 19 with one incorrect sample."""
    run = root / "runs" / "my_run"
    run.mkdir(parents=True)
    for sample in range(4):
        (run / f"level_1_problem_23_sample_{sample}_kernel.py").write_text(KERNEL + f"# sample {sample}\n")
    (run / "level_1_problem_19_sample_0_kernel.py").write_text(CUDA_KERNEL)

    def record(sample: int, compiled: bool, correct: bool, runtime: float) -> dict:
        return {"sample_id": sample, "compiled": compiled, "correctness": correct, "metadata": {},
                "runtime": runtime, "runtime_stats": {}}

    results = {"23": [record(0, False, False, -1.0), record(1, True, False, -1.0), record(2, True, True, 2.0),
                      record(3, True, True, 1.0)],
               "19": [record(0, True, False, -1.0)]}
    if layout == "december":  # December 2024's writer kept one record per problem
        results = {"23": results["23"][2], "19": results["19"][0]}
    (run / "eval_results.json").write_text(json.dumps(results))
    return run


def _chosen_sample(root: Path) -> str:
    (kernel,) = _document(root)["kernels"]
    return (root / "submissions" / "my-model-run" / kernel["path"]).read_text().rsplit("# sample ", 1)[1].strip()


def test_eval_results_pick_the_fastest_correct_sample_by_default(tmp_path, cli):
    _mixed_run(tmp_path)
    result = _import(cli, tmp_path, "--kernelbench-commit", "423217d")
    assert result.exit_code == 0, result.output
    assert _chosen_sample(tmp_path) == "3"
    assert "fastest correct sample (1 ms" in result.stdout
    assert "level_1_problem_19_sample_0_kernel.py: no correct sample in eval_results.json" in result.stdout


def test_first_correct_and_a_fixed_sample_are_honoured_and_say_what_eval_results_thought(tmp_path, cli):
    _mixed_run(tmp_path)
    assert _import(cli, tmp_path, "--kernelbench-commit", "423217d", "--pick", "first-correct").exit_code == 0
    assert _chosen_sample(tmp_path) == "2"
    fixed = _import(cli, tmp_path, "--kernelbench-commit", "423217d", "--pick", "sample", "1", "--force")
    assert fixed.exit_code == 0
    assert "sample 1 as asked; eval_results.json says incorrect" in fixed.stdout
    bad = _import(cli, tmp_path, "--kernelbench-commit", "423217d", "--pick", "fastest", "--force")
    assert bad.exit_code == 2 and "--pick fastest" in bad.stderr


def test_december_2024_eval_results_with_one_record_per_problem_are_read(tmp_path, cli):
    _mixed_run(tmp_path, layout="december")
    assert _import(cli, tmp_path, "--kernelbench-commit", "423217d").exit_code == 0
    assert _chosen_sample(tmp_path) == "2"


def test_a_malformed_eval_results_file_names_the_file_and_json_path(tmp_path, cli):
    run = _mixed_run(tmp_path)
    (run / "eval_results.json").write_text(json.dumps({"23": [{"sample_id": 0, "compiled": "yes"}]}))
    result = _import(cli, tmp_path, "--kernelbench-commit", "423217d")
    assert result.exit_code == 2
    assert "eval_results.json: $['23'][0].compiled: expected true or false" in result.stderr


def test_a_kernel_reading_the_problem_s_globals_is_imported_and_passes_the_cpu_stages(tmp_path, cli):
    run = tmp_path / "runs" / "my_run"
    run.mkdir(parents=True)
    (run / "level_1_problem_23_sample_0_kernel.py").write_text(USES_PROBLEM_GLOBALS)
    assert _import(cli, tmp_path, "--kernelbench-commit", "423217d").exit_code == 0
    check = _validate(cli, tmp_path)
    assert check.exit_code == 0, check.output


def test_an_existing_submission_is_not_overwritten_without_force(tmp_path, cli):
    _run_dir(tmp_path)
    assert _import(cli, tmp_path, "--kernelbench-commit", "423217d").exit_code == 0
    again = _import(cli, tmp_path, "--kernelbench-commit", "423217d")
    assert again.exit_code == 2 and "--force" in again.stderr
    assert _import(cli, tmp_path, "--kernelbench-commit", "423217d", "--force").exit_code == 0


def test_a_bad_slug_is_refused_before_anything_is_written(tmp_path, cli):
    _run_dir(tmp_path)
    (tmp_path / "submissions").mkdir()
    result = cli("import", str(tmp_path / "runs" / "my_run"), "--slug", "Bad Slug", "--name", "x", "--method",
                 "agent", "--author", "a", "--hardware", "H100", "--submissions-dir", str(tmp_path / "submissions"),
                 "--problems-dir", str(PROBLEMS), "--kernelbench-commit", "423217d")
    assert result.exit_code == 2 and "$.slug" in result.stderr
    assert list((tmp_path / "submissions").iterdir()) == []


def test_a_missing_run_directory_is_a_usage_error(tmp_path, cli):
    result = cli("import", str(tmp_path / "nope"), "--slug", "x", "--name", "x", "--method", "agent",
                 "--author", "a", "--hardware", "H100")
    assert result.exit_code == 2 and "does not exist" in result.stderr
