"""`kb-validate import RUN_DIR --slug S ...`: make a submission from a KernelBench run directory.

It reads as its steps: find the run's KernelBench version, choose one sample per problem, check the metadata,
print what is imported, skipped and why, then write the kernels and the JSON (nothing is written when
nothing is usable, or when the submission exists and --force is not given).
"""

from __future__ import annotations

import argparse
import datetime as dt
import json
import shutil
from pathlib import Path

from rich.console import Console
from rich.markup import escape

from validator.catalogue.problems import load_catalogue
from validator.files import write_text_atomic
from validator.findings import ExitCode, UserError
from validator.progress import working
from validator.submission.importer import (
    ImportPlan,
    Metadata,
    Origin,
    check_origin,
    parse_pick,
    plan_import,
    submission_document,
)
from validator.submission.schema import schema_findings

HELP = "turn a KernelBench run directory (level_L_problem_P_sample_S_kernel.py files) into a submission"
EPILOG = """\
RUN_DIR holds KernelBench's generated kernels, level_L_problem_P_sample_S_kernel.py, and may hold its
evaluation, eval_results.json, which --pick best and first-correct read: an object keyed by problem id (a
string), each value one record or a list of records (one per sample), each record
  {"sample_id": 0, "compiled": true, "correctness": true, "runtime": 0.41}
sample_id an integer; compiled and correctness true or false; runtime KernelBench's mean in ms, -1 or absent
where it measured none; a record's other keys are ignored. Example:
  {"23": [{"sample_id": 0, "compiled": true, "correctness": true, "runtime": 0.41},
          {"sample_id": 1, "compiled": true, "correctness": false, "runtime": -1}]}
For a problem it does not list (or without the file) best and first-correct take the lowest sample id.

Where the run directory is published in a public GitHub repository, --repository, --commit and --path-prefix
write each kernel as a reference to that commit (its sha256 taken from the local file) instead of copying it:
  --repository https://github.com/OWNER/NAME --commit <40-hex SHA> --path-prefix runs/my_run
The validator then fetches each file at that commit and checks its hash before anything runs.
"""
METHODS = ("one-shot", "repeated-sampling", "iterative-refinement", "agent", "human", "compiler")


def _link(text: str) -> tuple[str, str]:
    label, sep, url = text.partition("=")
    if not sep or not label or not url:
        raise argparse.ArgumentTypeError(f"expected LABEL=URL, got {text!r}")
    return label, url


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("run_dir", type=Path, metavar="RUN_DIR", help="KernelBench run directory")
    parser.add_argument("--slug", required=True, help="submission slug (lower-case letters, digits, '-')")
    parser.add_argument("--name", required=True, help="display name on the leaderboard")
    parser.add_argument("--method", required=True, choices=METHODS)
    parser.add_argument("--model", help="language model that generated the kernels")
    parser.add_argument("--author", action="append", required=True, help="author (repeatable)")
    parser.add_argument("--hardware", action="append", required=True, help="target GPU (repeatable)")
    parser.add_argument("--date", default=dt.date.today().isoformat(), help="ISO date (default: today)")
    parser.add_argument("--description", default="")
    parser.add_argument("--link", action="append", type=_link, default=[], metavar="LABEL=URL")
    parser.add_argument("--pick", nargs="+", default=["best"], metavar="HOW",
                        help="which sample per problem: best (fastest correct by eval_results.json; default), "
                             "first-correct, or sample N")
    parser.add_argument("--sample", type=int, help="same as --pick sample N")
    parser.add_argument("--kernelbench-commit", metavar="COMMIT",
                        help="KernelBench version the run was written against (e.g. 423217d, 91bfc2c); needed "
                             "unless the run directory holds copies of that version's problem files")
    parser.add_argument("--submissions-dir", type=Path, default=Path("submissions"))
    parser.add_argument("--problems-dir", type=Path)
    parser.add_argument("--force", action="store_true", help="replace an existing submission of this slug")
    parser.add_argument("--repository", metavar="URL",
                        help="https://github.com/OWNER/NAME where RUN_DIR is published: write references to its "
                             "files at --commit instead of copying them")
    parser.add_argument("--commit", metavar="SHA", help="full 40-hex commit of --repository holding RUN_DIR")
    parser.add_argument("--path-prefix", default="", metavar="DIR",
                        help="RUN_DIR's path inside --repository (default: its root)")


def execute(args: argparse.Namespace, out: Console, err: Console) -> int:
    if not args.run_dir.is_dir():
        raise UserError(f"run directory {args.run_dir} does not exist or is not a directory")
    if not args.submissions_dir.is_dir():
        raise UserError(f"--submissions-dir {args.submissions_dir} does not exist")
    pick = parse_pick(["sample", str(args.sample)] if args.sample is not None else args.pick)
    origin = _origin(args)
    with working(err, f"reading {args.run_dir}"):
        catalogue = load_catalogue(args.problems_dir)
        plan = plan_import(args.run_dir, catalogue, pick, args.kernelbench_commit)
    meta = Metadata(args.slug, args.name, args.method, args.date, tuple(args.author), tuple(args.hardware),
                    args.model, args.description, tuple(args.link))
    document = submission_document(plan, meta, origin)
    problems = [f for f in schema_findings(document, "<command line>") if not f.json_path.startswith("$.kernels")]
    if problems:
        raise UserError("; ".join(f"{f.json_path}: {f.message}" for f in problems))
    _print_plan(plan, out)
    if not plan.chosen:
        err.print(f"kb-validate import: no usable kernel files in {args.run_dir}; nothing written", markup=False)
        return ExitCode.FAILED
    json_path = args.submissions_dir / f"{args.slug}.json"
    kernel_dir = args.submissions_dir / args.slug
    if (json_path.exists() or kernel_dir.exists()) and not args.force:
        raise UserError(f"{json_path} or {kernel_dir}/ already exists; pass --force to replace it")
    if kernel_dir.exists():
        shutil.rmtree(kernel_dir)
    if origin is None:  # a reference carries no file: the validator fetches it at the commit
        kernel_dir.mkdir()
        for chosen in plan.chosen:
            shutil.copyfile(chosen.candidate.path, kernel_dir / chosen.destination)
    write_text_atomic(json_path, json.dumps(document, indent=2) + "\n")
    what = f"references to {escape(origin.repository)} at {origin.commit}" if origin else "kernels"
    out.print(f"wrote {escape(str(json_path))} with {len(plan.chosen)} {what}; "
              f"check it with: kb-validate {escape(str(json_path))}")
    return ExitCode.OK


def _origin(args: argparse.Namespace) -> Origin | None:
    """--repository and --commit together (with --path-prefix, optional), or none of them."""
    if args.repository is None and args.commit is None:
        if args.path_prefix:
            raise UserError("--path-prefix needs --repository and --commit")
        return None
    if args.repository is None or args.commit is None:
        raise UserError("--repository and --commit go together: the repository where RUN_DIR is published and the "
                        "full commit that holds it")
    return check_origin(args.repository, args.commit, args.path_prefix, args.run_dir)


def _print_plan(plan: ImportPlan, out: Console) -> None:
    out.print(f"KernelBench version {escape(plan.version)}: {escape(plan.version_evidence)}")
    for chosen in plan.chosen:
        out.print(f"[green]imported[/] {escape(chosen.candidate.path.name)} as {escape(chosen.destination)} "
                  f"({chosen.backend}; {escape(chosen.why)})")
    for skipped in plan.skipped:
        out.print(f"[yellow]skipped[/]  {escape(skipped.file)}: {escape(skipped.reason)}")
    for warning in plan.warnings:
        out.print(f"[yellow]warning[/]  {escape(warning)}")
    out.print(f"{len(plan.chosen)} kernel(s) imported, {len(plan.skipped)} file(s) skipped, "
              f"{len(plan.warnings)} warning(s)")
