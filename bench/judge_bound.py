"""How tight the judge's timing bound is on honest kernels: per problem, the judge's span of each timed
call against the device time the runner reported, and the allowance it was held to.

Runs the real judge (and its two sandboxed runners, the kernel's and the reference's twin) on each kernel of a
submission at full size on the GPU, with the protocol's timing, and prints one row per problem: the kernel's median
device time, the median excess of the judge's span over it, the twin's (the reference's honest calls on the same
path in the same rounds), their difference (the crossover estimate; and its median over the rounds the kernel went
first, and over those the twin did), the allowance for the difference (its noise, the relative part), the
difference as a fraction of the allowance (the headroom an honest kernel leaves; negative: below the twin's), what
of a call the bound cannot see (`unseen_ms`), the calls per span, the speedup and the status.

    python bench/judge_bound.py submissions/kernelbench-team.json [--limit N] [--json OUT]
    python bench/judge_bound.py --reduced --case level1/19_ReLU tests/redteam/control/relu_triton.py
"""

from __future__ import annotations

import argparse
import hashlib
import json
import sys
import tempfile
import time
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO))


def record_bounds(judge_timing) -> list[dict]:
    """Every block's bound, as the judge computed it, appended to the list returned (JudgeSide.bound wrapped)."""
    seen: list[dict] = []
    original = judge_timing.JudgeSide.bound

    def recording(side, series):
        import numpy as np

        verdict = original(side, series)
        kernel_ms = float(np.median(series.ker_ms)) if len(series.ker_ms) else float("nan")
        kernel = np.asarray(series.spans_ms) - np.asarray(series.ker_ms)
        twin = np.asarray(series.ref_spans_ms) - np.asarray(series.ref_ms)
        first = np.asarray(series.kernel_first, dtype=bool)
        by_order = [float(np.median((kernel - twin)[first == f])) if (first == f).any() else float("nan")
                    for f in (True, False)]
        seen.append({"kernel_ms": kernel_ms, "excess_ms": side.excess_ms, "twin_ms": side.honest_ms,
                     "difference_ms": side.difference_ms, "kernel_first_ms": by_order[0],
                     "twin_first_ms": by_order[1], "allowed_ms": side.allowance_ms + side.relative * kernel_ms,
                     "unseen_ms": side.unseen_ms, "calls": side.calls,
                     "rounds": {"kernel_excess": kernel.tolist(), "twin_excess": twin.tolist(),
                                "kernel_first": first.tolist()}})
        return verdict

    judge_timing.JudgeSide.bound = recording
    return seen


def main() -> int:
    from validator.catalogue.problems import load_catalogue
    from validator.evaluate.jobs import Job
    from validator.evaluate.judge import judge_timing
    from validator.evaluate.judge import run as judge
    from validator.isolation.bwrap import machine_isolation
    from validator.protocol import PROTOCOL
    from validator.submission.kernel_names import own_kernel_names

    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("submission", type=Path, nargs="?", default=None)
    parser.add_argument("--case", nargs=2, action="append", default=[], metavar=("PROBLEM", "KERNEL"),
                        help="a kernel file on a problem (level1/19_ReLU), besides or instead of a submission's")
    parser.add_argument("--reduced", action="store_true", help="the problems' reduced sizes (the red-team's)")
    parser.add_argument("--interpret", action="store_true", help="a dry run on the CPU (set TRITON_INTERPRET=1)")
    parser.add_argument("--limit", type=int, default=None)
    parser.add_argument("--skip", type=int, default=0, help="leave out the first N kernels (run elsewhere)")
    parser.add_argument("--json", type=Path, default=None)
    args = parser.parse_args()
    catalogue = load_catalogue(REPO / "problems")
    entries = []
    if args.submission is not None:
        document = json.loads(args.submission.read_text())
        folder = args.submission.parent / args.submission.stem
        # a cold load_inline build per CUDA kernel would dominate; the Triton kernels cover the bound
        entries = [(catalogue.get(e["level"], e["problem_id"]), folder / e["path"], e["backend"])
                   for e in document["kernels"][args.skip: args.limit] if e["backend"] != "cuda"]
    for key, path in args.case:
        level, name = key.split("/")
        entries.append((catalogue.get(int(level.removeprefix("level")), int(name.split("_")[0])), Path(path), "triton"))
    seen = record_bounds(judge_timing)
    rows, sandbox = [], machine_isolation().sandbox
    print(f"runner sandbox: {sandbox}")
    print(f"{'problem':<36} {'kernel ms':>9} {'excess':>7} {'twin':>7} {'diff':>7} {'k1st':>7} {'t1st':>7} "
          f"{'allowed':>7} {'used':>5} {'unseen':>6} {'calls':>5} {'speedup':>7} {'s':>5}  status")
    for problem, kernel, backend in entries:
        source = kernel.read_bytes()
        with tempfile.TemporaryDirectory(prefix="kb-bound-") as tmp:
            job = Job(key=problem.key, level=problem.level, problem_id=problem.problem_id,
                      problem_path=str(problem.path), problem_sha256=problem.sha256, kernel_path=str(kernel),
                      kernel_sha256=hashlib.sha256(source).hexdigest(), backend=backend, reduced=args.reduced,
                      interpret=args.interpret,
                      extensions_dir=str(Path(tmp) / "cache" / "ext"), seed=int(time.time_ns() % (1 << 62)),
                      protocol=PROTOCOL.to_dict(), own_kernel_names=own_kernel_names(source.decode()),
                      sandbox=sandbox)
            seen.clear()
            started = time.perf_counter()
            result = judge.evaluate_job(job, Path(tmp))
            seconds = time.perf_counter() - started
        nan = float("nan")
        bound = seen[-1] if seen else {"kernel_ms": nan, "excess_ms": nan, "twin_ms": nan, "difference_ms": nan,
                                       "kernel_first_ms": nan, "twin_first_ms": nan, "allowed_ms": 1.0,
                                       "unseen_ms": nan, "calls": 0}
        used = bound["difference_ms"] / bound["allowed_ms"]
        rows.append({"problem": problem.key, "kernel": kernel.name, **bound, "used": used, "seconds": seconds,
                     "status": result.status,
                     "speedup": result.speedup, "error": result.error,
                     "flags": [[f.code, f.message] for f in result.flags], "blocks": list(seen)})
        speedup = result.speedup if result.speedup is not None else nan
        print(f"{problem.key[:36]:<36} {bound['kernel_ms']:>9.4f} {bound['excess_ms']:>7.3f} {bound['twin_ms']:>7.3f} "
              f"{bound['difference_ms']:>7.3f} {bound['kernel_first_ms']:>7.3f} {bound['twin_first_ms']:>7.3f} "
              f"{bound['allowed_ms']:>7.3f} {used:>5.2f} {bound['unseen_ms']:>6.3f} {bound['calls']:>5} "
              f"{speedup:>7.3f} {seconds:>5.1f}  {result.status}")
        if result.status != "correct":
            print(f"    why: {result.error[:400]} {[f.code + ': ' + f.message[:300] for f in result.flags]}")
    if args.json:
        args.json.write_text(json.dumps(rows, indent=1))
    rejected = [r["problem"] for r in rows if r["status"] == "rejected"]
    print(f"{len(rows)} problem(s); {len(rejected)} rejected by the bound or a check: {rejected}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
