"""The contract between the engine (parent) and a worker (one fresh, sandboxed process per problem).

The parent writes a Job as JSON, starts the worker with `python -m validator.evaluate.worker.run JOB.json OUT.json`,
and reads back the worker's JSON, which is a `validator.results.records.ProblemResult` as a dict. Exit code,
timeout and unreadable output are three distinct outcomes the parent turns into statuses itself.
The parent never imports measured code.
"""

from __future__ import annotations

import json
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any


@dataclass(frozen=True)
class Job:
    """Everything a worker needs to evaluate one kernel against one problem."""

    key: str
    """Problem key, `level1/19_ReLU`."""
    level: int
    problem_id: int
    problem_path: str
    """Absolute path of the problem file (read-only input)."""
    problem_sha256: str
    kernel_path: str
    """Absolute path of the kernel file (read-only input)."""
    kernel_sha256: str
    backend: str
    extensions_dir: str
    """TORCH_EXTENSIONS_DIR holding this kernel's prebuilt extension (from the build stage's cache)."""
    seed: int
    """Secret per-run seed; the worker derives every trial's seed from it. Never written to results."""
    protocol: dict[str, Any]
    """`validator.protocol.Protocol.to_dict()` of the protocol in force."""
    device: int = 0
    """CUDA device index; the parent also sets CUDA_VISIBLE_DEVICES so this is usually 0."""
    own_kernel_names: tuple[str, ...] = ()
    """Kernel function names found in the submission's sources (CUDA __global__, @triton.jit), for attribution."""
    options: dict[str, Any] = field(default_factory=dict)
    """Extras: {"interpret": True} runs on CPU with TRITON_INTERPRET=1 for tests; timing is skipped then."""


def write_job(job: Job, path: Path) -> None:
    path.write_text(json.dumps(asdict(job), indent=1), encoding="utf-8")


def read_job(path: Path) -> Job:
    data = json.loads(path.read_text(encoding="utf-8"))
    data["own_kernel_names"] = tuple(data.get("own_kernel_names", ()))
    return Job(**data)
