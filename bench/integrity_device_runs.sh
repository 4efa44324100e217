#!/usr/bin/env bash
# What the worker, timing and integrity checks were run with on the lent GPU machine, one step per call.
#   OUT=/some/dir bash bench/integrity_device_runs.sh STEP
#   STEP 1: GPU unit tests (timing, integrity), the red-team corpus on the GPU, the example kernels at
#           full size through real workers; the CUDA example's extension is built once, in the background,
#           and packed into $OUT/relu_ext.tgz for step 2.
#   STEP 2: step 1's checks again (with the carried extension in .notes/relu_ext.tgz), then timing precision
#           (the same kernels measured twice in one run) and the launch-bound comparison.
#   STEP 3: every gpu-marked test of the worker, timing, integrity and red-team files, through pytest.
# Logs go under $OUT; a short table is printed last.
set -uo pipefail
OUT=${OUT:-/tmp/kb-integrity-out}
mkdir -p "$OUT"
export PYTHONPATH=$PWD${PYTHONPATH:+:$PYTHONPATH} PYTHONUNBUFFERED=1 CUDA_HOME=${CUDA_HOME:-/usr/local/cuda}
EXT=/tmp/kb-ext
mkdir -p "$EXT"
nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.max.sm --format=csv,noheader | tee "$OUT/gpu.txt"

build_relu() {  # import the CUDA example once: load_inline compiles it into $EXT
  TORCH_EXTENSIONS_DIR=$EXT python3 -c "import runpy; runpy.run_path('submissions/kernelbench-team-examples/level1_19_relu_cuda.py')"
}

case "${1:-1}" in
1)
  build_relu >"$OUT/build.log" 2>&1 &
  builder=$!
  python3 -m pytest -q -m gpu -p no:cacheprovider tests/test_timing.py tests/test_integrity.py 2>&1 | tee "$OUT/unit.log" | tail -5
  python3 tests/redteam/runner.py --mode gpu -j 4 --json "$OUT/redteam_gpu.json" >"$OUT/redteam.log" 2>&1
  wait $builder; echo "relu build exit $?" | tee -a "$OUT/build.log"
  KB_TEST_EXTENSIONS_DIR=$EXT python3 -m pytest -q -m gpu -p no:cacheprovider tests/test_worker.py 2>&1 | tee "$OUT/worker.log" | tail -5
  tar czf "$OUT/relu_ext.tgz" -C "$EXT" .
  tail -45 "$OUT/redteam.log"
  ;;
2)
  if [ -f .notes/relu_ext.tgz ]; then tar xzf .notes/relu_ext.tgz -C "$EXT"; else build_relu >"$OUT/build.log" 2>&1; fi
  KB_TEST_EXTENSIONS_DIR=$EXT timeout 90 python3 -m pytest -q -m gpu -p no:cacheprovider tests/test_worker.py \
    tests/test_timing.py tests/test_integrity.py 2>&1 | tee "$OUT/worker.log" | tail -3
  timeout 80 python3 tests/redteam/runner.py --mode gpu -j 4 --json "$OUT/redteam_gpu.json" >"$OUT/redteam.log" 2>&1
  tail -1 "$OUT/redteam.log"
  timeout 170 python3 bench/bench_timing_precision.py --out "$OUT" --extensions-dir "$EXT" \
    --identity level1/1_Square_matrix_multiplication_ level3/1_MLP 2>&1 | tee "$OUT/precision.log" | tail -10
  python3 bench/bench_launch_bound.py --out "$OUT" --sizes 4096 1048576 16777216 2>&1 | tee "$OUT/launch_bound.log" | tail -4
  grep -v " yes$" "$OUT/redteam.log" | tail -8
  ;;
3)
  python3 -m pytest -q -m gpu -p no:cacheprovider tests/test_worker.py tests/test_timing.py tests/test_integrity.py \
    tests/test_redteam.py 2>&1 | tee "$OUT/pytest_gpu.log" | tail -15
  ;;
esac
