#!/usr/bin/env bash
# Where an agreement problem's seconds go (issue 20's run took 63-77 s per level-1 problem at --time-budget 3):
# a few kernels of one level of the sample (LEVEL, default level1; PROBLEMS, default "29 32") through the same
# pipeline with KB_RUNNER_TRACE (the judge's phases and the runner's steps, per problem, in their validate log
# under $OUT/trace-state/logs) while a sampler lists compiler and ninja processes every second ($OUT/procs.log);
# then, if more than 120 s of TOTAL_S (default 540) is left, the sample itself (bench/agreement_session.sh,
# resumable as there: extract $OUT/state.tar into build/agree before the next call). The trimmed run keeps its
# own state ($OUT/trace-state, returned as $OUT/trace-state.tar): it also re-judges a few kernels alone, e.g. after
# a shared-GPU run (bench/agreement-2026-11-27.txt).
#   OUT=/some/dir bash bench/agreement_trace.sh      (carry .whl and build/leaderboard, and build/agree to resume)
set -uo pipefail
cd "$(dirname "$0")/.."
OUT=${OUT:-/tmp/kb-agree-trace}
RUNS=${RUNS:-build/leaderboard}
if [ ! -f "$RUNS/${LEVEL:-level1}/eval_results.json" ]; then
  echo "agreement_trace.sh: $RUNS/${LEVEL:-level1}/eval_results.json not found: LEVEL names a run directory under RUNS" >&2
  exit 2
fi
mkdir -p "$OUT"
source bench/device_env.sh
t0=$(date +%s)
trace=$(mktemp -d)/${LEVEL:-level1}
mkdir -p "$trace"
python3 - "$RUNS/${LEVEL:-level1}" "$trace" ${PROBLEMS:-29 32} <<'PY'
import json, shutil, sys
from pathlib import Path
source, target, ids = Path(sys.argv[1]), Path(sys.argv[2]), set(sys.argv[3:])
results = json.loads((source / "eval_results.json").read_text())
(target / "eval_results.json").write_text(json.dumps({k: v for k, v in results.items() if k in ids}))
for path in source.glob("level_*_problem_*_kernel.py"):
    if path.name.split("_")[3] in ids:
        shutil.copy(path, target / path.name)
PY
(while sleep 1; do echo "== $(( $(date +%s) - t0 )) s"; ps -eo pid,etimes,pcpu,rss,args --sort=-pcpu \
   | grep -E "nvcc|ninja|cc1plus|cicc|ptxas|validator|python" | grep -v -E "grep|ps -eo" | cut -c1-220 | head -12
 done) > "$OUT/procs.log" 2>&1 &
sampler=$!
KB_RUNNER_TRACE=1 timeout --signal=INT --kill-after=20 "${TRACE_BUDGET_S:-280}" python3 bench/upstream_agreement.py \
  "$trace" --out "$OUT/trace-state" --samples best --kernelbench-commit 91bfc2c --time-budget 3 > "$OUT/trace.log" 2>&1
echo "trace: rc=$? wall $(( $(date +%s) - t0 )) s" | tee "$OUT/summary-trace.txt"
kill $sampler
tar -cf "$OUT/trace-state.tar" -C "$OUT" trace-state  # results lie deeper than a device call returns
grep -h "judge log of\|judge: \|ninja\|Building\|Emitting\|evaluate \[" "$OUT"/trace-state/logs/*.validate.log | head -n 60
left=$(( ${TOTAL_S:-540} - ($(date +%s) - t0) ))
if [ "$left" -gt 120 ]; then BUDGET_S=$left OUT=$OUT bash bench/agreement_session.sh; fi
cat "$OUT/summary-trace.txt"
