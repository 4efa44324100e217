#!/usr/bin/env bash
# Every GPU-marked test, then the example submission end to end, in one device call.
#   OUT=/some/dir bash bench/gpu_tests.sh [PYTEST ARGS...]
# Carry .whl (jsonschema and its dependencies, cp312; see bench/launch_data.sh). Logs land in $OUT; the short
# summary is printed last.
set -uo pipefail
cd "$(dirname "$0")/.."
OUT=${OUT:-/tmp/kb-gpu-tests}
mkdir -p "$OUT"
source bench/device_env.sh  # the carried wheels, installed where judges and runners find them too
nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.max.sm --format=csv,noheader | tee "$OUT/gpu.txt"

t0=$(date +%s)
timeout --signal=INT 400 python3 -m pytest -q -m gpu -p no:cacheprovider --continue-on-collection-errors "${@:-tests}" > "$OUT/gpu_tests.log" 2>&1
echo "gpu tests: rc=$? wall $(( $(date +%s) - t0 )) s" | tee "$OUT/summary.txt"

t0=$(date +%s)
rm -rf /tmp/kb-example-results && mkdir -p /tmp/kb-example-results
timeout --signal=INT 150 python3 -m validator submissions/kernelbench-team-examples.json \
  --results-dir /tmp/kb-example-results --json "$OUT/example.report.json" > "$OUT/example.log" 2>&1
echo "example: rc=$? wall $(( $(date +%s) - t0 )) s" | tee -a "$OUT/summary.txt"
cp /tmp/kb-example-results/*/*.json "$OUT/" 2>/dev/null

echo; tail -n 25 "$OUT/gpu_tests.log"; echo; tail -n 14 "$OUT/example.log"; echo; cat "$OUT/summary.txt"
