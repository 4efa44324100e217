"""The torch.compile baseline as a submission: generated from the catalogue, kept in step with it, and
measured like any other submission, its results filling the baseline cache."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from tests.conftest import REPO
from tests.engine_kit import context, fake_kernel, make_submission
from tests.evaluate.test_engine import options
from validator.catalogue.problems import load_catalogue
from validator.evaluate import stage as engine
from validator.policy.stage import policy_findings
from validator.results import baselines as compile_baseline

SLUG = compile_baseline.SUBMISSION_SLUG


@pytest.fixture
def baseline_cli(cli, monkeypatch):
    from validator import commands

    monkeypatch.setitem(commands.VERBS, "catalogue", "validator.commands.catalogue")
    return lambda *argv: cli("catalogue", "baseline", *argv)


def test_the_committed_baseline_submission_matches_the_catalogue(baseline_cli) -> None:
    result = baseline_cli("--submissions-dir", str(REPO / "submissions"))
    assert result.exit_code == 0, result.stdout
    document = json.loads((REPO / "submissions" / f"{SLUG}.json").read_text())
    catalogue = load_catalogue()
    assert [(k["level"], k["problem_id"], k["problem_sha256"]) for k in document["kernels"]] == [
        (p.level, p.problem_id, p.sha256) for p in catalogue.problems]
    assert len(document["kernels"]) == 250
    assert {(k["backend"], k["path"]) for k in document["kernels"]} == {("torch-compile", "compiled_reference.py")}
    kernel = (REPO / "submissions" / SLUG / "compiled_reference.py").read_text()
    assert kernel == compile_baseline.KERNEL_SOURCE
    assert policy_findings(kernel, "k.py", "torch-compile") == []


def test_check_names_changed_missing_and_stale_files_and_write_repairs_them(baseline_cli, tmp_path: Path) -> None:
    directory = tmp_path / "submissions"
    assert baseline_cli("--write", "--submissions-dir", str(directory)).exit_code == 2  # no such directory
    directory.mkdir()
    assert baseline_cli("--write", "--submissions-dir", str(directory)).exit_code == 0
    document = json.loads((directory / f"{SLUG}.json").read_text())
    document["kernels"][0]["problem_sha256"] = "0" * 64  # as if level1/1 changed since the last --write
    (directory / f"{SLUG}.json").write_text(json.dumps(document, indent=2))
    (directory / SLUG / "compiled_reference.py").unlink()
    (directory / SLUG / "old_kernel.py").write_text("a file the generator does not write\n")
    result = baseline_cli("--check", "--submissions-dir", str(directory))
    assert result.exit_code == 1
    for shown in (f"{SLUG}.json (differs)", "compiled_reference.py (missing)", "old_kernel.py (not generated"):
        assert shown in result.stdout
    assert baseline_cli("--write", "--submissions-dir", str(directory)).exit_code == 0
    assert baseline_cli("--check", "--submissions-dir", str(directory)).exit_code == 0
    assert not (directory / SLUG / "old_kernel.py").exists()
    assert json.loads((directory / f"{SLUG}.json").read_text())["date"] == document["date"]  # kept on rewrite


def test_a_run_of_the_baseline_submission_fills_the_compile_cache(tmp_path: Path) -> None:
    kernels = {"a.py": (1, 19, "torch-compile", fake_kernel("correct")),
               "b.py": (1, 23, "torch-compile", fake_kernel("correct"))}
    document = make_submission(tmp_path, kernels, slug=SLUG)
    opts = options(tmp_path)
    engine.run_stage(context(document, opts))
    hardware = next(p for p in opts.evaluate.results_dir.iterdir() if p.is_dir()).name
    entries = compile_baseline.load_cache(compile_baseline.cache_path(opts.evaluate.results_dir, hardware))
    assert sorted(e["key"] for e in entries.values()) == ["level1/19_ReLU", "level1/23_Softmax"]
    assert {e["compiled"]["median"] for e in entries.values()} == {1.5}
