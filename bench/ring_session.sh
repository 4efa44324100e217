#!/usr/bin/env bash
# The ring's copy threads on a GPU (issue 21's one-problem bar, the row's large element-wise problems):
#   OUT=/dir bash bench/ring_session.sh
# 1. bench/bench_channel.py: a 4 GiB reply GPU to GPU between two processes, through the pipe, the ring with one
#    copy thread per side, and the ring with channel.COPY_THREADS per side, interleaved (the A/B ratio);
# 2. the channel's GPU-marked tests;
# 3. bench/one_problem.sh: the CUDA ReLU at upstream's 6.4 GB tensors, cold then warm, with its phases.
set -uo pipefail
OUT=${OUT:-/tmp/kb-ring}
mkdir -p "$OUT"
source bench/device_env.sh
nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.max.sm --format=csv,noheader | tee "$OUT/gpu.txt"
nproc | tee -a "$OUT/gpu.txt"
timeout 180 python3 bench/bench_channel.py --gib 4 --repeat 3 2>&1 | tee "$OUT/channel.txt"
timeout 200 python3 -m pytest -q -m gpu -p no:cacheprovider tests/evaluate/worker/test_judge_runner.py \
  > "$OUT/gpu-tests.log" 2>&1
echo "gpu tests: rc=$?; $(tail -n 1 "$OUT/gpu-tests.log")" | tee -a "$OUT/channel.txt"
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
