"""Result records: one JSON file per (submission, hardware) under `results/<hardware>/<slug>.json`.

The evaluation engine writes them, scoring and the site read them. Every file carries
`schema_version`; a format change bumps it and adds an `_upgrade_to_N` step so old files keep loading.
"""

from __future__ import annotations

import dataclasses
import json
from dataclasses import asdict, dataclass, field, fields
from enum import StrEnum
from pathlib import Path
from typing import Any

from validator import files
from validator.files import write_text_atomic
from validator.submission.source import KernelSource
from validator.untrusted import record_text

RESULTS_SCHEMA_VERSION = 2
"""2: `upstream` (KernelBench's own verdict beside the board's `status`), `blocks` (per-block timing) and
`deadline_s` on problem results."""


class Status(StrEnum):
    """Outcome of one (submission, problem). Only CORRECT counts towards fast_p."""

    CORRECT = "correct"
    INCORRECT = "incorrect"  # ran, output wrong (values, shape, dtype, NaN pattern, inputs mutated)
    COMPILE_ERROR = "compile_error"  # build failed or timed out
    RUNTIME_ERROR = "runtime_error"  # exception, crash, illegal memory access
    TIMEOUT = "timeout"
    OOM = "oom"
    REJECTED = "rejected"  # static policy or an integrity check refused it; `flags` says why
    NEEDS_REVIEW = "needs_review"  # correct but held (e.g. implausible speedup) until a maintainer clears it
    NOT_RUN = "not_run"  # not evaluated on this hardware (shard elsewhere, GPU stage skipped)


@dataclass(frozen=True)
class Timing:
    """Summary of one timed series, in milliseconds of device time."""

    median: float
    q1: float
    q3: float
    minimum: float
    n: int
    """Number of timed calls."""


@dataclass(frozen=True)
class BlockTiming:
    """One independent timing block: its rounds ran on fresh allocations, at another moment than the other
    blocks, opening with the side `kernel_first` says."""

    reference_ms: float
    """Median device time of the reference over the block's rounds."""
    kernel_ms: float
    speedup: float
    """reference_ms / kernel_ms."""
    rounds: int
    kernel_first: bool
    sm_clock_mhz: int | None = None
    """The lowest SM clock read through NVML before and after the block (None: not read)."""
    mem_clock_mhz: int | None = None
    throttle_reasons: tuple[str, ...] = ()
    """Slowdown reasons NVML reported before or after the block (thermal, power, sw-slowdown, ...)."""
    attempts: int = 1
    """How many times the block was measured: a block that ran throttled or down-clocked is measured again."""
    twin_wait_ms: float | None = None
    """The longest of the twin's last GPU round trips before its spans in the block, in ms (`Protocol.contention_ms`;
    at protocol 22: the twin's median round trip per call inside its spans; from 23: before them, until idle)."""


@dataclass(frozen=True)
class Flag:
    """A reason code attached to a problem result (integrity, review, environment)."""

    code: str
    message: str
    severity: str = "warning"  # "error" flags go with REJECTED, or with INCORRECT (output-mismatch, wrong-shape, ...)


@dataclass(frozen=True)
class UpstreamVerdict:
    """The headline verdict: KernelBench's tolerance, `torch.allclose(reference, kernel, atol, rtol)` at the
    protocol's `upstream_tolerance`, on every one of `trials` read calls, upstream's draws and the hidden variants
    alike, and the output following its inputs (`judge/verdicts.py`). `status` is the board's strict verdict; a
    kernel an integrity, timing or policy check rejected, or that crashed or hung, is not correct under either.
    (Results of protocol 16 and before judged upstream's draws alone.)"""

    correct: bool
    trials: int
    """Upstream draws the kernel was judged on (the protocol's `upstream_trials` unless it failed earlier)."""
    max_abs_error: float | None = None
    max_rel_error: float | None = None
    """Largest errors over those draws, at positions finite in both outputs."""
    error: str = ""
    """Why it is not correct, when it is not."""
    held: bool = False
    """Correct, but held (an implausible speedup, unseen host time) until a maintainer clears it."""
    fooled: str = ""
    """Where KernelBench's own rule (allclose on its draws alone) passed a kernel the headline rejects: why."""


def upstream_without_judging(status: Status, error: str) -> UpstreamVerdict | None:
    """The upstream verdict of a result decided without the judge's trials (policy, build, crash, timeout):
    not correct, as the strict one is not; None for `not_run`, which says nothing."""
    return None if status is Status.NOT_RUN else UpstreamVerdict(False, 0, error=error[:500])


@dataclass(frozen=True)
class ProblemResult:
    """Everything measured for one problem of a submission on one hardware."""

    key: str
    """`level1/19_ReLU`."""
    level: int
    problem_id: int
    problem_sha256: str
    kernel_path: str
    kernel_sha256: str
    backend: str
    status: Status
    error: str = ""
    """Short, human-readable cause for any status but CORRECT (log tail for compile errors)."""
    max_abs_error: float | None = None
    max_rel_error: float | None = None
    reference: Timing | None = None
    """Eager PyTorch reference, timed interleaved with the kernel."""
    kernel: Timing | None = None
    speedup: float | None = None
    """median(reference) / median(kernel)."""
    speedup_ci: tuple[float, float] | None = None
    """Bootstrap 95% interval of the speedup."""
    compile_reference: Timing | None = None
    """torch.compile of the reference on this hardware (cached by problem hash), when measured."""
    speedup_vs_compile: float | None = None
    rounds: int = 0
    flags: tuple[Flag, ...] = ()
    own_kernel_fraction: float | None = None
    """Share of profiled GPU time spent in kernels whose names come from the submission's own sources."""
    seconds: float = 0.0
    """Wall time spent on this problem (build excluded)."""
    blocks: tuple[BlockTiming, ...] = ()
    """Each timing block's medians and speedup, with the clock state it ran under."""
    deadline_s: float | None = None
    """The judge's deadline for one kernel call, set from the reference's measured time (see the
    `kernel-deadline` flag when a call hit it)."""
    upstream: UpstreamVerdict | None = None
    """KernelBench's verdict; None where it is unknown (results written before it was recorded, kernels not run)."""
    gpu: str | None = None
    """Which of the run's GPUs measured it (`cuda:2`): a rerun's drift can then be told apart from a difference
    between the machine's GPUs. None for results written before it was recorded, or never run."""
    phases: dict[str, float] | None = None
    """The judge's wall seconds per phase (`judge/run.py`: setup, compute_references, load_kernel, time,
    ...): where a problem's `seconds` went. None for results written before it was recorded, or never judged."""
    source: KernelSource | None = None
    """Where the kernel lives when the submission referenced it at a pinned commit (the site links it); None for
    a kernel committed beside the submission, and in results written before it was recorded."""


@dataclass(frozen=True)
class Environment:
    gpu: str
    driver: str
    cuda: str
    torch: str
    triton: str
    python: str
    harness_version: str
    protocol_version: str
    sm_clock_mhz: int | None = None
    mem_clock_mhz: int | None = None
    throttle_reasons: tuple[str, ...] = ()
    extra: dict[str, Any] = field(default_factory=dict)


@dataclass(frozen=True)
class ResultsFile:
    slug: str
    submission_name: str
    submission_sha256: str
    """sha256 of the submission JSON document that was evaluated."""
    hardware: str
    """Hardware key (`nvidia-h100-80gb-hbm3`), the directory name under results/."""
    environment: Environment
    protocol: dict[str, Any]
    """Protocol version and every parameter in force (seeds excluded: they are secret)."""
    problems: tuple[ProblemResult, ...]
    started_at: str
    finished_at: str
    verified: bool = False
    """True only when produced by a maintainer's runner (see `provenance`)."""
    provenance: dict[str, str] = field(default_factory=dict)
    """runner, workflow, run id, commit: who produced this file."""
    schema_version: int = RESULTS_SCHEMA_VERSION


def with_safe_text(result: ProblemResult) -> ProblemResult:
    """`result` with every text a kernel, its build or its runner's stderr can fill (error, flags' messages, the
    upstream verdict's reasons) bounded and made inert (`untrusted.record_text`): a lone surrogate or an escape
    sequence in it can then stop no save, resume or print. Applied where a result enters a run's record."""
    upstream = result.upstream
    if upstream is not None:
        upstream = dataclasses.replace(upstream, error=record_text(upstream.error), fooled=record_text(upstream.fooled))
    flags = tuple(dataclasses.replace(f, code=record_text(f.code, 200), message=record_text(f.message))
                  for f in result.flags)
    return dataclasses.replace(result, error=record_text(result.error), flags=flags, upstream=upstream)


def to_dict(results: ResultsFile) -> dict[str, Any]:
    return asdict(results)


def _timing(data: dict[str, Any] | None) -> Timing | None:
    return Timing(**data) if data else None


def _block(data: dict[str, Any]) -> BlockTiming:
    known = {f.name for f in fields(BlockTiming)}
    values = {k: v for k, v in data.items() if k in known}
    values["throttle_reasons"] = tuple(values.get("throttle_reasons", ()))
    return BlockTiming(**values)


_PROBLEM_FIELDS = frozenset(f.name for f in fields(ProblemResult))


def problem_from_dict(data: dict[str, Any]) -> ProblemResult:
    values = {k: v for k, v in data.items() if k in _PROBLEM_FIELDS}
    values["status"] = Status(values["status"])
    for name in ("reference", "kernel", "compile_reference"):
        values[name] = _timing(values.get(name))
    values["flags"] = tuple(Flag(**f) for f in values.get("flags", ()))
    values["blocks"] = tuple(_block(b) for b in values.get("blocks", ()))
    if values.get("speedup_ci") is not None:
        values["speedup_ci"] = tuple(values["speedup_ci"])
    if values.get("upstream") is not None:
        values["upstream"] = UpstreamVerdict(**values["upstream"])
    if values.get("source") is not None:
        values["source"] = KernelSource.from_json(values["source"])
    return ProblemResult(**values)


def _upgrade_to_2(data: dict[str, Any]) -> dict[str, Any]:
    """Version 1 recorded no upstream verdict: it is unknown (never assumed correct)."""
    problems = [{**p, "upstream": None} for p in data.get("problems", ())]
    return {**data, "problems": problems, "schema_version": 2}


UPGRADES: dict[int, Any] = {2: _upgrade_to_2}
"""`UPGRADES[n]` turns a version n-1 dict into version n."""


def from_dict(data: dict[str, Any]) -> ResultsFile:
    version = data.get("schema_version", 1)
    if version > RESULTS_SCHEMA_VERSION:
        raise ValueError(f"results schema_version {version} is newer than this validator ({RESULTS_SCHEMA_VERSION})")
    for step in range(version + 1, RESULTS_SCHEMA_VERSION + 1):
        data = UPGRADES[step](data)
    env = dict(data["environment"])
    env["throttle_reasons"] = tuple(env.get("throttle_reasons", ()))
    return ResultsFile(
        slug=data["slug"],
        submission_name=data["submission_name"],
        submission_sha256=data["submission_sha256"],
        hardware=data["hardware"],
        environment=Environment(**env),
        protocol=data["protocol"],
        problems=tuple(problem_from_dict(p) for p in data["problems"]),
        started_at=data["started_at"],
        finished_at=data["finished_at"],
        verified=data.get("verified", False),
        provenance=data.get("provenance", {}),
        schema_version=RESULTS_SCHEMA_VERSION,
    )


def save(results: ResultsFile, path: Path) -> None:
    write_text_atomic(path, json.dumps(to_dict(results), indent=1, sort_keys=False) + "\n")


def load(path: Path) -> ResultsFile:
    """Raises JsonError (a ValueError) for unusable JSON, KeyError/TypeError/ValueError for a wrong shape."""
    return from_dict(files.read_json(path, files.RESULTS_BYTES, expected="a results file"))
