"""`kb-validate [validate] PATH...`: run every stage this machine can on each submission."""

from __future__ import annotations

import argparse
import io
from pathlib import Path

from rich.console import Console

from validator.atomic import write_text_atomic
from validator.catalogue import load_catalogue
from validator.findings import UserError
from validator.machine import probe
from validator.pipeline import validate_submission
from validator.report import overall_exit, print_terminal, to_markdown, write_json
from validator.stages import RunOptions

HELP = "check submissions: schema, semantics, static policy, build and GPU evaluation where possible"


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("paths", nargs="+", metavar="PATH", help="submission JSON files (submissions/<slug>.json)")
    parser.add_argument("--problems-dir", type=Path, help="problem catalogue, KernelBench format (default: problems/)")
    parser.add_argument("--json", type=Path, metavar="FILE", help="also write a machine-readable report to FILE")
    parser.add_argument("--markdown", type=Path, metavar="FILE", help="also write a Markdown summary to FILE")
    parser.add_argument("--no-gpu", action="store_true", help="skip GPU stages even where a GPU is present")


def _check_output_target(path: Path | None, flag: str) -> None:
    """Fail before any work if a report could not be written, so a long run is not wasted."""
    if path is None:
        return
    if path.is_dir():
        raise UserError(f"{flag} {path}: is a directory; expected a file name")
    if not path.parent.is_dir():
        raise UserError(f"{flag} {path}: directory {path.parent} does not exist")


def execute(args: argparse.Namespace, out: Console, err: Console) -> int:
    _check_output_target(args.json, "--json")
    _check_output_target(args.markdown, "--markdown")
    catalogue = load_catalogue(args.problems_dir)
    machine = probe()
    options = RunOptions(problems_dir=args.problems_dir, gpu_stages=not args.no_gpu)
    reports = [validate_submission(Path(p), p, catalogue, machine, options) for p in args.paths]
    print_terminal(reports, out)
    if args.json:
        buffer = io.StringIO()
        write_json(reports, machine, buffer)
        write_text_atomic(args.json, buffer.getvalue())
    if args.markdown:
        write_text_atomic(args.markdown, to_markdown(reports))
    return int(overall_exit(reports))
