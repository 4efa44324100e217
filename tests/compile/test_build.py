"""The build stage: parallel, cached, sandboxed imports of kernel modules (CUDA compiles only under nvcc)."""

from __future__ import annotations

import dataclasses
import hashlib
from pathlib import Path

import pytest

from tests.engine_kit import EXAMPLES, context, make_submission
from validator.compile import stage as build
from validator.compile.toolchain import Toolchain, cache_key
from validator.findings import Finding, Severity, StageOutcome, StageStatus
from validator.isolation import sandbox
from validator.run_context import BuildOptions, RunOptions

TOOLS = Toolchain("2.14.1", "13.0", "9.0", "/usr/local/cuda", None)
TRITON_SOFTMAX = (EXAMPLES / "level1_23_softmax_triton.py").read_text()
RAISES_ON_IMPORT = "import torch\nraise ValueError('this kernel is broken on purpose')\nclass ModelNew: pass\n"
TOUCHES_GPU = "import torch\nWORKSPACE = torch.zeros(16, device='cuda')\nclass ModelNew(torch.nn.Module): pass\n"
HANGS = "import time\ntime.sleep(600)\nclass ModelNew: pass\n"


def kernel_build(tmp_path: Path, source: str, backend: str = "triton", name: str = "k.py") -> build.KernelBuild:
    path = tmp_path / name
    path.write_text(source)
    sha = hashlib.sha256(source.encode()).hexdigest()
    return build.KernelBuild("level1/23_Softmax", path, f"sub.json -> {name}", backend, sha,
                             tmp_path / "cache" / cache_key(sha, backend, TOOLS))


def test_a_triton_kernel_is_import_checked_and_then_served_from_the_cache(tmp_path: Path) -> None:
    kernel = kernel_build(tmp_path, TRITON_SOFTMAX)
    first = build.build_one(kernel, TOOLS, timeout_s=300, max_jobs=2)
    assert (first.status, first.cached) == (build.BuildStatus.IMPORTED, False)
    assert kernel.marker.is_file() and kernel.triton_dir.is_dir()
    again = build.build_one(kernel, TOOLS, timeout_s=300, max_jobs=2)
    assert (again.status, again.cached) == (build.BuildStatus.IMPORTED, True)


def test_a_module_that_raises_on_import_is_a_compile_error_with_its_log(tmp_path: Path) -> None:
    outcome = build.build_one(kernel_build(tmp_path, RAISES_ON_IMPORT), TOOLS, timeout_s=300, max_jobs=2)
    assert outcome.status == build.BuildStatus.FAILED
    assert "ValueError: this kernel is broken on purpose" in outcome.message
    assert "Traceback" in outcome.log_tail
    finding = build.finding_for(outcome, has_gpu=False)
    assert finding is not None and finding.code == "compile-error" and finding.problem == "level1/23_Softmax"
    assert not outcome.build.marker.exists()  # failures are not cached: the next run tries again


def test_a_module_that_needs_a_gpu_at_import_is_reported_as_such_not_as_broken(tmp_path: Path) -> None:
    outcome = build.build_one(kernel_build(tmp_path, TOUCHES_GPU), TOOLS, timeout_s=300, max_jobs=2)
    assert outcome.status == build.BuildStatus.NEEDS_GPU
    finding = build.finding_for(outcome, has_gpu=False)
    assert finding is not None and finding.code == "build-needs-gpu" and finding.severity == Severity.WARNING


def test_a_build_that_hangs_is_killed_at_its_timeout(tmp_path: Path) -> None:
    outcome = build.build_one(kernel_build(tmp_path, HANGS), TOOLS, timeout_s=3, max_jobs=2)
    assert outcome.status == build.BuildStatus.TIMED_OUT
    assert "did not finish within 3 s" in outcome.message


def test_cuda_kernels_are_skipped_with_the_reason_where_nothing_can_compile_them(tmp_path: Path) -> None:
    tools = dataclasses.replace(TOOLS, cannot_build_cuda="no CUDA toolkit (nvcc not found)")
    outcome = build.build_one(kernel_build(tmp_path, "x = 1\n", backend="cuda"), tools, timeout_s=30, max_jobs=2)
    assert outcome.status == build.BuildStatus.SKIPPED and "nvcc not found" in outcome.message
    no_arch = dataclasses.replace(TOOLS, arch=None)
    outcome = build.build_one(kernel_build(tmp_path, "x = 1\n", backend="cuda"), no_arch, timeout_s=30, max_jobs=2)
    assert "--arch" in outcome.message


def test_the_cache_key_changes_with_source_backend_and_toolchain() -> None:
    key = cache_key("a" * 64, "cuda", TOOLS)
    assert key == cache_key("a" * 64, "cuda", TOOLS)
    assert key != cache_key("b" * 64, "cuda", TOOLS)
    assert key != cache_key("a" * 64, "triton", TOOLS)
    for change in ({"arch": "8.0"}, {"torch": "2.11.0"}, {"cuda": "12.8"}):
        assert key != cache_key("a" * 64, "cuda", dataclasses.replace(TOOLS, **change))


def test_parallelism_keeps_every_core_busy_without_much_oversubscription() -> None:
    assert build.parallelism(100, cores=16) == (16, 2)
    assert build.parallelism(1, cores=16) == (1, 16)
    assert build.parallelism(4, cores=2) == (2, 2)


def test_a_failed_build_does_not_stop_the_others(tmp_path: Path) -> None:
    kernels = [kernel_build(tmp_path, RAISES_ON_IMPORT, name="bad.py"), kernel_build(tmp_path, TRITON_SOFTMAX)]
    outcomes = build.build_all(kernels, TOOLS, timeout_s=300, workers=2)
    assert [o.status for o in outcomes] == [build.BuildStatus.FAILED, build.BuildStatus.IMPORTED]


def test_the_stage_builds_the_shards_kernels_and_leaves_out_rejected_ones(tmp_path: Path) -> None:
    kernels = {
        "softmax.py": (1, 23, "triton", TRITON_SOFTMAX),
        "broken.py": (1, 19, "triton", RAISES_ON_IMPORT),
        "rejected.py": (1, 40, "triton", RAISES_ON_IMPORT),
    }
    document = make_submission(tmp_path, kernels)
    rejected = StageOutcome("policy", StageStatus.FAILED, findings=(
        Finding("thread-start", "policy", "starts a thread", problem="level1/40_LayerNorm"),
    ))
    options = RunOptions(build=BuildOptions(arch="9.0", cache_dir=tmp_path / "cache"))
    run = build.run_stage(context(document, options, (rejected,), builds={}))
    by_code = {f.code: f for f in run.findings}
    assert {r.build.key: r.status for r in run.builds} == {
        "level1/23_Softmax": build.BuildStatus.IMPORTED, "level1/19_ReLU": build.BuildStatus.FAILED}
    assert by_code["compile-error"].problem == "level1/19_ReLU"
    assert "2 kernel(s): 1 failed, 1 imported" in by_code["build-summary"].message
    only_first_shard = dataclasses.replace(options, shard=(1, 2))
    planned = build.plan(context(document, only_first_shard), TOOLS)
    assert [b.key for b in planned] == ["level1/19_ReLU", "level1/40_LayerNorm"]


def test_the_stage_needs_a_gpu_or_an_explicit_architecture() -> None:
    from validator.machine import Machine

    no_gpu = Machine("2.14.1", "13.0", "/usr/local/cuda/bin/nvcc", (), "3.8.0")
    assert "--arch" in build.unavailable(no_gpu, RunOptions())
    assert build.unavailable(no_gpu, RunOptions(build=BuildOptions(arch="9.0"))) is None


def test_classify_tells_a_compile_failure_from_an_import_that_needs_a_gpu(tmp_path: Path) -> None:
    kernel = kernel_build(tmp_path, "x = 1\n", backend="cuda")
    crashed = sandbox.SandboxResult(1, False, 1.0, "", "RuntimeError: Found no NVIDIA driver on your system", True, "")
    status, _ = build.classify(kernel, crashed, 60)
    assert status == build.BuildStatus.FAILED  # no extension was built, so the compile itself failed
    library = kernel.ext_dir / "ext_name" / "ext_name.so"
    library.parent.mkdir(parents=True)
    library.write_bytes(b"")
    status, message = build.classify(kernel, crashed, 60)
    assert status == build.BuildStatus.NEEDS_GPU and message.startswith("compiled")


@pytest.mark.slow
@pytest.mark.nvcc
def test_a_cuda_kernel_compiles_for_the_given_architecture_without_a_gpu(tmp_path: Path, cli) -> None:
    """The one CUDA compile of the suite (100-250 s on a 2-core machine, depending on load)."""
    source = (EXAMPLES / "level1_19_relu_cuda.py").read_text()
    document = make_submission(tmp_path, {"relu.py": (1, 19, "cuda", source)})
    (tmp_path / "results").mkdir()
    result = cli(str(document), "--build-only", "--arch", "9.0", "--cache-dir", str(tmp_path / "cache"),
                 "--results-dir", str(tmp_path / "results"))
    assert result.exit_code == 0, result.output
    assert "1 compiled" in result.output
    libraries = list((tmp_path / "cache" / "kernels").rglob("*.so"))
    assert len(libraries) == 1 and "kbteam_relu_vec4" in libraries[0].name
    assert not (tmp_path / "results").exists()


def test_root_that_drops_to_an_unprivileged_uid_keeps_its_cache_where_that_uid_can_reach(monkeypatch):
    """Under /root (mode 700) bubblewrap, started as the runner's uid, cannot reach a cache entry."""
    from validator.compile import toolchain
    from validator.isolation import bwrap
    from validator.run_context import BuildOptions

    monkeypatch.delenv("KB_VALIDATE_CACHE", raising=False)
    monkeypatch.setattr(toolchain.os, "getuid", lambda: 0)
    monkeypatch.setattr(bwrap, "runner_uid", lambda: 65534)
    assert toolchain.cache_root(BuildOptions()) == toolchain.SHARED_ROOT_CACHE
    monkeypatch.setattr(bwrap, "runner_uid", lambda: None)  # keeps its uid: its own HOME is fine
    assert toolchain.cache_root(BuildOptions()).parts[-1] == "kb-validate"
    assert toolchain.cache_root(BuildOptions()) != toolchain.SHARED_ROOT_CACHE


def test_the_build_sandbox_shows_the_host_compiler_s_install_prefix(tmp_path):
    """The GPU image's g++ is /opt/gcc/bin/g++: without /opt/gcc inside the sandbox every CUDA build failed."""
    from validator.compile.toolchain import compiler_dirs

    for prefix in ("opt-gcc", "usr"):
        (tmp_path / prefix / "bin").mkdir(parents=True)
    compiler = tmp_path / "opt-gcc" / "bin" / "g++"
    compiler.write_text("#!/bin/sh\n")
    compiler.chmod(0o755)
    found = compiler_dirs({"PATH": str(tmp_path / "usr" / "bin"), "CXX": f"{compiler} -O2"})
    assert found == [str(tmp_path / "opt-gcc")]
    assert compiler_dirs({"PATH": str(tmp_path / "usr" / "bin")}) == []
