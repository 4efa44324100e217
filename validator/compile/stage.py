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
import shutil
import sys
import threading
import time
from collections.abc import Callable, Sequence
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from enum import StrEnum
from pathlib import Path
from typing import TYPE_CHECKING

from validator import progress
from validator.compile import interrupts
from validator.compile.toolchain import (
    Toolchain,
    cache_root,
    compiler_dirs,
    compiler_env,
    kernel_cache_dir,
    toolchain,
)
from validator.evaluate import sharding
from validator.files import write_text_atomic
from validator.findings import Finding, Severity, StageOutcome
from validator.isolation import bwrap, sandbox
from validator.isolation.limits import LIMITS
from validator.isolation.manifest import COVERED, record_tree, verify_tree
from validator.machine import Machine
from validator.protocol import PROTOCOL
from validator.run_context import StageRun

if TYPE_CHECKING:
    from validator.run_context import RunOptions, StageContext

STAGE = "build"
LOG_TAIL_CHARS = 3000
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
class BuildResult:
    """How one kernel's build ended; the evaluate stage runs a kernel from its `build.cache_dir` only if usable."""

    build: KernelBuild
    status: BuildStatus
    cached: bool
    seconds: float
    message: str
    log_tail: str = ""


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
    root = cache_root(context.options.build)
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
                        kernel_cache_dir(root, sha, entry.backend, tools))
        )
        keys.append((entry.level, entry.problem_id))
    return sharding.select(builds, keys, context.options.shard)


def _cached(build: KernelBuild) -> BuildResult | None:
    if verify_tree(build.cache_dir) is not None:  # changed since its build (or built before manifests): rebuild
        return None
    try:
        marker = json.loads(build.marker.read_text(encoding="utf-8"))
        status = BuildStatus(marker["status"])
    except (OSError, ValueError, KeyError):
        return None
    if marker.get("sandbox") != bwrap.machine_isolation().sandbox:  # built at another path
        return None
    if not status.usable:
        return None
    if build.backend == "cuda" and status == BuildStatus.COMPILED and not _built_libraries(build):
        return None
    return BuildResult(build, status, True, 0.0, marker.get("message", ""))


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
        # a build imports torch only to compile: no thread per core in each (numpy's OpenBLAS starts them at import)
        "OMP_NUM_THREADS": "1", "OPENBLAS_NUM_THREADS": "1",
    }
    return env | compiler_env(tools)


def _run_build(build: KernelBuild, tools: Toolchain, workdir: Path, timeout_s: float, max_jobs: int, *,
               lock: int) -> sandbox.SandboxResult:  # fmt: skip
    """Import the kernel's verified copy in a child: in bubblewrap where it works (the kernel's own cache
    entry writable at bwrap.CACHE_MOUNT, nothing else), else with the resource limits and network namespace
    only. The marker records which, since an extension built at one path is rebuilt at another. The child
    inherits the extension directory's `lock`, so no second build starts there while any of its processes live."""
    limits = sandbox.Limits.for_timeout(timeout_s, LIMITS.build_file_bytes, processes=LIMITS.build_processes,
                                        memory_bytes=LIMITS.build_memory_bytes)
    env = _environment(build, tools, max_jobs)
    if not bwrap.machine_isolation().confined:
        return sandbox.run([sys.executable, "-c", IMPORT_SCRIPT, str(workdir / "kernel.py")], workdir=workdir,
                           timeout_s=timeout_s, limits=limits, env=env, pass_fds=(lock,))
    with bwrap.seccomp_fd() as fd:
        argv = bwrap.command([sys.executable, "-c", IMPORT_SCRIPT, f"{bwrap.JOB_MOUNT}/kernel.py"], workdir,
                             gpu=False, seccomp_fd=fd, extra_ro=[*([tools.cuda_home] if tools.cuda_home else []),
                                                                 *compiler_dirs({**os.environ, **env})],
                             cache_dir=build.cache_dir)
        bwrap.prepare_job_dir(workdir)
        bwrap.prepare_job_dir(build.cache_dir)
        return sandbox.run(argv, workdir=workdir, timeout_s=timeout_s, limits=limits, env=env,
                           isolate_network=False, pass_fds=(lock, fd) if fd is not None else (lock,),
                           user=bwrap.runner_uid())  # the uid the job and cache directories were handed to


def entry_bytes(root: Path) -> int:
    """Bytes a cache entry takes: per file the larger of its length and its allocated blocks (a sparse file
    counts at its length), links not followed."""
    total = 0
    for directory, _dirs, files in os.walk(root, followlinks=False):
        for name in files:
            try:
                info = (Path(directory) / name).lstat()
            except OSError:
                continue
            total += max(info.st_size, info.st_blocks * 512)
    return total


def build_one(build: KernelBuild, tools: Toolchain, timeout_s: float, max_jobs: int) -> BuildResult:
    cached = _cached(build)
    if cached is not None:
        return cached
    if build.backend == "cuda" and (tools.cannot_build_cuda or not tools.arch):
        why = tools.cannot_build_cuda or "no target architecture (no GPU here; pass --arch, e.g. --arch 9.0)"
        return BuildResult(build, BuildStatus.SKIPPED, False, 0.0, f"CUDA build skipped: {why}")
    with interrupts.extension_lock(build.cache_dir) as lock:
        cached = _cached(build)  # another run may have built it while this one waited for the lock
        if cached is not None:
            return cached
        for name in COVERED:  # whatever an earlier, unverified build left is not built upon
            shutil.rmtree(build.cache_dir / name, ignore_errors=True)
        build.ext_dir.mkdir(parents=True, exist_ok=True)
        build.triton_dir.mkdir(parents=True, exist_ok=True)
        with sandbox.private_dir("kb-build-") as workdir:
            kernel = workdir / "kernel.py"
            data = build.kernel_path.read_bytes()
            if hashlib.sha256(data).hexdigest() != build.kernel_sha256:
                return BuildResult(build, BuildStatus.FAILED, False, 0.0, f"{build.shown} changed after it was "
                                   "hashed; only the checked bytes are built (kernel-changed)")
            kernel.write_bytes(data)
            result = _run_build(build, tools, workdir, timeout_s, max_jobs, lock=lock)
        status, message = classify(build, result, timeout_s)
        tail = _tail(result)
        if status.usable and (size := entry_bytes(build.cache_dir)) > LIMITS.cache_entry_bytes:
            for name in COVERED:  # never recorded valid, and not left to fill the disk
                shutil.rmtree(build.cache_dir / name, ignore_errors=True)
            status, message = BuildStatus.FAILED, (
                f"build output is {size / 2**20:.0f} MiB, over the {LIMITS.cache_entry_bytes / 2**20:.0f} MiB a "
                "kernel's cache entry may hold (build-too-large); it was removed")
        write_text_atomic(build.cache_dir / "build.log", result.stdout + result.stderr)
        if status.usable:
            marker = {"status": status.value, "message": message, "seconds": round(result.seconds, 2),
                      "kernel_sha256": build.kernel_sha256, "arch": tools.arch, "torch": tools.torch,
                      "cuda": tools.cuda, "sandbox": bwrap.machine_isolation().sandbox}
            write_text_atomic(build.marker, json.dumps(marker, indent=1))
            record_tree(build.cache_dir)  # by this trusted process, after the build child has ended
        return BuildResult(build, status, False, result.seconds, message, "" if status.usable else tail)


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
    on_done: Callable[[BuildResult], None] | None = None,
) -> list[BuildResult]:
    """Build every kernel, several at a time; outcomes in the order of `builds`."""
    if not builds:
        return []
    count, max_jobs = parallelism(len(builds))
    count = workers or count

    stopped = threading.Event()

    def one(build: KernelBuild) -> BuildResult:
        if stopped.is_set():
            return BuildResult(build, BuildStatus.SKIPPED, False, 0.0, "build stopped: the run was interrupted")
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


def finding_for(outcome: BuildResult, has_gpu: bool) -> Finding | None:
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


def summary(outcomes: Sequence[BuildResult], tools: Toolchain, seconds: float, root: Path) -> Finding:
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
    if options.build.arch is None and not machine.has_gpu and not options.evaluate.interpret:
        return "no GPU here to take the target architecture from; pass --arch (e.g. --arch 9.0) to build anyway"
    return None


def run_stage(context: StageContext) -> StageRun:
    options = context.options
    tools = toolchain(context.machine, options)
    builds = plan(context, tools)
    timeout_s = PROTOCOL.build_timeout_s * options.build.timeout_scale
    started = time.perf_counter()
    with progress.counter(options.console, len(builds), "building kernels") as advance:
        results = build_all(builds, tools, timeout_s, options.build.jobs,
                            on_done=lambda result: advance(f"{result.build.key}: {result.status.value}"))
    findings = [f for r in results if (f := finding_for(r, context.machine.has_gpu)) is not None]
    findings.append(summary(results, tools, time.perf_counter() - started, cache_root(options.build)))
    return StageRun(findings, tuple(results))
