#!/usr/bin/env bash
# Issue 20's agreement bar on the GPU: the sample of real KernelBench kernels that bench/leaderboard_runs.py
# writes (one run directory per level), judged through the whole pipeline by bench/upstream_agreement.py.
#   OUT=/some/dir bash bench/agreement_session.sh
#     RUNS   the run directories' parent (default build/leaderboard; git ignores build/, so carry it)
#     STATE  submissions, results and logs (default build/agree); carry it back in to resume: kb-validate
#            measures only what an interrupted call left unmeasured
#   LEVELS       the run directories under RUNS to judge, by name (default: every level* there)
#   TIME_BUDGET  kb-validate's --time-budget (default 3 s of timing per problem: the verdicts are the point)
#   TEAM_GPU     on a machine with a GPU to spare, the index of one that measures the team kernels meanwhile
#                (bench/launch_data.sh team-eager, after TEAM_DELAY_S, default 240 s: the levels' builds take the
#                CPUs first); $OUT/results.tar holds results/ then
# With a GPU per level, the levels run side by side, one GPU each; else one after the other, unless SHARE_GPU=1:
# then side by side on the GPUs there are (the verdicts hold; the speedups do not, problems share a GPU).
# Stops itself inside the device's 10-minute limit ($BUDGET_S, default 540 s). $OUT/state.tar holds STATE;
# extract it into STATE before the next call. Carry .whl too (bench/device_env.sh).
set -uo pipefail
cd "$(dirname "$0")/.."
OUT=${OUT:-/tmp/kb-agree}
RUNS=${RUNS:-build/leaderboard}
STATE=${STATE:-build/agree}
BUDGET_S=${BUDGET_S:-540}
mkdir -p "$OUT" "$STATE"
source bench/device_env.sh
nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.max.sm --format=csv,noheader | tee "$OUT/gpu.txt"
gpus=$(nvidia-smi -L | wc -l)
levels=(); for name in ${LEVELS:-$(cd "$RUNS" && echo level*)}; do levels+=("$RUNS/$name"); done
common=(--out "$STATE" --samples best --kernelbench-commit 91bfc2c --time-budget "${TIME_BUDGET:-3}")
t0=$(date +%s)
if [ -n "${TEAM_GPU:-}" ]; then
  (sleep "${TEAM_DELAY_S:-240}"; CUDA_VISIBLE_DEVICES=$TEAM_GPU OUT=$OUT/team BUDGET_S=$(( BUDGET_S - ${TEAM_DELAY_S:-240} )) \
     bash bench/launch_data.sh team-eager > "$OUT/team.log" 2>&1) &
  team=$!
fi
if [ "${#levels[@]}" -gt 1 ] && { [ "$gpus" -ge "${#levels[@]}" ] || [ -n "${SHARE_GPU:-}" ]; }; then
  pids=()
  for i in "${!levels[@]}"; do
    CUDA_VISIBLE_DEVICES=$(( i % gpus )) timeout --signal=INT --kill-after=20 "$BUDGET_S" python3 bench/upstream_agreement.py \
      "${levels[$i]}" "${common[@]}" > "$OUT/agreement-$(basename "${levels[$i]}").log" 2>&1 &
    pids+=($!)
  done
  wait "${pids[@]}"
  python3 bench/upstream_agreement.py "${levels[@]}" "${common[@]}" --compare-only > "$OUT/agreement.log" 2>&1
else
  timeout --signal=INT --kill-after=20 "$BUDGET_S" python3 bench/upstream_agreement.py "${levels[@]}" "${common[@]}" \
    > "$OUT/agreement.log" 2>&1
fi
echo "agreement: rc=$? wall $(( $(date +%s) - t0 )) s on $gpus GPU(s)" | tee "$OUT/summary.txt"
[ -n "${TEAM_GPU:-}" ] && { wait "$team"; tar -xOf "$OUT/team/bundle.tar" ./results.tar > "$OUT/results.tar" 2>/dev/null; rm -rf "$OUT/team"; tail -n 12 "$OUT/team.log"; }
tar -cf "$OUT/state.tar" -C "$STATE" .
grep -h "evaluate \[" "$STATE"/logs/*.validate.log | tail -n 60
tail -n 25 "$OUT/agreement.log"
