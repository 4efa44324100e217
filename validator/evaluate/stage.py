"""Evaluate stage: every problem of a submission (or of its shard) measured on this machine's GPUs.

Reads as its steps: choose GPUs, plan one job per problem (problems the static policy rejected or
whose build failed get their result without running), reuse what an earlier run already measured
for the same hashes and protocol, run the rest (`scheduler`), and write
`results/<hardware>/<slug>.json` atomically after every problem so an interrupted run resumes.
"""

from __future__ import annotations

import dataclasses
import hashlib
import hmac
import json
import os
import secrets
import tempfile
import threading
from collections.abc import Callable, Sequence
from datetime import UTC, datetime
from pathlib import Path
from typing import TYPE_CHECKING

from validator import progress
from validator.catalogue.manifest_entry import ManifestError, read_entries
from validator.catalogue.problems import Problem
from validator.catalogue.speed_of_light import entry_bound_ms
from validator.compile import stage as build
from validator.compile import toolchain
from validator.compile.stage import BuildStatus
from validator.compile.toolchain import Toolchain
from validator.evaluate import gpu_env, sharding, warmup
from validator.evaluate.jobs import Job
from validator.evaluate.judge import clocks
from validator.evaluate.scheduler import WORKER, Device, SchedulerConfig, WorkItem, run_all, runner_env_of
from validator.findings import ExitCode, Finding, Severity, UserError
from validator.isolation import bwrap
from validator.isolation.limits import LIMITS
from validator.machine import Machine
from validator.protocol import PROTOCOL, Protocol
from validator.results import baselines, layout
from validator.results import records as results
from validator.results.merge import joined_provenance
from validator.results.records import (
    Flag,
    ProblemResult,
    ResultsFile,
    Status,
    upstream_without_judging,
    with_safe_text,
)
from validator.run_context import EvaluateOptions, StageRun
from validator.submission.kernel_names import own_kernel_names

if TYPE_CHECKING:
    from rich.console import Console

    from validator.run_context import RunOptions, StageContext

STAGE = "evaluate"
ERROR_CODES = {Status.INCORRECT, Status.COMPILE_ERROR, Status.RUNTIME_ERROR, Status.REJECTED, Status.TIMEOUT,
               Status.OOM, Status.NOT_RUN}
"""Statuses that fail the run (exit 1): every runtime rejection, build failure and crash included."""


def unavailable(machine: Machine, options: RunOptions) -> str | None:
    if options.build.only:
        return "--build-only: evaluation was not asked for"
    if not options.gpu_stages:
        return "--no-gpu was given"
    return None if options.evaluate.interpret else machine.cannot_run_gpu()


def head_start_plan(machine: Machine, options: RunOptions) -> list[tuple[str, dict[str, str], bool]]:
    """The runners `runners_ahead.head_start` starts for a run: one per device this stage will use, with the
    environment its scheduler gives runners; none where the stage will not run or runners would not be confined."""
    evaluating = options.evaluate
    if unavailable(machine, options) or evaluating.worker != WORKER:
        return []
    devices = [Device("cpu", "")] if evaluating.interpret else select_devices(machine, evaluating.gpus)[0]
    if not bwrap.machine_isolation().confined:  # the run's gate probed it first (isolation/gate.py)
        return []
    base_env = _worker_env(toolchain.toolchain(machine, options), evaluating.interpret)
    return [(device.visible, runner_env_of(base_env, device.visible), not evaluating.interpret) for device in devices]


def select_devices(machine: Machine, gpus: Sequence[int] | None) -> tuple[list[Device], str]:
    """The GPUs to use (all visible ones by default) and their common name; one model per run."""
    indices = list(gpus) if gpus else list(range(len(machine.gpus)))
    if not machine.gpus:
        raise UserError("no CUDA GPU visible to evaluate on")
    bad = [i for i in indices if not 0 <= i < len(machine.gpus)]
    if bad:
        raise UserError(f"--gpus {','.join(map(str, bad))}: only {len(machine.gpus)} GPU(s) visible "
                        f"(indices 0..{len(machine.gpus) - 1})")
    names = {machine.gpus[i] for i in indices}
    if len(names) > 1:
        raise UserError(f"the selected GPUs are different models ({', '.join(sorted(names))}); results are per "
                        "hardware, so pick GPUs of one model with --gpus")
    return [Device(f"cuda:{i}", _visible_id(i)) for i in indices], names.pop()


def _visible_id(index: int) -> str:
    """A CUDA_VISIBLE_DEVICES value naming the same physical GPU in a child, whatever our own mask is."""
    import torch

    try:
        return f"GPU-{torch.cuda.get_device_properties(index).uuid}"
    except (AttributeError, RuntimeError):
        mask = [part for part in os.environ.get("CUDA_VISIBLE_DEVICES", "").split(",") if part.strip()]
        return mask[index] if index < len(mask) else str(index)


def job_seed(secret: bytes, key: str) -> int:
    """Per-problem seed derived from the run's secret: the secret itself never reaches a worker."""
    return int.from_bytes(hmac.new(secret, key.encode(), hashlib.sha256).digest()[:8], "big") >> 1


def _preset(item: WorkItem, status: Status, error: str, flags: Sequence[Flag] = ()) -> ProblemResult:
    job = item.job
    return with_safe_text(ProblemResult(job.key, job.level, job.problem_id, job.problem_sha256, item.kernel_path,
                                        job.kernel_sha256, job.backend, status, error=error, flags=tuple(flags),
                                        upstream=upstream_without_judging(status, error)))


def protocol_of(options: EvaluateOptions) -> Protocol:
    """The protocol this run measures by: the board's, with `--time-budget` where given (results record it)."""
    if options.time_budget_s is None:
        return PROTOCOL
    return dataclasses.replace(PROTOCOL, time_budget_s=options.time_budget_s)


def _decided_without_running(context: StageContext, key: str) -> tuple[Status, str, list[Flag]] | None:
    """A problem whose result is known without running: rejected by policy, or its build failed or was skipped."""
    refused = build.rejected_problems(context.earlier).get(key)
    if refused:
        flags = [Flag(f.code, f.message, "error") for f in refused]
        return Status.REJECTED, f"rejected by {refused[0].stage}: {refused[0].message}", flags
    built = context.builds.get(key)
    if built is None:
        return Status.NOT_RUN, "the build stage produced no result for this kernel", []
    if built.status in (BuildStatus.FAILED, BuildStatus.TIMED_OUT):
        return Status.COMPILE_ERROR, built.message + (f"\n{built.log_tail}" if built.log_tail else ""), []
    if built.status == BuildStatus.SKIPPED:
        return Status.NOT_RUN, built.message, []
    return None


def speed_of_light_times(problems_root: Path, hardware: str) -> Callable[[Problem], float | None]:
    """Each problem's speed-of-light time on `hardware` (ms), from the catalogue's manifest; None where the manifest
    has no entry for exactly that file or no bytes for it, or the hardware no recorded ceilings (the judge then
    holds nothing on this ground; the catalogue check reports a manifest it cannot read)."""
    from validator.catalogue.manifest import MANIFEST_NAME

    try:
        entries = read_entries(problems_root / MANIFEST_NAME)
    except ManifestError:
        entries = {}

    def of(problem: Problem) -> float | None:
        entry = entries.get(problem.key)
        return entry_bound_ms(entry, hardware) if entry is not None and entry.sha256 == problem.sha256 else None

    return of


def plan(context: StageContext, tools: Toolchain, secret: bytes, interpret: bool, sandbox: str = "none", *,
         floor: Callable[[Problem], float | None] = lambda problem: None) -> list[
    tuple[WorkItem, ProblemResult | None]
]:  # fmt: skip
    """One work item per problem of this shard, from the build stage's results; with the result already
    decided where the kernel must not or cannot run. `sandbox` is how judges confine their runners; `floor` gives
    a problem's speed-of-light time, below which a correct kernel is held for review."""
    planned, keys = [], []
    harness = toolchain.cache_root(context.options.build) / toolchain.HARNESS_TRITON
    for entry in context.submission.kernels:
        # the version the kernel was written for (semantics accepted only known ones)
        problem = context.catalogue.resolve(entry.level, entry.problem_id, entry.problem_sha256)
        if problem is None:
            continue
        built = context.builds.get(problem.key)
        cache_dir = built.build.cache_dir if built else Path(os.devnull)
        job = Job(
            key=problem.key, level=problem.level, problem_id=problem.problem_id,
            problem_path=str(problem.path.resolve()),  # the worker runs in its own directory
            problem_sha256=problem.sha256, kernel_path=str(entry.file.resolve()),
            kernel_sha256=built.build.kernel_sha256 if built else entry.sha256(), backend=entry.backend,
            extensions_dir=str(cache_dir / "ext"), seed=job_seed(secret, problem.key),
            protocol=protocol_of(context.options.evaluate).to_dict(),
            own_kernel_names=own_kernel_names(entry.file.read_text(errors="replace")),
            interpret=interpret, sandbox=sandbox, speed_of_light_ms=None if interpret else floor(problem),
        )
        env = toolchain.worker_cache_env(cache_dir, entry.backend, problem.sha256, harness)
        item = WorkItem(job, entry.path, env, source=entry.source)
        known = _decided_without_running(context, problem.key)
        planned.append((item, _preset(item, *known) if known else None))
        keys.append((entry.level, entry.problem_id))
    return sharding.select(planned, keys, context.options.shard)


def _previous(path: Path, header: ResultsFile, force: bool) -> ResultsFile | None:
    """The results an earlier run left at `path`, if they were measured under this protocol and hardware."""
    if force or not path.exists():
        return None
    try:
        old = results.load(path)
    except (OSError, ValueError, KeyError, TypeError) as exc:
        raise UserError(f"{path}: the existing results file cannot be read ({type(exc).__name__}: {exc}); "
                        "move it away or pass --force to measure again") from exc
    # every parameter, not only the version (`--time-budget`), compared as the file holds them
    same = old.protocol == json.loads(json.dumps(header.protocol)) and old.hardware == header.hardware
    return old if same else None


def _reusable(old: ResultsFile | None, item: WorkItem) -> ProblemResult | None:
    for result in old.problems if old else ():
        job = item.job
        if (result.key, result.problem_sha256, result.kernel_sha256) == (job.key, job.problem_sha256,
                                                                       job.kernel_sha256):
            harness = any(f.code == "harness-error" for f in result.flags)  # the judge's failure: no verdict
            return None if result.status == Status.NOT_RUN or harness else result
    return None


def _now() -> str:
    return datetime.now(UTC).isoformat(timespec="seconds")


def evaluate(
    planned: Sequence[tuple[WorkItem, ProblemResult | None]], header: ResultsFile, path: Path,
    config: SchedulerConfig, *, force: bool = False, view: progress.EvaluationView | None = None,
    console: Console | None = None,
) -> ResultsFile:
    """Run what is not yet known and keep `path` current after every problem."""
    old = _previous(path, header, force)
    done: dict[str, ProblemResult] = {}
    to_run: list[WorkItem] = []
    for item, preset in planned:
        known = preset or _reusable(old, item)
        if known is not None:
            known = with_safe_text(known)  # a file written before text was made safe resumes too
            done[item.job.key] = known
            if view is not None:
                view.done(known)
        else:
            to_run.append(item)
    if old is not None and len(done) > sum(preset is not None for _, preset in planned):
        header = dataclasses.replace(header, started_at=old.started_at, verified=old.verified and header.verified,
                                     provenance=joined_provenance([old, header]))
        if earlier := _earlier_warmups(old):
            header = _with_extra(header, compile_warmup_earlier=earlier)
    order = {item.job.key: (item.job.level, item.job.problem_id) for item, _ in planned}
    sources = {item.job.key: item.source for item, _ in planned}
    lock = threading.Lock()

    def snapshot(finished: bool) -> ResultsFile:
        # every result, resumed or preset ones too, keeps the reference of the kernel it is about
        problems = tuple(dataclasses.replace(r, source=sources[r.key]) for r in sorted(done.values(),
                                                                                     key=lambda r: order[r.key]))
        return dataclasses.replace(header, problems=problems, finished_at=_now() if finished else "")

    def record(result: ProblemResult) -> None:
        with lock:
            done[result.key] = result
            results.save(snapshot(False), path)
        if view is not None:
            view.done(result)

    results.save(snapshot(False), path)
    on_start: Callable[[WorkItem, Device], None] = (
        (lambda item, device: view.started(item.job.key, device.label)) if view else (lambda item, device: None)
    )
    with progress.counter(console, len(warmup.to_warm(to_run)), "compile warm-up") as advance:
        warmed = warmup.warm(to_run, config, on_done=advance)
    if warmed.count or warmed.reused:  # in the file before timing starts, so an interrupted run keeps it too
        header = _with_extra(header, compile_warmup=warmed.describe())
        results.save(snapshot(False), path)
    report = run_all(to_run, config, on_start=on_start, on_result=record)
    final = _with_extra(snapshot(True), unhealthy_gpus=report.unhealthy, launcher_notes=list(report.notes))
    results.save(final, path)
    return final


def _earlier_warmups(old: ResultsFile) -> list[object]:
    """The compile warm-ups of the runs this one resumes, oldest first: each run records its own, and a run cut
    into calls (a device's time limit) would otherwise keep only the last call's, which found everything warm."""
    extra = old.environment.extra
    earlier = extra.get("compile_warmup_earlier")
    runs = list(earlier) if isinstance(earlier, list) else []
    return runs + ([extra["compile_warmup"]] if "compile_warmup" in extra else [])


def _with_extra(record: ResultsFile, **values: object) -> ResultsFile:
    extra = {**record.environment.extra, **values}
    return dataclasses.replace(record, environment=dataclasses.replace(record.environment, extra=extra))


def with_compile_baseline(
    final: ResultsFile, planned: Sequence[tuple[WorkItem, ProblemResult | None]], config: SchedulerConfig,
    cache: Path, torch_version: str,
) -> ResultsFile:
    """Time the torch.compile'd reference of every measured problem not cached for this torch and protocol,
    then set each kernel's result beside it (`compile_baseline`)."""
    version = PROTOCOL.version
    entries = baselines.load_cache(cache)
    measured = {r.key for r in final.problems if r.kernel is not None}
    todo = [item for item, _ in planned if item.job.key in measured
            and not baselines.usable(entries.get(item.job.problem_sha256), torch_version, version)]
    if todo:
        lock = threading.Lock()

        def keep(result: ProblemResult) -> None:  # saved as each ends: an interrupted run keeps what it measured
            with lock:
                entries[result.problem_sha256] = baselines.cache_entry(result, torch_version, version)
                baselines.save_cache(cache, entries)

        with tempfile.TemporaryDirectory(prefix="kb-compile-baseline-") as tmp:
            kernel, sha = baselines.write_kernel(Path(tmp))
            compiled = Path(tmp) / "cache"
            items = [WorkItem(dataclasses.replace(item.job, kernel_path=str(kernel), kernel_sha256=sha,
                                                  backend=baselines.BACKEND, own_kernel_names=()),
                              kernel.name, toolchain.worker_cache_env(compiled, baselines.BACKEND,
                                                                      item.job.problem_sha256,
                                                                      Path(item.env["KB_HARNESS_TRITON_CACHE"])))
                     for item in todo]
            warmup.warm(items, config)
            run_all(items, config, on_result=keep)
    current = {sha: e for sha, e in entries.items() if baselines.current(e, torch_version, version)}
    return dataclasses.replace(final, problems=baselines.attach(final.problems, current))


def findings_for(final: ResultsFile, path: Path) -> list[Finding]:
    """Problems that did not come out correct, and where the record was written."""
    findings = []
    for result in final.problems:
        first_line = result.error.splitlines()[0] if result.error else ""
        if result.status in ERROR_CODES:
            why = result.error or "; ".join(f"{f.code}: {f.message}" for f in result.flags) or result.status
            findings.append(Finding(result.status.value.replace("_", "-"), STAGE, why,
                                    file=result.kernel_path, problem=result.key))
        elif result.status == Status.NEEDS_REVIEW:
            findings.append(Finding("needs-review", STAGE, first_line or "held for a maintainer's review",
                                    file=result.kernel_path, problem=result.key, severity=Severity.WARNING))
    counts: dict[str, int] = {}
    for result in final.problems:
        counts[result.status.value] = counts.get(result.status.value, 0) + 1
    tally = ", ".join(f"{n} {status}" for status, n in sorted(counts.items()))
    findings.append(Finding("results-written", STAGE, f"{len(final.problems)} problem(s): {tally}; written to "
                            f"{path}", severity=Severity.INFO))
    return findings


def _worker_env(tools: Toolchain, interpret: bool) -> dict[str, str]:
    """Variables every worker gets: the build's toolchain settings, so a cached extension is not rebuilt."""
    env = {"MAX_JOBS": str(os.cpu_count() or 1)} | toolchain.compiler_env(tools)
    # numpy's OpenBLAS starts a thread per core at import, in every judge, runner and warm-up, which share the
    # uid's task limit (sandbox.TASKS_PER_CORE); none of them multiplies matrices on the CPU
    env["OPENBLAS_NUM_THREADS"] = "1"
    if interpret:
        env["TRITON_INTERPRET"] = "1"
    if os.environ.get("KB_RUNNER_TRACE"):  # to runners started ahead too, which inherit no environment
        env["KB_RUNNER_TRACE"] = "1"
    return env


def _header(context: StageContext, hardware: str, environment: results.Environment) -> ResultsFile:
    submission, options = context.submission, context.options.evaluate
    provenance = dict(options.provenance)
    return ResultsFile(
        slug=submission.slug, submission_name=submission.name,
        submission_sha256=hashlib.sha256(submission.document_path.read_bytes()).hexdigest(),
        hardware=hardware, environment=environment, protocol=protocol_of(options).to_dict(), problems=(),
        started_at=_now(), finished_at="", verified=options.verified and bool(provenance), provenance=provenance,
    )


def runner_isolation(verified: bool, console: Console | None) -> bwrap.Isolation:
    """How runners will be confined here: the answer the run's gate probed before any stage (isolation/gate.py),
    not a second probe. A verified run refuses to go on without it (fail closed, for callers that skip the gate);
    a local run warns and records `sandbox: none` in its results."""
    from rich.markup import escape

    isolation = bwrap.machine_isolation()
    if isolation.confined:
        return isolation
    if verified:
        raise UserError(f"--verified needs the runner sandbox, which is not available here: {isolation.detail}. "
                        "Install bubblewrap (see the maintainers' page) or run without --verified",
                        ExitCode.UNSAFE_HERE)
    if console is not None:
        console.print(f"[yellow]warning:[/] runners are not sandboxed ({escape(isolation.detail)}); kernels run "
                      "with resource limits only, as your user, and the results record `sandbox: none`")
    return isolation


def run_stage(context: StageContext) -> StageRun:
    machine, shard, options = context.machine, context.options.shard, context.options.evaluate
    if options.interpret:  # real workers on CPU tensors with TRITON_INTERPRET=1, no timing
        devices, gpu_name = [Device("cpu", "")], "cpu (Triton interpreter)"
    else:
        devices, gpu_name = select_devices(machine, options.gpus)
    tools = toolchain.toolchain(machine, context.options)
    isolation = runner_isolation(options.verified, None)  # the gate has warned already where it is missing
    hardware = layout.hardware_key(gpu_name)
    planned = plan(context, tools, secrets.token_bytes(32), options.interpret, isolation.sandbox,
                   floor=speed_of_light_times(context.catalogue.root, hardware))
    path = layout.results_path(options.results_dir, hardware, context.submission.slug, shard)
    per_gpu = 1 if options.interpret or options.worker != WORKER else options.judges_per_gpu
    config = SchedulerConfig(
        tuple(d for d in devices for _ in range(per_gpu)),
        PROTOCOL.problem_timeout_s * options.timeout_scale, target=options.worker,
        launcher=options.launcher, probe_after_crash=not options.interpret,
        base_env=_worker_env(tools, options.interpret), prepare_runners=isolation.confined and options.worker == WORKER,
        gpu_turns=per_gpu > 1,
    )
    visible = [d.visible for d in devices if d.visible]
    extra = {"arch": tools.arch, "launcher": config.launcher, "problem_timeout_s": config.timeout_s,
             "judges_per_gpu": per_gpu,
             "shard": list(shard) if shard else None, "uid": os.getuid(), "sandbox": isolation.sandbox,
             "sandbox_detail": isolation.detail, "sandbox_limits": LIMITS.to_dict()}
    header = _header(context, hardware, gpu_env.environment(machine, gpu_name, visible, extra))
    console = context.options.console
    lock = clocks.locked_clocks(visible, options.lock_clocks and not options.interpret)
    view = progress.EvaluationView(console, len(planned))
    with lock as locked, gpu_env.ClockSampler(visible) as sampler, view:
        final = evaluate(planned, header, path, config, force=options.force, view=view, console=console)
    cache = baselines.cache_path(options.results_dir, hardware)
    if context.submission.slug == baselines.SUBMISSION_SLUG:
        baselines.record(cache, final.problems, machine.torch_version, PROTOCOL.version)
    elif options.compile_baseline:
        final = with_compile_baseline(final, planned, config, cache, machine.torch_version)
    network_open = any(f.code == "sandbox-network-open" for r in final.problems for f in r.flags)
    final = _with_extra(final, clocks_during_run=sampler.summary(), network_isolated=not network_open,
                        clocks_locked=locked)
    results.save(final, path)
    if console is not None:
        console.print(progress.results_table(final.problems, title=f"{context.submission.slug} on {gpu_name}"))
    return StageRun(findings_for(final, path))
