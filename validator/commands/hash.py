"""`kb-validate hash level1/19`: the `problem_sha256` a submission names for a problem, one line per known
version, so nobody has to find the file and run sha256sum by hand."""

from __future__ import annotations

import argparse
import re
from pathlib import Path

from rich.console import Console

from validator.catalogue.problems import Catalogue, Problem, describe_version, ids_range, load_catalogue
from validator.findings import ExitCode, UserError

HELP = "print the problem_sha256 of problems (level1/19 or level1/19_ReLU), one line per known KernelBench version"
PROBLEM = re.compile(r"^level(\d+)/(\d+)(?:_\S*)?$")


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("problems", nargs="+", metavar="PROBLEM",
                        help="levelL/ID, e.g. level1/19 (a file name such as level1/19_ReLU works too)")
    parser.add_argument("--problems-dir", type=Path, help="problem catalogue, KernelBench format (default: problems/)")


def _versions(catalogue: Catalogue, text: str) -> tuple[Problem, ...]:
    match = PROBLEM.match(text)
    if match is None:
        raise UserError(f"{text!r}: expected a problem as levelL/ID, e.g. level1/19 or level1/19_ReLU")
    level, problem_id = int(match.group(1)), int(match.group(2))
    found = catalogue.versions_of(level, problem_id)
    if not found:
        raise UserError(f"{text!r}: no problem with level {level} and id {problem_id} in {catalogue.root}; "
                        f"{ids_range(catalogue, level)}")
    return found


def execute(args: argparse.Namespace, out: Console, err: Console) -> int:
    catalogue = load_catalogue(args.problems_dir)
    found = [_versions(catalogue, text) for text in args.problems]  # every argument checked before any output
    for versions in found:
        for problem in versions:
            key = f"level{problem.level}/{problem.name}"
            out.print(f"{problem.sha256}  {key}  ({describe_version(problem)})", markup=False, highlight=False)
    return ExitCode.OK
