"""A maintainer's decisions on results held as `needs_review`, kept beside the results instead of in them.

The judge holds a correct result it finds implausible (a speedup above the protocol's `review_speedup`, or
faster than the speed-of-light bound) as `needs_review`; it counts under neither rule until a maintainer
decides. The decisions live in one file, `reviews/decisions.json`, outside `results/` (which only the results bot
writes), changed only by a maintainer's pull request that changes nothing else (the results guard). A results
file stays exactly what the verified run wrote, and every decision has a name, a date and a reason:

    {"schema_version": 1,
     "reviews": [{"hardware": "nvidia-h200", "slug": "torch-compile-inductor", "problem": "level1/40_LayerNorm",
                  "problem_sha256": "...", "kernel_sha256": "...", "decision": "cleared",
                  "reviewer": "octocat", "date": "2026-11-27", "reason": "why the speedup is real"}]}

A decision names the problem file and the kernel file by sha256: it applies to every run of exactly those
bytes on that hardware (a rerun is held again and cleared again by the same entry), and to nothing else. An
entry that matches no held result (the kernel changed, or the result is not held) is reported, never applied.
`kb-validate review` writes entries with the hashes copied from the results file.
"""

from __future__ import annotations

import dataclasses
import datetime
import json
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from jsonschema import Draft202012Validator

from validator import files
from validator.results.records import Flag, ProblemResult, ResultsFile, Status, UpstreamVerdict

REVIEWS_PATH = Path("reviews") / "decisions.json"
"""Where the decisions are, relative to the repository root (the directory holding `results/`)."""
SCHEMA_VERSION = 1
DECISIONS = ("cleared", "rejected")
_SHA256 = {"type": "string", "pattern": "^[0-9a-f]{64}$"}
_TEXT = {"type": "string", "minLength": 1, "maxLength": 2000}
SCHEMA = {
    "$schema": "https://json-schema.org/draft/2020-12/schema",
    "type": "object",
    "additionalProperties": False,
    "required": ["schema_version", "reviews"],
    "properties": {
        "schema_version": {"const": SCHEMA_VERSION},
        "about": {"type": "string"},
        "reviews": {
            "type": "array",
            "items": {
                "type": "object",
                "additionalProperties": False,
                "required": ["hardware", "slug", "problem", "problem_sha256", "kernel_sha256", "decision",
                             "reviewer", "date", "reason"],
                "properties": {
                    "hardware": {"type": "string", "pattern": "^[a-z0-9][a-z0-9-]{0,99}$"},
                    "slug": {"type": "string", "pattern": "^[a-z0-9](?:[a-z0-9-]{0,62}[a-z0-9])?$"},
                    "problem": {"type": "string", "pattern": r"^level\d+/\d+_[^/]+$"},
                    "problem_sha256": _SHA256,
                    "kernel_sha256": _SHA256,
                    "decision": {"enum": list(DECISIONS)},
                    "reviewer": {"type": "string", "pattern": "^[A-Za-z0-9](?:[A-Za-z0-9-]{0,38})$",
                                 "description": "the maintainer's GitHub login"},
                    "date": {"type": "string", "pattern": r"^\d{4}-\d{2}-\d{2}$"},
                    "reason": _TEXT,
                },
            },
        },
    },
}
_VALIDATOR = Draft202012Validator(SCHEMA)


class ReviewsError(ValueError):
    """The reviews file is unusable; the message names the file, the JSON path and what was expected. `field`
    is the entry's field at fault (`date`), if one is; `detail` is what was expected of it."""

    def __init__(self, shown: str, where: str = "", detail: str = "", field: str = "") -> None:
        super().__init__(": ".join(part for part in (shown, where, detail) if part))
        self.field, self.detail = field, detail


@dataclass(frozen=True)
class Review:
    """One maintainer decision on one held result: which bytes on which hardware, and why."""

    hardware: str
    slug: str
    problem: str
    problem_sha256: str
    kernel_sha256: str
    decision: str
    reviewer: str
    date: str
    reason: str

    @property
    def target(self) -> tuple[str, str, str, str, str]:
        return (self.hardware, self.slug, self.problem, self.problem_sha256, self.kernel_sha256)

    def describe(self) -> str:
        return f"{self.decision} on review by @{self.reviewer} on {self.date}: {self.reason}"


def parse_reviews(data: Any, shown: str) -> tuple[Review, ...]:
    """The reviews of a parsed document; ReviewsError names `shown`, the JSON path and what was expected. Two
    entries for the same bytes are refused: which one applies would depend on their order."""
    errors = sorted(_VALIDATOR.iter_errors(data), key=lambda e: [str(p) for p in e.absolute_path])
    if errors:
        first = errors[0]
        fields = [part for part in first.absolute_path if isinstance(part, str)]
        raise ReviewsError(shown, first.json_path, first.message, fields[-1] if fields else "")
    reviews = tuple(Review(**entry) for entry in data["reviews"])
    seen: dict[tuple[str, ...], int] = {}
    for index, review in enumerate(reviews):
        try:
            datetime.date.fromisoformat(review.date)
        except ValueError:
            raise ReviewsError(shown, f"$.reviews[{index}].date",
                               f"{review.date!r} is not a calendar date (YYYY-MM-DD)", "date") from None
        if review.target in seen:
            raise ReviewsError(shown, f"$.reviews[{index}]", f"decides the same result as "
                               f"$.reviews[{seen[review.target]}] (same hardware, slug, problem and hashes); "
                               "keep one entry")
        seen[review.target] = index
    return reviews


def load_reviews(path: Path) -> tuple[Review, ...]:
    """The decisions in `path`; none where the file does not exist."""
    if not path.exists():
        return ()
    try:
        data = files.read_json(path, files.RESULTS_BYTES)
    except files.JsonError as exc:
        raise ReviewsError(str(exc)) from None
    return parse_reviews(data, str(path))


def save_reviews(path: Path, reviews: Sequence[Review]) -> None:
    """Write the file (checked against SCHEMA first), entries in a stable order."""
    ordered = sorted(reviews, key=lambda r: (r.hardware, r.slug, r.problem, r.date))
    data = {"schema_version": SCHEMA_VERSION, "reviews": [dataclasses.asdict(r) for r in ordered]}
    parse_reviews(data, str(path))
    path.parent.mkdir(parents=True, exist_ok=True)
    files.write_text_atomic(path, json.dumps(data, indent=1) + "\n")


def _decided(record: ProblemResult, review: Review) -> ProblemResult:
    flag = Flag(f"review-{review.decision}", review.describe(), "info" if review.decision == "cleared" else "error")
    if review.decision == "cleared":
        upstream = dataclasses.replace(record.upstream, held=False) if record.upstream else None
        return dataclasses.replace(record, status=Status.CORRECT, error="", upstream=upstream,
                                   flags=(*record.flags, flag))
    upstream = UpstreamVerdict(False, record.upstream.trials if record.upstream else 0,
                               error=review.describe()[:500])
    return dataclasses.replace(record, status=Status.REJECTED, error=review.describe(), upstream=upstream,
                               flags=(*record.flags, flag))


def apply_reviews(results: ResultsFile, reviews: Sequence[Review]) -> tuple[ResultsFile, set[Review]]:
    """The results with every held record that a review decides replaced by the decision (cleared: correct
    under the rules it held; rejected: correct under neither), and the reviews that were applied."""
    by_target = {r.target: r for r in reviews if (r.hardware, r.slug) == (results.hardware, results.slug)}
    used: set[Review] = set()
    problems = []
    for record in results.problems:
        review = by_target.get((results.hardware, results.slug, record.key, record.problem_sha256,
                                record.kernel_sha256))
        if review is not None and record.status is Status.NEEDS_REVIEW:
            used.add(review)
            problems.append(_decided(record, review))
        else:
            problems.append(record)
    return dataclasses.replace(results, problems=tuple(problems)), used
