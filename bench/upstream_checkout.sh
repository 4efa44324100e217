#!/usr/bin/env bash
# Export upstream KernelBench's evaluation code at a commit into an ignored folder, for bench/upstream_side_by_side.sh:
#   KB_UPSTREAM_GIT=/path/to/KernelBench.git bash bench/upstream_checkout.sh 423217d [.upstream/423217d]
# Only src/ is exported (the problem files are this repository's, byte-identical to upstream's). Never commit it.
set -euo pipefail
cd "$(dirname "$0")/.." || exit
commit=${1:?usage: upstream_checkout.sh COMMIT [DEST]}
dest=${2:-.upstream/$commit}
git_dir=${KB_UPSTREAM_GIT:-$(ls -d /work/.mirror/ScalingIntelligence+KernelBench/repo 2>/dev/null || true)}
[ -n "$git_dir" ] || { echo "set KB_UPSTREAM_GIT to a clone of ScalingIntelligence/KernelBench" >&2; exit 2; }
mkdir -p "$dest"
git -C "$git_dir" archive "$commit" src | tar -x -C "$dest"
du -sh "$dest"
