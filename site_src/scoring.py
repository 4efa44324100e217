"""Leaderboard scores from result records: KernelBench's fast_p per level and the numbers beside it.

Definitions (the site's methodology page quotes these docstrings, so they are the documentation):

- N is every problem of the level in the catalogue. A problem with no record, a stale record, or a
  record with status `not_run` counts as a failure.
- A record is *stale* when it no longer describes what is committed: it was measured on another version
  of the problem (its problem sha256 differs from the catalogue's), or on another version of the kernel
  (its kernel sha256 differs from the file the submission lists now, or the submission no longer lists a
  kernel for that problem), or under another version of the protocol than the one the methodology page
  describes (the protocol version its results file records: other rules decided its verdict and timed it). A stale
  record is shown as "stale — awaiting rerun", is never ranked, and the next verified rerun measures the
  kernel again.
- A run in progress (its results file has no `finished_at`: an interrupted run that resumes later)
  is scored like any other, so its fast_p is a lower bound; its problems without a record are
  `pending` rather than `missing`, and `n_pending` says how many a level still waits for.
- Two rules say which kernels are correct (`RULES`). *upstream* (the headline, comparable with the
  literature): KernelBench's own verdict the judge records (`upstream` of a record: torch.allclose at
  atol = rtol = 1e-2 on five draws of the problem's own inputs); a record without it (written before it was
  recorded) is *unknown* under this rule, scored as not correct and counted in `n_unknown`. *strict*: the
  board's `status` (hidden input variants, RMS-scaled tolerance, precision check). Every score below is
  computed once per rule (its `rule` column).
- A kernel *counts* under a baseline and a rule when it is correct under the rule and its speedup against
  that baseline was measured. `needs_review` is not correct under either rule until a maintainer clears it
  (`reviews/decisions.json`: cleared, it is correct under the rules it passed; rejected, under neither);
  `rejected` by an integrity, timing or policy check is correct under neither.
- fast_p = #{counted AND speedup > p} / N, with a strict `>`: a speedup of exactly p does not count.
- fast_p's interval (`fast_<p>_lo`, `fast_<p>_hi`, for every p in the tables): the 2.5th and 97.5th
  percentiles of fast_p over 2000 seeded draws in which every counted kernel's speedup is drawn from its
  own uncertainty: log-normal around its speedup, with the lower and upper halves scaled so that its
  published 95% interval (the eager interval scaled to the baseline; the interval a rerun's speedup is
  expected to fall in) holds 95% of the draws. A kernel without an interval counts at its speedup; a
  problem not counted stays a failure in every draw. The interval is widened to hold fast_p itself
  (kernels sitting just above p can pull most draws below it).
- ambiguous (`ambiguous_<p>`): counted kernels whose interval straddles p (low end <= p < high end), so a
  rerun could count them on either side of p.
- geomean speedup: geometric mean of the speedups of the counted kernels (NaN when none count).
- attempted: problems with a record of this hardware that was run (any status but missing/stale/not_run).
- compile rate = built / attempted, where *built* means the status shows the kernel was compiled and
  run: correct, incorrect, runtime_error, timeout, oom or needs_review. compile_error is not built,
  and neither is rejected (most rejections happen before the build, so counting them would overclaim).
- correct rate = correct (under the rule) / attempted; fast_0 is the same count over N instead.
- Tracks: each upstream KernelBench version is a track of its own (the headline `423217d`, and e.g.
  `91bfc2c`). A run belongs to the track its records name (a record of a problem file that differs from
  the headline's is keyed `<key>@<version>`; a run with none is on the headline track) and is scored
  against that track's problems only, so N and every score never mix problem versions.
- A baseline is scored for a (submission, hardware) when at least one of its records measured it:
  eager always, torch-compile only where `speedup_vs_compile` was recorded.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np
import pandas as pd

from site_src.score_intervals import ambiguous, fast_p_interval
from validator.catalogue.problems import HEADLINE_VERSION, Catalogue
from validator.protocol import PROTOCOL_VERSION
from validator.results.records import ProblemResult, ResultsFile, Status

THRESHOLDS: tuple[float, ...] = (0.0, 0.5, 0.8, 1.0, 1.5, 2.0)
"""The p values reported in tables; the curves cover every p."""
BASELINE_COLUMNS: dict[str, str] = {"eager": "speedup", "torch-compile": "speedup_vs_compile"}
"""Baseline name -> the aligned frame's column holding the speedup against it."""
MISSING = "missing"
"""Status of a catalogue problem that has no record in a results file."""
STALE = "stale"
"""Status of a record measured on a different version (sha256) of the problem."""
PENDING = "pending"
"""Status of a catalogue problem with no record yet in a results file of a run that has not finished."""
NO_RECORD = frozenset({MISSING, PENDING})
"""Statuses of a catalogue problem that a results file has no record of."""
NOT_ATTEMPTED = NO_RECORD | {STALE, Status.NOT_RUN.value}
BUILT = frozenset(
    s.value for s in (Status.CORRECT, Status.INCORRECT, Status.RUNTIME_ERROR, Status.TIMEOUT, Status.OOM)
) | {Status.NEEDS_REVIEW.value}
GROUP_KEYS = ["slug", "hardware", "baseline", "rule", "level"]
RULES: dict[str, str] = {"upstream": "KernelBench's rule", "strict": "Strict rule"}
"""Correctness rules, the headline's first: upstream's allclose at 1e-2, then the board's strict verdict."""
HEADLINE_RULE = "upstream"
UNKNOWN = "unknown"
"""Upstream verdict of a record that has none (written before the judge recorded it)."""


def upstream_status(record: ProblemResult) -> str:
    """A record's verdict under upstream's rule: correct, incorrect, needs_review (held) or unknown."""
    verdict = record.upstream
    if verdict is None:
        return UNKNOWN
    if not verdict.correct:
        return Status.INCORRECT.value
    if verdict.held or record.status is Status.NEEDS_REVIEW:
        return Status.NEEDS_REVIEW.value
    return Status.CORRECT.value


def fast_p_label(p: float) -> str:
    """Column name of fast_p: `fast_0`, `fast_0.5`, `fast_1`."""
    return f"fast_{p:g}"




def _uncertainty(frame: pd.DataFrame, thresholds: Sequence[float]) -> pd.DataFrame:
    """`fast_<p>_lo`, `fast_<p>_hi` and `ambiguous_<p>` of every group."""
    rows = []
    for keys, group in frame.groupby(GROUP_KEYS, sort=True):
        scored = group.dropna(subset=["counted"])
        c, lo, hi = (scored[k].to_numpy(float) for k in ("counted", "counted_low", "counted_high"))
        row = dict(zip(GROUP_KEYS, keys, strict=True))
        for p in thresholds:
            label = fast_p_label(p)
            row[f"{label}_lo"], row[f"{label}_hi"] = fast_p_interval(c, lo, hi, len(group), p)
            row[f"ambiguous_{p:g}"] = ambiguous(lo, hi, p)
        rows.append(row)
    return pd.DataFrame(rows, columns=[*GROUP_KEYS, *uncertainty_columns(thresholds)])


def uncertainty_columns(thresholds: Sequence[float] = THRESHOLDS) -> list[str]:
    return [c for p in thresholds for c in (f"{fast_p_label(p)}_lo", f"{fast_p_label(p)}_hi", f"ambiguous_{p:g}")]


def fast_p(speedups: Iterable[float], n: int, p: float) -> float:
    """#{s > p} / n over the speedups of counted kernels (strict `>`); 0 when the level is empty."""
    if n <= 0:
        return 0.0
    return sum(1 for s in speedups if s > p) / n


@dataclass(frozen=True)
class StepCurve:
    """fast_p as a function of p: `start` for p below the first breakpoint, then `values[i]` from
    `breakpoints[i]` (inclusive, because a speedup equal to p does not count) up to the next."""

    start: float
    breakpoints: tuple[float, ...]
    values: tuple[float, ...]

    def value_at(self, p: float) -> float:
        value = self.start
        for breakpoint, after in zip(self.breakpoints, self.values, strict=True):
            if p < breakpoint:
                break
            value = after
        return value


def fast_p_curve(speedups: Sequence[float], n: int) -> StepCurve:
    """The whole fast_p curve of one (submission, hardware, baseline, level)."""
    if n <= 0:
        return StepCurve(0.0, (), ())
    ordered = sorted(float(s) for s in speedups)
    breakpoints: list[float] = []
    values: list[float] = []
    for i, s in enumerate(ordered):
        above = len(ordered) - i - 1  # speedups strictly above s, provided s is not repeated later
        if breakpoints and breakpoints[-1] == s:
            values[-1] = above / n
        else:
            breakpoints.append(s)
            values.append(above / n)
    return StepCurve(len(ordered) / n, tuple(breakpoints), tuple(values))


def protocol_of(results: ResultsFile) -> str:
    """The protocol version a results file was measured under."""
    return str(results.environment.protocol_version)


def _record_row(results: ResultsFile, record: ProblemResult) -> dict[str, object]:
    ci_low, ci_high = record.speedup_ci if record.speedup_ci else (None, None)
    return {
        "slug": results.slug,
        "hardware": results.hardware,
        "verified": results.verified,
        "finished": bool(results.finished_at),
        "protocol": protocol_of(results),
        "key": record.key,
        "record_sha256": record.problem_sha256,
        "record_kernel_sha256": record.kernel_sha256,
        "status": record.status.value,
        "upstream_status": upstream_status(record),
        "upstream_error": record.upstream.error if record.upstream else "",
        "upstream_fooled": record.upstream.fooled if record.upstream else "",
        "speedup": record.speedup,
        "speedup_vs_compile": record.speedup_vs_compile,
        "ci_low": ci_low,
        "ci_high": ci_high,
        "reference_ms": record.reference.median if record.reference else None,
        "kernel_ms": record.kernel.median if record.kernel else None,
        "compile_ms": record.compile_reference.median if record.compile_reference else None,
        "backend": record.backend,
        "flags": " ".join(flag.code for flag in record.flags),
        "flag_messages": "; ".join(f"{flag.code}: {flag.message}" for flag in record.flags),
        "error": record.error,
    }


RECORD_COLUMNS = [
    "slug", "verified", "finished", "protocol", "hardware", "key", "record_sha256", "record_kernel_sha256", "status",
    "upstream_status", "upstream_error", "upstream_fooled", "speedup",
    "speedup_vs_compile",
    "ci_low", "ci_high", "reference_ms", "kernel_ms", "compile_ms", "backend", "flags", "flag_messages", "error",
]  # fmt: skip
NUMERIC_COLUMNS = ["speedup", "speedup_vs_compile", "ci_low", "ci_high", "reference_ms", "kernel_ms", "compile_ms"]


def records_frame(results: Iterable[ResultsFile]) -> pd.DataFrame:
    """One row per recorded problem result; a key recorded twice in one file keeps its last record."""
    rows = [_record_row(r, p) for r in results for p in r.problems]
    frame = pd.DataFrame(rows, columns=RECORD_COLUMNS)
    frame[NUMERIC_COLUMNS] = frame[NUMERIC_COLUMNS].astype(float)
    return frame.drop_duplicates(["slug", "hardware", "key"], keep="last").reset_index(drop=True)


def catalogue_frame(catalogue: Catalogue) -> pd.DataFrame:
    """Every track's problems, one row per (track, problem)."""
    return pd.DataFrame(
        [(track, p.key, p.level, p.problem_id, p.name, p.sha256)
         for track, problems in catalogue.tracks().items() for p in problems],
        columns=["track", "key", "level", "problem_id", "name", "sha256"],
    )


def run_tracks(records: pd.DataFrame) -> pd.DataFrame:
    """The track of each (slug, hardware) run: the version its records' keys name most, else the headline."""
    runs = records[["slug", "hardware", "verified", "finished"]].drop_duplicates(["slug", "hardware"])
    version = records["key"].map(lambda key: str(key).partition("@")[2])
    named = records.assign(track=version)[version != ""]
    counts = named.groupby(["slug", "hardware", "track"]).size().reset_index(name="n")
    chosen = counts.sort_values(["n", "track"], ascending=[False, True]).drop_duplicates(["slug", "hardware"])
    runs = runs.merge(chosen[["slug", "hardware", "track"]], on=["slug", "hardware"], how="left")
    return runs.fillna({"track": HEADLINE_VERSION})


def kernels_frame(kernels: Mapping[str, Mapping[tuple[int, int], str]]) -> pd.DataFrame:
    """The committed kernel hashes: one row per (slug, level, problem id) a submission lists."""
    rows = [(slug, level, problem_id, sha) for slug, listed in kernels.items()
            for (level, problem_id), sha in listed.items() if isinstance(level, int) and isinstance(problem_id, int)]
    frame = pd.DataFrame(rows, columns=["slug", "level", "problem_id", "kernel_sha256"])
    return frame.astype({"slug": object, "level": "int64", "problem_id": "int64", "kernel_sha256": object})


def _stale_reasons(frame: pd.DataFrame, documented: set[str]) -> pd.Series:
    """Why each recorded row no longer describes what is committed ("" when it still does)."""
    recorded = frame["record_sha256"].notna()
    problem = recorded & (frame["record_sha256"] != frame["sha256"])
    listed = frame["slug"].isin(documented)
    unlisted = recorded & listed & frame["kernel_sha256"].isna()
    current = frame["kernel_sha256"]
    edited = recorded & listed & current.notna() & (current != frame["record_kernel_sha256"])
    older = recorded & (frame["protocol"] != PROTOCOL_VERSION)
    reasons = pd.Series("", index=frame.index)
    reasons[older] = frame.loc[older, "protocol"].map(
        lambda version: f"measured under protocol {version}; the methodology describes protocol {PROTOCOL_VERSION}")
    reasons[edited] = "the kernel file changed after this result was measured"
    reasons[unlisted] = "the submission no longer lists a kernel for this problem"
    reasons[problem] = "measured on another version of the problem file"
    return reasons


def aligned_frame(
    records: pd.DataFrame, problems: pd.DataFrame, kernels: pd.DataFrame | None = None
) -> pd.DataFrame:
    """Every (submission, hardware) crossed with every catalogue problem, so absent problems are rows too.

    Each run is crossed with its own track's problems (`run_tracks`). Records of problems the track does not
    have are dropped; stale records (another version of the
    problem, or of the kernel in `kernels`, the committed hashes) become `stale`, lose their numbers and
    say why in `stale_reason`; absent problems are `pending` in a run that has not finished, `missing`
    otherwise. Without `kernels` only the problem's version is compared.
    """
    grid = run_tracks(records).merge(problems, on="track")
    frame = grid.merge(records.drop(columns=["verified", "finished"]), on=["slug", "hardware", "key"], how="left")
    absent = frame["status"].isna()
    frame["status"] = frame["status"].fillna(MISSING)
    frame.loc[absent & ~frame["finished"].astype(bool), "status"] = PENDING
    kernels = kernels if kernels is not None else kernels_frame({})
    frame = frame.merge(kernels, on=["slug", "level", "problem_id"], how="left")
    frame["stale_reason"] = _stale_reasons(frame, set(kernels["slug"]))
    stale = frame["stale_reason"] != ""
    frame.loc[stale, "status"] = STALE
    frame.loc[stale, NUMERIC_COLUMNS] = np.nan
    frame.loc[stale | absent, "upstream_status"] = frame.loc[stale | absent, "status"]
    text = ["backend", "flags", "flag_messages", "error", "upstream_error", "upstream_fooled"]
    frame[text] = frame[text].fillna("")
    dropped = ["record_sha256", "record_kernel_sha256", "kernel_sha256", "protocol"]
    return frame.drop(columns=dropped).sort_values(["slug", "hardware", "level", "problem_id"])


def aligned_from_results(
    results: Iterable[ResultsFile],
    catalogue: Catalogue,
    kernels: Mapping[str, Mapping[tuple[int, int], str]] | None = None,
) -> pd.DataFrame:
    """`kernels`: the committed kernel hashes per submission slug (`SubmissionDoc.kernel_sha256s`); without
    them only the problem's version is compared."""
    return aligned_frame(records_frame(results), catalogue_frame(catalogue), kernels_frame(kernels or {}))


def rule_correct(aligned: pd.DataFrame, rule: str) -> pd.Series:
    """Which rows are correct under `rule` (`RULES`)."""
    column = "upstream_status" if rule == "upstream" else "status"
    return aligned[column] == Status.CORRECT.value


def counted_frame(aligned: pd.DataFrame) -> pd.DataFrame:
    """The aligned rows once per scored baseline and rule, with `correct` (under the rule) and `counted`: a
    counted kernel's speedup, else NaN."""
    parts = []
    for baseline, column in BASELINE_COLUMNS.items():
        measured = aligned[column].notna().groupby([aligned["slug"], aligned["hardware"]]).transform("any")
        scored = measured if baseline != "eager" else pd.Series(True, index=aligned.index)
        for rule in RULES:
            part = aligned[scored].copy()
            part["baseline"], part["rule"] = baseline, rule
            part["correct"] = rule_correct(part, rule)
            part["counted"] = part[column].where(part["correct"])
            # The speedup interval moved to this baseline (measured against eager); no interval: the point
            ratio = part["counted"] / part["speedup"]
            part["counted_low"] = (part["ci_low"] * ratio).fillna(part["counted"])
            part["counted_high"] = (part["ci_high"] * ratio).fillna(part["counted"])
            parts.append(part)
    return pd.concat(parts, ignore_index=True)


def level_scores(aligned: pd.DataFrame, thresholds: Sequence[float] = THRESHOLDS) -> pd.DataFrame:
    """One row per (slug, hardware, baseline, level): fast_p at each threshold with its interval and ambiguous
    count, geomean, rates and counts."""
    frame = counted_frame(aligned)
    status = frame["status"]
    frame = frame.assign(
        attempted=~status.isin(NOT_ATTEMPTED),
        built=status.isin(BUILT),
        review=status == Status.NEEDS_REVIEW.value,
        unknown=(frame["rule"] == "upstream") & (frame["upstream_status"] == UNKNOWN),
        pending=status == PENDING,
        stale=status == STALE,
        rejected=status == Status.REJECTED.value,
        compile_error=status == Status.COMPILE_ERROR.value,
        log_counted=np.log(frame["counted"]),
        **{fast_p_label(p): frame["counted"] > p for p in thresholds},
    )
    scores = frame.groupby(GROUP_KEYS, sort=True).agg(
        verified=("verified", "first"),
        track=("track", "first"),
        n_problems=("key", "size"),
        n_attempted=("attempted", "sum"),
        n_built=("built", "sum"),
        n_correct=("correct", "sum"),
        n_counted=("counted", "count"),
        n_needs_review=("review", "sum"),
        n_unknown=("unknown", "sum"),
        n_pending=("pending", "sum"),
        n_stale=("stale", "sum"),
        n_rejected=("rejected", "sum"),
        n_compile_error=("compile_error", "sum"),
        mean_log=("log_counted", "mean"),
        **{fast_p_label(p): (fast_p_label(p), "mean") for p in thresholds},
    )
    attempted = scores["n_attempted"].where(scores["n_attempted"] > 0)
    scores["compile_rate"] = scores["n_built"] / attempted
    scores["correct_rate"] = scores["n_correct"] / attempted
    scores["geomean_speedup"] = np.exp(scores.pop("mean_log"))
    return scores.reset_index().merge(_uncertainty(frame, thresholds), on=GROUP_KEYS, how="left")


def awaits_rerun(scores: Any) -> Any:
    """Whether a score row (or each row of a scores frame) has nothing but stale records on its level: nothing of
    its run describes what is committed under the current protocol, so it is listed apart, never ranked or drawn."""
    return (scores["n_stale"] > 0) & (scores["n_attempted"] == 0)


def curves(aligned: pd.DataFrame) -> dict[tuple[str, str, str, int], StepCurve]:
    """fast_p curve of every (slug, hardware, baseline, rule, level) that is scored."""
    frame = counted_frame(aligned)
    out: dict[tuple[str, str, str, str, int], StepCurve] = {}
    for (slug, hardware, baseline, rule, level), group in frame.groupby(GROUP_KEYS, sort=True):
        speedups = group["counted"].dropna().tolist()
        out[(slug, hardware, baseline, rule, int(level))] = fast_p_curve(speedups, len(group))
    return out


def best_per_problem(aligned: pd.DataFrame) -> pd.DataFrame:
    """Per (hardware, baseline, rule, problem key): the counted kernel with the highest speedup.

    Ties go to the submission whose slug sorts first, so the result does not depend on file order.
    Problems where no kernel counts have no row.
    """
    frame = counted_frame(aligned).dropna(subset=["counted"])
    frame = frame.sort_values(["counted", "slug"], ascending=[False, True])
    best = frame.drop_duplicates(["hardware", "baseline", "rule", "key"], keep="first")
    columns = ["hardware", "baseline", "rule", "level", "problem_id", "key", "slug", "counted", "verified"]
    return best[columns].rename(columns={"counted": "speedup"}).sort_values(["hardware", "baseline", "rule", "key"])

