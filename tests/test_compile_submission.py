"""The torch.compile baseline as a submission: generated from the catalogue, kept in step with it, and
measured like any other submission, its results filling the baseline cache."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from engine_kit import context, fake_kernel, make_submission

from tests.conftest import REPO
from tests.test_engine import options
from validator import compile_baseline, compile_submission, engine
from validator.catalogue import load_catalogue
from validator.policy import policy_findings

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
    assert len(document["kernels"]) == len(load_catalogue().problems) == 250
    assert {k["backend"] for k in document["kernels"]} == {"torch-compile"}


def test_a_baseline_kernel_is_the_problem_file_with_a_compiled_model_new() -> None:
    relu = (REPO / "problems" / "level1" / "19_ReLU.py").read_text()
    source = compile_submission.kernel_source(relu)
    assert source.startswith(relu.rstrip("\n")) and "class ModelNew(Model):" in source
    assert "torch.compile(super().forward)" in source
    assert policy_findings(source, "k.py", "torch-compile") == []


def test_check_names_changed_missing_and_stale_files_and_write_repairs_them(baseline_cli, tmp_path: Path) -> None:
    directory = tmp_path / "submissions"
    assert baseline_cli("--write", "--submissions-dir", str(directory)).exit_code == 2  # no such directory
    directory.mkdir()
    assert baseline_cli("--write", "--submissions-dir", str(directory)).exit_code == 0
    date = json.loads((directory / f"{SLUG}.json").read_text())["date"]
    (directory / SLUG / "level1" / "19_ReLU.py").write_text("edited by hand\n")
    (directory / SLUG / "level2" / "1_Conv2D_ReLU_BiasAdd.py").unlink()
    (directory / SLUG / "level1" / "999_Gone.py").write_text("a problem that left the catalogue\n")
    result = baseline_cli("--check", "--submissions-dir", str(directory))
    assert result.exit_code == 1
    for shown in ("level1/19_ReLU.py (differs)", "1_Conv2D_ReLU_BiasAdd.py (missing)", "999_Gone.py (not gen"):
        assert shown in result.stdout
    assert baseline_cli("--write", "--submissions-dir", str(directory)).exit_code == 0
    assert baseline_cli("--check", "--submissions-dir", str(directory)).exit_code == 0
    assert not (directory / SLUG / "level1" / "999_Gone.py").exists()
    assert json.loads((directory / f"{SLUG}.json").read_text())["date"] == date  # regenerating keeps it


def test_a_run_of_the_baseline_submission_fills_the_compile_cache(tmp_path: Path) -> None:
    kernels = {"a.py": (1, 19, "torch-compile", fake_kernel("correct")),
               "b.py": (1, 23, "torch-compile", fake_kernel("correct"))}
    document = make_submission(tmp_path, kernels, slug=SLUG)
    opts = options(tmp_path)
    engine.run_stage(context(document, opts))
    hardware = next(p for p in opts.results_dir.iterdir() if p.is_dir()).name
    entries = compile_baseline.load_cache(compile_baseline.cache_path(opts.results_dir, hardware))
    assert sorted(e["key"] for e in entries.values()) == ["level1/19_ReLU", "level1/23_Softmax"]
    assert {e["compiled"]["median"] for e in entries.values()} == {1.5}
