#!/usr/bin/env bash
# The lead's verification run on the lent GPU machine, in one device call:
#   1. the example submission end to end (build, evaluate, results file),
#   2. the full-size catalogue check (eager times, peak memory, quality filters) within a budget,
#   3. fault isolation: segfault, hang and illegal memory access among good kernels.
# Usage (device): OUT=... bash bench/gpu_session.sh. Everything lands in $OUT/session.tgz (the device
# returns at most 8 files) and a short summary is printed last.
set -uo pipefail
cd "$(dirname "$0")/.."
OUT=${OUT:-/tmp/kb-gpu-session}
WORK=$(mktemp -d)
mkdir -p "$OUT" "$WORK/results" "$WORK/catalogue" "$WORK/faults"
export PYTHONPATH=$PWD${PYTHONPATH:+:$PYTHONPATH} PYTHONUNBUFFERED=1
if ls .whl/*.whl >/dev/null 2>&1; then  # jsonschema is not in the GPU image: carried as wheels
  python3 -m pip install -q --no-index --no-deps --no-compile --no-cache-dir --upgrade --target /tmp/site .whl/*.whl \
    && export PYTHONPATH=$PYTHONPATH:/tmp/site
fi
nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.max.sm --format=csv,noheader | tee "$WORK/gpu.txt"

start=$(date +%s)
python3 -m validator submissions/kernelbench-team-examples.json --results-dir "$WORK/results" \
  --json "$WORK/example_report.json" --markdown "$WORK/example_report.md" > "$WORK/example.log" 2>&1
echo "example: rc=$? in $(( $(date +%s) - start )) s" | tee "$WORK/summary.txt"

start=$(date +%s)
OUT="$WORK/catalogue" BUDGET_S=${CAT_BUDGET_S:-270} PER_PROBLEM_S=${CAT_PER_PROBLEM_S:-30} \
  bash bench/catalogue_full_gpu.sh > "$WORK/catalogue_table.txt" 2>&1
echo "catalogue: rc=$? in $(( $(date +%s) - start )) s" | tee -a "$WORK/summary.txt"

start=$(date +%s)
timeout 200 python3 bench/bench_faults.py --timeout-scale 0.2 --out "$WORK/faults" > "$WORK/faults.log" 2>&1
echo "faults: rc=$? in $(( $(date +%s) - start )) s" | tee -a "$WORK/summary.txt"

tar czf "$OUT/session.tgz" -C "$WORK" .
cp "$WORK/catalogue/manifest.json" "$OUT/manifest.json" 2>/dev/null
echo; tail -n 30 "$WORK/example.log"; echo; tail -n 25 "$WORK/catalogue_table.txt"; echo; tail -n 12 "$WORK/faults.log"
echo; cat "$WORK/summary.txt"
