#!/usr/bin/env bash
# Diagnoses the H200 stall of the timing-bound test: runs it with KB_RUNNER_TRACE, samples every python
# process's threads (state, wchan, syscall, kernel stack) and py-spy's native stacks while it runs, then
# runs it again with the judge's pause of the runner turned off.   OUT=/dir bash bench/stall_probe.sh
set -uo pipefail
cd "$(dirname "$0")/.."
OUT=${OUT:-/tmp/kb-stall}
mkdir -p "$OUT"
export KB_REQUIRE_SANDBOX=1 KB_RUNNER_TRACE=1
source bench/device_env.sh
sample() {  # $1: label
  {
    echo "=== $1 at $(date +%T)"; free -m | head -2
    ps -eo pid,ppid,pgid,stat,wchan:24,time,cmd --forest | grep -E "python|bwrap" | grep -v grep
    for pid in $(pgrep -f "python3"); do
      for task in /proc/$pid/task/*; do
        echo "-- $pid/${task##*/} $(cut -d' ' -f3,14,15 "$task/stat" 2>/dev/null) wchan=$(cat "$task/wchan" 2>/dev/null) syscall=$(cut -d' ' -f1-3 "$task/syscall" 2>/dev/null)"
        head -n 6 "$task/stack" 2>/dev/null | sed 's/^/     /'
      done
    done
  } >> "$OUT/samples.txt" 2>&1
}
spy() {
  for pid in $(pgrep -f "python3 (bench/stall_probe|-m validator.evaluate.runner.serve)"); do
    echo "== $pid $1" >> "$OUT/spy.txt"; timeout 20 py-spy dump --native --pid "$pid" >> "$OUT/spy.txt" 2>&1
  done
}
timeout --signal=INT 170 python3 bench/stall_probe.py > "$OUT/pause.log" 2>&1 &
job=$!
for round in 1 2 3 4 5 6 7; do
  sleep 20; kill -0 $job 2>/dev/null || break
  sample "t=${SECONDS}s"; [ "$round" = 4 ] || [ "$round" = 7 ] && spy "t=${SECONDS}s"
done
wait $job; echo "with pause: rc=$?" | tee "$OUT/summary.txt"
timeout --signal=INT 170 python3 bench/stall_probe.py --no-pause > "$OUT/nopause.log" 2>&1
echo "without pause: rc=$?" | tee -a "$OUT/summary.txt"
grep -h "passed\|failed\|Error" "$OUT/pause.log" "$OUT/nopause.log" | tail -n 8
grep -c "fetch: reply" "$OUT/pause.log" "$OUT/nopause.log"
cat "$OUT/summary.txt"
