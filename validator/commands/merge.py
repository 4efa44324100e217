"""`kb-validate merge SHARD.json... --out FILE`: combine a sharded run's results into one file."""

from __future__ import annotations

import argparse
from pathlib import Path

from rich.console import Console

from validator.files import JsonError
from validator.findings import ExitCode, UserError
from validator.results import records as results
from validator.results.merge import Unreadable, merge
from validator.untrusted import printable

HELP = "combine the results files of a sharded run (--shard i/N) into one results file"


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("shards", nargs="+", type=Path, metavar="SHARD",
                        help="results files written with --shard (results/<hardware>/<slug>.shard-I-of-N.json)")
    parser.add_argument("--out", type=Path, required=True, metavar="FILE",
                        help="the merged results file, e.g. results/<hardware>/<slug>.json")
    parser.add_argument("--allow-partial", action="store_true",
                        help="merge even if shards are missing or did not finish (the result is a run in progress, "
                             "without finished_at: the site shows its absent problems as pending)")


def _load(path: Path) -> results.ResultsFile | Unreadable:
    """The shard, or why it cannot be used (unusable JSON, or JSON that is not a results file)."""
    try:
        return results.load(path)
    except JsonError as exc:
        return Unreadable(str(path), printable(exc.problem.message))
    except (OSError, ValueError, KeyError, TypeError, AttributeError) as exc:
        return Unreadable(str(path), printable(f"not a results file ({type(exc).__name__}: {exc})"[:300]))


def execute(args: argparse.Namespace, out: Console, err: Console) -> int:
    if args.out.is_dir():
        raise UserError(f"--out {args.out}: is a directory; expected a file name")
    resolved = [path.resolve() for path in args.shards]
    if len(set(resolved)) != len(resolved):
        raise UserError("the same shard file is given twice")
    if args.out.resolve() in resolved:
        raise UserError(f"--out {args.out}: is one of the shard files; write the merge to a new file")
    loaded = [(str(path), _load(path)) for path in args.shards]
    shards = [(name, shard) for name, shard in loaded if isinstance(shard, results.ResultsFile)]
    unreadable = [shard for _, shard in loaded if isinstance(shard, Unreadable)]
    for bad in unreadable:
        err.print(f"kb-validate merge: error: {bad.file}: {bad.error}; merging the other shards without it",
                  markup=False)
    merged, warnings = merge(shards, allow_partial=args.allow_partial, unreadable=unreadable)
    for warning in warnings:
        err.print(f"kb-validate merge: warning: {printable(warning)}", markup=False)
    results.save(merged, args.out)
    out.print(f"merged {len(shards)} shard(s), {len(merged.problems)} problem(s) -> {args.out}", markup=False)
    return ExitCode.UNUSABLE if unreadable else ExitCode.OK
