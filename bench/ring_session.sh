#!/usr/bin/env bash
# The pinned ring on a GPU (issue 21's one-problem bar; the row's large element-wise problems):
#   OUT=/dir bash bench/ring_session.sh
# 1. bench/bench_ring_memory.py: a 4 GiB reply GPU to GPU between two processes, copied through a ring on disk,
#    copied through one on tmpfs, and pinned on tmpfs, interleaved (the ratios);
# 2. the channel's and the sandbox's GPU-marked and ring tests, and the red-team corpus on the GPU;
# 3. bench/one_problem.sh: the CUDA ReLU at upstream's 6.4 GB tensors, cold then warm, with its phases.
set -uo pipefail
OUT=${OUT:-/tmp/kb-ring}
mkdir -p "$OUT"
source bench/device_env.sh
nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.max.sm --format=csv,noheader | tee "$OUT/gpu.txt"
df -T /tmp /dev/shm | tee -a "$OUT/gpu.txt"
timeout 120 python3 bench/bench_ring_memory.py --gib 4 --repeat 3 2>&1 | tee "$OUT/ring.txt"
timeout 240 python3 -m pytest -q -p no:cacheprovider -m gpu tests/evaluate/judge/test_judge_runner.py \
  tests/evaluate/judge/test_redteam.py > "$OUT/gpu-tests.log" 2>&1
echo "gpu tests: rc=$?; $(tail -n 1 "$OUT/gpu-tests.log")" | tee -a "$OUT/ring.txt"
timeout 60 python3 -m pytest -q -p no:cacheprovider tests/isolation/test_bwrap.py -k ring > "$OUT/ring-test.log" 2>&1
echo "ring sandbox test: rc=$?; $(tail -n 1 "$OUT/ring-test.log")" | tee -a "$OUT/ring.txt"
OUT="$OUT/one" bash bench/one_problem.sh > /dev/null 2>&1
cat "$OUT/one/summary.txt"
python3 - "$OUT/one" <<'PY'
import json, pathlib, sys, tarfile
with tarfile.open(pathlib.Path(sys.argv[1]) / "results.tar") as tar:
    for member in tar.getmembers():
        if member.name.endswith(".json"):
            data = json.load(tar.extractfile(member))
            for p in data["problems"]:
                print(p["key"], p["status"], p.get("speedup"), round(p.get("seconds", 0), 1),
                      {k: round(v, 1) for k, v in (p.get("phases") or {}).items() if v >= 0.5})
PY
