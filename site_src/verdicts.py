"""How the board's verdict on a run's kernels differs from KernelBench's own rule on the same calls, counted.

The submission page opens each run's results with this: how many kernels KernelBench's rule (allclose at 1e-2)
accepts, what the board made of them (correct, held for review and why, rejected and why, incorrect and why, other
failures), and which kernels the two disagree on. Only statuses and flag codes are read, never a message: kernels
write those (a compiler's or the worker's output), and they stay in the table's tooltips.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable, Sequence
from dataclasses import dataclass

from site_src.scoring import MISSING, PENDING, STALE
from validator.results.records import ProblemResult, Status

UNJUDGED = frozenset({STALE, MISSING, PENDING, Status.NOT_RUN.value})
"""Board statuses of a row that neither rule judged on the committed files: no comparison is made there."""
HOLD_SEVERITY = "warning"
"""Flags of this severity on a held (`needs_review`) result say why it is held."""
FAILURE_SEVERITY = "error"
"""Flags of this severity say why a result failed (rejected, incorrect, ...); `info` flags say neither."""


@dataclass(frozen=True)
class KernelVerdicts:
    """One kernel's two verdicts, as statuses and codes only."""

    key: str
    status: str
    """The board's: a `Status` value, or `stale`, `missing`, `pending` for a row without a current record."""
    upstream: bool | None = None
    """Whether KernelBench's rule accepts it: `upstream.correct`, or passed on its own draws alone (`fooled`);
    None where no upstream verdict is recorded."""
    own_draws_only: bool = False
    """Accepted by KernelBench's rule on its own draws alone: the headline (its draws and the hidden variants)
    rejects it (`UpstreamVerdict.fooled`)."""
    hold_codes: tuple[str, ...] = ()
    """Why a held result is held: its warning flags' codes."""
    failure_codes: tuple[str, ...] = ()
    """Why a result failed: its error flags' codes."""

    @classmethod
    def of(cls, record: ProblemResult) -> KernelVerdicts:
        verdict = record.upstream
        own_draws_only = bool(verdict is not None and not verdict.correct and verdict.fooled)
        held = record.status is Status.NEEDS_REVIEW
        return cls(
            key=record.key,
            status=record.status.value,
            upstream=None if verdict is None else (verdict.correct or own_draws_only),
            own_draws_only=own_draws_only,
            hold_codes=_codes(record, HOLD_SEVERITY) if held else (),
            failure_codes=_codes(record, FAILURE_SEVERITY),
        )


def _codes(record: ProblemResult, severity: str) -> tuple[str, ...]:
    """The codes of the record's flags of `severity`, each once, in the record's order."""
    return tuple(dict.fromkeys(flag.code for flag in record.flags if flag.severity == severity))


@dataclass(frozen=True)
class Disagreement:
    """A kernel the two verdicts tell apart, with the board's codes for it (why it is held, or failed)."""

    key: str
    codes: tuple[str, ...] = ()


@dataclass(frozen=True)
class DisagreementGroup:
    """The kernels of one kind of disagreement, by the board's status: `correct` holds those the board accepts and
    KernelBench's rule does not; any other status, those KernelBench's rule accepts and the board gives that
    status (`needs_review`: held)."""

    status: str
    kernels: tuple[Disagreement, ...]


Counts = tuple[tuple[str, int], ...]
"""(name, count) pairs, most frequent first, ties by name."""


@dataclass(frozen=True)
class VerdictComparison:
    kernels: int
    """Every kernel of the run shown, whatever its status."""
    upstream_accepts: int
    """Accepted by KernelBench's rule."""
    own_draws_only: int
    """Of those, accepted on its own draws alone (the hidden variants fail them)."""
    upstream_unknown: int
    """Judged by the board, with no upstream verdict recorded (results from before it was): not compared."""
    compared: int
    """Judged by both: every kernel but those `UNJUDGED` and those `upstream_unknown`."""
    correct: int
    held: int
    hold_reasons: Counts
    rejected: int
    rejection_reasons: Counts
    incorrect: int
    incorrect_reasons: Counts
    other_failures: Counts
    """Every other status but correct (compile_error, timeout, stale, ...), with its count."""
    disagreements: tuple[DisagreementGroup, ...]
    """Incorrect, rejected and held here but accepted by KernelBench's rule, any other failure it accepts, then
    correct here but not accepted by it; only the kinds that occur."""

    @property
    def agree(self) -> bool:
        return not self.disagreements


GROUP_ORDER = (Status.INCORRECT.value, Status.REJECTED.value, Status.NEEDS_REVIEW.value)
"""Disagreement kinds shown first, in this order; other failures follow by name, then `correct`."""


def _ranked(counter: Counter[str]) -> Counts:
    return tuple(sorted(counter.items(), key=lambda item: (-item[1], item[0])))


def _reasons(kernels: Iterable[KernelVerdicts], hold: bool = False) -> Counts:
    return _ranked(Counter(code for k in kernels for code in (k.hold_codes if hold else k.failure_codes)))


def _disagreement(kernel: KernelVerdicts) -> Disagreement | None:
    """The kernel as a disagreement, or None where both rules say the same (or either says nothing)."""
    if kernel.upstream is None or kernel.status in UNJUDGED:
        return None
    correct_here = kernel.status == Status.CORRECT.value
    if kernel.upstream == correct_here:
        return None
    held = kernel.status == Status.NEEDS_REVIEW.value
    return Disagreement(kernel.key, kernel.hold_codes if held else kernel.failure_codes)


def compare_verdicts(kernels: Sequence[KernelVerdicts]) -> VerdictComparison:
    """The board's verdicts on a run's kernels counted beside KernelBench's rule's, and where they disagree."""
    by_status: dict[str, list[KernelVerdicts]] = {}
    for kernel in kernels:
        by_status.setdefault(kernel.status, []).append(kernel)
    groups: dict[str, list[Disagreement]] = {}
    for kernel in kernels:
        if (found := _disagreement(kernel)) is not None:
            groups.setdefault(kernel.status, []).append(found)
    order = [*GROUP_ORDER, *sorted(set(groups) - {*GROUP_ORDER, Status.CORRECT.value}), Status.CORRECT.value]
    named = {Status.CORRECT.value, *GROUP_ORDER}
    judged = [k for k in kernels if k.status not in UNJUDGED]
    return VerdictComparison(
        kernels=len(kernels),
        upstream_accepts=sum(1 for k in judged if k.upstream),
        own_draws_only=sum(1 for k in judged if k.upstream and k.own_draws_only),
        upstream_unknown=sum(1 for k in judged if k.upstream is None),
        compared=sum(1 for k in judged if k.upstream is not None),
        correct=len(by_status.get(Status.CORRECT.value, ())),
        held=len(by_status.get(Status.NEEDS_REVIEW.value, ())),
        hold_reasons=_reasons(by_status.get(Status.NEEDS_REVIEW.value, ()), hold=True),
        rejected=len(by_status.get(Status.REJECTED.value, ())),
        rejection_reasons=_reasons(by_status.get(Status.REJECTED.value, ())),
        incorrect=len(by_status.get(Status.INCORRECT.value, ())),
        incorrect_reasons=_reasons(by_status.get(Status.INCORRECT.value, ())),
        other_failures=_ranked(Counter({s: len(ks) for s, ks in by_status.items() if s not in named})),
        disagreements=tuple(DisagreementGroup(s, tuple(groups[s])) for s in order if s in groups),
    )
