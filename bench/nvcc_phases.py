"""Where a cold CUDA `load_inline` build's seconds go, per nvcc phase (issue 21's cold 100-kernel bar).

Builds one KernelBench-style extension (a ReLU whose .cu includes torch/extension.h, as nearly every leaderboard
kernel does) through torch's own `load_inline`, with `--time` added to nvcc's flags, and prints each phase's
seconds (cudafe++ and cicc parse every header of the translation unit; gcc then compiles the host side) and how
many preprocessed lines each candidate header brings. No GPU is needed: set CUDA_HOME and TORCH_CUDA_ARCH_LIST.

    CUDA_HOME=/usr/local/cuda TORCH_CUDA_ARCH_LIST=9.0 python bench/nvcc_phases.py [--out DIR]
"""

from __future__ import annotations

import argparse
import csv
import json
import subprocess
import sys
import sysconfig
import tempfile
import time
from pathlib import Path

CUDA_SOURCE = r"""
#include <torch/extension.h>
#include <cuda_runtime.h>

__global__ void relu_kernel(const float* x, float* y, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) y[i] = x[i] > 0.f ? x[i] : 0.f;
}

torch::Tensor relu_cuda(torch::Tensor x) {
    auto y = torch::empty_like(x);
    int n = x.numel();
    relu_kernel<<<(n + 255) / 256, 256>>>(x.data_ptr<float>(), y.data_ptr<float>(), n);
    return y;
}
"""
HEADERS = ("torch/extension.h", "torch/all.h", "torch/types.h", "ATen/ATen.h")
"""What a kernel's .cu could include instead, lightest last: the lines each brings bound what a lighter one saves."""


def preprocessed_lines(header: str, includes: list[str]) -> int:
    done = subprocess.run(["g++", "-std=c++20", "-E", *includes, "-x", "c++", "-"], input=f"#include <{header}>\n",
                          capture_output=True, text=True, check=False)
    return done.stdout.count("\n") if done.returncode == 0 else -1


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--out", type=Path, help="where nvcc's phase times and the summary go (default: a temporary"
                        " directory)")
    args = parser.parse_args()
    from torch.utils import cpp_extension

    out = args.out or Path(tempfile.mkdtemp(prefix="kb-nvcc-phases-"))
    out.mkdir(parents=True, exist_ok=True)
    build, times = Path(tempfile.mkdtemp(prefix="kb-nvcc-build-")), out / "nvcc-times.csv"
    times.unlink(missing_ok=True)  # nvcc appends; an earlier run's rows would read as this one's
    started = time.perf_counter()
    try:  # importing the built module may fail on a machine without a GPU driver: the build is what is timed
        cpp_extension.load_inline(name="nvcc_phases_relu", cpp_sources="torch::Tensor relu_cuda(torch::Tensor x);",
                                  cuda_sources=CUDA_SOURCE, functions=["relu_cuda"], build_directory=str(build),
                                  extra_cuda_cflags=["--time", str(times)], verbose=False)
    except (ImportError, OSError, RuntimeError) as error:
        first = (str(error).splitlines() or [type(error).__name__])[0][:160]
        if not times.exists():  # nvcc never finished: no build to report (no CUDA_HOME, no nvcc, a failed compile)
            print(f"nvcc_phases.py: the build did not run to the end: {first} (build directory {build}; set "
                  "CUDA_HOME and TORCH_CUDA_ARCH_LIST where there is no GPU)", file=sys.stderr)
            sys.exit(2)
        print(f"(built; the import failed here: {first})")
    wall = time.perf_counter() - started
    with times.open() as handle:
        rows = [{k.strip(): (v or "").strip() for k, v in row.items()} for row in csv.DictReader(handle)]
    phases = {row["phase name"]: float(row["metric"]) / 1e3 for row in rows if row.get("unit") == "ms"}
    includes = [f"-I{p}" for p in cpp_extension.include_paths("cuda")] + [f"-I{sysconfig.get_paths()['include']}"]
    lines = {h: preprocessed_lines(h, includes) for h in HEADERS}
    (out / "nvcc_phases.json").write_text(json.dumps({"wall_s": wall, "phases_s": phases, "lines": lines}, indent=1))
    print(f"whole load_inline build (host .cpp and .cu, ninja in parallel): {wall:.1f} s")
    print(f"{'nvcc phase':28} {'seconds':>8}")
    for name, seconds in phases.items():
        print(f"{name:28} {seconds:8.2f}")
    print(f"{'.cu total':28} {sum(phases.values()):8.2f}")
    print(f"\n{'header':20} {'preprocessed lines':>18}")
    for header, count in lines.items():
        print(f"{header:20} {count:18}")


if __name__ == "__main__":
    main()
