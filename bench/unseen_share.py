"""What the judge's timing bound could not see, per problem, as a share of the kernel's median: read from results.

    python bench/unseen_share.py RESULTS.json [RESULTS.json ...]

From each timed problem's `timing-bound` flag: the calls per span, the kernel's and the twin's excess per call (the
judge's span less the reported device time), their difference and the noise allowance; `unseen` is the allowance
plus the difference's size (`judge_timing.JudgeSide.unseen_ms`: a forged report could hide that much of a call and
still pass the bound). A win whose median is below `unseen` is held (`timing-unresolved`); the issue's target is an
unseen share under 2% for every kernel of 20 us or more. Reads results only: no GPU.
"""

from __future__ import annotations

import argparse
import json
import re
import statistics
import sys
from pathlib import Path

BOUND = re.compile(r"by ([\d.]+) ms, the reference's honest calls.*?by ([\d.]+) ms; noise allowed ([\d.]+) ms"
                   r".*?; (\d+) call")


def rows(path: str) -> list[dict]:
    out = []
    for problem in json.loads(Path(path).read_text(encoding="utf-8"))["problems"]:
        message = next((f["message"] for f in problem.get("flags", []) if f["code"] == "timing-bound"), "")
        found = BOUND.search(message)
        if not found or not problem.get("kernel"):
            continue
        kernel, twin, allowance, calls = (float(found[1]), float(found[2]), float(found[3]), int(found[4]))
        median = problem["kernel"]["median"]
        unseen = allowance + abs(kernel - twin)
        out.append({"key": problem["key"], "median": median, "calls": calls, "kernel": kernel, "twin": twin,
                    "allowance": allowance, "unseen": unseen, "share": unseen / median,
                    "speedup": problem.get("speedup"), "status": problem["status"]})
    return out


def main(argv: list[str]) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("results", nargs="+", help="results files (results/<hardware>/<slug>.json)")
    args = parser.parse_args(argv)
    print(f"{'problem':36} {'median ms':>9} {'calls':>5} {'kernel ex':>9} {'twin ex':>8} {'allow':>6} "
          f"{'unseen':>7} {'share':>6} {'speedup':>7} status")
    shares = []
    for path in args.results:
        for r in rows(path):
            shares.append(r["share"])
            print(f"{r['key'][:36]:36} {r['median']:9.4f} {r['calls']:5} {r['kernel']:9.3f} {r['twin']:8.3f} "
                  f"{r['allowance']:6.3f} {r['unseen']:7.3f} {r['share']:6.1%} {r['speedup'] or 0:7.3f} {r['status']}")
    if shares:
        print(f"{len(shares)} problems: unseen share median {statistics.median(shares):.1%}, "
              f"under 2% on {sum(s < 0.02 for s in shares)}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
