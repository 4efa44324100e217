#!/usr/bin/env bash
# The warm 100-kernel throughput, sampled in one device call: bench_throughput.py's CUDA ReLU kernels on 2 GiB
# tensors (--dim 131072, the size issue 18's 3.5 min bar was set at), KERNELS of them (default 20): a cold build,
# then two warm runs (the first fills the judges' Triton cache, the second runs as every later run does), then
# where a round's milliseconds go on one large-output Triton kernel. Seconds per problem project to 100.
#   OUT=/dir bash bench/throughput_sample.sh      (carry .whl; everything comes back as $OUT/bundle.tar)
set -uo pipefail
cd "$(dirname "$0")/.."
OUT=${OUT:-/tmp/kb-throughput-sample}
KERNELS=${KERNELS:-20}
BUDGET_S=${BUDGET_S:-570}
mkdir -p "$OUT"
source bench/device_env.sh
source bench/budget_steps.sh
nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.max.sm --format=csv,noheader | tee "$OUT/gpu.txt"
common=(--kernels "$KERNELS" --dim 131072 --workdir build/sample)
step cold 240 python3 bench/bench_throughput.py "${common[@]}" --phase cold --out "$OUT/cold"
KB_RUNNER_TRACE=1 step warm1 150 python3 bench/bench_throughput.py "${common[@]}" --phase warm --out "$OUT/warm1"
step warm2 150 python3 bench/bench_throughput.py "${common[@]}" --phase warm --out "$OUT/warm2"
KB_RUNNER_TRACE=1 step rounds 100 python3 bench/round_costs.py --kernels level1_23_softmax_triton.py \
  --out "$OUT/rounds.json"
for f in cold warm1 warm2; do echo "== $f"; grep -v "^runner: \|^judge: " "$OUT/$f.log" | tail -4; done
grep -v "^runner: \|^judge: " "$OUT/rounds.log" | grep -A30 "^step" | head -30
cat "$OUT/walls.txt"
tar -cf /tmp/kb-bundle.tar -C "$OUT" . && find "$OUT" -mindepth 1 -delete && mv /tmp/kb-bundle.tar "$OUT/bundle.tar"
