#!/usr/bin/env bash
# Full-size catalogue check on a GPU machine (issue: problem catalogue).
#
# Runs `kb-validate catalogue check --full` on cuda:0: every problem at full size in a worker process
# with a per-problem time cap (default 60 s) and a run budget (default 450 s, so 250 problems finish
# within 8 minutes; problems left when it is spent are reported `not-run`). It records the eager
# reference time (CUDA events, median of 5 calls after 3 warm-up calls, L2 flushed) and peak memory,
# then merges them into a copy of the manifest.
#
# Writes under $OUT (or ./catalogue-full-out): catalogue-full.json (the check report), check.txt (its
# table), worker.log (problems' own output), manifest.json (problems/manifest.json with the
# measurements merged: copy it over problems/manifest.json to commit them). Prints a per-level table last.
#
# Environment: CATALOGUE_MODE (default --full; --reduced for a smoke test without a GPU),
# PER_PROBLEM_S, BUDGET_S; extra arguments go to `catalogue check` (e.g. --only level1/19_ReLU).
set -uo pipefail
cd "$(dirname "$0")/.."
out="${OUT:-catalogue-full-out}"
mkdir -p "$out"
export PYTHONPATH="$PWD${PYTHONPATH:+:$PYTHONPATH}"
kb() { python3 -m validator "$@"; }

started=$(date +%s)
kb catalogue check "${CATALOGUE_MODE:---full}" --json "$out/catalogue-full.json" --log "$out/worker.log" \
    --per-problem-s "${PER_PROBLEM_S:-60}" --budget-s "${BUDGET_S:-450}" "$@" >"$out/check.txt" 2>"$out/progress.txt"
status=$?
wall=$(( $(date +%s) - started ))
tail -n 3 "$out/progress.txt"

if [ -f "$out/catalogue-full.json" ]; then
    cp problems/manifest.json "$out/manifest.json" 2>/dev/null
    if python -c 'import json, sys; sys.exit(0 if json.load(open(sys.argv[1]))["hardware"] else 1)' \
        "$out/catalogue-full.json"; then
        kb catalogue manifest --write --manifest "$out/manifest.json" --measurements "$out/catalogue-full.json" \
            >"$out/manifest.txt" 2>&1 || cat "$out/manifest.txt"
    fi
    python - "$out/catalogue-full.json" "$wall" <<'PY'
import json
import statistics
import sys

report = json.load(open(sys.argv[1]))
from pathlib import Path

from validator.catalogue.manifest_entry import read_entries
from validator.catalogue.speed_of_light import UnknownHardware, bound_ms

manifest = read_entries(Path("problems/manifest.json"))

def stats(values, fmt):
    if not values:
        return "-", "-", "-"
    return fmt(statistics.median(values)), fmt(min(values)), fmt(max(values))

print(f"\ncatalogue check ({report['mode']}) on {report['gpu'] or 'cpu'}: check wall {report['seconds']:.0f} s, "
      f"script wall {sys.argv[2]} s; counts {report['counts']}")
header = ("level", "n", "pass", "kept", "fail", "eager ms med", "min", "max", "peak GiB med", "max", "ms/SoL min")
print(" | ".join(header))
for level in sorted({p["key"].split("/")[0] for p in report["problems"]}):
    rows = [p for p in report["problems"] if p["key"].startswith(level + "/")]
    eager = [p["eager_ms"] for p in rows if p.get("eager_ms") is not None]
    peak = [p["peak_mem_bytes"] / 1024**3 for p in rows if p.get("peak_mem_bytes") is not None]
    ratios = []
    for p in rows:
        entry = manifest.get(p["key"])
        if p.get("eager_ms") and entry and entry.min_bytes and report.get("hardware"):
            try:
                ratios.append(p["eager_ms"] / bound_ms(entry.flops, entry.min_bytes, report["hardware"]))
            except UnknownHardware:
                pass
    counts = [sum(p["status"] == s for p in rows) for s in ("passed", "kept", "failed")]
    med, lo, hi = stats(eager, lambda v: f"{v:.2f}")
    pmed, _, pmax = stats(peak, lambda v: f"{v:.2f}")
    print(" | ".join([level, str(len(rows)), *map(str, counts), med, lo, hi, pmed, pmax,
                      f"{min(ratios):.2f}" if ratios else "-"]))
bad = [p for p in report["problems"] if p["status"] != "passed"]
for p in bad:
    codes = ", ".join(sorted({f["code"] for f in p["findings"] if f.get("severity", "error") == "error"}))
    print(f"{p['status']}: {p['key']} {codes or ', '.join(sorted({f['code'] for f in p['findings']}))}")
PY
fi
exit $status
