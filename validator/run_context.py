"""What every stage after the document receives: the run's options and the context of one submission.

Each stage says whether it can run on this machine (and why not) before it is asked to run, so the
report can list skipped stages with their reasons instead of silently doing less.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

from validator.catalogue.problems import Catalogue
from validator.findings import Finding, StageOutcome
from validator.machine import Machine
from validator.submission.records import Submission


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
