"""The one recipe for compiling a kernel, shared by build and evaluate: the toolchain, the cache key, where a
kernel's compiled artefacts live, and the environment a child needs to find (not rebuild) them."""

from __future__ import annotations

import hashlib
import json
import os
import shutil
import sys
from dataclasses import dataclass
from pathlib import Path

from validator.isolation import bwrap
from validator.machine import Machine
from validator.run_context import BuildOptions, RunOptions

BUILD_RECIPE = "1"
"""Bump when the way kernels are built changes (flags, layout), so older cache entries are not reused."""


@dataclass(frozen=True)
class Toolchain:
    """What the cache key depends on, besides the source."""

    torch: str
    cuda: str | None
    arch: str | None
    """TORCH_CUDA_ARCH_LIST value (`9.0a`); None when no target is known."""
    cuda_home: str | None
    cannot_build_cuda: str | None


def cache_root(options: BuildOptions) -> Path:
    configured = options.cache_dir or os.environ.get("KB_VALIDATE_CACHE")
    if configured:
        return Path(configured).expanduser().resolve()
    if os.getuid() == 0 and bwrap.runner_uid() is not None:
        # Root hands each cache entry to the unprivileged uid its builds and runners run as, and bubblewrap,
        # started as that uid, must reach the entry: under /root (mode 700) it cannot.
        return SHARED_ROOT_CACHE
    base = os.environ.get("XDG_CACHE_HOME") or Path.home() / ".cache"
    return Path(base) / "kb-validate"


SHARED_ROOT_CACHE = Path("/var/cache/kb-validate")


def _is_toolkit(home: str | Path | None) -> bool:
    """A CUDA toolkit root: nvcc, the runtime headers and libcudart (what a load_inline link needs)."""
    if not home:
        return False
    root = Path(home)
    libraries = [*root.glob("lib64/libcudart.so*"), *root.glob("lib/libcudart.so*"),
                 *root.glob("targets/*/lib/libcudart.so*")]
    return (root / "bin" / "nvcc").exists() and (root / "include" / "cuda_runtime.h").exists() and bool(libraries)


def _cuda_home(machine: Machine) -> str | None:
    """Where the CUDA toolkit is. Without CUDA_HOME torch guesses /usr/local and the link fails on -lcudart."""
    candidates = [os.environ.get("CUDA_HOME"), os.environ.get("CUDA_PATH"), "/usr/local/cuda"]
    if machine.nvcc:
        candidates.append(str(Path(machine.nvcc).resolve().parent.parent))
    return next((str(c) for c in candidates if _is_toolkit(c)), None)


def gpu_arch(index: int) -> str:
    """TORCH_CUDA_ARCH_LIST entry for a visible GPU; `a` variants (sm_90a) unlock Hopper-only instructions."""
    import torch

    major, minor = torch.cuda.get_device_capability(index)
    return f"{major}.{minor}" + ("a" if major >= 9 else "")


def toolchain(machine: Machine, options: RunOptions) -> Toolchain:
    arch = options.build.arch
    if arch is None and machine.has_gpu:
        gpus = options.evaluate.gpus
        arch = gpu_arch(gpus[0] if gpus else 0)
    return Toolchain(machine.torch_version, machine.torch_cuda, arch, _cuda_home(machine), machine.cannot_build_cuda())


def cache_key(kernel_sha256: str, backend: str, tools: Toolchain) -> str:
    material = json.dumps(
        [BUILD_RECIPE, kernel_sha256, backend, tools.torch, tools.cuda, tools.arch, sys.version_info[:2]]
    )
    return hashlib.sha256(material.encode()).hexdigest()[:32]


def kernel_cache_dir(root: Path, kernel_sha256: str, backend: str, tools: Toolchain) -> Path:
    """`<cache>/kernels/<key>`: `ext/` is the kernel's TORCH_EXTENSIONS_DIR, `triton/` its TRITON_CACHE_DIR."""
    return root / "kernels" / cache_key(kernel_sha256, backend, tools)


HOST_COMPILERS = ("CC", "CXX")
"""Variables torch's extension builder reads for its host compilers (CXX: ninja's `cxx`; CC: nvcc's `-ccbin`)."""


def compiler_env(tools: Toolchain) -> dict[str, str]:
    """What torch's extension builder reads, so a build and a later worker write the same build.ninja: ninja
    rebuilds an extension whose commands changed, and a runner without the build's CC and CXX recompiled every
    CUDA kernel when loading it (63-77 s per problem on the H200, where the image sets both to /opt/gcc)."""
    env = {name: os.environ[name] for name in HOST_COMPILERS if os.environ.get(name)}
    if tools.arch:
        env["TORCH_CUDA_ARCH_LIST"] = tools.arch
    if tools.cuda_home:
        env["CUDA_HOME"] = tools.cuda_home
    return env


HARNESS_TRITON = "harness-triton"
"""The judges' own Triton cache (the output digest's kernel, its launcher and Triton's driver module), one per
cache root and outside every kernel's entry: the judges' compiles never change a tree the build's manifest covers
(a cache inside the entry did, and every later run found the entry changed and rebuilt the kernel). Only judges,
which never import submitted code, write it; each runner starts from a copy of it (`remote.seed_harness_cache`),
so it need not compile the digest again (its first call of nothing took 1.4-1.6 s per problem on the H200)."""


def worker_cache_env(cache_dir: Path, backend: str, problem_sha256: str, harness: Path) -> dict[str, str]:
    """A worker's compiler caches: the kernel's Triton cache inside its entry (copied into its runner,
    KB_KERNEL_TRITON_CACHE), the judges' own, `harness` (TRITON_CACHE_DIR, and KB_HARNESS_TRITON_CACHE for the
    copy into the runner), and inductor's for a torch.compile kernel (KB_KERNEL_INDUCTOR_CACHE: the warm-up fills it,
    the timed worker reads it). The kernel's caches go by
    the board's own names: TORCHINDUCTOR_CACHE_DIR is set by inductor itself, to a per-user directory, in any
    process that touches it, and a judge that took that for the kernel's cache copied and locked all of it.

    A torch.compile kernel's caches are per problem (`problems/<problem sha256>/`, an entry with its own manifest
    and lock): what inductor compiles depends on the problem, and the torch.compile row is one kernel file for
    all 250. In one shared entry every warm-up's merge and every judge's copy hashed and copied the caches of
    all problems warmed so far, under one lock: on four H200s, warm-ups of the row's second half waited past
    the 300 s bound and a resumed run's build check hashed for minutes."""
    env = {"KB_KERNEL_TRITON_CACHE": str(cache_dir / "triton"), "TRITON_CACHE_DIR": str(harness),
           "KB_HARNESS_TRITON_CACHE": str(harness)}
    if backend == "torch-compile":
        own = cache_dir / PER_PROBLEM / problem_sha256
        env |= {"KB_KERNEL_TRITON_CACHE": str(own / "triton"), "KB_KERNEL_INDUCTOR_CACHE": str(own / "inductor")}
    return env


PER_PROBLEM = "problems"
"""Folder of a torch.compile kernel's cache entry that holds one entry per problem (`worker_cache_env`)."""


COMPILER_NAMES = ("c++", "g++", "gcc", "cc")


def compiler_dirs(env: dict[str, str]) -> list[str]:
    """Install prefixes of the host compilers a build may run (the GPU image's g++ is /opt/gcc/bin/g++: its
    prefix /opt/gcc holds its libexec and headers too), for the build sandbox to show read-only. A compiler
    directly under /bin would make the prefix /, which is never shown whole."""
    prefixes = set()
    for name in (env.get("CXX"), env.get("CC"), *COMPILER_NAMES):
        found = shutil.which(name.split()[0], path=env.get("PATH")) if name and name.split() else None
        if found:
            prefix = Path(found).resolve().parent.parent
            if prefix != Path("/"):
                prefixes.add(str(prefix))
    return sorted(prefixes)
