"""How far the reference's device time moves between the twin's spans before the kernel loads and the timing blocks,
beside how far it moves between the blocks themselves: read from results, no GPU.

    python bench/reference_drift.py RESULTS.json [RESULTS.json ...]

From each timed problem's `reference-drift` flag: the reference's median before the kernel loaded (`alone`: from
protocol 20 the slowest of its placements, whose spread is `placed`) and in the rounds; from its `blocks`: each
block's reference median, and their spread (largest over smallest, less one).
`reference-slowed` holds a result whose rounds' median exceeds `alone` by more than `Protocol.reference_slowed` plus
`reference_slowed_ms`. Where the blocks of one honest run already differ by more than that, the hold reads noise:
the table shows where, by the size of the reference.
"""

from __future__ import annotations

import argparse
import json
import re
from pathlib import Path

DRIFT = re.compile(r"([\d.e+-]+) ms in the timed rounds, ([\d.e+-]+) ms in the twin's spans")
PLACEMENTS = re.compile(r"the slowest of ([\d.e+, -]+) ms on \d+ placements")
"""From protocol 20 the baseline is the slowest of several placements, each named in the message."""


def rows(path: str) -> list[tuple[float, float, float, float | None, str, str]]:
    """(alone ms, rounds over alone less one, the blocks' spread, the baseline placements' spread or None, problem,
    status) per timed problem."""
    out = []
    for problem in json.loads(Path(path).read_text(encoding="utf-8"))["problems"]:
        message = next((f["message"] for f in problem.get("flags", []) if f["code"] == "reference-drift"), "")
        found = DRIFT.search(message)
        blocks = [b["reference_ms"] for b in problem.get("blocks") or [] if b.get("reference_ms")]
        if found and blocks:
            rounds, alone = float(found[1]), float(found[2])
            listed = PLACEMENTS.search(message)
            placed = [float(v) for v in listed[1].split(",")] if listed else []
            held = any(f["code"] == "reference-slowed" for f in problem.get("flags", []))
            out.append((alone, rounds / alone - 1, max(blocks) / min(blocks) - 1,
                        max(placed) / min(placed) - 1 if placed else None, problem["key"],
                        "held" if held else problem["status"]))
    return out


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("results", nargs="+", metavar="RESULTS.json")
    args = parser.parse_args(argv)
    table = sorted(row for path in args.results for row in rows(path))
    print(f"{'problem':36} {'alone ms':>9} {'rounds':>8} {'blocks':>8} {'placed':>8}  status")
    for alone, drift, spread, placed, key, status in table:
        shown = "-" if placed is None else f"{placed:.1%}"
        print(f"{key[:36]:36} {alone:9.4f} {drift:+8.1%} {spread:8.1%} {shown:>8}  {status}")
    for name, part in (("under 0.35 ms", [r for r in table if r[0] < 0.35]), ("0.35 ms or more",
                                                                              [r for r in table if r[0] >= 0.35])):
        if part:
            spreads = sorted(r[2] for r in part)
            print(f"references {name}: {len(part)}, blocks' spread median {spreads[len(spreads) // 2]:.1%}, "
                  f"{sum(r[5] == 'held' for r in part)} held as reference-slowed")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
