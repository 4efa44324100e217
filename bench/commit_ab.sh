#!/usr/bin/env bash
# Two versions of the harness on the same small problems, in one device call, to tell a change in the code from a
# change in the machine: the working tree (B) and an earlier commit's tree (A), each evaluating the same submission
# twice, interleaved A B C D B A, on the same GPU and host, with the host probed before and after (bench/host_probe.py).
# C is the working tree with one judge per GPU (--judges-per-gpu 1): whether the next problem's start beside a
# problem's timing (two judges taking turns) moves its small calls' times. D is a copy of the working tree whose
# runner does not synchronize between the L2 flush and a call's start event (a candidate, not the protocol): the
# host's launch of the call then overlaps the flush, as in Triton's do_bench, and leaves the call's events, where
# upstream's timing and ours keep it; how much of a small call's time and of its blocks' spread is the host's.
# Made here, carried with .whl (git ignores build/):
#   mkdir -p build/ab-617e0e2 && git archive 617e0e2 | tar -x -C build/ab-617e0e2
#   OUT=$OUT OLD=build/ab-617e0e2 bash bench/commit_ab.sh          (about 7 minutes for the default six kernels)
# KERNELS: files of submissions/kernelbench-team/ (default six elementwise Triton kernels), run at TRACK's version of
# each problem (default 91bfc2c: 20-100 us calls, where the host's launch is a large part of a call's device time).
# Prints per problem and run the reference's and the kernel's medians (ms), the speedup and its interval, last.
set -uo pipefail
cd "$(dirname "$0")/.." || exit
OUT=${OUT:-/tmp/kb-commit-ab}
OLD=${OLD:?OLD=an earlier commit\'s tree, e.g. build/ab-617e0e2}
TRACK=${TRACK:-91bfc2c}
KERNELS=${KERNELS:-level1_20_leakyrelu_triton.py level1_21_sigmoid_triton.py level1_22_tanh_triton.py \
level1_25_swish_triton.py level1_26_gelu_triton.py level1_39_l2norm_triton.py}
mkdir -p "$OUT"
export KB_REQUIRE_SANDBOX=1
source bench/device_env.sh
nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.max.sm --format=csv,noheader | tee "$OUT/gpu.txt"
work=$(mktemp -d)
# shellcheck disable=SC2086  # KERNELS is a list of file names
python3 bench/one_problem_submission.py "$work" $KERNELS --from submissions/kernelbench-team.json --track "$TRACK" \
  > /dev/null || exit 2
python3 bench/host_probe.py --json "$OUT/host-before.json"
nosync=$work/nosync
mkdir -p "$nosync" && cp -r validator problems submissions pyproject.toml "$nosync"/
python3 - "$nosync/validator/evaluate/runner/serve.py" <<'PATCH' || exit 2
import sys
from pathlib import Path

path = Path(sys.argv[1])
text = path.read_text()
synced = "        self.flush.zero_()\n        torch.cuda.synchronize()\n"
if synced not in text:
    sys.exit("D: the runner's flush and synchronize are not where this script expects them")
path.write_text(text.replace(synced, "        self.flush.zero_()\n"))
PATCH

run() {  # TREE LABEL [FLAGS...]: one kb-validate run of the submission with TREE's harness and problems
  local tree=$1 label=$2; shift 2
  mkdir -p "$OUT/$label"
  local t0; t0=$(date +%s.%N)
  (cd "$tree" && PYTHONPATH=$PWD timeout --signal=INT 240 python3 -m validator "$work/submissions/one-problem.json" \
    --problems-dir problems --results-dir "$OUT/$label" --cache-dir "$work/cache-$(basename "$tree")" --gpus 0 "$@") \
    > "$OUT/$label.log" 2>&1
  echo "$label: rc=$? wall $(python3 -c "import sys; print(round(float(sys.argv[2]) - float(sys.argv[1]), 1))" \
    "$t0" "$(date +%s.%N)") s" | tee -a "$OUT/summary.txt"
}
run "$OLD" build-A --build-only
run "$PWD" build-B --build-only
run "$nosync" build-D --build-only
run "$OLD" A1 --force
run "$PWD" B1 --force
run "$PWD" C1 --force --judges-per-gpu 1
run "$nosync" D1 --force
run "$PWD" B2 --force
run "$OLD" A2 --force
python3 bench/host_probe.py --json "$OUT/host-after.json"
cat "$OUT/host-before.json" "$OUT/host-after.json"
python3 - "$OUT" <<'EOF'
import json, sys
from pathlib import Path

out = Path(sys.argv[1])
runs = {}
for label in ("A1", "B1", "C1", "D1", "B2", "A2"):
    files = sorted((out / label).glob("*/one-problem.json"))
    if files:
        data = json.loads(files[0].read_text())
        notes = data["environment"].get("extra", {}).get("launcher_notes", [])
        runs[label] = ({p["key"]: p for p in data["problems"]}, data["protocol"]["version"], notes[:1])
def spread(blocks, side):  # a problem's slowest block median over its fastest, one side
    values = [b[side] for b in blocks or [] if b.get(side)]
    return max(values) / min(values) if len(values) > 1 else None


def median(values):
    values = sorted(v for v in values if v is not None)
    return values[len(values) // 2] if values else float("nan")


for label, (found, version, notes) in runs.items():
    timed = [p for p in found.values() if p.get("speedup_ci")]
    halfwidth = median([(p["speedup_ci"][1] - p["speedup_ci"][0]) / 2 / p["speedup"] for p in timed])
    print(f"{label}: protocol {version}; {notes[0][:60] if notes else 'no launcher note'}; median over problems: "
          f"block spread ref {median([spread(p.get('blocks'), 'reference_ms') for p in timed]):.3f} "
          f"ker {median([spread(p.get('blocks'), 'kernel_ms') for p in timed]):.3f}, halfwidth {halfwidth:.3f}")
print(f"{'problem':30} {'run':3} {'ref ms':>8} {'ker ms':>8} {'speedup':>8} {'interval':>15} {'s':>6} status")
for key in sorted({k for found, _, _ in runs.values() for k in found}):
    for label, (found, _, _) in runs.items():
        p = found.get(key)
        if not p:
            continue
        ref, ker = (p.get("reference") or {}).get("median"), (p.get("kernel") or {}).get("median")
        ci = p.get("speedup_ci") or [None, None]
        fmt = lambda v, spec: format(v, spec) if isinstance(v, (int, float)) else "-"  # noqa: E731
        print(f"{key[:30]:30} {label:3} {fmt(ref, '8.4f')} {fmt(ker, '8.4f')} {fmt(p.get('speedup'), '8.3f')} "
              f"{fmt(ci[0], '7.3f')}-{fmt(ci[1], '<7.3f')} {p['seconds']:6.1f} {p['status']}")
EOF
rm -rf "$work"
