#!/usr/bin/env bash
# A one-problem pull request's wall time: one of the examples (default: the CUDA ReLU, upstream's 6.4 GB
# tensors; KERNEL=<file of the examples> for another) alone through kb-validate, cold (empty build cache) and
# then warm (same cache, --force), as a contributor's PR runs it. FROM=submissions/X.json takes the kernel from another
# submission's folder, TRACK=91bfc2c runs it at that track's version of its problem (one_problem_submission.py).
#   OUT=/dir bash bench/one_problem.sh [extra kb-validate arguments, e.g. --no-gpu for a dry run]
set -uo pipefail
cd "$(dirname "$0")/.."
OUT=${OUT:-/tmp/kb-one-problem}
mkdir -p "$OUT"
[ -f bench/device_env.sh ] && source bench/device_env.sh
work=$(mktemp -d)
KERNEL=${KERNEL:-level1_19_relu_cuda.py}
python3 bench/one_problem_submission.py "$work" "$KERNEL" ${FROM:+--from "$FROM"} ${TRACK:+--track "$TRACK"} \
  > /dev/null || exit 2
mkdir -p "$OUT/results"  # kb-validate refuses a --results-dir that does not exist
for pass in cold warm; do
  t0=$(date +%s.%N)
  timeout --signal=INT 280 python3 -m validator "$work/submissions/one-problem.json" --problems-dir problems \
    --results-dir "$OUT/results" --cache-dir "$work/cache" $([ "$pass" = warm ] && echo --force) "$@" \
    > "$OUT/one-$pass.log" 2>&1
  echo "one problem, $pass: rc=$? wall $(python3 -c "import sys; print(round(float(sys.argv[2]) - float(sys.argv[1]), 1))" "$t0" "$(date +%s.%N)") s" | tee -a "$OUT/summary.txt"
done
grep -h "build-summary\|evaluate " "$OUT/one-cold.log" "$OUT/one-warm.log"; rm -rf "$work"
tar -cf "$OUT/results.tar" -C "$OUT" results  # the result files (flags, the bound's allowance) lie too deep to return
