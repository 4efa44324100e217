"""Quality filters for one problem: could a kernel that cheats pass correctness on it?

Every filter asks that question at the problem's tolerance (the protocol's, or the tolerances its overlay
declares), with the harness's own comparison: would a kernel that returns a constant, returns zeros,
ignores an input or ignores the weights pass it? One filter asks the opposite question: could an honest
kernel fail it?

    near-constant     outputs for seeds 0 and 1 agree: a kernel returning one fixed tensor passes
    zeros-pass        allclose(zeros, output): a kernel returning zeros passes
    ignores-input     a fresh draw of input i (same dtype and distribution) leaves the output as it was
    constant-input    a fresh draw of input i equals the old one, so a kernel could hard-code it
    ignores-weights   a model built after another seed gives the same output
    nondeterministic  same weights and inputs, another random-generator state at forward: outputs differ
                      beyond tolerance (dropout left on, torch.rand in forward, ...)
    ill-conditioned   at some input scale, the fp32 reference is not within half the tolerance of the same
                      Model run in float64: a kernel as accurate as the reference but rounded differently
                      can then fail against it (the margin of 2 is the triangle inequality's). The remedy is
                      in the problem's overlay: narrow input_scales, or declare tolerances with the evidence. A failure
                      at full size only: at reduced sizes it is a warning (it affects CPU runs alone)
    non-finite        the reference output holds NaN or Inf
    mutates-input     the reference changes its inputs (kernels must not, so it cannot be mirrored)
    format, reduced-sizes, import-error, runtime-error, out-of-memory, too-much-memory

A problem may keep a filter failure with a documented reason: its overlay entry's
`"exempt": {"ignores-weights": "why this is fine"}` turns that failure into a warning and
the problem's status into "kept". An exemption that matches no failure is reported (`unused-exemption`).
Outputs are compared bit for bit for determinism; a difference within tolerance is only a warning
(`nondeterministic-rounding`: some GPU reductions use atomics), beyond it a failure.
"""

from __future__ import annotations

import time
from dataclasses import dataclass, field
from types import ModuleType
from typing import Any

from validator.catalogue import eager_timing
from validator.catalogue.overlay import OverlayError, overlay_for
from validator.catalogue.problem_module import (
    ProblemModuleError,
    load_problem_module,
    make_inputs,
    make_model,
    problem_input_scales,
    problem_tolerances,
)
from validator.catalogue.problems import Problem
from validator.findings import Finding, Severity
from validator.protocol import PROTOCOL, Tolerance

STAGE = "catalogue"
EXEMPTABLE = frozenset({
    "near-constant", "zeros-pass", "ignores-input", "constant-input", "ignores-weights",
    "nondeterministic", "non-finite", "mutates-input", "too-much-memory",
})
SEED, OTHER_SEED, FRESH_INPUT_SEED, WEIGHT_SEED, FORWARD_RNG_SEED = 0, 1, 2, 3, 12345
Issue = tuple[str, str, Severity]


@dataclass(frozen=True)
class CheckSpec:
    """How to run the filters: reduced sizes on the CPU, or full size on a GPU with measurements."""

    reduced: bool = True
    device: str = "cpu"
    generate_on_device: bool = False
    """Draw weights and inputs on `device` (fast at full size) instead of on the CPU."""
    measure: bool = False
    """Also time the eager forward with CUDA events and record its peak memory (needs CUDA)."""
    slow_forward_s: float | None = 0.3
    """Warn when one reduced forward takes longer than this; None: never."""


@dataclass(frozen=True)
class ProblemCheck:
    """The outcome of the filters for one problem."""

    key: str
    file: str
    sha256: str
    status: str
    """passed, kept (a failure exempted with a reason), failed."""
    findings: tuple[Finding, ...] = ()
    output_shape: tuple[int, ...] | None = None
    output_dtype: str | None = None
    forward_ms: float | None = None
    """Host wall time of one forward (the faster of the runs), at the size that ran."""
    eager_ms: float | None = None
    """Median CUDA-event time of the eager forward at full size (with measurements)."""
    peak_mem_bytes: int | None = None
    seconds: float = 0.0
    extra: dict[str, Any] = field(default_factory=dict)

    def to_dict(self) -> dict[str, Any]:
        data = {k: v for k, v in self.__dict__.items() if k != "findings"}
        data["findings"] = [f.to_dict() for f in self.findings]
        data["output_shape"] = list(self.output_shape) if self.output_shape is not None else None
        return data

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> ProblemCheck:
        values = dict(data)
        findings = data.get("findings", [])
        values["findings"] = tuple(Finding(**{**f, "severity": Severity(f.get("severity", "error"))}) for f in findings)
        shape = data.get("output_shape")
        values["output_shape"] = tuple(shape) if shape is not None else None
        return cls(**values)


class _Failure(Exception):
    """Stops the filters for a problem: nothing after it can be checked soundly."""

    def __init__(self, code: str, message: str) -> None:
        super().__init__(message)
        self.code = code


def passes_correctness(candidate: Any, reference: Any, tolerances: dict[str, Any] | None = None) -> bool:
    """Would `candidate` pass the harness's value comparison against `reference`
    (validator.evaluate.correctness), at `tolerances` (default: the protocol's)?"""
    from validator.evaluate.correctness import check_values

    if candidate.shape != reference.shape:
        return False
    return check_values([candidate.to(reference.dtype)], [reference], tolerances or PROTOCOL.tolerances).ok


def _clone(values: list[Any]) -> list[Any]:
    import torch

    return [v.clone() if isinstance(v, torch.Tensor) else v for v in values]


def _identical(a: Any, b: Any) -> bool:
    """Bit-for-bit equal, NaN in the same places counting as equal."""
    import torch

    if a.shape != b.shape or a.dtype != b.dtype:
        return False
    if not a.is_floating_point():
        return torch.equal(a, b)
    inf = float("inf")
    return torch.equal(a.isnan(), b.isnan()) and torch.equal(a.nan_to_num(0.0, inf, -inf), b.nan_to_num(0.0, inf, -inf))


def _state_equal(a: Any, b: Any) -> bool:
    import torch

    sa, sb = a.state_dict(), b.state_dict()
    return sa.keys() == sb.keys() and all(torch.equal(sa[k], sb[k]) for k in sa)


class _Run:
    """The filters for one loaded module; `issues` collects (code, message, severity)."""

    def __init__(self, module: ModuleType, spec: CheckSpec) -> None:
        self.module = module
        self.spec = spec
        self.tolerances = problem_tolerances(module, PROTOCOL.tolerances)
        self.issues: list[Issue] = []
        self.out0: Any = None
        self.forward_s: list[float] = []

    def fail(self, code: str, message: str, severity: Severity = Severity.ERROR) -> None:
        self.issues.append((code, message, severity))

    def passes(self, candidate: Any, reference: Any) -> bool:
        return passes_correctness(candidate, reference, self.tolerances)

    def model(self, seed: int) -> Any:
        spec = self.spec
        return make_model(self.module, seed, spec.device, generate_on_device=spec.generate_on_device)

    def inputs(self, seed: int) -> list[Any]:
        spec = self.spec
        return make_inputs(self.module, seed, spec.device, generate_on_device=spec.generate_on_device)

    def forward(self, model: Any, inputs: list[Any]) -> Any:
        import torch

        started = time.perf_counter()
        with torch.no_grad():
            out = model(*inputs)
        if not isinstance(out, torch.Tensor):
            name = type(out).__name__
            raise _Failure("format", f"forward returned {name}; a problem's output must be one tensor")
        if out.is_cuda:
            torch.cuda.synchronize()
        self.forward_s.append(time.perf_counter() - started)
        return out

    def all(self) -> None:
        import torch

        model, x0 = self.model(SEED), self.inputs(SEED)
        self._check_input_devices(x0)
        given = _clone(x0)
        out0 = self.out0 = self.forward(model, given)
        if any(isinstance(a, torch.Tensor) and not torch.equal(a, b) for a, b in zip(x0, given, strict=True)):
            self.fail("mutates-input", "the reference forward changes its inputs in place")
        if out0.is_floating_point() and not torch.isfinite(out0).all():
            self.fail("non-finite", "the reference output holds NaN or Inf for seed 0")
        if self.passes(torch.zeros_like(out0), out0):
            self.fail("zeros-pass", "an all-zeros output passes correctness at the protocol tolerance")
        self._check_determinism(out0)
        self._check_seeds(out0)
        self._check_inputs(model, x0, out0)
        self._check_weights(model, x0, out0)
        if not any(code == "nondeterministic" for code, _, _ in self.issues):  # random outputs say nothing here
            self._check_conditioning(model, x0, out0)

    def _check_input_devices(self, inputs: list[Any]) -> None:
        import torch

        if self.spec.generate_on_device:
            return
        for i, value in enumerate(inputs):
            if isinstance(value, torch.Tensor) and value.device != torch.device(self.spec.device):
                self.fail("format", f"get_inputs() must return CPU tensors; input {i} is on {value.device}")

    def _check_determinism(self, out0: Any) -> None:
        """Same seed for weights and inputs, another state of the global generator when forward runs."""
        import torch

        model, inputs = self.model(SEED), self.inputs(SEED)
        torch.manual_seed(FORWARD_RNG_SEED)  # randomness inside forward (dropout) now draws other numbers
        again = self.forward(model, inputs)
        if _identical(again, out0):
            return
        if self.passes(again, out0):
            message = "two runs with one seed differ in rounding only"
            self.fail("nondeterministic-rounding", message, Severity.WARNING)
        else:
            self.fail("nondeterministic", "two runs with one seed give different outputs (randomness in forward?)")

    def _check_seeds(self, out0: Any) -> None:
        other = self.forward(self.model(OTHER_SEED), self.inputs(OTHER_SEED))
        if self.passes(other, out0):
            self.fail("near-constant", "seeds 0 and 1 give outputs equal at the protocol tolerance")

    def _check_inputs(self, model: Any, x0: list[Any], out0: Any) -> None:
        import torch

        fresh = self.inputs(FRESH_INPUT_SEED)
        for i, (old, new) in enumerate(zip(x0, fresh, strict=True)):
            if not isinstance(old, torch.Tensor):
                continue  # a Python scalar in get_inputs() has no distribution to draw from
            if old.shape == new.shape and torch.equal(old, new):
                self.fail("constant-input", f"input {i} is the same for every seed; a kernel could hard-code it")
                continue
            changed = _clone(x0)
            changed[i] = new
            if self.passes(self.forward(model, changed), out0):
                self.fail("ignores-input", f"a fresh draw of input {i} ({old.dtype}) leaves the output as it was")

    def _check_weights(self, model: Any, x0: list[Any], out0: Any) -> None:
        import torch

        if not model.state_dict():
            return
        other = self.model(WEIGHT_SEED)
        if _state_equal(model, other):
            message = "the weights do not depend on the seed (checked by perturbing them instead)"
            self.fail("seed-independent-weights", message, Severity.WARNING)
            with torch.no_grad():
                for p in other.parameters():
                    if p.is_floating_point():
                        p.add_(torch.randn_like(p))
        if self.passes(self.forward(other, _clone(x0)), out0):
            self.fail("ignores-weights", "a model built after another seed gives the same output")

    def _check_conditioning(self, model: Any, x0: list[Any], out0: Any) -> None:
        """The fp32 reference against the same Model in float64, on every input variant the judge uses."""
        import copy

        import torch

        from validator.evaluate.correctness import check_values, float64_inputs
        from validator.evaluate.input_variants import make_variant, trial_variants

        if out0.dtype != torch.float32:
            return
        half = {k: Tolerance(t.atol / 2, t.rtol / 2) for k, t in self.tolerances.items()}
        try:
            model64 = copy.deepcopy(model).double()
        except Exception as exc:  # a model that cannot be copied or cast is only left unchecked
            self.fail("conditioning-unchecked", f"the Model cannot run in float64: {exc}"[:300], Severity.WARNING)
            return
        for variant in trial_variants(problem_input_scales(self.module, PROTOCOL.input_scales)):
            inputs = make_variant(x0, variant, seed=20261124)
            out = out0 if variant == "upstream" else self.forward(model, _clone(inputs))
            try:
                ref64 = self.forward(model64, float64_inputs(inputs))
            except Exception as exc:  # an op without a float64 kernel: unchecked, not failed
                message = f"the Model cannot run in float64: {type(exc).__name__}: {exc}"[:300]
                self.fail("conditioning-unchecked", message, Severity.WARNING)
                return
            verdict = check_values([out], [ref64.to(out.dtype)], half)
            if not verdict.ok:  # at reduced sizes only CPU runs are affected (BatchNorm over 2 values, ...)
                where = "at reduced sizes, " if self.spec.reduced else ""
                severity = Severity.WARNING if self.spec.reduced else Severity.ERROR
                self.fail("ill-conditioned", f"{where}on the {variant} inputs the fp32 reference is not within "
                          f"half its tolerance of a float64 run ({verdict.message}): an honest kernel rounded "
                          "differently can fail against it; narrow the overlay's input_scales or declare its "
                          "tolerances", severity)
                return


def exemptions(problem: Problem) -> tuple[dict[str, str], list[Issue]]:
    """The overlay's exemptions for the problem, and a format issue if one names no exemptable filter."""
    try:
        raw = overlay_for(problem.path).exempt
    except OverlayError as exc:
        return {}, [("overlay", str(exc), Severity.ERROR)]
    bad = sorted(set(raw) - EXEMPTABLE)
    if bad:
        message = f"the overlay's exempt names {', '.join(bad)}; exemptable: {', '.join(sorted(EXEMPTABLE))}"
        return {}, [("format", message, Severity.ERROR)]
    return raw, []


def _findings(issues: list[Issue], problem: Problem, shown: str) -> tuple[list[Finding], str]:
    """Issues as findings, exemptions applied; and the problem's status."""
    exempt, bad = exemptions(problem)
    key = problem.key
    findings: list[Finding] = []
    used: set[str] = set()
    for code, message, severity in [*issues, *bad]:
        if severity == Severity.ERROR and code in exempt:
            used.add(code)
            findings.append(Finding(code, STAGE, f"kept: {exempt[code]} ({message})", file=shown, problem=key,
                                    severity=Severity.WARNING))
        else:
            findings.append(Finding(code, STAGE, message, file=shown, problem=key, severity=severity))
    for code in sorted(set(exempt) - used - {"too-much-memory"}):  # memory is only known with --full
        findings.append(Finding("unused-exemption", STAGE, f"the overlay's exempt[{code!r}] matches no failure",
                                file=shown, problem=key, severity=Severity.WARNING))
    if any(f.severity == Severity.ERROR for f in findings):
        return findings, "failed"
    return findings, "kept" if used else "passed"


def check_problem(problem: Problem, spec: CheckSpec, shown: str | None = None) -> ProblemCheck:
    """Run every filter on one problem; a bad problem gives findings, never an exception."""
    track = "" if problem.headline else f"tracks/{problem.version}/"
    shown = shown or f"{track}level{problem.level}/{problem.path.name}"
    started = time.perf_counter()
    module: ModuleType | None = None
    run: _Run | None = None
    try:
        module = load_problem_module(problem.path, reduced=spec.reduced)
        run = _Run(module, spec)
        run.all()
        issues = run.issues
    except (ProblemModuleError, _Failure) as exc:
        issues = [*(run.issues if run else []), (exc.code, str(exc), Severity.ERROR)]
    except Exception as exc:  # the reference itself broke: that is this problem's result
        issues = [*(run.issues if run else []), _exception_issue(exc, "")]
    out0 = run.out0 if run else None
    shape = tuple(out0.shape) if out0 is not None else None
    dtype = str(out0.dtype).removeprefix("torch.") if out0 is not None else None
    forward_ms = min(run.forward_s) * 1e3 if run and run.forward_s else None
    del run, out0  # free device memory before the measurement below
    limit = spec.slow_forward_s
    if spec.reduced and limit and forward_ms and forward_ms > limit * 1e3:
        message = f"one reduced forward takes {forward_ms:.0f} ms; the target is < {limit * 1e3:.0f} ms"
        issues.append(("reduced-slow", message, Severity.WARNING))
    measured: dict[str, Any] = {}
    exempt, _ = exemptions(problem)
    blocking = [code for code, _, severity in issues if severity == Severity.ERROR and code not in exempt]
    if spec.measure and module is not None and not blocking:  # a kept problem is still measured
        issues += eager_timing.measure_issues(module, spec.device, spec.generate_on_device, SEED, measured)
    findings, status = _findings(issues, problem, shown)
    return ProblemCheck(
        problem.key, shown, problem.sha256, status, tuple(findings), output_shape=shape, output_dtype=dtype,
        forward_ms=forward_ms, seconds=time.perf_counter() - started, **measured,
    )


def _exception_issue(exc: Exception, when: str) -> Issue:
    code = "out-of-memory" if type(exc).__name__ == "OutOfMemoryError" else "runtime-error"
    return code, f"{when}{type(exc).__name__}: {exc}"[:500], Severity.ERROR
