"""Shared fixtures and the skip rules for hardware-dependent markers."""

from __future__ import annotations

import io
import shutil
from dataclasses import dataclass
from pathlib import Path

import pytest

from tests.paths import REPO

EXAMPLE_SLUG = "kernelbench-team-examples"


def _cuda_available() -> bool:
    try:
        import torch

        return torch.cuda.is_available()
    except Exception:
        return False


def _nvcc_usable() -> str | None:
    """Why CUDA sources cannot be compiled here, or None."""
    from validator.machine import probe

    return probe().cannot_build_cuda()


def _browser_missing() -> str | None:
    if not Path("/usr/bin/chromium").exists():
        return "no /usr/bin/chromium (apt-get install chromium)"
    try:
        import playwright  # noqa: F401
    except ImportError:
        return "playwright is not installed"
    return None


def pytest_addoption(parser: pytest.Parser) -> None:
    parser.addoption("--run-slow", action="store_true", help="also run the tests marked slow (CI runs them all)")


def _deselect_slow(config: pytest.Config, items: list[pytest.Item]) -> None:
    """Slow tests run with --run-slow, or when -m names them (`-m slow` runs only those)."""
    if config.getoption("--run-slow") or "slow" in (config.getoption("markexpr") or ""):
        return
    slow = [item for item in items if "slow" in item.keywords]
    if slow:
        config.hook.pytest_deselected(items=slow)
        items[:] = [item for item in items if "slow" not in item.keywords]


def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    _deselect_slow(config, items)
    gpu = _cuda_available()
    nvcc_reason = _nvcc_usable() if any("nvcc" in i.keywords for i in items) else None
    browser_reason = _browser_missing() if any("browser" in i.keywords for i in items) else None
    for item in items:
        if "gpu" in item.keywords and not gpu:
            item.add_marker(pytest.mark.skip(reason="needs a CUDA GPU"))
        if "nvcc" in item.keywords and nvcc_reason:
            item.add_marker(pytest.mark.skip(reason=nvcc_reason))
        if "browser" in item.keywords and browser_reason:
            item.add_marker(pytest.mark.skip(reason=browser_reason))


@dataclass
class CliResult:
    exit_code: int
    stdout: str
    stderr: str

    @property
    def output(self) -> str:
        return self.stdout + self.stderr


@pytest.fixture
def cli():
    """Run `kb-validate` in-process: cli("validate", "x.json") -> CliResult."""
    from validator.cli import main

    def run(*argv: str) -> CliResult:
        out, err = io.StringIO(), io.StringIO()
        code = main(list(argv), out, err)
        return CliResult(code, out.getvalue(), err.getvalue())

    return run


@pytest.fixture
def example_tree(tmp_path: Path) -> Path:
    """A copy of the example submission in tmp_path/submissions/; returns tmp_path."""
    target = tmp_path / "submissions"
    target.mkdir()
    shutil.copy(REPO / "submissions" / f"{EXAMPLE_SLUG}.json", target)
    shutil.copytree(REPO / "submissions" / EXAMPLE_SLUG, target / EXAMPLE_SLUG)
    return tmp_path
