"""The judge: `python -m validator.evaluate.judge.run JOB.json OUT.json`, one per (submission, problem).

The judge never imports submitted code. It owns the secret seed, makes every input, runs the reference,
and starts a runner (`runner/serve.py`, sandboxed by `isolation/bwrap.py`) that imports exactly the kernel
bytes the job hashed and answers calls. The judge reads each output's bytes itself and compares them; it
times the reference itself with the runner stopped, bounds every time the runner reports by its own clock
(`timing-unverified`), and checks a random half of the timed outputs after the fact. Only the judge writes
OUT.json (a `validator.results.records.ProblemResult`); the runner cannot see that path.

The exit status is 0 whenever a result was written, whatever its status. Only a judge that cannot produce
a result exits non-zero.
"""

from __future__ import annotations

import contextlib
import copy
import dataclasses
import json
import os
import subprocess
import sys
import time
from dataclasses import asdict
from pathlib import Path
from typing import Any

from validator.evaluate.jobs import Job, read_job
from validator.evaluate.judge import phase_order
from validator.evaluate.judge.attribution import Attributing
from validator.evaluate.judge.stops import Stop, describe, status_for
from validator.evaluate.judge.trial_inputs import TrialInputs
from validator.files import write_text_atomic
from validator.protocol import Protocol, protocol_from_dict
from validator.results.records import Flag, ProblemResult, Status, upstream_without_judging

USAGE = "usage: python -m validator.evaluate.judge.run JOB.json OUT.json"
"""How far below its speed-of-light time a median must be to be held. The bandwidth ceiling is the H200's measured
copy rate (4.3 TB/s, 90% of the datasheet's 4.8): eager element-wise references run 3-6% above it, and a kernel
streaming a little faster than that copy is plausible, a whole 5% is not."""


def evaluate_job(job: Job, workdir: Path | None = None) -> ProblemResult:
    """Judge one kernel against one problem; never raises for kernel misbehaviour. The runner's private
    directory is made under `workdir` (a temporary directory when None)."""
    import tempfile

    from validator.evaluate.judge.remote import RunnerFailed  # torch: after `start_runner_early`

    started = time.perf_counter()
    if job.interpret:
        os.environ["TRITON_INTERPRET"] = "1"  # read by Triton when kernels are decorated and launched
    with tempfile.TemporaryDirectory(prefix="kb-judge-", dir=workdir) as tmp:
        evaluation = Evaluation(job, protocol_from_dict(job.protocol), Path(tmp))
        try:
            evaluation.run()
        except Stop as stop:
            evaluation.stopped(stop.status, stop.code, stop.message)
        except RunnerFailed as failed:
            evaluation.stopped(Status(failed.status), failed.code, failed.message)
        except Exception as exc:  # the judge's own failure (a bad problem file, a CUDA fault seen here)
            evaluation.stopped(Status.RUNTIME_ERROR, "harness-error", describe(exc))
        finally:
            evaluation.close()
        return evaluation.result(time.perf_counter() - started)


class Evaluation(TrialInputs, Attributing):
    """One evaluation's state; each method is one phase, and `run` calls them in order."""

    def __init__(self, job: Job, protocol: Protocol, workdir: Path | None = None) -> None:
        self.job, self.protocol, self.workdir = job, protocol, workdir
        self.gpu = not job.interpret
        self.reduced = job.use_reduced_sizes
        self.flags: list[Flag] = []
        self.final: tuple[Status, str] | None = None
        self.series: Any = None
        self.own_fraction: float | None = None
        self.reference: Any = None
        self.float64: Any = None
        """The reference in float64 (`precision.Float64`), for float32 outputs whose reference runs in float64."""
        self.float32 = False
        self.reference_s = 0.0
        """Seconds one reference call takes: its call in `compute_references` (warm, after the variants' probes), then
        on the GPU its warm time in the twin (`warm_reference`), which the calls per span and the deadlines follow."""
        self.call_bytes = 0
        """One call's inputs and outputs, in bytes (`compute_references`)."""
        self.span_calls = 1
        """Calls of the kernel, and of the reference, per timed span (`warm_reference` sets it: `span_calls`)."""
        self.over_ms = 0.0
        """How far the kernel's calls exceeded the twin's beyond the noise (`JudgeSide.over_ms`), once timed."""
        self.unseen_parts = (0.0, 0.0)
        """What the timing bound could not see of a call, in parts: the bound's allowance and the sides' excess apart
        (`JudgeSide.unseen_parts`; `unseen_ms` is their sum)."""
        self.deadline_s: float | None = None
        self.runner: Any = None
        self.twin: Any = None
        """The twin runner of the reference: the reference timed through the kernel's own path (`remote.Runner`)."""
        self.tolerances: dict[str, Any] = dict(protocol.tolerances)
        """The protocol's, widened where the problem declares TOLERANCES (set in `compute_references`)."""
        self.phase_seconds: dict[str, float] = {}
        """Wall seconds of each phase run so far (bench/bench_worker_phases.py reads them)."""
        self.verdicts: Any = None
        """The rules' verdicts (`verdicts.Verdicts`), from the first read call on."""
        self.turn: int | None = None
        """The held descriptor of the GPU's turn (`take_gpu`), held until this process ends (`gpu_turn.until_exit`)."""

    def phases(self) -> list[Any]:
        """The phases in the order that makes them safe: every reference exists before the runner loads the kernel,
        the twin is loaded before it, and the profiler pass comes after timing (see `phase_order.NEEDS`). Judging is
        part of timing: every call of the kernel is a timed call."""
        if self.job.warm_only:
            return [self.setup, self.start_runner, self.warm]
        return [self.setup, self.start_runner, self.take_gpu,  # all before the turn overlaps another judge's
                self.compute_references, self.load_twin, self.load_kernel,
                self.arm_deadline, self.time, *([self.attribute] if self.gpu else [])]

    def run(self) -> None:
        for phase in self.phases():
            phase_order.check(phase.__name__, self.phase_seconds)
            started = time.perf_counter()
            try:
                phase()
            finally:
                self.phase_seconds[phase.__name__] = time.perf_counter() - started
                if os.environ.get("KB_RUNNER_TRACE"):  # a diagnosis, beside the runner's own step times
                    print(f"judge: {phase.__name__} {self.phase_seconds[phase.__name__]:.3f} s", file=sys.stderr)

    def own_pids(self) -> set[int]:
        """This judge and every process of its runners' trees: whatever else computes on the GPU is another's."""
        from validator.isolation import process_tree

        twin = process_tree.members(self.twin.process.pid) if self.twin is not None else set()
        return {os.getpid(), *process_tree.members(self.runner.process.pid), *twin}

    # -- phases before any submitted code runs --------------------------------------------------------

    def setup(self) -> None:
        import torch

        from validator.catalogue.problem_module import load_problem_module
        from validator.evaluate import anticheat, correctness  # noqa: F401
        from validator.evaluate.judge import timing  # noqa: F401

        anticheat.force_full_precision()
        if self.gpu:
            if not torch.cuda.is_available():
                raise RuntimeError("no CUDA device is visible to the judge")
            self.device = torch.device("cuda", self.job.device)
            torch.cuda.set_device(self.device)
            torch.cuda.init()
        else:
            self.device = torch.device("cpu")
        self.problem = load_problem_module(self.job.problem_path, reduced=self.reduced)
        self.model_seed = self.seed("model")
        self.model_s = 0.0  # seconds the judge took to construct the reference (a warm-up constructs none)

    def start_runner(self) -> None:
        from validator.evaluate.judge import timing
        from validator.evaluate.judge.remote import Runner

        if self.workdir is None:
            raise RuntimeError("the judge needs a private directory for its runner")
        if self.gpu:  # into the judges' Triton cache (compiled once per cache), which the runner's copy starts from
            from validator.evaluate import digest

            digest.warm(self.device)
        self.runner = Runner(self.job, self.workdir, self.job.sandbox)
        if not self.job.warm_only:  # a warm-up times nothing
            self.twin = Runner(self.job, self.workdir, self.job.sandbox, twin=True)
        self.note("sandbox", self.runner.describe_isolation())  # a run without one says so once, in its environment
        if self.gpu and self.twin is not None:  # CUDA's start and the digest's Triton load, before the GPU's turn
            flush_bytes = timing.flush_bytes(self.device, self.protocol.l2_flush_factor)
            Runner.request_each([self.runner, self.twin], {"op": "null", "flush_bytes": flush_bytes,
                                                           "interpret": False})

    def take_gpu(self) -> None:
        """Wait for the GPU's turn where the scheduler runs judges side by side on it (`gpu_turn`): from here on,
        every GPU work of this judge and its runners measures, or could be felt by a measurement."""
        from validator.evaluate import gpu_turn

        if self.job.gpu_turn:  # the wait is this phase's seconds in the result
            self.turn = gpu_turn.take(self.job.gpu_turn, self.job.turn_limit_s)

    def load_twin(self) -> None:
        """The twin runner builds the reference (the problem's Model, from the model seed, as the judge built it),
        to be timed in every round through the path the kernel is timed on, with as many calls per span."""
        self.twin.request({"op": "load", "reference": True, "backend": self.job.backend, "model_seed": self.model_seed,
                           "interpret": self.job.interpret, **self.problem_request(self.twin)})
        self.warm_reference()

    def warm_reference(self) -> None:
        """The reference's warm time from two of the twin's spans of one call before the kernel loads, each after GPU
        work of the kernel's runner and with that runner stopped, as a round times the twin: the first warms it up
        (a first call's lazy loading varies), the second's device time sets the calls per span (`span_calls`) and
        the deadlines. On the CPU the time of `compute_references`'s call stands in, and nothing is timed. Until
        protocol 22 the twin also timed a baseline here for the rounds to be held to (`reference-slowed`); now the GPU
        is let go idle before each of the twin's spans in the rounds (`Protocol.settle_ms`)."""
        from validator.evaluate.judge import judge_timing

        if self.gpu:
            self.reference_s = [self.twin_span([self.spec(s, "alone")], fresh=s == 0) for s in range(2)][1][0] / 1e3
        self.span_calls = judge_timing.span_calls(self.reference_s * 1e3, self.call_bytes, self.protocol, gpu=self.gpu)

    def twin_span(self, specs: list[dict[str, Any]], *, fresh: bool) -> tuple[float, float, float]:
        """One of the twin's spans before the kernel loads, as a round times it (`judge_timing.timed_span`)."""
        from validator.evaluate.judge import judge_timing, timing

        flush_bytes = timing.flush_bytes(self.device, self.protocol.l2_flush_factor)
        self.runner.request({"op": "null", "flush_bytes": flush_bytes, "interpret": self.job.interpret})
        self.runner.pause()
        try:
            times, _ = judge_timing.timed_span(self.twin, specs, fresh=fresh, flush_bytes=flush_bytes)
        finally:
            self.runner.resume()
        if times[0] < 0:
            raise RuntimeError("the twin runner's span of the reference alone gave no readable device times")
        return times

    def load_kernel(self) -> None:
        from validator.evaluate.judge import deadline

        self.runner.deadlines["load"] = deadline.load_deadline(self.model_s, self.protocol)
        self.runner.request({"op": "load", "kernel": self.runner.inside("kernel.py"),
                             "kernel_sha256": self.job.kernel_sha256, "backend": self.job.backend,
                             "model_seed": self.model_seed, "interpret": self.job.interpret, **self.problem_request()})

    def problem_request(self, runner: Any = None) -> dict[str, Any]:
        """Which problem file the runner (the kernel's unless told) loads (its copy, hash-checked there) and at
        which sizes."""
        from validator.catalogue.problem_module import reduced_sizes

        return {"problem": (runner or self.runner).inside("problem.py"), "problem_sha256": self.job.problem_sha256,
                "reduced": self.reduced, "reduced_sizes": reduced_sizes(self.problem) if self.reduced else None}

    def warm(self) -> None:
        """Build ModelNew and call it once on a trial input, so the compile caches the timed run reads are
        filled (`warmup`); checks nothing, and ends as `not_run`: a warm-up is never a measurement."""
        from validator.evaluate.judge.judge_timing import timed_span

        self.load_kernel()
        timed_span(self.runner, [self.spec(0)], fresh=True, flush_bytes=0)
        self.runner.close()
        self.runner.keep_caches()
        raise Stop(Status.NOT_RUN, "warm-up", "warm-up only: the compile caches were filled")

    def declared_tolerances(self) -> None:
        """Widen `tolerances` where the problem's overlay declares tolerances (its fp32 reference is itself further than
        the protocol's tolerance from a float64 run: the catalogue's ill-conditioned filter), and say so."""
        from validator.catalogue.problem_module import problem_tolerances

        self.tolerances = problem_tolerances(self.problem, self.protocol.tolerances)
        wider = ", ".join(f"{k} atol={t.atol:g} rtol={t.rtol:g}" for k, t in self.tolerances.items()
                          if t != self.protocol.tolerances.get(k))
        if wider:
            self.note("tolerance-declared", f"the problem's overlay declares {wider}")

    def reference_model(self) -> Any:
        from validator.catalogue.problem_module import make_model

        # KernelBench's way: parameters drawn by the CPU generator, then moved. Under a CUDA default device a
        # kernel's own `torch.Tensor(...)` parameters (the legacy constructor ignores it) drew from the CPU
        # generator while the reference's drew from the GPU's: two 2024 leaderboard kernels upstream judged
        # correct (level1/69, 78) came out wrong on nearly every element.
        return make_model(self.problem, self.model_seed, self.device)

    def compute_references(self) -> None:
        """The reference model, its output's structure (what every kernel output must have) on a draw of its inputs,
        and the reference in float64 where the outputs are float32. Each read call's reference is computed as it comes:
        the judge's memory is out of the kernel's reach, and holding many calls' outputs at once does not fit a GPU at
        upstream's full sizes (19_ReLU: 6.4 GB per tensor)."""
        import torch

        from validator.evaluate.correctness import reference_output
        from validator.evaluate.judge.remote import expected_of
        from validator.evaluate.judge.verdicts import Verdicts

        self.declared_tolerances()  # a malformed TOLERANCES stops the problem before any submitted code runs
        self.verdicts = Verdicts(self.tolerances, self.protocol)
        started = time.perf_counter()
        self.reference = self.reference_model()
        self.model_s = time.perf_counter() - started  # what constructing ModelNew should cost too (its deadline)
        if self.out_of_range:  # decided before any call is drawn, from the reference alone
            self.note("input-variants", f"not used: {', '.join(self.out_of_range)}: the reference's own output "
                      "holds ±Inf on them (float32's range would be tested, not the kernel)")
        self.sync(release=True)
        inputs = self.inputs(self.spec(0, "alone"))
        self.sync()  # the deadline follows the call, not the inputs' making (most of it for 19_ReLU's 6.4 GB)
        started = time.perf_counter()
        expected, container = reference_output(self.reference, inputs)
        self.sync()
        self.reference_s = time.perf_counter() - started  # warm after the probes; the twin's on the GPU
        self.shape = expected_of(expected, container)
        self.call_bytes = self.shape.nbytes + sum(t.numel() * t.element_size() for t in inputs
                                                  if isinstance(t, torch.Tensor))
        self.float32 = all(str(e.dtype) == "torch.float32" for e in expected)
        del expected, inputs
        self.load_float64()
        self.sync(release=True)

    def load_float64(self) -> None:
        """The reference in float64 for the precision check and the headline's test that the output follows its
        inputs; a reference that cannot run in float64 only loses them, and says so."""
        from validator.evaluate.judge.precision import Float64

        if not self.float32:
            self.note("precision-check", "skipped: the reference's outputs are not float32")
            return
        # A copy first; then a fresh instance from the same seed: a Model whose forward closes over its own submodules
        # (minGPT's `self.mlpf = lambda x: m.c_proj(...)`) keeps the original's float32 ones through a deepcopy.
        for make in (lambda: copy.deepcopy(self.reference), self.reference_model):
            try:
                self.float64 = Float64(make(), self.protocol.precision_sample)
                self.float64_reference(self.spec(0, "alone"), 0)  # does it run in float64 (on the GPU or the CPU)?
                return
            except Exception as exc:
                self.float64, failure = None, exc
        self.note("precision-check", f"skipped: the reference fails in float64 ({describe(failure, 200)})")

    def arm_deadline(self) -> None:
        from validator.evaluate.judge import deadline

        self.deadline_s = deadline.call_deadline(self.reference_s, self.protocol, interpret=not self.gpu)
        span_s = deadline.call_deadline(self.reference_s * self.span_calls, self.protocol, interpret=not self.gpu)
        for runner in (self.runner, self.twin):
            deadline.arm(runner, self.deadline_s, self.protocol, interpret=not self.gpu, backend=self.job.backend,
                         payload_bytes=self.shape.nbytes, span_seconds=span_s)

    def judge_call(self, n: int, fetch: Any) -> Any:
        """Call n of the kernel, read after its span: its outputs (`fetch()`) judged against the judge's reference on
        the same inputs, under every rule (`verdicts`); the headline's failure, once it fails. Each reference runs on
        inputs made for it alone and dropped once used, and the outputs are fetched last: at upstream's full sizes
        (19_ReLU: 6 GiB a tensor, twice that in float64) the judge then holds at most the float64 call's inputs and
        output, not those beside its fp32 inputs, their copy, the fp32 reference and the outputs (7 tensors' worth,
        with both runners' beside them more than an 80 GB H100 has). The float64 pass's cached blocks are handed back
        before the runner remakes its inputs to fetch (on the H100, kept, they left it 4 GiB)."""
        import torch

        from validator.evaluate.correctness import PASSED, Check, output_tensors, poison

        spec = self.spec(n)
        picked = self.float64_reference(spec, self.seed("sample", n)) if self.float64 else None
        with torch.no_grad():
            ref32, _ = output_tensors(self.reference(*self.inputs(spec)))
        outs = fetch()
        if isinstance(outs, Check):
            poison(ref32)
            return outs
        errors = self.float64.errors(picked, ref32, outs) if picked is not None else None
        self.verdicts.judge(outs, ref32, spec["variant"], errors)
        poison(ref32)
        del ref32, outs
        self.sync(release=True)  # the caching allocator would keep the float64 call's peak from the runners' spans
        return PASSED if self.verdicts.alive else self.verdicts.headline

    def float64_reference(self, spec: dict[str, Any], seed: int) -> Any:
        """The float64 reference of a read call (`Float64.reference`), on the GPU where it fits beside what the runners
        hold: where it does not, once more after both have handed their cached memory back (the twin its last span's
        tensors too, which no one fetches), and then on the CPU for the rest of the problem. The judge's own memory is
        never the kernel's failure. Both runners release alike, so their next spans allocate alike. (On an 80 GB H100,
        at 423217d's sizes, Swish's pass did not fit beside the twin's last span; on the CPU it took 139 s.) Its pool
        (twice the fp32 call's) is handed back before it returns: kept, it sat beside the runner's fetch (4 GiB left on
        the H100) and, after setup's trial, beside the runners' first spans."""
        import torch

        for attempt in ("gpu", "released", "cpu"):
            if attempt == "cpu":
                self.float64.model, self.float64.device = self.float64.model.cpu(), torch.device("cpu")
                self.note("precision-check", "the float64 reference runs on the CPU: beside the runners' memory, "
                          "its pass did not fit on the GPU")
            picked = None
            try:
                picked = self.float64.reference(self.inputs(spec), seed)
            except torch.OutOfMemoryError:
                if self.float64.device is not None:
                    raise
            self.sync(release=True)  # after the handler: its traceback kept a failed pass's tensors alive
            if picked is not None:
                return picked
            for runner, drop in ((self.twin, True), (self.runner, False)) if attempt == "gpu" else ():
                if runner is not None:
                    runner.request({"op": "release", "drop": drop})
        raise AssertionError("unreachable: the CPU pass returns or raises")

    # -- GPU-only phases ----------------------------------------------------------------------------------

    def time(self) -> None:
        """Interleaved rounds: the reference timed in the twin runner with the kernel's runner stopped, the kernel
        in its runner, both through the same path and bounded by the judge's own spans. Under --interpret a few
        rounds run on CPU clocks so the bound is exercised; those times mean nothing and are not recorded."""
        from validator.evaluate.judge import clocks
        from validator.evaluate.judge.judge_timing import JudgeSide

        protocol = self.protocol
        if not self.gpu:
            # CPU clocks: a few rounds exercise the path; no time is recorded
            protocol = dataclasses.replace(protocol, warmup_calls=1, min_rounds=2, max_rounds=6, block_gap_s=0.0)
        judge = JudgeSide(self.runner, self.twin, spec=self.spec, judge=self.judge_call, read=self.read,
                          required=len(self.required), shape=self.shape, device=self.device,
                          read_clocks=clocks.device_reader(self.device) if self.gpu else lambda: None,
                          own_pids=self.own_pids, calls=self.span_calls)
        series = judge.run(protocol, self.seed("order") % (1 << 31), gpu=self.gpu)
        self.sync(release=True)
        if series.failure is not None:
            raise Stop(status_for(series.failure.code), series.failure.code, series.failure.message)
        if self.verdicts.precision:
            self.note("precision-check", self.verdicts.precision)
        if judge.unstable:
            self.note("clock-unstable", "measured with the GPU slowed: " + "; ".join(judge.unstable), "warning")
        if judge.contended:
            self.note("gpu-contention", "the twin's spans of the reference began before the GPU went idle (not "
                      f"{protocol.settle_trips} round trips in a row of at most {protocol.contention_ms:g} ms within "
                      f"{protocol.settle_ms:g} ms; idle: tens of microseconds): " + "; ".join(judge.contended)
                      + ". Another context's work shared the GPU with them, as work the kernel's runner left queued "
                      "when it was stopped would, lengthening the honest side of the bound: held until a maintainer "
                      "reviews it", "warning")
        if not self.gpu:
            self.note("timing-meaningless", f"--interpret: {len(series.ker_ms)} rounds ran on CPU clocks to check "
                      f"the judge's bound ({judge.describe_bound()}); no time is recorded")
            return
        self.series = series
        self.over_ms, self.unseen_parts = judge.over_ms, judge.unseen_parts
        self.note("timing-bound", judge.describe_bound())

    # -- the result --------------------------------------------------------------------------------------

    def note(self, code: str, message: str, severity: str = "info") -> None:
        self.flags.append(Flag(code, message, severity))

    def stopped(self, status: Status, code: str, message: str) -> None:
        self.final = (status, message)
        self.flags.append(Flag(code, message, "error"))

    def close(self) -> None:
        from validator.evaluate import gpu_turn
        from validator.evaluate.judge.remote import Runner

        started = time.perf_counter()
        Runner.close_each([runner for runner in (self.runner, self.twin) if runner is not None])
        self.phase_seconds["close"] = time.perf_counter() - started  # the runners' exits, inside the GPU's turn
        if self.turn is not None:  # the runners have ended (`process_tree.kill_and_reap`): their memory is free
            gpu_turn.until_exit(self.turn)  # and this judge's is once it exits
            self.turn = None

    def sync(self, release: bool = False) -> None:
        """Wait for the judge's GPU work; `release` hands the judge's cached blocks back to the runner's use."""
        if self.gpu:
            import torch

            torch.cuda.synchronize()
            if release:
                torch.cuda.empty_cache()

    def speed_of_light(self, kernel_ms: float, reference_ms: float) -> None:
        """Hold a median below the problem's speed-of-light time (`Job.speed_of_light_ms`) by more than
        `speed_of_light_margin`, unless the reference itself ran below it: then the bound overstates this problem's
        work (a library's algorithm doing fewer multiply-adds than the direct count) and is only noted."""
        floor = self.job.speed_of_light_ms
        if not floor or kernel_ms >= floor * (1 - self.protocol.speed_of_light_margin):
            return
        if reference_ms < floor:
            self.note("speed-of-light-unreliable", f"the reference's median, {reference_ms:.4g} ms, is itself below "
                      f"the problem's speed-of-light time here, {floor:.4g} ms: the bound does not hold for it, and "
                      "nothing is held on it")
            return
        self.note("speed-of-light", f"median {kernel_ms:.4g} ms is below the problem's speed-of-light time on this "
                  f"hardware, {floor:.4g} ms (its FLOPs at peak compute or its least bytes at copy bandwidth), by more "
                  f"than {self.protocol.speed_of_light_margin:.0%}: held until a maintainer reviews it", "warning")

    @property
    def unseen_ms(self) -> float:
        """What the timing bound could not see of a call (`JudgeSide.unseen_ms`)."""
        return sum(self.unseen_parts)

    def unresolved(self, kernel_ms: float, speedup_low: float) -> None:
        """Hold a claim to beat the reference (the low end of the speedup's interval above 1: a clear win, not a
        tie within the noise) that the judge's clock cannot vouch for: a median below what the clock could not have
        seen (`JudgeSide.unseen_ms`), or calls that exceeded the twin's by more than the noise allows, though less
        than the skew honest runners have shown (`JudgeSide.over_ms`). The claim then rests on the runner's word
        alone. On an H100, runners patched to report a thousandth of a 0.004 ms ReLU's time, or to compute it before
        each call's events, stayed inside protocol 12's bound by 0.2 and 0.3 ms."""
        if speedup_low <= 1.0:
            return
        if kernel_ms < self.unseen_ms:
            allowance, apart = self.unseen_parts
            self.note("timing-unresolved", f"median {kernel_ms:.4g} ms is below the {self.unseen_ms:.4g} ms per call "
                      f"that the judge's clock cannot see (the bound's noise allowance {allowance:.3g} ms, the "
                      f"kernel's and the twin's calls' excess over their reported times {apart:.3g} ms apart): its "
                      "time cannot be told from less, so the claim to beat the reference rests on the runner's report "
                      "alone: held until a maintainer reviews it", "warning")
        elif self.over_ms > 0:
            self.note("timing-unresolved", f"its calls exceeded the reference's honest calls (the twin's, in the "
                      f"same rounds) by {self.over_ms:.4g} ms per call more than the noise allows: within what honest "
                      "kernels' runners have shown, so not rejected, but the claim to beat the reference rests on the "
                      "runner's report alone: held until a maintainer reviews it", "warning")

    def result(self, seconds: float) -> ProblemResult:
        from validator.evaluate.anticheat import REVIEW_CODES
        from validator.evaluate.judge.timing import result_fields

        worst = self.verdicts.strict_worst if self.verdicts is not None and self.verdicts.calls else (None, None)
        values: dict[str, Any] = {"max_abs_error": worst[0], "max_rel_error": worst[1],
                                  "own_kernel_fraction": self.own_fraction, "seconds": round(seconds, 3),
                                  "deadline_s": None if self.deadline_s is None else round(self.deadline_s, 2),
                                  "phases": {name: round(wall, 3) for name, wall in self.phase_seconds.items()} or None}
        status, error = self.final or (Status.CORRECT, "")
        strict = self.verdicts.strict if self.verdicts is not None else None
        if self.final is None and strict is not None:  # correct at upstream's rule only: timed, not correct here
            status, error = status_for(strict.code), strict.message
            self.flags.append(Flag(strict.code, strict.message, "error"))
        if self.series is not None and self.final is None:
            values.update(result_fields(self.series, self.protocol, self.seed("bootstrap") % (1 << 31)))
            if values["speedup"] > self.protocol.review_speedup:
                self.note("speedup-review", f"speedup {values['speedup']:.2f}x is above "
                          f"{self.protocol.review_speedup:g}x: held until a maintainer reviews it", "warning")
            self.speed_of_light(values["kernel"].median, values["reference"].median)
            self.unresolved(values["kernel"].median, values["speedup_ci"][0])
        review = [f for f in self.flags if f.code in REVIEW_CODES]
        if status is Status.CORRECT and review:
            status, error = Status.NEEDS_REVIEW, "; ".join(f.message for f in review)
        if self.verdicts is None:  # stopped before any trial ran (the judge's own failure, a warm-up)
            values["upstream"] = upstream_without_judging(status, error)
        elif status is not Status.NOT_RUN:
            stopped = self.final[1] if self.final else None
            values["upstream"] = self.verdicts.record(stopped=stopped, held=bool(review))
            if values["upstream"].fooled:
                self.flags.append(Flag("upstream-fooled", values["upstream"].fooled, "info"))
        job = self.job
        return ProblemResult(job.key, job.level, job.problem_id, job.problem_sha256, job.kernel_path,
                             job.kernel_sha256, job.backend, status, error=error, flags=tuple(self.flags), **values)


def main(argv: list[str] | None = None) -> int:
    args = sys.argv[1:] if argv is None else argv
    if len(args) != 2:
        print(USAGE, file=sys.stderr)
        return 2
    try:
        job = read_job(Path(args[0]))
        Path(args[0]).unlink()  # the job holds the secret seed: gone before any submitted code is imported
    except (OSError, ValueError, TypeError) as exc:
        print(f"worker: cannot read job {args[0]}: {exc}", file=sys.stderr)
        return 2
    workdir = Path(args[1]).parent
    with contextlib.ExitStack() as stack:
        result = evaluate_job(start_runner_early(job, stack, workdir), workdir)
    write_text_atomic(Path(args[1]), json.dumps(asdict(result), indent=1) + "\n")
    if result.status not in (Status.CORRECT, Status.NEEDS_REVIEW):  # the parent's crash probe reads stderr
        print(f"worker: {result.status}: {result.error[:800]}", file=sys.stderr)
    return 0


def start_runner_early(job: Job, stack: contextlib.ExitStack, workdir: Path) -> Job:
    """Confined runners started before this judge imports torch, so the start-ups (interpreter, torch, the
    compilers' modules: about 5 s on the GPU machine) overlap: the kernel's runner, unless the scheduler started
    one ahead, and the twin of the reference. Each waits in a directory of `workdir` (`runner-early`, `twin-early`),
    as one the scheduler starts ahead waits in its base, and `stack` ends it. They lie in the job's directory and
    the kernel runner's ring in `job.ring_dir`, both the scheduler's: a judge killed at its time limit unwinds
    nothing, and the scheduler removes both after it (a directory of the judge's own in /tmp was left behind
    then). Without bubblewrap the job is returned as it is; a runner whose early start fails is started by the
    judge itself."""
    if job.sandbox != "bubblewrap":
        return job
    from validator.evaluate.judge import launch
    from validator.isolation import process_tree

    def early(name: str, ring: Path | None) -> tuple[str, int]:
        try:
            process = launch.prepare(workdir / name, os.environ, gpu=not job.interpret, hold=stack, ring=ring)
        except (OSError, subprocess.SubprocessError):
            return "", 0
        stack.callback(process_tree.kill_and_reap, process)
        return str(workdir / name), process.pid

    if not job.runner_dir:
        runner_dir, runner_pid = early("runner-early", Path(job.ring_dir) if job.ring_dir else None)
        job = dataclasses.replace(job, runner_dir=runner_dir, runner_pid=runner_pid)
    if not job.twin_dir and not job.warm_only:
        twin_dir, twin_pid = early("twin-early", None)
        job = dataclasses.replace(job, twin_dir=twin_dir, twin_pid=twin_pid)
    return job


if __name__ == "__main__":
    sys.exit(main())
