#!/usr/bin/env bash
# Judges taking turns on one GPU (from protocol 19), one device call per step, each inside 9.5 minutes:
#   OUT=/some/dir bash bench/turns_session.sh ab|run|build SUBMISSION.json [MORE_FLAGS...]
#     build  only build SUBMISSION into the cache: a submission whose build and evaluation together outlast one call
#          (the 2024 board's larger models: gemini's 30 kernels built in 212-254 s on 16 cores) builds in one call and
#          runs in the next, back to back so the machine and its cache stay warm (`run --shard K/N` splits it further)
#     ab   build SUBMISSION, then its first half (--shard 1/2) with --judges-per-gpu 1 and again with 2 (--force),
#          then its second half with 2: the walls side by side, every problem's seconds and phases
#     run  build and evaluate SUBMISSION once with the defaults (two judges per GPU), MORE_FLAGS added (--verified ...),
#          into $OUT/results/$LABEL (default run)
# RESUME=results/HARDWARE/SLUG.json (an earlier run's file, carried) is put where the run writes: it then measures only
# the problems that file lacks or that ended in a harness error (`--force` not passed).
# BOUND_S bounds each evaluation (default 240 s); every results file comes back flat as $OUT/LABEL-<file>.json. The build cache is build/kbcache (git ignores build/), kept between
# calls on a warm machine. Carry .whl, and what SUBMISSION needs: build/lbsub for the 2024 board's agreement sample
# (bench/leaderboard_runs.py, then `kb-validate import`), build/lbmirror for an external submission
# (bench/leaderboard_submissions.py --mirror; KB_EXTERNAL_MIRROR is set to it here).
set -uo pipefail
cd "$(dirname "$0")/.." || exit
OUT=${OUT:-/tmp/kb-turns}
step=${1:?ab or run}; sub=${2:?SUBMISSION.json}; shift 2
mkdir -p "$OUT/results"
export KB_REQUIRE_SANDBOX=1 KB_EXTERNAL_MIRROR=$PWD/build/lbmirror
source bench/device_env.sh
nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.max.sm --format=csv,noheader | tee "$OUT/gpu.txt"
cache=build/kbcache
name=$(basename "$sub" .json)
evaluate() {  # LABEL FLAGS...: one kb-validate run into $OUT/results/LABEL, its wall in summary.txt
  local label=$1; shift
  local t0; t0=$(date +%s.%N)
  if [ -n "${RESUME:-}" ]; then  # an earlier run's file where this one writes: only what it lacks is measured
    local hw; hw=$(basename "$(dirname "$RESUME")")
    mkdir -p "$OUT/results/$label/$hw" && cp "$RESUME" "$OUT/results/$label/$hw/"
  fi
  timeout --signal=INT "${BOUND_S:-240}" python3 -m validator "$sub" --gpus 0 --cache-dir "$cache" \
    --results-dir "$OUT/results/$label" "$@" > "$OUT/$label.log" 2>&1
  local rc=$?
  echo "$label: rc=$rc wall $(python3 -c "import time,sys; print(f'{time.time() - float(sys.argv[1]):.1f}')" "$t0") s" \
    | tee -a "$OUT/summary.txt"
}
t0=$(date +%s)
timeout 420 python3 -m validator "$sub" --build-only --cache-dir "$cache" > "$OUT/build.log" 2>&1
echo "build of $name: rc=$? $(( $(date +%s) - t0 )) s" | tee -a "$OUT/summary.txt"
case "$step" in
  ab)
    mkdir -p "$OUT/results/j1" "$OUT/results/j2" "$OUT/results/rest"
    evaluate j1 --shard 1/2 --judges-per-gpu 1 "$@"
    evaluate j2 --shard 1/2 --judges-per-gpu 2 --force "$@"
    evaluate rest --shard 2/2 "$@" ;;
  run)
    mkdir -p "$OUT/results/${LABEL:-run}"
    evaluate "${LABEL:-run}" "$@" ;;
  build) ;;
  *) echo "unknown step $step: ab, run or build" >&2; exit 2 ;;
esac
python3 - "$OUT/results" >> "$OUT/summary.txt" <<'PY'
import collections, glob, json, statistics, sys
for path in sorted(glob.glob(f"{sys.argv[1]}/*/*/*.json")):
    data = json.load(open(path))
    rows = data["problems"]
    print("#", path.split("/results/")[-1], f"({len(rows)} problems)")
    for p in rows:
        ph = p.get("phases") or {}
        held = [f["code"] for f in p.get("flags", []) if f.get("severity") == "warning"]
        parts = " ".join(f"{k[:6]}={v:.2f}" for k, v in ph.items() if v >= 0.05)
        print(f"{p['key'][:34]:34} {p['status'][:12]:12} x{(p.get('speedup') or 0):6.3f} "
              f"{p.get('seconds') or 0:5.1f}s r={p.get('rounds') or 0:3} {','.join(held)[:34]:34} {parts}")
    counts = collections.Counter(p["status"] for p in rows)
    seconds = [p["seconds"] for p in rows if p.get("seconds")]
    print(" ", dict(counts), f"held {counts.get('needs_review', 0)}/{len(rows)}",
          f"median {statistics.median(seconds):.1f} s a problem" if seconds else "")
PY
for f in "$OUT"/results/*/*/*.json; do  # flat, as the device's copy back keeps shallow files only
  [ -e "$f" ] && cp "$f" "$OUT/$(basename "$(dirname "$(dirname "$f")")")-$(basename "$f")"
done
cat "$OUT/summary.txt"
