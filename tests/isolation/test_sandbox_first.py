"""Issue 46 (2): a --verified run without a working sandbox is refused before any kernel code runs."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from tests.engine_kit import make_submission
from validator.findings import ExitCode
from validator.isolation import bwrap


def touching_kernel(marker: Path) -> str:
    """A kernel whose import leaves `marker` behind (a logging.FileHandler creates its file, and the static
    policy lets it through: only the sandbox stops what a kernel's import does)."""
    return f"import logging\nlogging.FileHandler({str(marker)!r})\n\n\nclass ModelNew:\n    pass\n"


@pytest.fixture
def no_bubblewrap(monkeypatch: pytest.MonkeyPatch, tmp_path: Path):
    """A machine without bwrap: a PATH that holds only the interpreter's directory and a KB_BWRAP that names none."""
    empty = tmp_path / "bin"
    empty.mkdir()
    monkeypatch.setenv("PATH", str(empty))
    monkeypatch.setenv("KB_BWRAP", str(tmp_path / "missing-bwrap"))
    bwrap.machine_isolation.cache_clear()
    yield
    bwrap.machine_isolation.cache_clear()


def test_a_verified_run_without_the_sandbox_stops_before_importing_any_kernel(cli, tmp_path: Path,
                                                                               no_bubblewrap) -> None:
    marker = tmp_path / "kernel-ran"
    document = make_submission(tmp_path, {"k.py": (1, 19, "triton", touching_kernel(marker))})
    result = cli("validate", str(document), "--verified", "--provenance", "runner=test", "--arch", "9.0",
                 "--build-only", "--cache-dir", str(tmp_path / "cache"), "--json", str(tmp_path / "r.json"))
    assert result.exit_code == ExitCode.UNSAFE_HERE == 4, result.output
    assert "--verified needs the runner sandbox" in result.output and "Traceback" not in result.output
    assert not marker.exists()
    assert not (tmp_path / "cache").exists()  # no build started either


def test_without_verified_the_same_run_says_it_is_unsandboxed_in_its_report(cli, tmp_path: Path,
                                                                             no_bubblewrap) -> None:
    import json

    document = make_submission(tmp_path, {"k.py": (1, 19, "triton", "class ModelNew:\n    pass\n")})
    result = cli("validate", str(document), "--no-gpu", "--json", str(tmp_path / "r.json"),
                 "--markdown", str(tmp_path / "r.md"))
    assert result.exit_code in (0, 1), result.output
    report = json.loads((tmp_path / "r.json").read_text())
    assert report["sandbox"]["sandbox"] == "none" and "not installed" in report["sandbox"]["detail"]
    assert "Sandbox: none" in (tmp_path / "r.md").read_text()
    assert os.environ["PATH"] == str(tmp_path / "bin")
