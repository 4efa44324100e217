#!/usr/bin/env bash
# Where a small problem's seconds go, in one device call (about 3 minutes): the team's shape-generic Triton kernels at
# 91bfc2c's sizes (the 2024 board's; bench/one_problem_submission.py --track), where the judge's fixed costs are most
# of a problem's time. Three steps:
#   one      a one-problem pull request, cold then warm (bench/one_problem.sh): the 10 s bar after the build
#   phases   the judge's phases of three problems, each judged twice in this process (bench/bench_worker_phases.py)
#   rounds   where a timed round's milliseconds go, the same three (bench/round_costs.py)
# then the walls, and a table of each run's phases last.
#   OUT=/dir bash bench/small_problem_costs.sh      (carry .whl)
set -uo pipefail
cd "$(dirname "$0")/.." || exit
OUT=${OUT:-/tmp/kb-small-costs}
BUDGET_S=${BUDGET_S:-540}
KERNELS=${KERNELS:-level1_20_leakyrelu_triton.py level1_36_rmsnorm_triton.py level2_9_gemm_sub_mul_relu_triton.py}
mkdir -p "$OUT"
export KB_REQUIRE_SANDBOX=1
source bench/device_env.sh
source bench/budget_steps.sh
nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.max.sm --format=csv,noheader | tee "$OUT/gpu.txt"
work=$(mktemp -d)
# shellcheck disable=SC2086  # KERNELS is a list of file names
python3 bench/one_problem_submission.py "$work" $KERNELS --from submissions/kernelbench-team.json --track 91bfc2c \
  > /dev/null || exit 2
step one 150 env OUT="$OUT/one" TRACK=91bfc2c FROM=submissions/kernelbench-team.json \
  KERNEL="${KERNELS%% *}" bash bench/one_problem.sh
step phases 150 python3 bench/bench_worker_phases.py "$work/submissions/one-problem.json" --repeat 2 \
  --out "$OUT/phases.json"
step rounds 150 python3 bench/round_costs.py "$work/submissions/one-problem.json" --out "$OUT/rounds.json"
grep -v "^runner: \|^judge: " "$OUT/rounds.log" | grep -A40 "^step" | head -40
cat "$OUT/one/summary.txt" "$OUT/walls.txt" 2>/dev/null
python3 - "$OUT/phases.json" <<'EOF'
import json, sys
try:
    rows = json.load(open(sys.argv[1]))
except (OSError, ValueError):
    sys.exit("no phases.json: see phases.log")
names = [n for n in rows[0]["seconds"]] if rows else []
print(f"{'kernel':34} run {'total':>6} " + " ".join(f"{n[:8]:>8}" for n in names))
for r in rows:
    print(f"{r['kernel'][:34]:34} {r['run']:3} {r['total_s']:6.2f} "
          + " ".join(f"{r['seconds'].get(n, 0):8.2f}" for n in names) + f"  {r['status']}")
EOF
rm -rf "$work"
