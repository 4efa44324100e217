#!/usr/bin/env bash
# Export what upstream KernelBench's evaluation needs at one commit into a folder git ignores, for
# bench/upstream_side_by_side.sh:
#   bash bench/upstream_checkout.sh COMMIT [DEST]          (DEST defaults to .upstream/COMMIT)
#   KB_UPSTREAM_GIT=/path/to/KernelBench.git bash bench/upstream_checkout.sh 91bfc2c
# Exported: src/ (the evaluation code: src/kernelbench/ at 423217d, the flat src/ package at 91bfc2c) and the
# problem files KernelBench/level1..3, nothing else (under 2 MB a commit; a device call carries 64 MiB in all).
# DEST/COMMIT records the full commit. Upstream's code is never committed here: /.upstream/ is in .gitignore.
# The git directory is $KB_UPSTREAM_GIT, else the mirror the session's fetch tool left under /work/.mirror.
set -euo pipefail
cd "$(dirname "$0")/.." || exit
commit=${1:?usage: upstream_checkout.sh COMMIT [DEST]}
dest=${2:-.upstream/$commit}
git_dir=${KB_UPSTREAM_GIT:-}
if [ -z "$git_dir" ]; then
  for candidate in /work/.mirror/ScalingIntelligence+KernelBench/*; do
    if git -C "$candidate" rev-parse --git-dir >/dev/null 2>&1; then git_dir=$candidate; break; fi
  done
fi
[ -n "$git_dir" ] || { echo "no KernelBench git directory: set KB_UPSTREAM_GIT to a clone of ScalingIntelligence/KernelBench" >&2; exit 2; }
full=$(git -C "$git_dir" rev-parse --verify --quiet "$commit^{commit}") \
  || { echo "$git_dir has no commit $commit" >&2; exit 2; }
if [ -e "$dest" ]; then
  # replace only what looks like an export (nothing at its top but src, KernelBench, COMMIT); else stop
  for entry in "$dest"/* "$dest"/.[!.]*; do
    [ -e "$entry" ] || continue
    case ${entry##*/} in
      src|KernelBench|COMMIT) ;;
      *) echo "$dest exists and holds ${entry##*/}: not an export of this script; remove it or pick another DEST" >&2
         exit 2 ;;
    esac
  done
  rm -rf -- "$dest"
fi
mkdir -p "$dest"
paths=(src)
for level in 1 2 3; do
  git -C "$git_dir" cat-file -e "$full:KernelBench/level$level" 2>/dev/null && paths+=("KernelBench/level$level")
done
git -C "$git_dir" archive "$full" "${paths[@]}" | tar -x -C "$dest"
echo "$full" > "$dest/COMMIT"
if [ -f "$dest/src/kernelbench/eval.py" ]; then layout="src/kernelbench (package kernelbench)"
elif [ -f "$dest/src/eval.py" ]; then layout="src (package src)"
else echo "warning: $commit has neither src/kernelbench/eval.py nor src/eval.py" >&2; layout=unknown; fi
echo "$dest: KernelBench $full, ${paths[*]}; evaluation in $layout; $(du -sh "$dest" | cut -f1)"
