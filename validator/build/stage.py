"""Build stage: every kernel of a submission compiled in parallel on the CPU, before any GPU work.

"Building" a kernel is importing its module in a sandboxed child: a CUDA kernel's module-level
`load_inline` compiles there; a Triton kernel compiles lazily at its first call on a GPU, so for it
(and for plain PyTorch) the build only checks that the module imports. Each kernel gets its own
directory in a cache keyed by source hash, backend, torch, CUDA and target architecture, holding its
TORCH_EXTENSIONS_DIR and TRITON_CACHE_DIR: extension names chosen by different submissions never
collide, and a cache hit is a directory that already holds the built extension.

Compiled for the present GPU's architecture only (or `--arch` on a machine without a GPU). GPUs are
hidden from build children, so a module that touches CUDA at import time stops there; if its
extension was built by then, that is reported as "needs a GPU to import", not as a compile error.
"""

from __future__ import annotations

import hashlib
import json
import os
import sys
import threading
import time
from collections.abc import Callable, Sequence
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from enum import StrEnum
from pathlib import Path
from typing import TYPE_CHECKING

from validator.atomic import write_text_atomic
from validator.build import interrupts
from validator.evaluate import sharding
from validator.findings import Finding, Severity, StageOutcome
from validator.isolation import sandbox
from validator.machine import Machine

if TYPE_CHECKING:
    from validator.run_context import RunOptions, StageContext

BUILD_RECIPE = "1"
"""Bump when the way kernels are built changes (flags, layout), so older cache entries are not reused."""
STAGE = "build"
LOG_TAIL_CHARS = 3000
BUILD_FILE_BYTES = 2 << 30
IMPORT_SCRIPT = r"""
import importlib.util, sys
spec = importlib.util.spec_from_file_location("kb_kernel_under_build", sys.argv[1])
module = importlib.util.module_from_spec(spec)
spec.loader.exec_module(module)
if not isinstance(getattr(module, "ModelNew", None), type):
    sys.exit("kb-validate: the kernel module defines no class ModelNew")
print("kb-validate: kernel module imported")
"""
NO_GPU_SIGNS = (
    "Found no NVIDIA driver", "no CUDA GPUs are available", "no CUDA-capable device", "CUDA driver initialization",
    "Torch not compiled with CUDA", "CUDA unknown error", "0 active drivers", "cudaGetDeviceCount",
)
"""Error text that means the import needed a GPU, not that the code failed to compile."""


class BuildStatus(StrEnum):
    COMPILED = "compiled"  # an extension was compiled (or found in the cache) and the module imported
    IMPORTED = "imported"  # nothing to compile ahead (Triton, PyTorch); the module imported
    NEEDS_GPU = "needs_gpu"  # compiled or parsed, but importing it touches CUDA, which is hidden here
    FAILED = "failed"
    TIMED_OUT = "timed_out"
    SKIPPED = "skipped"  # cannot be built on this machine (no nvcc, CPU-only torch)

    @property
    def usable(self) -> bool:
        return self in (BuildStatus.COMPILED, BuildStatus.IMPORTED, BuildStatus.NEEDS_GPU)


@dataclass(frozen=True)
class Toolchain:
    """What the cache key depends on, besides the source."""

    torch: str
    cuda: str | None
    arch: str | None
    """TORCH_CUDA_ARCH_LIST value (`9.0a`); None when no target is known."""
    cuda_home: str | None
    cannot_build_cuda: str | None


@dataclass(frozen=True)
class KernelBuild:
    key: str
    """Problem key, `level1/19_ReLU`."""
    kernel_path: Path
    shown: str
    """The kernel as findings name it: `submissions/x.json -> file.py`."""
    backend: str
    kernel_sha256: str
    cache_dir: Path
    """`<cache>/kernels/<cache key>`: `ext/` is its TORCH_EXTENSIONS_DIR, `triton/` its TRITON_CACHE_DIR."""

    @property
    def ext_dir(self) -> Path:
        return self.cache_dir / "ext"

    @property
    def triton_dir(self) -> Path:
        return self.cache_dir / "triton"

    @property
    def marker(self) -> Path:
        return self.cache_dir / "build.json"


@dataclass(frozen=True)
class BuildOutcome:
    build: KernelBuild
    status: BuildStatus
    cached: bool
    seconds: float
    message: str
    log_tail: str = ""


def cache_root(options: RunOptions) -> Path:
    configured = options.extra.get("cache_dir") or os.environ.get("KB_VALIDATE_CACHE")
    if configured:
        return Path(str(configured)).expanduser().resolve()
    base = os.environ.get("XDG_CACHE_HOME") or Path.home() / ".cache"
    return Path(base) / "kb-validate"


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
    arch = options.arch
    if arch is None and machine.has_gpu:
        arch = gpu_arch(options.gpus[0] if options.gpus else 0)
    return Toolchain(machine.torch_version, machine.torch_cuda, arch, _cuda_home(machine), machine.cannot_build_cuda())


def cache_key(kernel_sha256: str, backend: str, tools: Toolchain) -> str:
    material = json.dumps(
        [BUILD_RECIPE, kernel_sha256, backend, tools.torch, tools.cuda, tools.arch, sys.version_info[:2]]
    )
    return hashlib.sha256(material.encode()).hexdigest()[:32]


def worker_cache_env(cache_dir: Path, backend: str) -> dict[str, str]:
    """A worker's compiler caches inside its kernel's cache directory: Triton's, and inductor's for a
    torch.compile kernel (the warm-up fills it, the timed worker reads it)."""
    env = {"TRITON_CACHE_DIR": str(cache_dir / "triton")}
    if backend == "torch-compile":
        env["TORCHINDUCTOR_CACHE_DIR"] = str(cache_dir / "inductor")
    return env


def rejected_problems(earlier: Sequence[StageOutcome]) -> dict[str, list[Finding]]:
    """Problems an earlier stage (static policy) refused: their kernels must not run at all."""
    rejected: dict[str, list[Finding]] = {}
    for outcome in earlier:
        for finding in outcome.errors:
            if finding.problem and finding.stage not in (STAGE, "evaluate"):
                rejected.setdefault(finding.problem, []).append(finding)
    return rejected


def plan(context: StageContext, tools: Toolchain) -> list[KernelBuild]:
    """The kernels this run builds: the shard's, minus those an earlier stage rejected."""
    root = cache_root(context.options)
    rejected = rejected_problems(context.earlier)
    builds, keys = [], []
    for entry in context.submission.kernels:
        # the version the kernel was written for, so its key matches the policy and evaluate stages'
        problem = context.catalogue.resolve(entry.level, entry.problem_id, entry.problem_sha256)
        if problem is None or problem.key in rejected:
            continue
        sha = entry.sha256()
        builds.append(
            KernelBuild(problem.key, entry.file, f"{context.shown} -> {entry.path}", entry.backend, sha,
                        root / "kernels" / cache_key(sha, entry.backend, tools))
        )
        keys.append((entry.level, entry.problem_id))
    return sharding.select(builds, keys, context.options.shard)


def _cached(build: KernelBuild) -> BuildOutcome | None:
    try:
        marker = json.loads(build.marker.read_text(encoding="utf-8"))
        status = BuildStatus(marker["status"])
    except (OSError, ValueError, KeyError):
        return None
    if not status.usable:
        return None
    if build.backend == "cuda" and status == BuildStatus.COMPILED and not _built_libraries(build):
        return None
    return BuildOutcome(build, status, True, 0.0, marker.get("message", ""))


def _built_libraries(build: KernelBuild) -> list[Path]:
    return sorted(build.ext_dir.rglob("*.so")) if build.ext_dir.is_dir() else []


def _tail(result: sandbox.SandboxResult) -> str:
    text = (result.stderr.strip() or result.stdout.strip())
    return text[-LOG_TAIL_CHARS:]


def _last_line(text: str) -> str:
    lines = [line for line in text.strip().splitlines() if line.strip()]
    return lines[-1].strip()[:300] if lines else ""


def classify(build: KernelBuild, result: sandbox.SandboxResult, timeout_s: float) -> tuple[BuildStatus, str]:
    """Turn how the build child ended into a status and a one-line message."""
    libraries = _built_libraries(build)
    if result.timed_out:
        return BuildStatus.TIMED_OUT, f"build did not finish within {timeout_s:.0f} s and was killed"
    if result.ok:
        if build.backend == "cuda" and libraries:
            return BuildStatus.COMPILED, f"compiled {libraries[0].name}"
        if build.backend == "cuda":
            return BuildStatus.IMPORTED, "imported; no extension was built at import time (it may compile lazily)"
        return BuildStatus.IMPORTED, f"imported ({build.backend} kernels compile at their first call on the GPU)"
    text = result.stderr + result.stdout
    if any(sign in text for sign in NO_GPU_SIGNS) and (build.backend != "cuda" or libraries):
        what = "compiled, but importing it" if libraries else "importing it"
        return BuildStatus.NEEDS_GPU, f"{what} touches CUDA at module level, which only a GPU run can check"
    return BuildStatus.FAILED, f"build {result.describe_exit()}: {_last_line(text) or 'no output'}"


def _environment(build: KernelBuild, tools: Toolchain, max_jobs: int) -> dict[str, str]:
    env = {
        "TORCH_EXTENSIONS_DIR": str(build.ext_dir), "TRITON_CACHE_DIR": str(build.triton_dir),
        "MAX_JOBS": str(max_jobs), "CUDA_VISIBLE_DEVICES": "",
    }
    if tools.arch:
        env["TORCH_CUDA_ARCH_LIST"] = tools.arch
    if tools.cuda_home:
        env["CUDA_HOME"] = tools.cuda_home
    return env


def build_one(build: KernelBuild, tools: Toolchain, timeout_s: float, max_jobs: int) -> BuildOutcome:
    cached = _cached(build)
    if cached is not None:
        return cached
    if build.backend == "cuda" and (tools.cannot_build_cuda or not tools.arch):
        why = tools.cannot_build_cuda or "no target architecture (no GPU here; pass --arch, e.g. --arch 9.0)"
        return BuildOutcome(build, BuildStatus.SKIPPED, False, 0.0, f"CUDA build skipped: {why}")
    with interrupts.extension_lock(build.cache_dir) as lock:
        cached = _cached(build)  # another run may have built it while this one waited for the lock
        if cached is not None:
            return cached
        build.ext_dir.mkdir(parents=True, exist_ok=True)
        build.triton_dir.mkdir(parents=True, exist_ok=True)
        with sandbox.private_dir("kb-build-") as workdir:
            result = sandbox.run(
                [sys.executable, "-c", IMPORT_SCRIPT, str(build.kernel_path)], workdir=workdir,
                timeout_s=timeout_s, limits=sandbox.Limits.for_timeout(timeout_s, BUILD_FILE_BYTES, processes=512),
                env=_environment(build, tools, max_jobs), keep_fds=(lock,),
            )
        status, message = classify(build, result, timeout_s)
        tail = _tail(result)
        write_text_atomic(build.cache_dir / "build.log", result.stdout + result.stderr)
        if status.usable:
            marker = {"status": status.value, "message": message, "seconds": round(result.seconds, 2),
                      "kernel_sha256": build.kernel_sha256, "arch": tools.arch, "torch": tools.torch,
                      "cuda": tools.cuda}
            write_text_atomic(build.marker, json.dumps(marker, indent=1))
        return BuildOutcome(build, status, False, result.seconds, message, "" if status.usable else tail)


def parallelism(count: int, cores: int | None = None) -> tuple[int, int]:
    """(concurrent builds, MAX_JOBS for each one's ninja): all cores busy, none oversubscribed much.

    A load_inline build has two compile units (host C++ and CUDA) plus a link, so each build may use
    two ninja jobs; with fewer kernels than cores, each build gets a larger share.
    """
    cores = cores or os.cpu_count() or 1
    workers = max(1, min(count, cores))
    return workers, max(2, cores // workers)


def build_all(
    builds: Sequence[KernelBuild], tools: Toolchain, timeout_s: float, workers: int | None = None,
    on_done: Callable[[BuildOutcome], None] | None = None,
) -> list[BuildOutcome]:
    """Build every kernel, several at a time; outcomes in the order of `builds`."""
    if not builds:
        return []
    count, max_jobs = parallelism(len(builds))
    count = workers or count

    stopped = threading.Event()

    def one(build: KernelBuild) -> BuildOutcome:
        if stopped.is_set():
            return BuildOutcome(build, BuildStatus.SKIPPED, False, 0.0, "build stopped: the run was interrupted")
        outcome = build_one(build, tools, timeout_s, max_jobs)
        if on_done:
            on_done(outcome)
        return outcome

    pool = ThreadPoolExecutor(max_workers=count, thread_name_prefix="kb-build")
    try:
        with interrupts.stop_on_signals(stopped):
            return list(pool.map(one, builds))
    finally:  # after a signal: builds in flight were killed, so this returns at once; queued ones never start
        pool.shutdown(wait=True, cancel_futures=True)
        sandbox.resume_groups()


def finding_for(outcome: BuildOutcome, has_gpu: bool) -> Finding | None:
    build = outcome.build
    if outcome.status in (BuildStatus.FAILED, BuildStatus.TIMED_OUT):
        message = outcome.message + (f"\n{outcome.log_tail}" if outcome.log_tail else "")
        return Finding("compile-error", STAGE, message, file=build.shown, problem=build.key)
    if outcome.status == BuildStatus.NEEDS_GPU:
        severity = Severity.INFO if has_gpu else Severity.WARNING
        return Finding("build-needs-gpu", STAGE, outcome.message, file=build.shown, problem=build.key,
                       severity=severity)
    if outcome.status == BuildStatus.SKIPPED:
        return Finding("build-skipped", STAGE, outcome.message, file=build.shown, problem=build.key,
                       severity=Severity.WARNING)
    return None


def summary(outcomes: Sequence[BuildOutcome], tools: Toolchain, seconds: float, root: Path) -> Finding:
    counts: dict[str, int] = {}
    for outcome in outcomes:
        counts[outcome.status.value] = counts.get(outcome.status.value, 0) + 1
    cached = sum(o.cached for o in outcomes)
    parts = ", ".join(f"{n} {status}" for status, n in sorted(counts.items())) or "nothing to build"
    return Finding(
        "build-summary", STAGE,
        f"{len(outcomes)} kernel(s): {parts} ({cached} from cache); arch {tools.arch or 'none'}; "
        f"{seconds:.1f} s; cache {root}",
        severity=Severity.INFO,
    )


def unavailable(machine: Machine, options: RunOptions) -> str | None:
    if options.arch is None and not machine.has_gpu:
        return "no GPU here to take the target architecture from; pass --arch (e.g. --arch 9.0) to build anyway"
    return None


def run_stage(context: StageContext) -> list[Finding]:
    from validator import progress

    options = context.options
    tools = toolchain(context.machine, options)
    builds = plan(context, tools)
    timeout_s = _build_timeout(options)
    started = time.perf_counter()
    with progress.counter(options.extra.get("console"), len(builds), "building kernels") as advance:
        outcomes = build_all(builds, tools, timeout_s, options.extra.get("build_jobs"),
                             on_done=lambda outcome: advance(f"{outcome.build.key}: {outcome.status.value}"))
    findings = [f for o in outcomes if (f := finding_for(o, context.machine.has_gpu)) is not None]
    findings.append(summary(outcomes, tools, time.perf_counter() - started, cache_root(options)))
    return findings


def _build_timeout(options: RunOptions) -> float:
    from validator.protocol import PROTOCOL

    return PROTOCOL.build_timeout_s * float(options.extra.get("timeout_scale", 1.0))
