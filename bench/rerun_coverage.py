"""Does a rerun's speedup fall inside the published interval? Compares two results files of the same submission.
  python bench/rerun_coverage.py results/<hw>/<slug>.json RERUN.json [--out $OUT/rerun_coverage.json]
Make RERUN.json with a second `kb-validate submissions/<slug>.json --force --results-dir /tmp/rerun` (run the first
with --force too, so both are protocol 3). Bars (issue 21): coverage >= 90% both ways, p95 |drift| <= 2%.
--rerun-sigma S widens both files' intervals as protocol 9 does (`timing.rerun_interval`): what coverage results
written before it would have had.
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
from validator.evaluate.judge.timing import with_rerun_sigma
from validator.results.records import load


def compare(first: Path, second: Path, rerun_sigma: float = 0.0) -> dict:
    a = {p.key: p for p in load(first).problems if p.speedup and p.speedup_ci}
    b = {p.key: p for p in load(second).problems if p.speedup and p.speedup_ci}
    rows = []
    for key in sorted(a.keys() & b.keys()):
        x, y = a[key], b[key]
        x_ci = with_rerun_sigma(x.speedup, x.speedup_ci, rerun_sigma)
        y_ci = with_rerun_sigma(y.speedup, y.speedup_ci, rerun_sigma)
        rows.append({"key": key, "first": x.speedup, "second": y.speedup, "first_ci": x_ci,
                     "second_ci": y_ci, "drift": y.speedup / x.speedup - 1,
                     "second_in_first": x_ci[0] <= y.speedup <= x_ci[1],
                     "first_in_second": y_ci[0] <= x.speedup <= y_ci[1],
                     "blocks": [b.speedup for b in x.blocks], "gpus": [x.gpu, y.gpu]})
    drift = np.abs([r["drift"] for r in rows]) if rows else np.zeros(1)
    cover = [r["second_in_first"] for r in rows] + [r["first_in_second"] for r in rows]
    return {"problems": len(rows), "coverage": float(np.mean(cover)) if cover else float("nan"),
            "p95_abs_drift": float(np.percentile(drift, 95)), "max_abs_drift": float(drift.max()), "rows": rows}


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("first", type=Path)
    parser.add_argument("second", type=Path)
    parser.add_argument("--out", type=Path)
    parser.add_argument("--rerun-sigma", type=float, default=0.0)
    args = parser.parse_args()
    report = compare(args.first, args.second, args.rerun_sigma)
    if args.out:
        args.out.write_text(json.dumps(report, indent=1))
    for r in report["rows"]:
        print(f"{r['key']:<40} {r['first']:7.3f} [{r['first_ci'][0]:.3f}, {r['first_ci'][1]:.3f}]  "
              f"{r['second']:7.3f}  drift {100 * r['drift']:+5.1f}%  {'in' if r['second_in_first'] else 'OUT'}"
              + ("" if r["gpus"] == [None, None] else f"  {r['gpus'][0]} -> {r['gpus'][1]}"))
    print(f"problems {report['problems']}  coverage {100 * report['coverage']:.1f}%  "
          f"p95 |drift| {100 * report['p95_abs_drift']:.2f}%  max {100 * report['max_abs_drift']:.2f}%")
    return 0


if __name__ == "__main__":
    sys.exit(main())
