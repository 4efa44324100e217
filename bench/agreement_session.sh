#!/usr/bin/env bash
# Issue 20's agreement bar on the GPU: the sample of real KernelBench kernels that bench/leaderboard_runs.py
# writes (one run directory per level), judged through the whole pipeline by bench/upstream_agreement.py.
#   OUT=/some/dir bash bench/agreement_session.sh
#     RUNS   the run directories' parent (default build/leaderboard; git ignores build/, so carry it)
#     STATE  submissions, results and logs (default build/agree); carry it back in to resume: kb-validate
#            measures only what an interrupted call left unmeasured
#   TIME_BUDGET  kb-validate's --time-budget (default 3 s of timing per problem: the verdicts are the point)
# Stops itself inside the device's 10-minute limit ($BUDGET_S, default 540 s). $OUT/state.tar holds STATE;
# extract it into STATE before the next call. Carry .whl too (bench/device_env.sh).
set -uo pipefail
cd "$(dirname "$0")/.."
OUT=${OUT:-/tmp/kb-agree}
RUNS=${RUNS:-build/leaderboard}
STATE=${STATE:-build/agree}
mkdir -p "$OUT" "$STATE"
source bench/device_env.sh
nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.max.sm --format=csv,noheader | tee "$OUT/gpu.txt"
t0=$(date +%s)
timeout --signal=INT --kill-after=20 "${BUDGET_S:-540}" python3 bench/upstream_agreement.py "$RUNS"/level* \
  --out "$STATE" --samples best --kernelbench-commit 91bfc2c --time-budget "${TIME_BUDGET:-3}" \
  > "$OUT/agreement.log" 2>&1
echo "agreement: rc=$? wall $(( $(date +%s) - t0 )) s" | tee "$OUT/summary.txt"
tar -cf "$OUT/state.tar" -C "$STATE" .
tail -n 45 "$OUT/agreement.log"
