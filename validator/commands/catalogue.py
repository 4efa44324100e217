"""`kb-validate catalogue check|manifest|baseline`: quality filters over the problem catalogue, its manifest,
and the torch.compile baseline submission generated from it.

    kb-validate catalogue check [--reduced|--full] [--only KEY...] [--problems-dir DIR] [--json FILE]
    kb-validate catalogue manifest [--write|--check] [--measurements FILE...] [--problems-dir DIR]
    kb-validate catalogue baseline [--write|--check] [--problems-dir DIR] [--submissions-dir DIR]

`check` runs validator.catalogue.checks on every problem: at reduced sizes on the CPU (the default where
no GPU is visible; the reduced_sizes of problems/overlay.json are the scale knob), or at full size on cuda:0 (`--full`,
the default where a GPU is visible), where it also times the eager reference and records its peak
memory, each problem in a worker process with a time cap. Exit 0 when every problem passes (or is
kept with a documented exemption), 1 when one fails a filter, 2 for usage errors.
"""

from __future__ import annotations

import argparse
import json
import time
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from rich.console import Console
from rich.markup import escape
from rich.table import Table

from validator.catalogue import compile_row
from validator.catalogue.check_worker import default_log_path, run_in_process, run_isolated
from validator.catalogue.checks import CheckSpec, ProblemCheck
from validator.catalogue.manifest import MANIFEST_NAME, dumps, generate, merge_measurements, stale_keys
from validator.catalogue.manifest_entry import load_document
from validator.catalogue.problems import Catalogue, Problem, load_catalogue
from validator.files import check_writable_target, write_text_atomic
from validator.findings import ExitCode, Severity, UserError
from validator.progress import counter
from validator.results.baselines import SUBMISSION_SLUG

HELP = "check the problem catalogue's quality filters; generate or check its manifest and compile baseline"
CHECK_REPORT_VERSION = 1
STATUS_STYLE = {"passed": "green", "kept": "yellow", "failed": "bold red"}


def add_arguments(parser: argparse.ArgumentParser) -> None:
    actions = parser.add_subparsers(dest="action", required=True, metavar="ACTION")
    check = actions.add_parser("check", help="run the quality filters on every problem")
    mode = check.add_mutually_exclusive_group()
    mode.add_argument("--reduced", dest="mode", action="store_const", const="reduced",
                      help="the overlay's reduced sizes on the CPU (default without a GPU)")
    mode.add_argument("--full", dest="mode", action="store_const", const="full",
                      help="full size on cuda:0, with eager time and peak memory (default with a GPU)")
    check.add_argument("--only", nargs="+", metavar="KEY", help="problems to check: level1/19_ReLU or level1/19")
    check.add_argument("--problems-dir", type=Path, help="problem directory (default: problems/)")
    check.add_argument("--version", metavar="COMMIT",
                       help="check another known upstream version's track (e.g. 91bfc2c) instead of the headline")
    check.add_argument("--json", type=Path, metavar="FILE", help="also write the results as JSON to FILE")
    check.add_argument("--per-problem-s", type=float, default=60.0, help="time cap per problem with --full")
    check.add_argument("--budget-s", type=float, default=450.0, help="time budget of a --full run")
    check.add_argument("--log", type=Path, help="worker log file with --full (default: a temporary file)")
    check.add_argument("--threads", type=int, default=2, help="torch CPU threads (default 2)")
    manifest = actions.add_parser("manifest", help="generate or check the committed manifest")
    what = manifest.add_mutually_exclusive_group()
    what.add_argument("--write", action="store_true", help="regenerate and write the manifest")
    what.add_argument("--check", action="store_true", help="exit 1 if the manifest is out of date (default)")
    manifest.add_argument("--measurements", type=Path, action="append", default=[], metavar="FILE",
                          help="merge eager times from a `check --full --json` report (with --write)")
    manifest.add_argument("--problems-dir", type=Path, help="problem directory (default: problems/)")
    manifest.add_argument("--manifest", type=Path, help="manifest file (default: <problems-dir>/manifest.json)")
    baseline = actions.add_parser("baseline", help="generate or check the torch.compile baseline submission")
    what = baseline.add_mutually_exclusive_group()
    what.add_argument("--write", action="store_true", help="regenerate its JSON and kernel files")
    what.add_argument("--check", action="store_true", help="exit 1 if they are out of date (default)")
    baseline.add_argument("--problems-dir", type=Path, help="problem directory (default: problems/)")
    baseline.add_argument("--submissions-dir", type=Path, default=Path("submissions"),
                          help="where submissions live (default: submissions/)")


def execute(args: argparse.Namespace, out: Console, err: Console) -> int:
    if args.action == "check":
        return _check(args, out, err)
    if args.action == "baseline":
        return _baseline(args, out)
    return _manifest(args, out, err)


def _baseline(args: argparse.Namespace, out: Console) -> int:
    catalogue = load_catalogue(args.problems_dir)
    directory: Path = args.submissions_dir
    expected = compile_row.expected_files(catalogue, compile_row.committed_date(directory))
    target = f"{directory}/{SUBMISSION_SLUG}.json"
    if args.write:
        check_writable_target(directory / f"{SUBMISSION_SLUG}.json", "--submissions-dir")
        changed = compile_row.write(directory, expected)
        out.print(f"wrote {target} ({len(catalogue.problems)} problems) and its kernel file ({changed} file(s) "
                  "changed)", markup=False)
        return int(ExitCode.OK)
    stale = compile_row.differences(directory, expected)
    if stale:
        shown = ", ".join(stale[:5]) + (f" and {len(stale) - 5} more" if len(stale) > 5 else "")
        out.print(f"{target} is out of date: {shown}; run `kb-validate catalogue baseline --write` and commit it",
                  markup=False)
        return int(ExitCode.FAILED)
    out.print(f"{target} is up to date ({len(catalogue.problems)} problems)", markup=False)
    return int(ExitCode.OK)


def select(catalogue: Catalogue, only: list[str] | None, version: str | None = None) -> list[Problem]:
    """The problems named by --only (key, levelL/ID, or a path ending in the file name); all by default.
    With `version`, that version's track: its own files where they differ, the headline's where not."""
    pool = list(catalogue.problems)
    if version is not None:
        pool = [p for p in catalogue.every_version if p.version == version]
        if not pool:
            known = sorted({p.version for p in catalogue.every_version if p.version})
            raise UserError(f"--version {version}: no such version in {catalogue.root}; known: {', '.join(known)}")
    if not only:
        return pool
    chosen: list[Problem] = []
    for wanted in only:
        text = wanted.removesuffix(".py").removeprefix("problems/")
        matches = [p for p in pool
                   if text in (p.key, f"level{p.level}/{p.name}", f"level{p.level}/{p.problem_id}")
                   or text.endswith(f"/{p.key}")]
        if not matches:
            raise UserError(f"--only {wanted}: no such problem in {catalogue.root} (expected e.g. level1/19_ReLU)")
        chosen += [p for p in matches if p not in chosen]
    return chosen


def _check(args: argparse.Namespace, out: Console, err: Console) -> int:
    import torch

    check_writable_target(args.json, "--json")
    torch.set_num_threads(max(1, args.threads))
    mode = args.mode or ("full" if torch.cuda.is_available() else "reduced")
    if mode == "full" and not torch.cuda.is_available():
        raise UserError("--full needs a CUDA GPU (torch.cuda.is_available() is False); use --reduced")
    catalogue = load_catalogue(args.problems_dir)
    problems = select(catalogue, args.only, args.version)
    started_at, started = _now(), time.perf_counter()

    with counter(err, len(problems), f"checking problems ({mode})") as advance:
        def progress(result: ProblemCheck, done: int, total: int) -> None:
            advance(f"{result.key} {result.status} {result.seconds:.1f}s")

        if mode == "full":
            spec = CheckSpec(reduced=False, device="cuda:0", generate_on_device=True, measure=True,
                             slow_forward_s=None)
            log = args.log or default_log_path()
            err.print(f"full-size check of {len(problems)} problems; worker log: {log}", markup=False)
            results = run_isolated(problems, spec, per_problem_s=args.per_problem_s, budget_s=args.budget_s,
                                   log_path=log, threads=args.threads, progress=progress)
        else:
            results = run_in_process(problems, CheckSpec(), progress=progress)
    seconds = time.perf_counter() - started
    report = _report(results, catalogue, mode, started_at, seconds)
    if args.json:
        write_text_atomic(args.json, json.dumps(report, indent=1) + "\n")
    _print_check(results, catalogue, mode, seconds, out)
    return int(ExitCode.FAILED if report["counts"]["failed"] else ExitCode.OK)


def _report(results: list[ProblemCheck], catalogue: Catalogue, mode: str, started_at: str,
            seconds: float) -> dict[str, Any]:
    import torch

    from validator.results.layout import hardware_key

    gpu = torch.cuda.get_device_name(0) if mode == "full" else None
    counts = {s: sum(r.status == s for r in results) for s in ("passed", "kept", "failed")}
    counts["failed"] += len(catalogue.findings)
    return {
        "report": "catalogue-check", "report_version": CHECK_REPORT_VERSION, "mode": mode,
        "gpu": gpu, "hardware": hardware_key(gpu) if gpu else None, "torch": torch.__version__,
        "problems_dir": str(catalogue.root), "started_at": started_at, "finished_at": _now(),
        "seconds": round(seconds, 2), "counts": counts,
        "catalogue_findings": [f.to_dict() for f in catalogue.findings],
        "problems": [r.to_dict() for r in results],
    }


def _print_check(results: list[ProblemCheck], catalogue: Catalogue, mode: str, seconds: float,
                 out: Console) -> None:
    table = Table(title=f"catalogue check ({mode})", header_style="bold", box=None, pad_edge=False)
    for column in ("problem", "status", "output", "ms" if mode == "reduced" else "eager ms", "peak GiB",
                   "s", "findings"):
        table.add_column(column, overflow="fold")
    for r in results:
        ms = r.forward_ms if mode == "reduced" else r.eager_ms
        peak = f"{r.peak_mem_bytes / 1024**3:.2f}" if r.peak_mem_bytes is not None else ""
        codes = ", ".join(sorted({f.code for f in r.findings}))
        table.add_row(escape(r.key), f"[{STATUS_STYLE[r.status]}]{r.status}[/]",
                      escape(f"{list(r.output_shape)} {r.output_dtype}") if r.output_shape is not None else "",
                      f"{ms:.2f}" if ms is not None else "", peak, f"{r.seconds:.1f}", escape(codes))
    # Logs are not terminals (80 columns): print the table at least 180 wide, one line per problem.
    Console(file=out.file, width=max(out.width, 180), highlight=False, no_color=out.no_color).print(table)
    for f in [*catalogue.findings, *(f for r in results for f in r.findings)]:
        colour = "red" if f.severity == Severity.ERROR else "yellow"
        out.print(f"  [{colour}]{f.severity.value}[/] [bold]{f.code}[/] {escape(f.file)}: {escape(f.message)}")
    counts = {s: sum(r.status == s for r in results) for s in ("passed", "kept", "failed")}
    bad = len(catalogue.findings)
    out.print(f"{len(results) + bad} problems: {counts['passed']} passed, {counts['kept']} kept, "
              f"{counts['failed'] + bad} failed in {seconds:.1f} s", markup=False)


def _manifest(args: argparse.Namespace, out: Console, err: Console) -> int:
    catalogue = load_catalogue(args.problems_dir)
    path = args.manifest or catalogue.root / MANIFEST_NAME
    if args.measurements and not args.write:
        raise UserError("--measurements is merged into the manifest only with --write")
    try:
        previous = load_document(path)
    except ValueError as exc:
        raise UserError(str(exc)) from exc
    started = time.perf_counter()
    with counter(err, len(catalogue.every_version), "deriving the manifest (FLOPs, bytes)") as advance:
        fresh = generate(catalogue, previous, on_entry=advance)
    for report_path in args.measurements:
        merged, skipped = merge_measurements(fresh, _read_check_report(report_path))
        out.print(f"{report_path}: merged {merged} measurements" + (
            f"; skipped {len(skipped)} measured on another version: {', '.join(skipped)}" if skipped else ""),
            markup=False)
    seconds = time.perf_counter() - started
    if args.write:
        write_text_atomic(path, dumps(fresh))
        out.print(f"wrote {path}: {len(fresh['problems'])} problems in {seconds:.1f} s", markup=False)
        return int(ExitCode.OK)
    if previous is None:
        out.print(f"{path} does not exist; run `kb-validate catalogue manifest --write`", markup=False)
        return int(ExitCode.FAILED)
    stale = stale_keys(previous, fresh)
    if stale:
        out.print(f"{path} is out of date for {len(stale)} problem(s): {', '.join(stale)}; "
                  "run `kb-validate catalogue manifest --write` and commit it", markup=False)
        return int(ExitCode.FAILED)
    out.print(f"{path} is up to date ({len(fresh['problems'])} problems, {seconds:.1f} s)", markup=False)
    return int(ExitCode.OK)


def _read_check_report(path: Path) -> dict[str, Any]:
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except OSError as exc:
        raise UserError(f"--measurements {path}: cannot read: {exc.strerror}") from exc
    except (UnicodeDecodeError, json.JSONDecodeError) as exc:
        raise UserError(f"--measurements {path}: not valid JSON: {exc}") from exc
    if not isinstance(data, dict) or data.get("report") != "catalogue-check":
        raise UserError(f"--measurements {path}: not a `kb-validate catalogue check --json` report")
    if not data.get("hardware"):
        raise UserError(f"--measurements {path}: $.hardware is empty; only a --full run on a GPU has timings")
    return data


def _now() -> str:
    return datetime.now(UTC).isoformat(timespec="seconds")

