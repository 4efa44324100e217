# Sourced by device scripts after BUDGET_S and OUT are set: the seconds left of the call's budget, and `step`, one
# part of the call bounded by its own limit and by what is left (its output in $OUT/NAME.log, its exit status and
# wall time in $OUT/walls.txt).
started=$(date +%s)
left() { echo $(( BUDGET_S - ($(date +%s) - started) )); }
step() {  # step NAME SECONDS COMMAND...
  local name=$1 limit=$2 t0
  shift 2
  [ "$(left)" -lt "$limit" ] && limit=$(left)
  [ "$limit" -le 10 ] && { echo "$name: skipped, no time left" | tee -a "$OUT/walls.txt"; return; }
  t0=$(date +%s)
  timeout --signal=INT --kill-after=10 "$limit" "$@" > "$OUT/$name.log" 2>&1
  echo "$name: rc=$? wall $(( $(date +%s) - t0 )) s" | tee -a "$OUT/walls.txt"
}
