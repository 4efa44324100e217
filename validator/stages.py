"""The stages after the document is known to be sound: static policy, build, GPU evaluation.

Each stage says whether it can run on this machine (and why not) before it is asked to run, so the
report can list skipped stages with their reasons instead of silently doing less.
"""

from __future__ import annotations

import importlib
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from types import ModuleType

from validator.catalogue import Catalogue
from validator.findings import Finding, StageOutcome
from validator.machine import Machine
from validator.submission import Submission


@dataclass(frozen=True)
class RunOptions:
    """Options of a validation run that later stages read; the CLI fills it from its flags."""

    problems_dir: Path | None = None
    results_dir: Path = Path("results")
    gpu_stages: bool = True
    """False for `--no-gpu`: run only what needs no GPU even where one is present."""
    build_only: bool = False
    arch: str | None = None
    gpus: tuple[int, ...] | None = None
    force: bool = False
    shard: tuple[int, int] | None = None
    extra: dict[str, object] = field(default_factory=dict)


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


@dataclass(frozen=True)
class Stage:
    name: str
    unavailable: Callable[[Machine, RunOptions], str | None]
    """Why the stage cannot run here; None when it can."""
    run: Callable[[StageContext], list[Finding]]


def _stage_module(name: str) -> ModuleType:
    return importlib.import_module(f"validator.{name}")


def _lazy_stage(name: str, module: str) -> Stage:
    """A stage whose module (defining `unavailable` and `run_stage`) is imported only when it is used."""
    return Stage(
        name, lambda machine, options: _stage_module(module).unavailable(machine, options),
        lambda context: _stage_module(module).run_stage(context),
    )


# Order is execution order.
LATER_STAGES: list[Stage] = [
    _lazy_stage("policy", "policy"),
    _lazy_stage("build", "build"),
    _lazy_stage("evaluate", "engine"),
]
