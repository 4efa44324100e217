"""What this machine can do: decides which stages run and says why the others are skipped."""

from __future__ import annotations

import os
import shutil
from dataclasses import dataclass
from functools import cache
from pathlib import Path


@dataclass(frozen=True)
class Machine:
    """Capabilities probed once per process."""

    torch_version: str
    torch_cuda: str | None
    """CUDA version torch was built with; None for a CPU-only build."""
    nvcc: str | None
    """Path of nvcc, if a CUDA toolkit is installed."""
    gpus: tuple[str, ...]
    """Names of the visible CUDA GPUs."""
    triton_version: str | None

    @property
    def has_gpu(self) -> bool:
        return bool(self.gpus)

    def cannot_build_cuda(self) -> str | None:
        """Why CUDA extensions cannot be compiled here, or None if they can."""
        if self.torch_cuda is None:
            return "torch is a CPU-only build (no CUDA headers to compile against)"
        if self.nvcc is None:
            return "no CUDA toolkit (nvcc not found on PATH or in CUDA_HOME)"
        return None

    def cannot_run_gpu(self) -> str | None:
        if not self.gpus:
            return "no CUDA GPU visible (torch.cuda.is_available() is False)"
        return None


def _find_nvcc() -> str | None:
    found = shutil.which("nvcc")
    if found:
        return found
    for home in (os.environ.get("CUDA_HOME"), os.environ.get("CUDA_PATH"), "/usr/local/cuda"):
        if home and (Path(home) / "bin" / "nvcc").is_file():
            return str(Path(home) / "bin" / "nvcc")
    return None


@cache
def probe() -> Machine:
    import torch

    gpus: tuple[str, ...] = ()
    if torch.cuda.is_available():
        gpus = tuple(torch.cuda.get_device_name(i) for i in range(torch.cuda.device_count()))
    try:
        import triton

        triton_version: str | None = triton.__version__
    except ImportError:
        triton_version = None
    return Machine(torch.__version__, torch.version.cuda, _find_nvcc(), gpus, triton_version)
