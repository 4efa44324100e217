#!/usr/bin/env bash
# A one-problem run of this checkout against another commit's, alternating on one machine with one build cache:
# the before/after ratio of a change to the run's fixed costs (the head start of runners_ahead, for one).
#   OUT=/dir BEFORE=<commit or directory> [ROUNDS=3] [KERNEL=<file of the examples>] bash bench/one_problem_ab.sh [args]
# e.g. on a CPU machine: BEFORE=751d866 KERNEL=level1_23_softmax_triton.py bash bench/one_problem_ab.sh --interpret
# The GPU machine gets the working tree without git history: export the other commit into an ignored folder
# first (`mkdir -p build/before && git archive 751d866 validator problems pyproject.toml | tar -x -C build/before`),
# carry build/before and .whl, and pass BEFORE=build/before.
# Each tree runs its own code (`python3 -m validator` from its root). The first pass of each is a warm-up, not
# counted. Prints every wall time, then the medians and their ratio.
set -uo pipefail
cd "$(dirname "$0")/.."
OUT=${OUT:-/tmp/kb-one-problem-ab}
ROUNDS=${ROUNDS:-3}
KERNEL=${KERNEL:-level1_19_relu_cuda.py}
: "${BEFORE:?BEFORE=<commit> is required}"
mkdir -p "$OUT"
[ -f bench/device_env.sh ] && source bench/device_env.sh
work=$(mktemp -d)
if [ -d "$BEFORE" ]; then
  before=$(cd "$BEFORE" && pwd)
  trap 'rm -rf "$work"' EXIT
else
  before=$work/before
  git worktree add -q --detach "$before" "$BEFORE" || exit 2
  trap 'git worktree remove --force "$before"; rm -rf "$work"' EXIT
fi
python3 bench/one_problem_submission.py "$work" "$KERNEL" > /dev/null || exit 2
one() {  # one TREE NAME: a one-problem run with that tree's code; prints its wall seconds
  local t0 rc
  t0=$(date +%s.%N)
  (cd "$1" && PYTHONPATH=$1 timeout --signal=INT 280 python3 -m validator "$work/submissions/one-problem.json" \
    --problems-dir "$1/problems" --results-dir "$work/results-$2" --cache-dir "$work/cache" --force "${@:3}" \
    > "$OUT/$2.log" 2>&1)
  rc=$?
  python3 -c "import sys; print(f'{float(sys.argv[2]) - float(sys.argv[1]):.2f}', sys.argv[3])" "$t0" \
    "$(date +%s.%N)" "$rc"
}
one "$before" before "$@" > /dev/null  # warm-up: the build cache, the page cache
one "$PWD" after "$@" > /dev/null
: > "$OUT/walls.txt"
for round in $(seq "$ROUNDS"); do
  for side in before after; do
    tree=$([ "$side" = before ] && echo "$before" || echo "$PWD")
    read -r wall rc < <(one "$tree" "$side" "$@")
    echo "round $round $side ${wall} s rc=$rc" | tee -a "$OUT/walls.txt"
  done
done
python3 - "$OUT/walls.txt" "$BEFORE" <<'PY'
import statistics, sys
walls = {"before": [], "after": []}
for line in open(sys.argv[1]):
    parts = line.split()
    walls[parts[2]].append(float(parts[3]))
b, a = statistics.median(walls["before"]), statistics.median(walls["after"])
print(f"median wall: before ({sys.argv[2][:10]}) {b:.2f} s, after {a:.2f} s, after/before {a / b:.3f}")
PY
