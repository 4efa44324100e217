"""Issue 46 (6): a build's memory and its cache entry's size are bounded, and the bounds are one record."""

from __future__ import annotations

import dataclasses
from pathlib import Path

import pytest

from tests.compile.test_build import TOOLS, kernel_build
from validator.compile import stage as build
from validator.isolation.limits import LIMITS

WRITES_3_MIB = ("import os\nwith open(os.path.join(os.environ['TORCH_EXTENSIONS_DIR'], 'blob'), 'wb') as f:\n"
                "    f.write(os.urandom(3 << 20))\n\n\nclass ModelNew:\n    pass\n")
TAKES_1_GIB = "BUFFER = bytearray(1 << 30)\n\n\nclass ModelNew:\n    pass\n"


def test_an_entry_over_the_cap_is_a_build_error_and_is_removed(tmp_path: Path, monkeypatch: pytest.MonkeyPatch):
    monkeypatch.setattr(build, "LIMITS", dataclasses.replace(LIMITS, cache_entry_bytes=1 << 20))
    kernel = kernel_build(tmp_path, WRITES_3_MIB)
    outcome = build.build_one(kernel, TOOLS, timeout_s=120, max_jobs=1)
    assert outcome.status == build.BuildStatus.FAILED and "build-too-large" in outcome.message
    assert "3 MiB, over the 1 MiB" in outcome.message
    assert not kernel.marker.exists() and build.entry_bytes(kernel.cache_dir) < 1 << 20
    finding = build.finding_for(outcome, has_gpu=False)
    assert finding is not None and finding.code == "compile-error"


def test_an_entry_under_the_cap_is_recorded_as_before(tmp_path: Path):
    kernel = kernel_build(tmp_path, WRITES_3_MIB)
    outcome = build.build_one(kernel, TOOLS, timeout_s=120, max_jobs=1)
    assert outcome.status == build.BuildStatus.IMPORTED and kernel.marker.is_file()


def test_a_build_past_its_memory_bound_fails(tmp_path: Path, monkeypatch: pytest.MonkeyPatch):
    monkeypatch.setattr(build, "LIMITS", dataclasses.replace(LIMITS, build_memory_bytes=256 << 20))
    outcome = build.build_one(kernel_build(tmp_path, TAKES_1_GIB), TOOLS, timeout_s=120, max_jobs=1)
    assert outcome.status == build.BuildStatus.FAILED and "MemoryError" in outcome.log_tail


def test_the_bounds_are_recorded_in_one_record():
    recorded = LIMITS.to_dict()
    assert recorded["cache_entry_bytes"] < 320 * 10**6  # the entry of issue 46 is over it
    assert all(isinstance(v, int) and v > 0 for v in recorded.values())
