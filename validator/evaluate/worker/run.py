"""One evaluation worker: `python -m validator.evaluate.worker.run JOB.json OUT.json`.

Runs in a fresh, sandboxed process per (submission, problem). Order matters, because everything the
kernel could tamper with is fixed before its code runs:

1. torch and the harness modules are imported (they capture the functions they judge and time with);
2. the reference Model produces every correctness and precision output, which the harness keeps;
   the Model is then deleted;
3. identities of torch/timer/harness functions are snapshotted and a thread counter installed;
4. only now the kernel module is imported, its ModelNew built and called, and checked after every call.

OUT.json is a `validator.results.records.ProblemResult`; the exit status is 0 whenever a result was written,
whatever its status. Only a worker that cannot produce a result exits non-zero.
"""

from __future__ import annotations

import json
import os
import sys
import time
from dataclasses import asdict, fields
from pathlib import Path
from typing import Any

from validator.evaluate.jobs import Job, read_job
from validator.files import write_text_atomic
from validator.protocol import PROTOCOL, Protocol, Tolerance
from validator.results.baselines import REFERENCE_MODULE
from validator.results.records import Flag, ProblemResult, Status

USAGE = "usage: python -m validator.evaluate.worker.run JOB.json OUT.json"


class Stop(Exception):
    """Ends the evaluation early with a status and a reason code."""

    def __init__(self, status: Status, code: str, message: str) -> None:
        super().__init__(message)
        self.status, self.code, self.message = status, code, message


def protocol_from_dict(data: dict[str, Any]) -> Protocol:
    """The job's protocol dict back as a Protocol (unknown keys ignored, missing ones defaulted)."""
    if not data:
        return PROTOCOL
    known = {f.name for f in fields(Protocol)}
    values = {k: v for k, v in data.items() if k in known}
    if "tolerances" in values:
        given = values["tolerances"].items()
        values["tolerances"] = {k: Tolerance(**v) if isinstance(v, dict) else v for k, v in given}
    if "input_scales" in values:
        values["input_scales"] = tuple(values["input_scales"])
    return Protocol(**values)


def classify(exc: BaseException) -> tuple[Status, str]:
    """Status and reason code for an exception raised by (or right after) kernel code."""
    text = str(exc)
    if type(exc).__name__ == "OutOfMemoryError" or "out of memory" in text or "can't allocate memory" in text:
        return Status.OOM, "out-of-memory"
    if type(exc).__name__ == "CompilationError" or type(exc).__module__.startswith("triton.compiler"):
        return Status.COMPILE_ERROR, "compile-error"
    return Status.RUNTIME_ERROR, "kernel-raised"


def describe(exc: BaseException, limit: int = 1500) -> str:
    text = f"{type(exc).__name__}: {exc}".strip()
    return text if len(text) <= limit else text[: limit - 16] + " ... (truncated)"


def status_for(code: str) -> Status:
    from validator.evaluate.worker.integrity import REJECT_CODES

    return Status.REJECTED if code in REJECT_CODES else Status.INCORRECT


def evaluate_job(job: Job) -> ProblemResult:
    """Evaluate one kernel against one problem in this process; never raises for kernel misbehaviour."""
    started = time.perf_counter()
    if job.interpret:
        os.environ["TRITON_INTERPRET"] = "1"  # read by Triton when kernels are decorated and launched
    evaluation = Evaluation(job, protocol_from_dict(job.protocol))
    try:
        evaluation.run()
    except Stop as stop:
        evaluation.stopped(stop.status, stop.code, stop.message)
    except Exception as exc:  # kernel faults surface here too (CUDA errors are raised at the next sync)
        status, code = classify(exc)
        if not evaluation.kernel_imported:
            status, code = Status.RUNTIME_ERROR, "harness-error"
        evaluation.stopped(status, code, describe(exc))
    return evaluation.result(time.perf_counter() - started)


def write_result(result: ProblemResult, path: Path) -> None:
    write_text_atomic(path, json.dumps(asdict(result), indent=1) + "\n")


class Evaluation:
    """One evaluation's state; each method is one phase, and `run` calls them in order."""

    def __init__(self, job: Job, protocol: Protocol) -> None:
        self.job, self.protocol = job, protocol
        self.gpu = not job.interpret
        self.reduced = job.use_reduced_sizes
        self.flags: list[Flag] = []
        self.final: tuple[Status, str] | None = None
        self.kernel_imported = False
        self.max_abs: float | None = None
        self.max_rel: float | None = None
        self.series: Any = None
        self.own_fraction: float | None = None
        self.expected: list[list[Any]] = []
        self.container: type | None = None
        self.specs: list[Any] = []
        self.precision_sets: list[Any] = []
        self.tolerances: dict[str, Any] = dict(protocol.tolerances)
        """The protocol's, widened where the problem declares TOLERANCES (set in `compute_references`)."""

    def run(self) -> None:
        self.setup()
        if self.job.warm_only:
            return self.warm()
        self.compute_references()
        self.guard()
        self.import_kernel()
        self.build_kernel_model()
        self.check_correctness()
        self.check_precision()
        if self.gpu:
            self.attribute()
            self.time()
        else:
            self.note("gpu-checks-skipped", "CPU interpret mode: timing, host-time cross-check, profiler "
                      "attribution and persisting-L2 reset need a GPU and were skipped")

    # -- phases before any submitted code runs --------------------------------------------------------

    def setup(self) -> None:
        import contextlib
        import importlib

        import torch

        from validator.catalogue.problem_module import load_problem_module
        from validator.evaluate.worker import correctness, integrity, timing  # noqa: F401  (capture what they judge with)

        for name in ("triton", "triton.language", "torch.utils.cpp_extension", "torch._dynamo"):
            with contextlib.suppress(ImportError):  # libraries' import-time work happens before the watchers
                importlib.import_module(name)  # (torch._dynamo rebinds torch.manual_seed; the profiler loads it)
        if self.job.backend == "torch-compile":  # dynamo patches nn.Module on its first call; the baseline is
            from torch._dynamo.mutation_guard import install_generation_tagging_init  # trusted, so let that
            install_generation_tagging_init()  # happen before the watchers look, not read it as tampering
            import torch._inductor.config as inductor_config  # compile in this process: the sandbox's process

            inductor_config.compile_threads = 1  # limit would starve a pool (the zygote read its env earlier)
            with contextlib.suppress(ImportError):  # a progress bar the compiler shows would start tqdm's
                import tqdm  # monitor thread, which the thread watch would rightly count against the kernel

                tqdm.tqdm.monitor_interval = 0
        integrity.force_full_precision()
        self.l2 = None
        if self.gpu:
            if not torch.cuda.is_available():
                raise RuntimeError("no CUDA device is visible to the worker")
            self.device = torch.device("cuda", self.job.device)
            torch.cuda.set_device(self.device)
            torch.cuda.init()
            self.l2 = integrity.PersistingL2()
            self.note("persisting-l2-reset", "done before every call" if self.l2.available else
                      "unavailable: the CUDA runtime library could not be called")
        else:
            self.device = torch.device("cpu")
        self.problem = load_problem_module(self.job.problem_path, reduced=self.reduced)
        self.model_seed = self.seed("model")

    def warm(self) -> None:
        """Build ModelNew and call it once on a trial input, so the compile caches the timed run reads are
        filled (`warmup`); checks nothing, and ends as `not_run`: a warm-up is never a measurement."""
        self.guard()
        self.import_kernel()
        self.build_kernel_model()
        self.call_kernel(self.inputs("trial", 0))
        raise Stop(Status.NOT_RUN, "warm-up", "warm-up only: the compile caches were filled")

    def seed(self, purpose: str, index: int = 0) -> int:
        from validator.evaluate.worker.correctness import derive_seed

        return derive_seed(self.job.seed, purpose, index)

    def inputs(self, purpose: str, index: int, scale: float = 1.0) -> list[Any]:
        from validator.catalogue.problem_module import make_inputs
        from validator.evaluate.worker.correctness import scale_floating

        made = make_inputs(self.problem, self.seed(purpose, index), self.device, generate_on_device=self.gpu)
        return scale_floating(made, scale)

    def trial_inputs(self, trial: int) -> list[Any]:
        """Correctness trial `trial`: a fresh draw of the problem's own inputs, turned into the trial's variant
        (upstream's draw, negated, standard-normal, or a scale the problem allows)."""
        from validator.evaluate.worker.input_variants import make_variant, trial_variants

        variants = trial_variants(self.input_scales())
        return make_variant(self.inputs("trial", trial), variants[trial % len(variants)], self.seed("variant", trial))

    def input_scales(self) -> tuple[float, ...]:
        from validator.catalogue.problem_module import problem_input_scales

        return problem_input_scales(self.problem, self.protocol.input_scales)

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

        return make_model(self.problem, self.model_seed, self.device, generate_on_device=self.gpu)

    def compute_references(self) -> None:
        from validator.evaluate.worker.correctness import precision_references, reference_outputs, specs_of

        self.declared_tolerances()  # a malformed TOLERANCES stops the problem before any submitted code runs
        model = self.reference_model()
        self.expected, self.container = reference_outputs(model, self.trial_inputs, self.protocol.correctness_trials)
        self.specs = specs_of(self.expected[0])
        if all(str(e.dtype) == "torch.float32" for e in self.expected[0]):
            try:
                self.precision_sets = precision_references(model, lambda i: self.inputs("precision", i),
                                                           self.seed("widen"))
            except Exception as exc:  # a reference that cannot run in float64 only loses this check
                self.note("precision-check", f"skipped: the reference fails in float64 ({describe(exc, 200)})")
        else:
            self.note("precision-check", "skipped: the reference's outputs are not float32")
        del model
        self.sync()

    def guard(self) -> None:
        from validator.evaluate.worker.integrity import Guard

        self.guard_ = Guard(self.l2)

    def require(self, verdict: Any) -> None:
        if not verdict.ok:
            raise Stop(status_for(verdict.code), verdict.code, verdict.message)

    def run_untrusted(self, where: str, action: Any) -> Any:
        """Run submitted code, turn its exceptions into statuses, then check nothing was tampered with."""
        import torch

        self.guard_.before()
        try:
            with torch.no_grad():
                value = action()
            self.sync()
        except (Exception, SystemExit) as exc:
            status, code = classify(exc)
            raise Stop(status, code, f"{where}: {describe(exc)}") from None
        self.require(self.guard_.after(where))
        return value

    def import_kernel(self) -> None:
        import importlib.util

        name = f"_kb_kernel_{self.job.kernel_sha256[:16] or 'unknown'}"
        spec = importlib.util.spec_from_file_location(name, self.job.kernel_path)
        if spec is None or spec.loader is None:
            raise Stop(Status.COMPILE_ERROR, "compile-error", f"{self.job.kernel_path} is not importable")
        module = importlib.util.module_from_spec(spec)
        sys.modules[name] = module  # Triton and inspect look kernels' sources up through their module
        if self.job.backend == "torch-compile":  # the compiler baseline compiles the problem's own Model
            sys.modules[REFERENCE_MODULE] = self.problem
        self.kernel_imported = True
        try:
            self.run_untrusted("importing the kernel module", lambda: spec.loader.exec_module(module))
        except Stop as stop:
            if stop.status is Status.RUNTIME_ERROR:  # failing to import is failing to build
                raise Stop(Status.COMPILE_ERROR, "compile-error", stop.message) from None
            raise
        self.kernel_module = module

    def build_kernel_model(self) -> None:
        from types import SimpleNamespace

        from validator.catalogue.problem_module import make_model

        model_new = getattr(self.kernel_module, "ModelNew", None)
        if not callable(model_new):
            raise Stop(Status.RUNTIME_ERROR, "no-modelnew", "the kernel file defines no ModelNew class")
        shim = SimpleNamespace(Model=model_new, get_init_inputs=self.problem.get_init_inputs)
        build = lambda: make_model(shim, self.model_seed, self.device, generate_on_device=self.gpu)  # noqa: E731
        self.kernel = self.run_untrusted("constructing ModelNew", build)

    def call_kernel(self, args: list[Any]) -> Any:
        return self.run_untrusted("a call of ModelNew", lambda: self.kernel(*args))

    def held(self) -> list[Any]:
        return [t for e in self.expected for t in e] + [t for s in self.precision_sets for t in s.ref64]

    def check_correctness(self) -> None:
        from validator.evaluate.worker.correctness import (
            check_structure,
            check_values,
            clone_inputs,
            inputs_unchanged,
            poison,
            refill_inputs,
        )  # fmt: skip

        buffers = None
        for t, expected in enumerate(self.expected):
            pristine = self.trial_inputs(t)
            if buffers is None:
                buffers = clone_inputs(pristine)
            else:
                refill_inputs(buffers, pristine)
            verdict, outs = check_structure(self.call_kernel(buffers), self.specs, self.container)
            self.require(verdict)
            self.require(self.guard_.ledger.check(outs, buffers, self.held()))
            self.require(inputs_unchanged(buffers, pristine))
            verdict = check_values(outs, expected, self.tolerances)
            del outs
            self.require(verdict)
            self.max_abs = max(self.max_abs or 0.0, verdict.max_abs)
            self.max_rel = max(self.max_rel or 0.0, verdict.max_rel)
            poison(expected)
            self.expected[t] = []

    def check_precision(self) -> None:
        from validator.evaluate.worker.correctness import (
            check_structure,
            clone_inputs,
            normwise_error,
            poison,
            precision_verdict,
        )

        verdicts = []
        for ps in self.precision_sets:
            args = clone_inputs(ps.inputs)
            verdict, outs = check_structure(self.call_kernel(args), self.specs, self.container)
            self.require(verdict)
            self.require(self.guard_.ledger.check(outs, args, self.held()))
            error = max(normwise_error(o, r) for o, r in zip(outs, ps.ref64, strict=True))
            verdicts.append(precision_verdict(error, ps.reference_error))
        for ps in self.precision_sets:
            poison(ps.ref64)
        self.precision_sets = []
        if verdicts:
            worst = max(verdicts, key=lambda v: v.kernel_error / v.bound)
            self.note("precision-check", "; ".join(v.describe() for v in verdicts))
            if worst.lowered:
                raise Stop(Status.REJECTED, "precision-lowered", worst.describe())

    # -- GPU-only phases ----------------------------------------------------------------------------------

    def attribute(self) -> None:
        """Profiler pass: the submission's own kernels vs library kernels, and the streams they ran on."""
        from validator.evaluate.worker.correctness import clone_inputs
        from validator.evaluate.worker.integrity import attribute_gpu_time

        pending = [clone_inputs(self.inputs("profile", i)) for i in range(3)]
        call = lambda: self.kernel(*pending.pop())  # noqa: E731
        profile = lambda: attribute_gpu_time(call, self.job.own_kernel_names, repeats=3)  # noqa: E731
        found = self.run_untrusted("a call of ModelNew", profile)
        if found is None:
            self.note("profile-unavailable", "the profiler recorded no GPU activity; attribution skipped", "warning")
            return
        self.own_fraction = round(found.own_fraction, 4)
        streams = [s for s in found.streams if s >= 0]
        suspects = found.side_suspects(self.job.own_kernel_names)
        if len(streams) > 1 and suspects:
            raise Stop(Status.REJECTED, "side-stream", f"GPU work ran on {len(streams)} streams during calls "
                       f"({', '.join(map(str, streams))}), the timed stream not seeing all of it; off it ran "
                       f"{', '.join(s[:80] for s in suspects[:4])}")
        if len(streams) > 1:  # host time with a device-wide sync would still expose work the library left running
            self.note("library-streams", f"library kernels ran on {len(streams) - 1} internal stream(s) "
                      f"({', '.join(s[:60] for s in found.side_work[:4])}); the library joins them to the timed "
                      "stream, and the host-time cross-check covers work it would not")
        if found.own_ms <= 0 and self.job.backend != "torch-compile":  # a compiler writes its own kernels
            shown = ", ".join(found.kernels[:6]) or "none"
            self.note("no-custom-kernel", f"no GPU time in the submission's own kernels "
                      f"({', '.join(self.job.own_kernel_names) or 'none found'}); kernels that ran: {shown}",
                      "warning")

    def time(self) -> None:
        from validator.evaluate.worker import timing
        from validator.evaluate.worker.correctness import check_structure, check_values, poison

        ref_model = self.reference_model()

        def after_kernel(out: Any, args: list[Any]) -> Any:
            verdict = self.guard_.after("a timed call")
            outs = [o for o in (out if type(out) in (list, tuple) else [out]) if type(o).__name__ == "Tensor"]
            return self.guard_.ledger.check(outs, args, []) if verdict.ok else verdict

        def verify(out: Any, ref_out: Any) -> Any:
            expected = list(ref_out) if self.container else [ref_out]
            verdict, outs = check_structure(out, self.specs, self.container)
            verdict = check_values(outs, expected, self.tolerances) if verdict.ok else verdict
            return verdict if verdict.ok else type(verdict)(False, "timed-output-mismatch", verdict.message)

        hooks = timing.Hooks(lambda i: self.inputs("timing", i), self.guard_.before, after_kernel, verify, poison)
        order_seed = self.seed("order") % (1 << 31)
        series = self.run_untrusted("a call of ModelNew",
            lambda: timing.run_rounds(ref_model, self.kernel, hooks, protocol=self.protocol, device=self.device,
                                      seed=order_seed))
        if series.failure is not None:
            raise Stop(status_for(series.failure.code), series.failure.code, series.failure.message)
        self.series = series
        mismatch = timing.host_device_excess(series.ker_ms, series.ker_host_ms, series.ref_ms,
                                             series.ref_host_ms, self.protocol.host_device_mismatch)
        if mismatch:
            self.note("host-device-mismatch", mismatch, "warning")

    # -- the result --------------------------------------------------------------------------------------

    def note(self, code: str, message: str, severity: str = "info") -> None:
        self.flags.append(Flag(code, message, severity))

    def stopped(self, status: Status, code: str, message: str) -> None:
        self.final = (status, message)
        self.flags.append(Flag(code, message, "error"))

    def sync(self) -> None:
        if self.gpu:
            import torch

            torch.cuda.synchronize()

    def result(self, seconds: float) -> ProblemResult:
        from validator.evaluate.worker.integrity import REVIEW_CODES
        from validator.evaluate.worker.timing import result_fields

        values: dict[str, Any] = {"max_abs_error": self.max_abs, "max_rel_error": self.max_rel,
                                  "own_kernel_fraction": self.own_fraction, "seconds": round(seconds, 3)}
        status, error = self.final or (Status.CORRECT, "")
        if self.series is not None and self.final is None:
            values.update(result_fields(self.series, self.protocol, self.seed("bootstrap") % (1 << 31)))
            if values["speedup"] > self.protocol.review_speedup:
                self.note("speedup-review", f"speedup {values['speedup']:.2f}x is above "
                          f"{self.protocol.review_speedup:g}x: held until a maintainer reviews it", "warning")
        review = [f for f in self.flags if f.code in REVIEW_CODES]
        if status is Status.CORRECT and review:
            status, error = Status.NEEDS_REVIEW, "; ".join(f.message for f in review)
        return result_skeleton(self.job, status, error=error, flags=tuple(self.flags), **values)


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
    result = evaluate_job(job)
    write_result(result, Path(args[1]))
    if result.status not in (Status.CORRECT, Status.NEEDS_REVIEW):  # the parent's crash probe reads stderr
        print(f"worker: {result.status}: {result.error[:800]}", file=sys.stderr)
    return 0


def result_skeleton(job: Job, status: Status, **values: Any) -> ProblemResult:
    return ProblemResult(job.key, job.level, job.problem_id, job.problem_sha256, job.kernel_path,
                         job.kernel_sha256, job.backend, status, **values)


if __name__ == "__main__":
    sys.exit(main())
