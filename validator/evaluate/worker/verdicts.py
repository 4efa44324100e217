"""Two verdicts on one kernel: the board's strict rule and KernelBench's own.

- strict: every correctness trial (upstream's draws and the hidden variants) within the protocol's
  tolerance scaled by the output's RMS (`correctness.check_values`), then the precision check.
- upstream: KernelBench's `run_and_check_correctness` on upstream's draws only: for every trial,
  `torch.allclose(reference, kernel, atol, rtol)`, which is |reference - kernel| <= atol + rtol * |kernel|
  elementwise with NaN never close. `upstream_check` is that rule, in chunks so full-size outputs never
  need a full-size temporary.

Each rule fails at its first failing check and stays failed; the judge goes on while either still holds
(a kernel correct only at upstream's tolerance is still timed, so fast_p can be counted at both rules).
Integrity, timing and policy rejections, crashes and timeouts end the evaluation and fail both rules:
cheating is not a tolerance question. Upstream compares one output tensor; a reference returning several
is compared output by output.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

import torch

from validator.evaluate.worker.correctness import PASSED, Check, check_values
from validator.results.records import UpstreamVerdict

_ISCLOSE, _ALL, _ABS, _SUB, _AMAX, _WHERE, _ISFINITE, _STACK = (
    torch.isclose, torch.all, torch.abs, torch.sub, torch.amax, torch.where, torch.isfinite, torch.stack,
)  # captured before any submitted code could patch them (the judge imports no submitted code; belt and braces)
CHUNK = 1 << 24


def upstream_check(outs: Sequence[torch.Tensor], expected: Sequence[torch.Tensor], atol: float, rtol: float, *,
                   errors: bool = True) -> Check:  # fmt: skip
    """KernelBench's allclose rule on one call's outputs, with the largest absolute and relative errors over the
    positions finite in both (what upstream's metadata calls max_difference). Without `errors`, outputs that pass
    get the verdict alone, from one pass of isclose (the timing phase's spot checks: the errors cost four fifths of
    the time on outputs of gigabytes); a failure is checked again with its errors."""
    worst_abs = worst_rel = 0.0
    for o, e in zip(outs, expected, strict=True):
        flat_o, flat_e = o.detach().reshape(-1), e.detach().reshape(-1)
        # each chunk's verdict and worst errors stay on the device: one synchronisation per output, not three per
        # 64 MiB chunk (the device idled while the next chunk's kernels were launched)
        flags, worst = [], []
        for start in range(0, flat_e.numel(), CHUNK):
            a, b = flat_e[start:start + CHUNK], flat_o[start:start + CHUNK]
            flags.append(_ALL(_ISCLOSE(a, b, rtol=rtol, atol=atol, equal_nan=False)))
            if errors and a.is_floating_point():
                finite = _ISFINITE(a) & _ISFINITE(b)
                diff = _WHERE(finite, _ABS(_SUB(a.double(), b.double())), 0.0)
                rel = _WHERE(finite & (a != 0), diff / _WHERE(a != 0, _ABS(a.double()), 1.0), 0.0)
                worst.append(_STACK([_AMAX(diff), _AMAX(rel)]))
        close = not flags or bool(_ALL(_STACK(flags)))
        if not close and not errors:
            return upstream_check(outs, expected, atol, rtol)  # a failure names its errors
        if worst:
            chunk_abs, chunk_rel = _AMAX(_STACK(worst), dim=0).tolist()
            worst_abs, worst_rel = max(worst_abs, chunk_abs), max(worst_rel, chunk_rel)
        if not close:
            return Check(False, "output-mismatch", f"not torch.allclose(reference, kernel, atol={atol:g}, "
                         f"rtol={rtol:g}) (max abs error {worst_abs:.3g}, max rel error {worst_rel:.3g})",
                         worst_abs, worst_rel)
    return Check(True, max_abs=worst_abs, max_rel=worst_rel)


@dataclass
class Verdicts:
    """Both rules' verdicts as the trials come: the first failure of each, and upstream's worst errors."""

    tolerances: dict[str, Any]
    upstream_tolerance: Any
    strict: Check | None = None
    upstream: Check | None = None
    upstream_trials: int = 0
    upstream_abs: float = 0.0
    upstream_rel: float = 0.0

    @property
    def alive(self) -> bool:
        """Some rule still holds, so the kernel is worth judging further."""
        return self.strict is None or self.upstream is None

    def trial(self, outs: Sequence[torch.Tensor], expected: Sequence[torch.Tensor], *,
              upstream_draw: bool) -> Check | None:  # fmt: skip
        """One correctness trial: the strict rule on every trial, upstream's on its own draws only. Returns the
        strict rule's verdict on it (None once that rule has failed)."""
        strict = None
        if self.strict is None:
            strict = check_values(list(outs), list(expected), self.tolerances)
            self.strict = None if strict.ok else strict
        if upstream_draw and self.upstream is None:
            self.upstream_trials += 1
            verdict = self.judge_upstream(outs, expected)
            self.upstream_abs = max(self.upstream_abs, verdict.max_abs)
            self.upstream_rel = max(self.upstream_rel, verdict.max_rel)
        return strict

    def judge_upstream(self, outs: Sequence[torch.Tensor], expected: Sequence[torch.Tensor]) -> Check:
        verdict = upstream_check(outs, expected, self.upstream_tolerance.atol, self.upstream_tolerance.rtol)
        self.upstream = None if verdict.ok else verdict
        return verdict

    def fail_strict(self, verdict: Check) -> None:
        if self.strict is None:
            self.strict = verdict

    def timed(self, outs: list[torch.Tensor], expected: list[torch.Tensor]) -> Check:
        """A checked timed call (the timing phase's spot checks): each rule still holding must hold here too;
        the call fails only when no rule holds any more (the judge then stops)."""
        failed = []
        if self.strict is None:  # the verdicts alone: a timed call's errors are not recorded
            verdict = check_values(outs, expected, self.tolerances, errors=False)
            self.strict = None if verdict.ok else Check(False, "timed-output-mismatch", verdict.message)
            failed.append(self.strict)
        if self.upstream is None:
            verdict = upstream_check(outs, expected, self.upstream_tolerance.atol, self.upstream_tolerance.rtol,
                                     errors=False)
            self.upstream = None if verdict.ok else Check(False, "timed-output-mismatch",
                                                          f"a timed call: {verdict.message}")
            failed.append(self.upstream)
        if self.alive:
            return PASSED
        last = next(f for f in reversed(failed) if f is not None)  # the rule this call ended
        return Check(False, "timed-output-mismatch", last.message)

    def record(self, *, stopped: str | None, held: bool) -> UpstreamVerdict:
        """Upstream's verdict for the result; `stopped` is why the evaluation ended early, if it did."""
        failed = self.upstream.message if self.upstream is not None else stopped or ""
        return UpstreamVerdict(correct=not failed, trials=self.upstream_trials,
                               max_abs_error=self.upstream_abs if self.upstream_trials else None,
                               max_rel_error=self.upstream_rel if self.upstream_trials else None,
                               error=failed, held=held and not failed)
