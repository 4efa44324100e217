#!/usr/bin/env bash
# What the evaluation engine was checked with on the lent GPU machine, one step per device call.
#   OUT=/some/dir bash bench/device_runs.sh STEP     (STEP: 1 spawn bench + example submission,
#     2 GPU tests ($TESTS: pytest arguments), 3 throughput: $KERNELS kernels, cold build, then evaluation,
#     4 fault isolation: bench/bench_faults.py with timeout scale $SCALE)
# Logs and results go under $OUT; a short table is printed last.
set -uo pipefail
OUT=${OUT:-/tmp/kb-device-out}
mkdir -p "$OUT"
export PYTHONPATH=$PWD${PYTHONPATH:+:$PYTHONPATH} PYTHONUNBUFFERED=1
# jsonschema is not in the GPU image: carried as wheels in .whl/ (see the device README).
if ls .whl/*.whl >/dev/null 2>&1; then
  python3 -m pip install -q --no-index --no-deps --no-compile --no-cache-dir --upgrade --target /tmp/site .whl/*.whl \
    && export PYTHONPATH=$PYTHONPATH:/tmp/site
fi
nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.max.sm --format=csv,noheader | tee "$OUT/gpu.txt"

table() {  # one line per problem of every results file under $OUT/results
  python3 - "$@" <<'PY'
import json, pathlib, sys
for path in sorted(pathlib.Path(sys.argv[1]).rglob("*.json")):
    data = json.loads(path.read_text())
    print(f"{path.name}: {data['environment']['gpu']} driver {data['environment']['driver']}")
    for p in data["problems"]:
        ref, ker = p.get("reference") or {}, p.get("kernel") or {}
        print(f"  {p['key']:36} {p['status']:14} ref {ref.get('median', float('nan')):8.4f} ms  "
              f"kernel {ker.get('median', float('nan')):8.4f} ms  speedup {p.get('speedup') or 0:6.3f}  "
              f"{p['seconds']:6.1f} s  {(p.get('error') or '').splitlines()[0][:60] if p.get('error') else ''}")
PY
}

case "${1:-1}" in
1)
  python3 bench/bench_spawn.py --runs 5 --out "$OUT/spawn.json" 2>&1 | tee "$OUT/spawn.log"
  start=$(date +%s)
  python3 -m validator submissions/kernelbench-team-examples.json --results-dir "$OUT/results" \
    --json "$OUT/example_report.json" > "$OUT/example.log" 2>&1
  echo "example submission: rc=$? in $(( $(date +%s) - start )) s"
  tail -25 "$OUT/example.log"
  cat "$OUT/spawn.log"
  table "$OUT/results"
  ;;
2)
  python3 -m pytest -m gpu -q -rA -p no:cacheprovider ${TESTS:-tests/test_engine.py tests/test_sandbox.py} 2>&1 \
    | tee "$OUT/gpu_tests.log" | tail -30
  ;;
4)
  python3 bench/bench_faults.py --timeout-scale "${SCALE:-0.1}" --out "$OUT/results" 2>&1 | tee "$OUT/faults.log" | tail -8
  ;;
3)
  python3 bench/bench_throughput.py --kernels "${KERNELS:-32}" ${BUILD_ONLY:+--build-only} --out "$OUT/tp" \
    2>&1 | tee "$OUT/throughput.log"
  tail -5 "$OUT/tp/cold.log"
  ;;
esac
