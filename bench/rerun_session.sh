#!/usr/bin/env bash
# Two forced runs of one submission, then how often each run's speedup falls in the other's interval (issue 21).
#   OUT=/some/dir bash bench/rerun_session.sh [SLUG, default kernelbench-team] [EXTRA kb-validate ARGS...]
# Each run writes its own results directory under $OUT; the comparison is $OUT/rerun_coverage.json, its table last.
set -uo pipefail
cd "$(dirname "$0")/.."
OUT=${OUT:-/tmp/kb-rerun}
SLUG=${1:-kernelbench-team}
shift || true
mkdir -p "$OUT"
export PYTHONPATH=$PWD${PYTHONPATH:+:$PYTHONPATH} PYTHONUNBUFFERED=1
if ls .whl/*.whl >/dev/null 2>&1; then  # as bench/gpu_tests.sh: jsonschema carried as wheels
  python3 -m pip install -q --no-index --no-deps --no-compile --no-cache-dir --upgrade --target /tmp/site .whl/*.whl \
    && export PYTHONPATH=$PYTHONPATH:/tmp/site
fi
for run in 1 2; do
  t0=$(date +%s)
  timeout --signal=INT 250 python3 -m validator "submissions/$SLUG.json" --force --results-dir "$OUT/run$run" "$@" \
    > "$OUT/run$run.log" 2>&1
  echo "run $run: rc=$? wall $(( $(date +%s) - t0 )) s" | tee -a "$OUT/summary.txt"
done
first=$(ls "$OUT"/run1/*/"$SLUG".json | head -1)
second=$(ls "$OUT"/run2/*/"$SLUG".json | head -1)
python3 bench/rerun_coverage.py "$first" "$second" --out "$OUT/rerun_coverage.json" | tee "$OUT/rerun_coverage.txt"
cat "$OUT/summary.txt"
