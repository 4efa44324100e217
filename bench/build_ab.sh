#!/usr/bin/env bash
# The shared precompiled header against none, on the cold build of KERNELS (default 20) distinct CUDA load_inline
# kernels, in one device call (issue 21's cold bar): each build on an empty cache of its own, the shared header's
# one-off compile counted in its build; the header build first, so that whatever the first build warms on the
# machine (page cache, nvcc's start) goes to the plain one. Then where one extension's seconds go per nvcc phase.
#   OUT=/dir bash bench/build_ab.sh      (carry .whl; everything comes back as $OUT/bundle.tar)
set -uo pipefail
cd "$(dirname "$0")/.."
OUT=${OUT:-/tmp/kb-build-ab}
KERNELS=${KERNELS:-20}
BUDGET_S=${BUDGET_S:-420}
mkdir -p "$OUT"
source bench/device_env.sh
source bench/budget_steps.sh
common=(--kernels "$KERNELS" --dim 131072 --build-only)
step pch 200 python3 bench/bench_throughput.py "${common[@]}" --shared-pch --workdir build/ab-pch --out "$OUT/pch"
step plain 200 python3 bench/bench_throughput.py "${common[@]}" --workdir build/ab-plain --out "$OUT/plain"
step phases 120 python3 bench/nvcc_phases.py --out "$OUT/phases"
for f in pch plain phases; do echo "== $f"; tail -n 12 "$OUT/$f.log"; done
cat "$OUT/walls.txt"
tar -cf /tmp/kb-bundle.tar -C "$OUT" . && find "$OUT" -mindepth 1 -delete && mv /tmp/kb-bundle.tar "$OUT/bundle.tar"
