"""A kernel's extension is compiled once, in the build stage: the runner that loads it must write the same
build.ninja, or ninja recompiles the whole extension inside the timed judge's load (on the H200, whose image
sets CC and CXX, every CUDA kernel of a KernelBench run took 63-77 s in `load_kernel`)."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from tests.engine_kit import make_submission
from tests.paths import REPO
from validator import machine
from validator.compile.toolchain import HOST_COMPILERS, Toolchain, compiler_env
from validator.evaluate.judge import launch
from validator.isolation import sandbox

TOOLS = Toolchain("2.x", "13.0", "9.0", "/usr/local/cuda", None)


def test_every_variable_the_build_sets_for_torch_reaches_judges_and_runners(monkeypatch):
    for name in HOST_COMPILERS:
        monkeypatch.setenv(name, f"/opt/tool/bin/{name.lower()}")
    env = compiler_env(TOOLS)
    assert {"CC", "CXX", "CUDA_HOME", "TORCH_CUDA_ARCH_LIST"} <= set(env)
    assert env["CXX"] == "/opt/tool/bin/cxx"
    assert env["CC"] == "/opt/tool/bin/cc"
    assert set(env) <= set(launch.PASSED_THROUGH)  # runners
    assert set(env) <= set(sandbox.ALLOWED_ENV)  # judges
    assert launch.runner_env(env) == env


def test_no_host_compiler_set_means_none_passed(monkeypatch):
    for name in HOST_COMPILERS:
        monkeypatch.delenv(name, raising=False)
    assert not set(HOST_COMPILERS) & set(compiler_env(TOOLS))


KERNEL = '''
import torch
from torch.utils.cpp_extension import load_inline

SOURCE = "torch::Tensor relu(torch::Tensor x) { return torch::clamp_min(x, 0); }"
module = load_inline(name="prebuilt_relu", cpp_sources=SOURCE, functions=["relu"], verbose=True)


class ModelNew(torch.nn.Module):
    def forward(self, x):
        return module.relu(x)
'''


@pytest.mark.slow
@pytest.mark.skipif(machine.probe().cannot_build_cuda() is not None, reason="no extension toolchain here")
@pytest.mark.skipif(shutil.which("c++") is None, reason="no C++ compiler")
def test_the_runner_loads_the_build_stages_extension_without_compiling_it(tmp_path: Path):
    # A host compiler named by CXX, as on the GPU image: the build's build.ninja names it
    bin_dir = tmp_path / "toolchain" / "bin"
    bin_dir.mkdir(parents=True)
    wrapper = bin_dir / "c++"
    wrapper.write_text(f'#!/bin/sh\nexec {shutil.which("c++")} "$@"\n')
    wrapper.chmod(0o755)
    document = make_submission(tmp_path, {"relu.py": (1, 19, "cuda", KERNEL)})
    env = {**os.environ, "CXX": str(wrapper), "KB_RUNNER_TRACE": "1", "KB_VALIDATE_CACHE": str(tmp_path / "cache")}
    env.pop("CC", None)
    (tmp_path / "results").mkdir()
    done = subprocess.run([sys.executable, "-m", "validator", str(document), "--interpret", "--arch", "9.0",
                           "--results-dir", str(tmp_path / "results")],
                          check=False, cwd=REPO, env=env, capture_output=True, text=True, timeout=900)
    output = done.stdout + done.stderr
    assert done.returncode == 0, output[-4000:]
    ninja_files = list((tmp_path / "cache").rglob("build.ninja"))
    assert ninja_files and f"cxx = {wrapper}" in ninja_files[0].read_text()
    runner_log = output.split("--- runner log ---", 1)[-1]
    assert "ninja: no work to do" in runner_log, output[-4000:]
    assert "Building extension module" not in runner_log
