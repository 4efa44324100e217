"""`kb-validate review RESULTS.json PROBLEM --clear|--reject --by LOGIN --reason TEXT`: a maintainer's decision
on a result held as needs_review, written to reviews/decisions.json with the hashes the results file recorded."""

from __future__ import annotations

import argparse
import dataclasses
import datetime
from pathlib import Path

from rich.console import Console

from validator.files import JsonError
from validator.findings import ExitCode, UserError
from validator.results import records as results
from validator.results.layout import is_shard_file
from validator.results.reviews import (
    REVIEWS_PATH,
    SCHEMA_VERSION,
    Review,
    ReviewsError,
    load_reviews,
    parse_reviews,
    save_reviews,
)
from validator.untrusted import printable

HELP = "clear or reject a result held as needs_review (a maintainer's decision, kept in reviews/decisions.json)"


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("results", type=Path, metavar="RESULTS",
                        help="the whole run's results file, results/<hardware>/<slug>.json")
    parser.add_argument("problem", metavar="PROBLEM", help="the held problem's key, e.g. level1/40_LayerNorm")
    decision = parser.add_mutually_exclusive_group(required=True)
    decision.add_argument("--clear", action="store_const", const="cleared", dest="decision",
                          help="the result is real: it counts as correct under the rules it passed")
    decision.add_argument("--reject", action="store_const", const="rejected", dest="decision",
                          help="the result is not a fair measurement: it counts under neither rule")
    parser.add_argument("--by", required=True, metavar="LOGIN", help="your GitHub login")
    parser.add_argument("--reason", required=True, metavar="TEXT",
                        help="why, for readers of the result (shown on the site with your login and the date)")
    parser.add_argument("--reviews", type=Path, default=None, metavar="FILE",
                        help=f"the decisions file (default: {REVIEWS_PATH} beside the results file's results/)")
    parser.add_argument("--date", default=None, metavar="YYYY-MM-DD", help="the decision's date (default: today, UTC)")


def _held_record(path: Path, key: str) -> tuple[results.ResultsFile, results.ProblemResult]:
    if is_shard_file(path.name):
        raise UserError(f"{path}: is one shard of a run; review the merged file (kb-validate merge), which the "
                        "site reads")
    try:
        run = results.load(path)
    except JsonError as exc:
        raise UserError(str(exc)) from None
    except FileNotFoundError:
        raise UserError(f"{path}: no such results file") from None
    except (OSError, ValueError, KeyError, TypeError, AttributeError) as exc:
        raise UserError(printable(f"{path}: not a results file ({type(exc).__name__}: {exc})"[:300])) from None
    record = next((p for p in run.problems if p.key == key), None)
    if record is None:
        raise UserError(f"{path}: has no result for {key!r}; expected one of its problems' keys")
    if record.status is not results.Status.NEEDS_REVIEW:
        raise UserError(f"{path}: {key} is {record.status.value}, not needs_review; only held results are reviewed")
    return run, record


OPTIONS = {"reviewer": "--by", "date": "--date", "reason": "--reason"}


def _check_arguments(review: Review) -> None:
    """The decision as the reviews file's schema wants it; an error names the option, not a JSON path."""
    try:
        parse_reviews({"schema_version": SCHEMA_VERSION, "reviews": [dataclasses.asdict(review)]}, "")
    except ReviewsError as exc:
        raise UserError(printable(f"{OPTIONS.get(exc.field, 'the results file')}: {exc.detail}")) from None


def _beside_results(results_file: Path) -> Path:
    """`reviews/decisions.json` of the repository whose `results/<hardware>/<slug>.json` this is."""
    resolved = results_file.resolve()
    if resolved.parent.parent.name != "results":
        raise UserError(f"{results_file}: is not at results/<hardware>/<slug>.json, so the repository's "
                        f"{REVIEWS_PATH} is not known; pass --reviews FILE")
    return resolved.parent.parent.parent / REVIEWS_PATH


def execute(args: argparse.Namespace, out: Console, err: Console) -> int:
    run, record = _held_record(args.results, args.problem)
    path = args.reviews or _beside_results(args.results)
    date = args.date or datetime.datetime.now(datetime.UTC).date().isoformat()
    review = Review(run.hardware, run.slug, record.key, record.problem_sha256, record.kernel_sha256, args.decision,
                    args.by, date, args.reason)
    _check_arguments(review)
    try:
        earlier = load_reviews(path)
        kept = [r for r in earlier if r.target != review.target]
        save_reviews(path, [*kept, review])
    except ReviewsError as exc:
        raise UserError(printable(str(exc))) from None
    except OSError as exc:
        raise UserError(printable(f"{path}: cannot be read or written ({exc.strerror or exc})")) from None
    replaced = len(kept) < len(earlier)
    verb = "replaced the decision on" if replaced else "recorded:"
    out.print(f"{verb} {record.key} of {run.slug} on {run.hardware} {args.decision} by @{args.by} -> "
              f"{path}", markup=False)
    return ExitCode.OK
