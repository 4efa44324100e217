"""Two verdicts, and upstream's own rule beside them, from every call the judge reads, whatever its input kind.

- headline (the board's ranking rule): KernelBench's tolerance, `torch.allclose(reference, kernel, 1e-2, 1e-2)`, on
  every read call, upstream's draws and the hidden variants alike. On a variant it is applied as the strict rule
  applies its own tolerance: atol times max(1, the output's RMS) (the x100 variant multiplies a matmul's outputs by
  10^4, and an honest fp32 kernel's rounding near a zero output with them, past a fixed 1e-2), and NaN and ±Inf
  where the reference has them (a standard-normal draw puts NaN in a log of its input on both sides, which allclose
  never calls close). And on upstream's draws, the part of the output
  that moves with the inputs reproduced to within `Protocol.tracks_inputs` of itself (`precision`). A kernel that
  ignores an input, or returns a near-constant, fails it. (Not on the variants: their scaled draws shrink the moving
  part by design, below what honest fp16 resolves, and allclose alone catches an ignored input there.)
- strict: the protocol's tolerance per dtype, its atol scaled by the output's RMS (`correctness.check_values`), and
  for float32 outputs the precision check against float64, on every read call. Failing the headline fails it too.
- upstream's own rule (KernelBench's `run_and_check_correctness`): allclose on its first `upstream_trials` draws only.
  Recorded, never ranked: where it would accept a kernel the headline rejects, the result says so (`fooled`).

Each rule fails at its first failing call and stays failed. The judge goes on while the headline holds, so a kernel
correct at the headline only is timed and counted there; it stops at the headline's first failure.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

import torch

from validator.evaluate.correctness import _OPS, Check, _chunks, _flat, check_values
from validator.evaluate.judge.precision import Errors
from validator.results.records import UpstreamVerdict

FLOATING = ("float64", "float32", "float16", "bfloat16")


def upstream_check(outs: Sequence[torch.Tensor], expected: Sequence[torch.Tensor], atol: float, rtol: float) -> Check:
    """KernelBench's allclose rule on one call's outputs, with the largest absolute and relative errors over the
    positions finite in both (what upstream's metadata calls max_difference), in chunks so full-size outputs never
    need a full-size temporary; with torch's functions as `correctness._OPS` captured them, before any submitted code
    could patch them (the judge imports no submitted code; belt and braces)."""
    worst_abs = worst_rel = 0.0
    for o, e in zip(outs, expected, strict=True):
        flat_o, flat_e = _flat(o), _flat(e)
        flags, worst = [], []  # kept on the device: one synchronisation per output
        for s in _chunks(flat_e.numel()):
            a, b = flat_e[s], flat_o[s]
            flags.append(_OPS.all(_OPS.isclose(a, b, rtol=rtol, atol=atol, equal_nan=False)))
            if a.is_floating_point():
                finite = _OPS.isfinite(a) & _OPS.isfinite(b)
                diff = _OPS.where(finite, _OPS.abs(_OPS.sub(a.double(), b.double())), 0.0)
                rel = _OPS.where(finite & (a != 0), diff / _OPS.where(a != 0, _OPS.abs(a.double()), 1.0), 0.0)
                worst.append(_OPS.stack([_OPS.amax(diff), _OPS.amax(rel)]))
        if worst:
            chunk_abs, chunk_rel = _OPS.amax(_OPS.stack(worst), dim=0).tolist()
            worst_abs, worst_rel = max(worst_abs, chunk_abs), max(worst_rel, chunk_rel)
        if flags and not bool(_OPS.all(_OPS.stack(flags))):
            return Check(False, "output-mismatch", f"not torch.allclose(reference, kernel, atol={atol:g}, "
                         f"rtol={rtol:g}) (max abs error {worst_abs:.3g}, max rel error {worst_rel:.3g})",
                         worst_abs, worst_rel)
    return Check(True, max_abs=worst_abs, max_rel=worst_rel)


@dataclass
class Verdicts:
    """The rules' verdicts as read calls come: each rule's first failure, and the errors the result records."""

    tolerances: dict[str, Any]
    protocol: Any
    headline: Check | None = None
    strict: Check | None = None
    own: Check | None = None
    own_trials: int = 0
    calls: int = 0
    """Read calls judged under the headline."""
    worst: tuple[float, float] = (0.0, 0.0)
    """The headline's largest absolute and relative errors over the read calls."""
    strict_worst: tuple[float, float] = (0.0, 0.0)
    precision: str = ""
    """The precision check's worst call (the largest share of its bound), described."""
    precision_ratio: float = 0.0

    @property
    def alive(self) -> bool:
        return self.headline is None

    def judge(self, outs: Sequence[torch.Tensor], expected: Sequence[torch.Tensor], kind: str,
              errors: Errors | None) -> None:  # fmt: skip
        """One read call of input kind `kind` under every rule; `errors` against float64 where the judge has them."""
        if self.headline is not None:
            return
        tol = self.protocol.upstream_tolerance
        if kind == "upstream":  # exactly KernelBench's rule on its own draws
            close = upstream_check(outs, expected, tol.atol, tol.rtol)
        else:  # the same tolerance as the strict rule applies its own: NaN and ±Inf where the reference has them
            close = check_values(list(outs), list(expected), dict.fromkeys(FLOATING, tol))
        self.calls += 1
        self.worst = (max(self.worst[0], close.max_abs), max(self.worst[1], close.max_rel))
        if kind == "upstream" and self.own_trials < self.protocol.upstream_trials and self.own is None:
            self.own_trials += 1
            self.own = None if close.ok else close
        if not close.ok:
            self.fail(Check(False, close.code, f"on {_described(kind)}: {close.message}"))
            return
        if errors is not None and kind == "upstream":
            bound = max(self.protocol.tracks_inputs, self.protocol.precision_factor * errors.reference_moving)
            if not errors.kernel_moving <= bound:
                self.fail(Check(False, "output-mismatch", f"on {_described(kind)}: the part of the output that "
                                f"moves with the inputs is off by {errors.kernel_moving:.3g} of itself against "
                                f"float64 (the fp32 reference: {errors.reference_moving:.3g}; allowed {bound:.3g}): "
                                "the kernel does not follow its inputs"))
                return
        if self.strict is None:
            self.judge_strict(outs, expected, kind, errors)

    def judge_strict(self, outs: Sequence[torch.Tensor], expected: Sequence[torch.Tensor], kind: str,
                     errors: Errors | None) -> None:  # fmt: skip
        verdict = check_values(list(outs), list(expected), self.tolerances)
        if not verdict.ok:
            self.strict = Check(False, verdict.code, f"on {_described(kind)}: {verdict.message}")
            return
        self.strict_worst = (max(self.strict_worst[0], verdict.max_abs), max(self.strict_worst[1], verdict.max_rel))
        if errors is None:
            return
        bound = max(self.protocol.precision_factor * errors.reference, self.protocol.precision_floor)
        text = (f"relative error vs float64 on {_described(kind)}: kernel {errors.kernel:.3g}, fp32 reference "
                f"{errors.reference:.3g}, bound {bound:.3g}")
        if not errors.kernel <= bound:  # the code names the usual cause; the message all of them
            self.strict = Check(False, "precision-lowered", f"{text}: more than fp32 arithmetic accounts for (reduced "
                                "precision, an approximation, or parameters other than the reference's)")
        elif errors.kernel / bound >= self.precision_ratio:
            self.precision, self.precision_ratio = text, errors.kernel / bound

    def fail(self, verdict: Check) -> None:
        """The headline fails, and with it the strict rule (unless it had failed already)."""
        self.headline = verdict
        if self.strict is None:
            self.strict = verdict

    def fooled(self) -> str:
        """Where upstream's own rule would accept what the headline rejects: why, for the result and its pages."""
        if self.headline is None or self.own is not None or not self.own_trials:
            return ""
        return (f"KernelBench's own rule (allclose at 1e-2 on its draws alone) passed it on the {self.own_trials} "
                f"draw(s) read; the board rejects it {self.headline.message}")

    def record(self, *, stopped: str | None, held: bool) -> UpstreamVerdict:
        """The headline's verdict for the result; `stopped` is why the evaluation ended early, if it did."""
        failed = self.headline.message if self.headline is not None else stopped or ""
        return UpstreamVerdict(correct=not failed, trials=self.calls,
                               max_abs_error=self.worst[0] if self.calls else None,
                               max_rel_error=self.worst[1] if self.calls else None,
                               error=failed, held=held and not failed, fooled=self.fooled())


def _described(kind: str) -> str:
    return "upstream's own draw" if kind == "upstream" else f"the {kind} inputs"
