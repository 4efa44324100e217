"""How tight the judge's timing bound is on honest kernels: per problem, the judge's span of each timed
call against the device time the runner reported, and the allowance it was held to.

Runs the real judge (and its two sandboxed runners, the kernel's and the reference's twin) on each kernel of a
submission at full size on the GPU, with the protocol's timing, and prints one row per problem: the kernel's median
device time, the median excess of the judge's span over it, the twin's (the reference's honest calls on the same
path in the same rounds), the allowance for the difference (its noise, the relative part), the difference as a
fraction of the allowance (the headroom an honest kernel leaves; negative: below the twin's), what of a call the
bound cannot see (`unseen_ms`), the calls per span, the speedup and the status.

    python bench/judge_bound.py submissions/kernelbench-team.json [--limit N] [--json OUT]
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


def main() -> int:
    from validator.catalogue.problems import load_catalogue
    from validator.evaluate.jobs import Job
    from validator.evaluate.worker import judge_timing
    from validator.evaluate.worker import run as judge
    from validator.isolation.bwrap import machine_isolation
    from validator.protocol import PROTOCOL
    from validator.submission.kernel_names import own_kernel_names

    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("submission", type=Path)
    parser.add_argument("--limit", type=int, default=None)
    parser.add_argument("--skip", type=int, default=0, help="leave out the first N kernels (run elsewhere)")
    parser.add_argument("--json", type=Path, default=None)
    args = parser.parse_args()
    document = json.loads(args.submission.read_text())
    catalogue = load_catalogue(REPO / "problems")
    seen: list[dict] = []
    original = judge_timing.JudgeSide.bound

    def recording(side, series):
        import numpy as np

        verdict = original(side, series)
        kernel_ms = float(np.median(series.ker_ms)) if len(series.ker_ms) else float("nan")
        seen.append({"kernel_ms": kernel_ms, "excess_ms": side.excess_ms, "twin_ms": side.honest_ms,
                     "allowed_ms": side.allowance_ms + side.relative * kernel_ms,
                     "unseen_ms": side.unseen_ms, "calls": side.calls})
        return verdict

    judge_timing.JudgeSide.bound = recording
    rows, sandbox = [], machine_isolation().sandbox
    print(f"runner sandbox: {sandbox}")
    print(f"{'problem':<40} {'kernel ms':>9} {'excess':>8} {'twin':>8} {'allowed':>8} {'used':>6} {'unseen':>7} "
          f"{'calls':>5} {'speedup':>8} {'s':>6}  status")
    for entry in document["kernels"][args.skip: args.limit]:
        if entry["backend"] == "cuda":
            continue  # a cold load_inline build per kernel would dominate; the Triton kernels cover the bound
        problem = catalogue.get(entry["level"], entry["problem_id"])
        kernel = args.submission.parent / args.submission.stem / entry["path"]
        source = kernel.read_bytes()
        with tempfile.TemporaryDirectory(prefix="kb-bound-") as tmp:
            job = Job(key=problem.key, level=problem.level, problem_id=problem.problem_id,
                      problem_path=str(problem.path), problem_sha256=problem.sha256, kernel_path=str(kernel),
                      kernel_sha256=hashlib.sha256(source).hexdigest(), backend=entry["backend"],
                      extensions_dir=str(Path(tmp) / "cache" / "ext"), seed=int(time.time_ns() % (1 << 62)),
                      protocol=PROTOCOL.to_dict(), own_kernel_names=own_kernel_names(source.decode()),
                      sandbox=sandbox)
            seen.clear()
            started = time.perf_counter()
            result = judge.evaluate_job(job, Path(tmp))
            seconds = time.perf_counter() - started
        nan = float("nan")
        bound = seen[-1] if seen else {"kernel_ms": nan, "excess_ms": nan, "twin_ms": nan, "allowed_ms": 1.0,
                                       "unseen_ms": nan, "calls": 0}
        used = (bound["excess_ms"] - bound["twin_ms"]) / bound["allowed_ms"]
        rows.append({"problem": problem.key, **bound, "used": used, "seconds": seconds, "status": result.status,
                     "speedup": result.speedup, "error": result.error,
                     "flags": [[f.code, f.message] for f in result.flags]})
        speedup = result.speedup if result.speedup is not None else nan
        print(f"{problem.key[:40]:<40} {bound['kernel_ms']:>9.4f} {bound['excess_ms']:>8.4f} {bound['twin_ms']:>8.4f} "
              f"{bound['allowed_ms']:>8.4f} {used:>6.2f} {bound['unseen_ms']:>7.4f} {bound['calls']:>5} "
              f"{speedup:>8.3f} {seconds:>6.1f}  {result.status}")
        if result.status != "correct":
            print(f"    why: {result.error[:400]} {[f.code + ': ' + f.message[:300] for f in result.flags]}")
    if args.json:
        args.json.write_text(json.dumps(rows, indent=1))
    rejected = [r["problem"] for r in rows if r["status"] == "rejected"]
    print(f"{len(rows)} problem(s); {len(rejected)} rejected by the bound or a check: {rejected}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
