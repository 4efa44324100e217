#!/usr/bin/env bash
# Re-run the full-size catalogue check on the GPU for the problems listed in $ONLY_FILE (one key per
# line), e.g. those resized after a full run. Writes under $OUT like bench/catalogue_full_gpu.sh.
set -uo pipefail
cd "$(dirname "$0")/.."
OUT=${OUT:-/tmp/kb-catalogue-recheck} BUDGET_S=${BUDGET_S:-240} PER_PROBLEM_S=${PER_PROBLEM_S:-40} \
  bash bench/catalogue_full_gpu.sh --only $(cat "${ONLY_FILE:?one problem key per line}")
