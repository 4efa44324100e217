#!/usr/bin/env bash
# One device call on one GPU: the sandbox's GPU check, then upstream KernelBench's evaluation beside the board's on
# small problems (the 91bfc2c track), with each problem's phases, then the board's side again at a smaller timing
# budget on the same submission, so a problem's fixed cost and its timing show apart:
#   OUT=/some/dir bash bench/judge_cost_session.sh [SUBMISSION]
#     LIMIT     kernels of SUBMISSION (default 10);  SIDE_S  bound on the side-by-side (default 380 s)
#     BUDGETS   --time-budget values for the board's extra runs (default "3")
# Carry .whl and .upstream (bench/upstream_checkout.sh 91bfc2c). Back in $OUT: summary.txt (the table), sysfs.log,
# side_by_side.txt/.json, extra-<budget>.log.
set -uo pipefail
cd "$(dirname "$0")/.." || exit
OUT=${OUT:-/tmp/kb-cost}
SUB=${1:-submissions/kernelbench-team.json}
mkdir -p "$OUT"
export KB_REQUIRE_SANDBOX=1
source bench/device_env.sh
nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.max.sm --format=csv,noheader | tee "$OUT/gpu.txt"
timeout 150 python3 -m pytest -q -p no:cacheprovider -m gpu tests/isolation > "$OUT/sysfs.log" 2>&1
echo "sandbox GPU tests: rc=$? $(tail -n 1 "$OUT/sysfs.log")" | tee "$OUT/summary.txt"
work=/tmp/kb-cost-work
timeout --signal=INT "${SIDE_S:-380}" python3 bench/upstream_side_by_side.py "$SUB" --track 91bfc2c --gpu 0 \
  --upstream .upstream/91bfc2c --limit "${LIMIT:-10}" --budget-s $(( ${SIDE_S:-380} - 20 )) --out "$OUT" \
  --work "$work" > "$OUT/side_by_side.txt" 2>&1
echo "side by side: rc=$?" | tee -a "$OUT/summary.txt"
written=$(ls "$work"/91bfc2c/submission/*.json 2>/dev/null | head -n 1)
for b in ${BUDGETS:-3}; do
  [ -n "$written" ] || break
  mkdir -p "$work/extra-$b"
  timeout --signal=INT 150 python3 -m validator "$written" --gpus 0 --results-dir "$work/extra-$b" --force \
    --time-budget "$b" > "$OUT/extra-$b.log" 2>&1
  echo "board at --time-budget $b: rc=$?" | tee -a "$OUT/summary.txt"
done
python3 - "$work" >> "$OUT/summary.txt" <<'PY'
import glob, json, sys
work = sys.argv[1]
for path in sorted(glob.glob(f"{work}/91bfc2c/results/*/*.json") + glob.glob(f"{work}/extra-*/*/*.json")):
    print("#", path.replace(work, "work"))
    for p in json.load(open(path))["problems"]:
        ph = p.get("phases") or {}
        held = [f["code"] for f in p.get("flags", []) if f.get("severity") == "warning"]
        parts = " ".join(f"{k[:10]}={v:.2f}" for k, v in ph.items() if v >= 0.05)
        print(f"{p['key'][:34]:34} {p['status'][:12]:12} x{(p.get('speedup') or 0):6.3f} {p.get('seconds') or 0:5.1f}s "
              f"r={p.get('rounds') or 0:3} {','.join(held)[:40]:40} {parts}")
PY
tail -n 30 "$OUT/side_by_side.txt"; cat "$OUT/summary.txt"
