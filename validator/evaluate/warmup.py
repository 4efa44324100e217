"""Compile warm-up: every torch.compile job compiled in parallel before any job is timed.

Inductor compiles at a model's first call, on the GPU machine, single-threaded inside the sandbox: from a few
seconds to a minute or more per problem. Done inside each timed worker, one GPU at a time, that compile is most
of a torch.compile run's wall time. So each torch.compile job first runs once in warm-up mode
(`judge.run.Evaluation.warm`), several at a time per GPU, filling its kernel's inductor cache
(KB_KERNEL_INDUCTOR_CACHE, `build.worker_cache_env`); the timed worker then loads the compiled graph instead of
compiling it. Warm-ups share a GPU, which is harmless: nothing is measured in them, and each timed worker is a
fresh process. A failed warm-up is not an error: the timed worker meets the same failure and records it.

A warm-up that ends as one leaves a marker beside the cache it filled (`MARKER_DIR/<problem sha256>` inside the
inductor cache directory), so a run that resumes on the same machine warms only what is not warm yet; a machine
without that cache has no marker either.
"""

from __future__ import annotations

import dataclasses
import os
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path

from validator.evaluate.scheduler import Device, SchedulerConfig, WorkItem, run_all
from validator.results.records import ProblemResult, Status

BACKENDS = frozenset({"torch-compile"})
"""Backends that compile at their first call, on the GPU, and keep what they compiled in a cache."""
MAX_PER_DEVICE = 12
"""Warm-ups at a time on one GPU: each needs a CPU core and, briefly, the problem's memory."""
MARKER_DIR = "kb-warmed"  # left out of cache manifests (validator.isolation.manifest.SKIPPED)
"""Folder of the inductor cache that holds one empty file per problem whose warm-up filled that cache."""


@dataclass(frozen=True)
class WarmReport:
    count: int
    seconds: float
    per_device: int
    failed: dict[str, str] = dataclasses.field(default_factory=dict)
    """Problems whose warm-up did not end as one, and the first line of why (the timed run records its own)."""
    reused: int = 0
    """Jobs skipped because an earlier run on this machine warmed their cache (their marker exists)."""
    retried: int = 0
    """Warm-ups that ran out of GPU memory beside others and were run again, one per GPU."""

    def describe(self) -> dict[str, object]:
        return {"jobs": self.count, "seconds": round(self.seconds, 1), "per_gpu": self.per_device,
                "failed": self.failed, "already_warm": self.reused, "retried_alone": self.retried}


def marker(item: WorkItem) -> Path | None:
    """Where a successful warm-up of `item` is recorded, or None for a job with no inductor cache."""
    cache = item.env.get("KB_KERNEL_INDUCTOR_CACHE")
    return Path(cache) / MARKER_DIR / item.job.problem_sha256 if cache else None


def to_warm(items: Sequence[WorkItem]) -> list[WorkItem]:
    """The items a warm-up would run: those whose backend compiles at first call, minus the already warm."""
    return [item for item in items if item.job.backend in BACKENDS and not _already_warm(item)]


def _already_warm(item: WorkItem) -> bool:
    path = marker(item)
    return path is not None and path.is_file()


def per_device(devices: int, cpus: int | None = None) -> int:
    """Warm-ups at a time per GPU: the CPU cores less two for the parent, shared among the GPUs."""
    cores = cpus if cpus is not None else os.cpu_count() or 2
    return max(1, min(MAX_PER_DEVICE, (cores - 2) // max(1, devices)))


def warm(items: Sequence[WorkItem], config: SchedulerConfig, concurrency: int | None = None,
         on_done: Callable[[str, float], None] = lambda note, seconds: None) -> WarmReport:
    """Run the warm-up of every item whose backend compiles at first call; the others are left alone.
    `on_done` gets one line per finished warm-up (problem, outcome, seconds) and its seconds, for a progress
    display."""
    chosen = to_warm(items)
    reused = sum(item.job.backend in BACKENDS for item in items) - len(chosen)
    if not chosen:
        return WarmReport(0, 0.0, 0, reused=reused)
    width = concurrency or per_device(len(config.devices))
    # Several launch slots per GPU; each slot is a scheduler device with its own zygote.
    slots = tuple(Device(f"{device.label}/warm{k}", device.visible)
                  for k in range(width) for device in config.devices)
    slots = slots[: max(len(config.devices), min(len(slots), len(chosen)))]
    warm_config = dataclasses.replace(config, devices=slots, probe_after_crash=False)
    # Larger graphs first (level 3, then 2, then 1; within a level the longest source file): a compile of a
    # whole network takes minutes, and started last it would be the tail of the warm-up.
    ordered = sorted(chosen, key=lambda item: (-item.job.level, -_size(item.job.problem_path)))
    jobs = [dataclasses.replace(item, job=dataclasses.replace(item.job, warm_only=True)) for item in ordered]
    by_key = {item.job.key: item for item in chosen}
    outcomes: list[ProblemResult] = []

    def record(result: ProblemResult) -> None:  # as each ends, so an interrupted warm-up keeps what it did
        outcomes.append(result)
        path = marker(by_key[result.key])
        if path is not None and _warmed(result):
            path.parent.mkdir(parents=True, exist_ok=True)
            path.touch()
        on_done(f"{result.key}: {'warm' if _warmed(result) else result.status.value} in {result.seconds:.1f} s",
                result.seconds)

    started = time.perf_counter()
    run_all(jobs, warm_config, on_result=record)
    # Out of memory beside the other warm-ups of its GPU (upstream's sizes: 5 of 125 at 12 per 80 GB H100): once
    # more, one at a time per GPU, so its judge loads a compiled graph instead of compiling while it holds the GPU.
    crowded = {r.key for r in outcomes if r.status == Status.OOM} if len(slots) > len(config.devices) else set()
    if crowded:
        alone = dataclasses.replace(warm_config, devices=tuple(Device(f"{d.label}/warm", d.visible)
                                                               for d in config.devices))
        run_all([job for job in jobs if job.job.key in crowded], alone, on_result=record)
    last = {r.key: r for r in outcomes}  # a retried warm-up's second outcome is the one that counts
    failed = {key: f"{r.status.value}: {r.error.partition(chr(10))[0][:200]}"
              for key, r in sorted(last.items()) if not _warmed(r)}
    return WarmReport(len(jobs), time.perf_counter() - started, width, failed, reused, retried=len(crowded))


def _size(path: str) -> int:
    try:
        return Path(path).stat().st_size
    except OSError:
        return 0


def _warmed(result: ProblemResult) -> bool:
    return any(f.code == "warm-up" for f in result.flags)
