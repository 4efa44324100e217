"""Runs evaluation jobs from a shared queue: a launch slot per device of the config, of which several may share a GPU
(`SchedulerConfig.gpu_turns`: their judges then take turns at measuring, `gpu_turn`).

Every job is a fresh judge (forked from a pre-imported-torch zygote, or spawned), confined by the
sandbox and pinned to one GPU through CUDA_VISIBLE_DEVICES; the judge's runner, the one process that
imports the kernel, is started in bubblewrap while the previous job runs (`prepare_runners`). However a
judge ends (exit status, timeout, unreadable output) becomes a `ProblemResult` here; the parent never
imports measured code.
After a crash or hang the GPU gets a health probe before its next job; a GPU that fails it takes no
more jobs, and what no healthy GPU is left to run is recorded as not run.
"""

from __future__ import annotations

import contextlib
import dataclasses
import os
import subprocess
import sys
import threading
from collections import deque
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path

from validator import files
from validator.evaluate import gpu_turn, runners_ahead
from validator.evaluate.jobs import Job, write_job
from validator.isolation import sandbox
from validator.isolation.zygote import Target, Zygote, ZygoteError
from validator.results.records import (
    Flag,
    ProblemResult,
    Status,
    problem_from_dict,
    upstream_without_judging,
    with_safe_text,
)
from validator.submission.source import KernelSource
from validator.untrusted import printable_block

WORKER = Target(module="validator.evaluate.judge.run")
WORKER_FILE_BYTES = 256 << 20
OOM_SIGNS = ("CUDA out of memory", "OutOfMemoryError", "CUBLAS_STATUS_ALLOC_FAILED", "cudaErrorMemoryAllocation")
CUDA_FAULT_SIGNS = (
    "illegal memory access", "misaligned address", "unspecified launch failure", "illegal instruction",
    "device-side assert", "CUDA error", "cudaErrorLaunchFailure", "Xid",
)


@dataclass(frozen=True)
class Device:
    label: str
    """How the run names it: `cuda:0`, or `cpu` for interpreter runs in tests."""
    visible: str
    """CUDA_VISIBLE_DEVICES value that shows this GPU alone to a worker (a GPU UUID or an index)."""


@dataclass(frozen=True)
class WorkItem:
    job: Job
    kernel_path: str
    """The kernel as the submission names it (relative), recorded in the result."""
    env: dict[str, str] = field(default_factory=dict)
    """Extra variables for this job's worker (its kernel's and its own Triton caches, TORCH_CUDA_ARCH_LIST, ...)."""
    source: KernelSource | None = None
    """Where the kernel lives when the submission referenced it at a pinned commit; recorded in the result."""


@dataclass(frozen=True)
class SchedulerConfig:
    devices: tuple[Device, ...]
    timeout_s: float
    target: Target = WORKER
    launcher: str = "zygote"
    """`zygote` (fork from a pre-imported-torch server) or `spawn` (a fresh interpreter per job)."""
    probe_after_crash: bool = True
    base_env: dict[str, str] = field(default_factory=dict)
    prepare_runners: bool = False
    """Start each job's sandboxed runner while the previous job runs (`judge.launch.prepare`), so its
    `import torch` is off the critical path; only for the real judge, with bubblewrap."""
    gpu_turns: bool = False
    """Devices that share a GPU (`Device.visible`) take turns at measuring: each judge waits for the GPU's turn before
    its first GPU work that measures (`gpu_turn`), and may then hold it for `timeout_s`."""

    def process_timeout_s(self) -> float:
        """A judge's whole time limit: with turns, its own `timeout_s` from taking the turn, after waiting at most
        as long for another's judge to give it back, and a minute for its start."""
        return 2 * self.timeout_s + 60 if self.gpu_turns else self.timeout_s


def _base(item: WorkItem, status: Status, error: str, seconds: float = 0.0) -> ProblemResult:
    job = item.job
    return ProblemResult(
        key=job.key, level=job.level, problem_id=job.problem_id, problem_sha256=job.problem_sha256,
        kernel_path=item.kernel_path, kernel_sha256=job.kernel_sha256, backend=job.backend, status=status,
        error=error, seconds=round(seconds, 3), upstream=upstream_without_judging(status, error),
    )


def _read_output(item: WorkItem, out_path: Path) -> tuple[ProblemResult | None, str]:
    """The worker's result, checked to belong to this job; or None and why it is unusable."""
    if not out_path.exists():
        return None, "wrote no result file"
    try:  # the one JSON reader: size and nesting limits, so a hostile result file is this problem's error only
        result = problem_from_dict(files.read_json(out_path, files.WORKER_BYTES, expected="a worker result"))
    except (OSError, ValueError, TypeError, KeyError, AttributeError) as exc:
        return None, f"wrote an unreadable result ({type(exc).__name__}: {str(exc)[:200]})"
    job = item.job
    if (result.key, result.problem_sha256, result.kernel_sha256) != (job.key, job.problem_sha256, job.kernel_sha256):
        return None, "wrote a result for a different problem or kernel"
    return result, ""


def _last_lines(text: str, count: int = 6) -> str:
    lines = [line for line in text.strip().splitlines() if line.strip()]
    return "\n".join(lines[-count:])[-1500:]


def to_result(item: WorkItem, run: sandbox.SandboxResult, out_path: Path, timeout_s: float,
              turn_limit_s: float = 0.0) -> ProblemResult:  # fmt: skip
    """Exit status, timeout (of the whole process, or of its turn on the GPU: `turn_limit_s`) and unreadable output
    are distinct outcomes; each gets a clear status."""
    stderr = run.stderr
    if os.environ.get("KB_RUNNER_TRACE"):  # a diagnosis: the judge's phases and the runner's steps, per problem
        print(f"--- judge log of {item.job.key} ({run.seconds:.1f} s) ---\n{printable_block(stderr[-8000:])}",
              file=sys.stderr)
    if run.timed_out:
        return _base(item, Status.TIMEOUT, f"did not finish within {timeout_s:.0f} s; its process tree was "
                     f"killed\n{_last_lines(stderr)}".strip(), run.seconds)
    if turn_limit_s and gpu_turn.timed_out(run.returncode):
        return _base(item, Status.TIMEOUT, f"did not finish within {turn_limit_s:.0f} s of its turn on the "
                     f"GPU; it was ended\n{_last_lines(stderr)}".strip(), run.seconds)
    result, why = _read_output(item, out_path)
    if result is not None:
        flags = list(result.flags)
        if run.returncode != 0:
            flags.append(Flag("worker-exit", f"worker {run.describe_exit()} after writing its result"))
        result = dataclasses.replace(result, kernel_path=item.kernel_path, backend=item.job.backend,
                                     level=item.job.level, problem_id=item.job.problem_id,
                                     seconds=round(run.seconds, 3), flags=tuple(flags))
    elif any(sign in stderr for sign in OOM_SIGNS):
        result = _base(item, Status.OOM, f"out of memory: {_last_lines(stderr, 2)}", run.seconds)
    elif run.returncode == 0:
        result = _base(item, Status.RUNTIME_ERROR, f"worker exited 0 but {why}\n{_last_lines(stderr)}", run.seconds)
    else:
        result = _base(item, Status.RUNTIME_ERROR, f"worker {run.describe_exit()} and {why}\n{_last_lines(stderr)}",
                       run.seconds)
    if not run.network_isolated:
        flag = Flag("sandbox-network-open", run.isolation)
        result = dataclasses.replace(result, flags=(*result.flags, flag))
    return with_safe_text(result)  # the worker's file and the runner's stderr are the kernel's to fill


def crashed(run: sandbox.SandboxResult) -> bool:
    """Did the job end in a way that may have left the GPU unusable (signal, hang, CUDA fault)?"""
    return run.timed_out or (run.returncode or 0) < 0 or any(s in run.stderr for s in CUDA_FAULT_SIGNS)


class _Launcher:
    """Starts one job process on one device: from the device's zygote, or spawned when that fails."""

    def __init__(self, config: SchedulerConfig, device: Device, turn: str = "") -> None:
        self.config, self.device = config, device
        self.zygote: Zygote | None = None
        self.stack = contextlib.ExitStack()
        self.zygote_failed = config.launcher != "zygote"
        self.notes: list[str] = []
        self.spare: runners_ahead.Prepared | None = None
        self.spare_twin: runners_ahead.Prepared | None = None
        self.announced = False
        self.turn = turn
        """The file of this device's GPU turn, where its GPU is shared with other slots (`run_all`)."""

    def _env(self, item: WorkItem) -> dict[str, str]:
        return {
            **self.config.base_env, **item.env, "CUDA_VISIBLE_DEVICES": self.device.visible,
            "CUDA_DEVICE_ORDER": "PCI_BUS_ID", "TORCH_EXTENSIONS_DIR": item.job.extensions_dir,
        }

    def _zygote(self, env: dict[str, str]) -> Zygote | None:
        """The device's zygote once its imports are done, else None and the job is spawned. It starts with the
        first job and does not hold it up: its imports took 14-18 s on an H200 machine, more than a spawned
        judge's own, so a one-problem run never waits for it and a longer run forks from it once it is ready."""
        if self.zygote_failed:
            return None
        try:
            if self.zygote is None:
                home = self.stack.enter_context(sandbox.private_dir("kb-zygote-"))
                self.zygote = Zygote(home, self.config.target, {**self.config.base_env, **env}, wait=False)
            if not self.zygote.ready():
                return None
        except ZygoteError as exc:
            self.zygote, self.zygote_failed = None, True  # spawn from now on; slower, equally clean
            self.notes.append(f"{self.device.label}: zygote did not start, spawning instead: {exc}"[:2000])
            return None
        if not self.announced:
            self.announced = True
            self.notes.append(f"{self.device.label}: zygote ready (imports {self.zygote.import_s:.1f} s), preloaded "
                              f"{', '.join(self.zygote.preloaded)}")
        return self.zygote

    def run(self, item: WorkItem, workdir: Path, args: list[str], limits: sandbox.Limits) -> sandbox.SandboxResult:
        env = self._env(item)
        zygote = self._zygote({"CUDA_VISIBLE_DEVICES": self.device.visible})
        if zygote is not None:
            try:
                return zygote.run(self.config.target, args, workdir=workdir, env=env, limits=limits,
                                  timeout_s=self.config.process_timeout_s())
            except ZygoteError as exc:
                self.notes.append(f"{self.device.label}: zygote failed during {item.job.key}, restarting: {exc}")
                self.close()
        return sandbox.run(self.config.target.argv(args), workdir=workdir,
                           timeout_s=self.config.process_timeout_s(), limits=limits, env=env)

    def take_runner(self, item: WorkItem) -> runners_ahead.Prepared | None:
        """A runner started ahead for `item` (the first: at the head of the run, or now), and the next job's
        started already."""
        if not (self.config.prepare_runners and item.job.sandbox == "bubblewrap"):
            return None
        runner, self.spare = self._ahead(self.spare)
        return runner

    def take_twin(self, item: WorkItem) -> runners_ahead.Prepared | None:
        """The judge's twin runner of the reference for `item`, started ahead as its kernel's runner is (a runner
        is generic until its judge tells it what to load: the first at the head of the run too), and the next job's
        started already."""
        if not (self.config.prepare_runners and item.job.sandbox == "bubblewrap") or item.job.warm_only:
            return None
        twin, self.spare_twin = self._ahead(self.spare_twin)
        return twin

    def _ahead(self, spare: runners_ahead.Prepared | None) -> tuple[runners_ahead.Prepared | None,
                                                                     runners_ahead.Prepared | None]:
        """A runner for this job (the spare, else one the head of the run started, else one started now) and the
        next job's spare, started at once; none of either where runners cannot be started ahead."""
        runner = spare or runners_ahead.claim(self.device.visible, self.runner_env()) or self._prepare()
        return runner, self._prepare() if runner is not None else None

    def runner_env(self) -> dict[str, str]:
        return runner_env_of(self.config.base_env, self.device.visible)

    def _prepare(self) -> runners_ahead.Prepared | None:
        try:
            return runners_ahead.prepare(self.runner_env(), gpu="TRITON_INTERPRET" not in self.config.base_env)
        except (OSError, subprocess.SubprocessError) as exc:
            self.config = dataclasses.replace(self.config, prepare_runners=False)
            self.notes.append(f"{self.device.label}: could not start a runner ahead, judges start their own: {exc}")
            return None

    release = staticmethod(runners_ahead.release)

    def close(self) -> None:
        self.release(self.spare)
        self.release(self.spare_twin)
        self.spare = self.spare_twin = None
        if self.zygote is not None:
            self.zygote.close()
            self.zygote = None
        self.stack.close()
        self.stack = contextlib.ExitStack()


def runner_env_of(base_env: dict[str, str], visible: str) -> dict[str, str]:
    """What a runner for the device `visible` is started with (the scheduler's and the head start's alike)."""
    return {**base_env, "CUDA_VISIBLE_DEVICES": visible, "CUDA_DEVICE_ORDER": "PCI_BUS_ID"}


def run_one(item: WorkItem, launcher: _Launcher) -> tuple[ProblemResult, bool]:
    """Evaluate one job in a private directory; returns the result and whether the GPU needs a probe."""
    timeout_s, process_s = launcher.config.timeout_s, launcher.config.process_timeout_s()
    with sandbox.private_dir("kb-job-") as workdir, contextlib.ExitStack() as hold:
        job_path, out_path = workdir / "job.json", workdir / "result.json"
        runner, twin = launcher.take_runner(item), launcher.take_twin(item)
        try:
            job = item.job
            if runner is not None:
                job = dataclasses.replace(job, runner_dir=str(runner.base), runner_pid=runner.process.pid)
            else:  # the judge starts its runner; the ring's directory is ours, so a killed judge leaves none
                from validator.evaluate.judge import launch

                ring = launch.ring_dir(hold) if job.sandbox == "bubblewrap" else None
                job = dataclasses.replace(job, ring_dir=str(ring or ""))
            if twin is not None:
                job = dataclasses.replace(job, twin_dir=str(twin.base), twin_pid=twin.process.pid)
            if launcher.turn:
                job = dataclasses.replace(job, gpu_turn=launcher.turn, turn_limit_s=timeout_s)
            write_job(job, job_path)
            limits = sandbox.Limits.for_timeout(process_s, WORKER_FILE_BYTES)
            run = launcher.run(item, workdir, [str(job_path), str(out_path)], limits)
        finally:
            launcher.release(runner)
            launcher.release(twin)
        return to_result(item, run, out_path, process_s, timeout_s if launcher.turn else 0.0), crashed(run)


@dataclass(frozen=True)
class SchedulerReport:
    unhealthy: dict[str, str]
    """Devices that failed their health probe, and after which problem."""
    notes: tuple[str, ...] = ()
    """Launcher events worth recording (a zygote that failed and was replaced by spawning)."""


@dataclass
class _Queue:
    items: deque[WorkItem]
    lock: threading.Lock = field(default_factory=threading.Lock)
    unhealthy: dict[str, str] = field(default_factory=dict)
    errors: list[BaseException] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)

    sick_gpus: set[str] = field(default_factory=set)
    """GPUs (`Device.visible`) that failed a health probe: no slot on them takes another job."""

    def take(self) -> WorkItem | None:
        with self.lock:
            return self.items.popleft() if self.items else None

    def sick(self, device: Device) -> bool:
        with self.lock:
            return device.visible in self.sick_gpus


def _device_loop(device: Device, queue: _Queue, config: SchedulerConfig,
                 on_start: Callable[[WorkItem, Device], None], on_result: Callable[[ProblemResult], None],
                 *, turn: str = "") -> None:  # fmt: skip
    launcher = _Launcher(config, device, turn)
    try:
        while not queue.sick(device) and (item := queue.take()) is not None:
            on_start(item, device)
            result, needs_probe = run_one(item, launcher)
            attempts = int(item.job.protocol.get("bound_attempts", 1))
            for attempt in range(2, attempts + 1):
                if needs_probe or not refused_by_bound(result):
                    break
                again, needs_probe = run_one(reseeded(item, attempt), launcher)
                result = after_refusal(again, result, attempt)
            on_result(dataclasses.replace(result, gpu=device.label))
            if needs_probe and config.probe_after_crash:  # the zygote holds no CUDA state, so it stays
                healthy, detail = sandbox.probe_gpu(device.visible)
                if not healthy:
                    with queue.lock:
                        queue.unhealthy[device.label] = f"after {item.job.key}: {detail}"
                        queue.sick_gpus.add(device.visible)
                    return
    except BaseException as exc:  # a validator bug: stop this device and let run_all re-raise it
        with queue.lock:
            queue.errors.append(exc)
    finally:
        launcher.close()
        with queue.lock:
            queue.notes.extend(launcher.notes)


def refused_by_bound(result: ProblemResult) -> bool:
    """Rejected by the judge's timing bound alone, the one verdict the rounds' noise can get wrong."""
    return result.status == Status.REJECTED and any(f.code == "timing-unverified" for f in result.flags)


def reseeded(item: WorkItem, attempt: int) -> WorkItem:
    """The same job under a seed derived from its own, so a second judging draws inputs and checked rounds anew."""
    from validator.evaluate.correctness import derive_seed  # imports torch: only when a judging is repeated

    return dataclasses.replace(item, job=dataclasses.replace(item.job, seed=derive_seed(item.job.seed, "rejudge",
                                                                                          attempt)))


def after_refusal(again: ProblemResult, refused: ProblemResult, attempt: int) -> ProblemResult:
    """The later judging's result, recording that the bound refused an earlier one and why."""
    again = dataclasses.replace(again, seconds=round(again.seconds + refused.seconds, 3))
    if refused_by_bound(again):
        return dataclasses.replace(again, error=f"{again.error} (refused at each of {attempt} judgings)")
    earlier = next((f for f in refused.flags if f.code == "timing-unverified"), None)
    why = earlier.message if earlier else refused.error
    flag = Flag("timing-rejudged", f"judging {attempt - 1} was refused by the timing bound ({why}); judged again "
                "by a fresh judge and runners with a new seed", "info")
    return dataclasses.replace(again, flags=(*again.flags, flag))


def run_all(
    items: Sequence[WorkItem], config: SchedulerConfig,
    on_start: Callable[[WorkItem, Device], None] = lambda item, device: None,
    on_result: Callable[[ProblemResult], None] = lambda result: None,
) -> SchedulerReport:
    """Run every item on the configured devices; reports the devices found unhealthy and launcher events."""
    queue = _Queue(deque(items))
    with contextlib.ExitStack() as stack:
        turns: dict[str, str] = {}
        if config.gpu_turns:  # one file per GPU, in a directory of ours, for its slots' judges to flock
            home = stack.enter_context(sandbox.private_dir("kb-turns-"))
            for k, visible in enumerate(dict.fromkeys(device.visible for device in config.devices)):
                (home / f"gpu-{k}").touch(mode=0o600)
                turns[visible] = str(home / f"gpu-{k}")
        threads = [
            threading.Thread(target=_device_loop, args=(device, queue, config, on_start, on_result),
                             kwargs={"turn": turns.get(device.visible, "")}, name=f"kb-gpu-{device.label}",
                             daemon=True)
            for device in config.devices
        ]
        for thread in threads:
            thread.start()
        for thread in threads:
            thread.join()
    if queue.errors:
        raise queue.errors[0]
    why = "; ".join(f"{label} failed its health probe {detail}" for label, detail in queue.unhealthy.items())
    for item in queue.items:  # left over: every GPU became unhealthy
        on_result(_base(item, Status.NOT_RUN, f"no healthy GPU left to run it: {why}"))
    return SchedulerReport(dict(queue.unhealthy), tuple(queue.notes))
