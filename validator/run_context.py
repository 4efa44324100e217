"""What every stage after the document receives: the run's options, one submission's context, and the
record each stage hands to the next.

Each stage says whether it can run on this machine (and why not) before it is asked to run, so the
report can list skipped stages with their reasons instead of silently doing less.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Literal

from validator.catalogue.problems import Catalogue
from validator.evaluate.scheduler import WORKER
from validator.findings import Finding, StageOutcome
from validator.isolation.zygote import Target
from validator.machine import Machine
from validator.results.layout import LOCAL_RESULTS_DIR
from validator.submission.external import Fetch
from validator.submission.records import Submission

if TYPE_CHECKING:
    from rich.console import Console

    from validator.compile.stage import BuildResult

@dataclass(frozen=True)
class BuildOptions:
    """How the build stage compiles: `--arch`, `--cache-dir`, `--build-jobs`, `--build-only`."""

    arch: str | None = None
    """TORCH_CUDA_ARCH_LIST target (`9.0`); None: the first selected GPU's."""
    cache_dir: Path | None = None
    """Build cache root; None: $KB_VALIDATE_CACHE, else ~/.cache/kb-validate."""
    jobs: int | None = None
    """Kernels built at once; None: one per CPU core."""
    only: bool = False
    """Stop after the build (`--build-only`)."""
    timeout_scale: float = 1.0
    """Multiplies the protocol's build time limit (slow machines)."""


JUDGES_PER_GPU = 2
"""Judges started side by side on each GPU by default, taking turns at measuring (`evaluate.gpu_turn`): the next
problem's judge forks, imports, loads its problem and starts its runners' CUDA while this one measures. That work
took 3-4 s of an 8-15 s problem on an H200 under protocol 18 (the judge's start, `setup`, `start_runner`, and the
runners' CUDA start and digest load, then inside `load_twin`); a third judge would mostly wait for its turn."""
MAX_JUDGES_PER_GPU = 4

@dataclass(frozen=True)
class EvaluateOptions:
    """How the evaluate stage measures and where it writes."""

    results_dir: Path = LOCAL_RESULTS_DIR
    gpus: tuple[int, ...] | None = None
    """GPU indices to use; None: every visible GPU."""
    force: bool = False
    """Measure again what an earlier run measured for the same hashes and protocol."""
    timeout_scale: float = 1.0
    """Multiplies the protocol's per-problem time limit."""
    time_budget_s: float | None = None
    """Seconds of timing rounds per problem in place of the protocol's (`--time-budget`); None: the protocol's."""
    judges_per_gpu: int = JUDGES_PER_GPU
    """Judges started side by side on each GPU, taking turns at measuring (`evaluate.gpu_turn`)."""
    launcher: Literal["zygote", "spawn"] = "zygote"
    provenance: Mapping[str, str] = field(default_factory=dict)
    """Who produced the results (runner, workflow, run_id, commit)."""
    verified: bool = False
    """A maintainer's run; honoured only with provenance."""
    compile_baseline: bool = False
    """Also time torch.compile of each reference (cached per hardware and problem hash)."""
    lock_clocks: bool = False
    """Lock each GPU's SM clock through NVML for the run (where permitted), recording whether it was locked."""
    interpret: bool = False
    """Run workers on the CPU with Triton's interpreter: correctness only, no timing."""
    worker: Target = WORKER
    """The worker program; tests substitute a stand-in."""


@dataclass(frozen=True)
class RunOptions:
    """Options of a validation run; the CLI fills it from its flags."""

    problems_dir: Path | None = None
    gpu_stages: bool = True
    """False for `--no-gpu`: run only what needs no GPU even where one is present."""
    shard: tuple[int, int] | None = None
    """(i, N): only the i-th of N parts of the submission's problems, for build and evaluate alike."""
    build: BuildOptions = BuildOptions()
    evaluate: EvaluateOptions = EvaluateOptions()
    console: Console | None = None
    """Where progress goes; None: nowhere."""
    fetch: Fetch | None = None
    """How external kernels are fetched; None: the mirror KB_EXTERNAL_MIRROR names, else GitHub (tests inject one)."""


@dataclass(frozen=True)
class StageContext:
    submission: Submission
    catalogue: Catalogue
    machine: Machine
    options: RunOptions
    shown: str
    """The submission file as the user named it; findings cite it."""
    earlier: tuple[StageOutcome, ...] = ()
    """Outcomes of the stages before this one (a stage leaves out kernels an earlier one rejected)."""
    builds: Mapping[str, BuildResult] = field(default_factory=dict)
    """The build stage's result per problem key; empty until it ran."""


@dataclass(frozen=True)
class StageRun:
    """What a stage returns: its findings, and (the build stage) one result per kernel it built."""

    findings: list[Finding]
    builds: tuple[BuildResult, ...] = ()


@dataclass(frozen=True)
class Stage:
    name: str
    unavailable: Callable[[Machine, RunOptions], str | None]
    """Why the stage cannot run here; None when it can."""
    run: Callable[[StageContext], StageRun]
