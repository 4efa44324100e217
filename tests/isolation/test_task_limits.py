"""Every build, judge and runner of a machine shares one uid's RLIMIT_NPROC: the headroom grows with the cores
(as the number of concurrent jobs does), and no job starts a thread per core that it never uses. On a 64-core
H200 host, concurrent builds each importing torch (numpy's OpenBLAS: a thread per core) met a 512-task headroom,
failed pthread_create, and died with SIGSEGV: six team kernels came out as compile errors."""

from __future__ import annotations

import resource
from pathlib import Path

import pytest

from validator.compile import stage as build_stage
from validator.compile.toolchain import Toolchain
from validator.evaluate import stage as evaluate_stage
from validator.evaluate.judge import launch
from validator.isolation import sandbox


@pytest.fixture
def nproc_set(monkeypatch) -> list[int]:
    """The RLIMIT_NPROC values apply_limits sets, with 100 tasks of this uid already running."""
    calls: list[int] = []

    def record(kind, values):  # sets nothing: this test process keeps its limits
        if kind == resource.RLIMIT_NPROC:
            calls.append(values[0])

    monkeypatch.setattr(sandbox.resource, "setrlimit", record)
    monkeypatch.setattr(sandbox.resource, "getrlimit", lambda kind: (resource.RLIM_INFINITY,) * 2)
    monkeypatch.setattr(sandbox, "_user_task_count", lambda: 100)
    return calls


@pytest.mark.parametrize(("cores", "expected"), [(2, 100 + 512), (16, 100 + 1024), (64, 100 + 64 * 64)])
def test_the_task_headroom_is_the_jobs_own_or_a_share_per_core_whichever_is_larger(monkeypatch, nproc_set,
                                                                                   cores, expected):
    monkeypatch.setattr(sandbox.os, "cpu_count", lambda: cores)
    sandbox.apply_limits(sandbox.Limits(cpu_seconds=60, file_bytes=1 << 20, processes=512, open_files=64))
    assert nproc_set == [expected]


def test_builds_judges_and_runners_start_no_blas_thread_per_core(tmp_path: Path):
    tools = Toolchain("2.x", None, None, None, None)
    kernel = build_stage.KernelBuild("level1/19_ReLU", tmp_path / "k.py", "k.py", "cuda", "0" * 64, tmp_path)
    built = build_stage._environment(kernel, tools, 4)
    assert built["OPENBLAS_NUM_THREADS"] == "1" and built["OMP_NUM_THREADS"] == "1"
    workers = evaluate_stage._worker_env(tools, interpret=False)
    assert workers["OPENBLAS_NUM_THREADS"] == "1"
    assert launch.runner_env(workers)["OPENBLAS_NUM_THREADS"] == "1"  # runners started ahead get it too
    assert "OPENBLAS_NUM_THREADS" in sandbox.ALLOWED_ENV  # and those a judge starts, from its own environment
