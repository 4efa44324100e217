"""The contract between the engine (parent) and a worker (one fresh, sandboxed process per problem).

The parent writes a Job as JSON, starts the judge with `python -m validator.evaluate.judge.run JOB.json OUT.json`,
and reads back the judge's JSON, which is a `validator.results.records.ProblemResult` as a dict. Exit code,
timeout and unreadable output are three distinct outcomes the parent turns into statuses itself.
Neither the parent nor the judge imports measured code: the judge's sandboxed runner does.
"""

from __future__ import annotations

import json
from dataclasses import MISSING, asdict, dataclass, fields
from pathlib import Path
from typing import Any

JOB_VERSION = 7
"""Version 7: `gpu_turn`/`turn_limit_s`, the device's turn the judge takes before its measuring (`gpu_turn`).
Version 6: `twin_dir`/`twin_pid`, the judge's twin runner of the reference started ahead (by the judge's own start).
Version 4: `ring_dir`, the scheduler's directory on tmpfs for the ring of a runner the judge starts itself.
Version 3: `sandbox`, how the judge confines its runner, and `runner_dir`/`runner_pid` for a runner started
ahead. Version 2: typed `interpret`, `reduced` and
`warm_only` fields instead of an `options` dict."""


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
    interpret: bool = False
    """Run on the CPU with TRITON_INTERPRET=1 (tests, `--interpret`): correctness only, timing skipped."""
    reduced: bool | None = None
    """Use the problem's reduced sizes; None means: reduced exactly when `interpret`."""
    warm_only: bool = False
    """Only fill the compile caches (the warm-up): build ModelNew, call it once, judge nothing."""
    sandbox: str = "none"
    """`bubblewrap` (the runner in bwrap, see validator.isolation.bwrap) or `none` (limits and a network
    namespace only: a contributor's machine without bubblewrap; never a verified run)."""
    runner_dir: str = ""
    """A runner the scheduler started ahead for this job (validator.evaluate.judge.launch.prepare): its
    directory, holding job/, cache/ and the FIFOs; empty when the judge starts its own."""
    runner_pid: int = 0
    """That runner's process id (and process group), for the judge to stop, resume and end it."""
    ring_dir: str = ""
    """For a runner the judge starts itself: a directory on the host's tmpfs the scheduler made for its ring
    (validator.evaluate.judge.launch.ring_dir) and removes once the judge has ended, even a judge killed for its
    time; empty: the ring lies in the job directory."""
    twin_dir: str = ""
    """The judge's twin runner (the reference timed through the kernel's path: `remote.Runner`), started ahead as
    `runner_dir`'s is; empty when the judge starts it itself."""
    twin_pid: int = 0
    gpu_turn: str = ""
    """The scheduler's file for this GPU's turn (`validator.evaluate.gpu_turn`), which the judge holds from its first
    GPU work that measures until its runners have ended; empty: the judge has the GPU to itself."""
    turn_limit_s: float = 0.0
    """How long the judge may hold the turn before it is ended (the scheduler's time limit for one problem)."""
    speed_of_light_ms: float | None = None
    """The problem's least possible time on this hardware (`catalogue.speed_of_light`, from the manifest), where it
    is known: a correct kernel whose median is below it is held for review (`speed-of-light`)."""
    version: int = JOB_VERSION
    """The contract's version; a worker refuses a job written for another."""

    @property
    def use_reduced_sizes(self) -> bool:
        return self.interpret if self.reduced is None else self.reduced


class JobError(ValueError):
    """A job file the worker cannot use (unreadable, another contract version, missing or unknown fields)."""


def write_job(job: Job, path: Path) -> None:
    path.write_text(json.dumps(asdict(job), indent=1), encoding="utf-8")


def read_job(path: Path) -> Job:
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError) as exc:
        raise JobError(f"{path}: {exc}") from exc
    if not isinstance(data, dict) or data.get("version") != JOB_VERSION:
        found = data.get("version") if isinstance(data, dict) else type(data).__name__
        raise JobError(f"{path}: job contract version {found!r}, this worker reads version {JOB_VERSION}")
    names = {f.name for f in fields(Job)}
    unknown, missing = set(data) - names, {f.name for f in fields(Job) if f.default is MISSING} - set(data)
    if unknown or missing:
        raise JobError(f"{path}: unknown fields {sorted(unknown)}, missing fields {sorted(missing)}")
    data["own_kernel_names"] = tuple(data["own_kernel_names"])
    return Job(**data)
