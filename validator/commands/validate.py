"""`kb-validate [validate] PATH...`: run every stage this machine can on each submission."""

from __future__ import annotations

import argparse
import io
import math
import re
from pathlib import Path

from rich.console import Console

from validator.catalogue.problems import load_catalogue
from validator.evaluate import runners_ahead
from validator.evaluate import stage as evaluate
from validator.evaluate.sharding import parse_shard
from validator.files import check_writable_target, write_text_atomic
from validator.findings import UserError
from validator.isolation.gate import run_isolation
from validator.machine import probe
from validator.pipeline import validate_submission
from validator.protocol import PROTOCOL
from validator.report import overall_exit, print_terminal, to_markdown, write_json
from validator.results.layout import LOCAL_RESULTS_DIR
from validator.run_context import JUDGES_PER_GPU, MAX_JUDGES_PER_GPU, BuildOptions, EvaluateOptions, RunOptions

HELP = "check submissions: schema, semantics, static policy, build and GPU evaluation where possible"


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("paths", nargs="+", metavar="PATH", help="submission JSON files (submissions/<slug>.json)")
    parser.add_argument("--problems-dir", type=Path, help="problem catalogue, KernelBench format (default: problems/)")
    parser.add_argument("--json", type=Path, metavar="FILE", help="also write a machine-readable report to FILE")
    parser.add_argument("--markdown", type=Path, metavar="FILE", help="also write a Markdown summary to FILE")
    parser.add_argument("--no-gpu", action="store_true", help="skip GPU stages even where a GPU is present")
    parser.add_argument("--results-dir", type=Path, metavar="DIR",
                        help=f"where <hardware>/<slug>.json results go; must exist (default: {LOCAL_RESULTS_DIR}/, "
                             "ignored by git and by the site; the verified workflows pass --results-dir results)")
    parser.add_argument("--gpus", metavar="LIST", help="GPU indices to use, e.g. 0,1 (default: all visible)")
    parser.add_argument("--build-only", action="store_true", help="compile the kernels and stop before the GPU")
    parser.add_argument("--arch", metavar="X.Y", help="CUDA architecture to build for, e.g. 9.0 (default: the GPU's)")
    parser.add_argument("--force", action="store_true", help="measure again what an earlier run already measured")
    parser.add_argument("--shard", metavar="I/N", help="run only shard I of N (1..N) of the submission's problems")
    parser.add_argument("--timeout-scale", type=float, default=1.0, metavar="F",
                        help="multiply the protocol's build and per-problem time limits by F (slow machines)")
    parser.add_argument("--time-budget", type=float, metavar="S",
                        help=f"seconds of timing rounds per problem (default: the protocol's "
                             f"{PROTOCOL.time_budget_s:g}); the results record it, and a shorter budget gives wider "
                             "intervals")
    parser.add_argument("--judges-per-gpu", type=int, default=JUDGES_PER_GPU, metavar="N",
                        help=f"judges started side by side on each GPU, taking turns at measuring, so the next "
                             f"problem's start overlaps this one's timing (default {JUDGES_PER_GPU}; 1: one at a time)")
    parser.add_argument("--cache-dir", type=Path, metavar="DIR", help="build cache (default: ~/.cache/kb-validate)")
    parser.add_argument("--build-jobs", type=int, metavar="N", help="kernels built at once (default: CPU cores)")
    parser.add_argument("--launcher", choices=("zygote", "spawn"), default="zygote",
                        help="start workers by forking a pre-imported-torch server (default) or spawning")
    parser.add_argument("--provenance", action="append", default=[], metavar="KEY=VALUE",
                        help="who produced the results (runner, workflow, run_id, commit); repeatable")
    parser.add_argument("--verified", action="store_true",
                        help="mark the results verified (a maintainer's runner; needs --provenance)")
    parser.add_argument("--compile-baseline", action="store_true",
                        help="also time torch.compile of each reference (cached per hardware and problem hash)")
    parser.add_argument("--lock-clocks", action="store_true",
                        help="lock each GPU's SM clock at its application clock for the run (needs permission); "
                             "the results record whether it was locked, and the clocks are unlocked at the end")
    parser.add_argument("--interpret", action="store_true",
                        help="run every stage on the CPU (policy, build, sandbox, judge, runner) with Triton's "
                             "interpreter and reduced sizes: correctness only, timings meaningless and not recorded")


ARCH = re.compile(r"^\d{1,2}\.\d[af]?$")
GPU_LIST = re.compile(r"^\d+(,\d+)*$")
PROVENANCE_KEY = re.compile(r"^[A-Za-z][A-Za-z0-9_.-]{0,63}$")


def _gpus(text: str | None) -> tuple[int, ...] | None:
    if text is None or text == "all":
        return None
    if not GPU_LIST.match(text):
        raise UserError(f"--gpus {text!r}: expected comma-separated GPU indices such as 0,1 (or 'all')")
    indices = tuple(int(part) for part in text.split(","))
    if len(set(indices)) != len(indices):
        raise UserError(f"--gpus {text!r}: a GPU is listed twice")
    return indices


def _provenance(pairs: list[str], verified: bool) -> dict[str, str]:
    provenance: dict[str, str] = {}
    for pair in pairs:
        key, sep, value = pair.partition("=")
        if not sep or not PROVENANCE_KEY.match(key) or not value.strip() or len(value) > 300 or "\n" in value:
            raise UserError(f"--provenance {pair!r}: expected KEY=VALUE, e.g. runner=gpu-box-1 (KEY: letters, "
                            "digits, _ . -; VALUE: one line, at most 300 characters)")
        if key in provenance:
            raise UserError(f"--provenance: {key} is given twice")
        provenance[key] = value.strip()
    if verified and not provenance:
        raise UserError("--verified needs --provenance KEY=VALUE (runner, workflow, run_id, commit) saying who ran it")
    return provenance


def _directory_option(path: Path | None, flag: str) -> None:
    if path is not None and path.exists() and not path.is_dir():
        raise UserError(f"{flag} {path}: exists and is not a directory")


def _explicit_results_dir(path: Path | None) -> None:
    """A results directory named on the command line must exist: a typo would otherwise create a stray tree."""
    if path is not None and not path.is_dir():
        what = "is not a directory" if path.exists() else "does not exist"
        raise UserError(f"--results-dir {path}: {what}; expected an existing directory (create it first, or leave "
                        f"the option out to write to {LOCAL_RESULTS_DIR}/, which git ignores)")


def run_options(args: argparse.Namespace, out: Console) -> RunOptions:
    """The later stages' options from the flags, each checked with a message that names the flag."""
    if args.arch is not None and not ARCH.match(args.arch):
        raise UserError(f"--arch {args.arch!r}: expected a CUDA compute capability such as 9.0, 9.0a or 8.6")
    if not (math.isfinite(args.timeout_scale) and args.timeout_scale > 0):
        raise UserError(f"--timeout-scale {args.timeout_scale}: expected a positive number")
    if args.time_budget is not None and not (math.isfinite(args.time_budget) and args.time_budget > 0):
        raise UserError(f"--time-budget {args.time_budget}: expected a positive number of seconds")
    if not 1 <= args.judges_per_gpu <= MAX_JUDGES_PER_GPU:
        raise UserError(f"--judges-per-gpu {args.judges_per_gpu}: expected 1 to {MAX_JUDGES_PER_GPU}")
    if args.build_jobs is not None and args.build_jobs < 1:
        raise UserError(f"--build-jobs {args.build_jobs}: expected at least 1")
    if args.verified and args.interpret:
        raise UserError("--verified and --interpret exclude each other: interpreter runs time nothing and are never "
                        "verified results")
    _explicit_results_dir(args.results_dir)
    _directory_option(args.cache_dir, "--cache-dir")
    build = BuildOptions(arch=args.arch, cache_dir=args.cache_dir, jobs=args.build_jobs, only=args.build_only,
                         timeout_scale=args.timeout_scale)
    evaluate = EvaluateOptions(
        results_dir=args.results_dir or LOCAL_RESULTS_DIR, gpus=_gpus(args.gpus), force=args.force,
        timeout_scale=args.timeout_scale,
        time_budget_s=args.time_budget, judges_per_gpu=args.judges_per_gpu,
        launcher=args.launcher, provenance=_provenance(args.provenance, args.verified), verified=args.verified,
        compile_baseline=args.compile_baseline, interpret=args.interpret, lock_clocks=args.lock_clocks,
    )
    return RunOptions(problems_dir=args.problems_dir, gpu_stages=not args.no_gpu,
                      shard=parse_shard(args.shard) if args.shard else None, build=build, evaluate=evaluate,
                      console=out)


def execute(args: argparse.Namespace, out: Console, err: Console) -> int:
    check_writable_target(args.json, "--json")
    check_writable_target(args.markdown, "--markdown")
    options = run_options(args, out)
    catalogue = load_catalogue(args.problems_dir)
    machine = probe()
    missing = [i for i in options.evaluate.gpus or () if i >= len(machine.gpus)]
    if missing and machine.has_gpu:
        raise UserError(f"--gpus: GPU {missing[0]} does not exist; {len(machine.gpus)} visible "
                        f"(indices 0..{len(machine.gpus) - 1})")
    isolation = run_isolation(options.evaluate.verified, err)  # before anything touches a submission's code
    # each device's first runner starts now, while the stages before evaluation run (runners_ahead)
    with runners_ahead.head_start(lambda: evaluate.head_start_plan(machine, options)):
        reports = [validate_submission(Path(p), p, catalogue, machine, options) for p in args.paths]
    print_terminal(reports, out)
    if args.json:
        buffer = io.StringIO()
        write_json(reports, machine, buffer, isolation)
        write_text_atomic(args.json, buffer.getvalue())
    if args.markdown:
        write_text_atomic(args.markdown, to_markdown(reports, isolation))
    return int(overall_exit(reports))
