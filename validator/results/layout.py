"""Where results live: `results/<hardware>/<slug>.json`, a split run's parts beside it as
`<slug>.shard-I-of-N.json`, cached baselines under `results/<hardware>/baselines/`. Every reader and writer
of results names paths through this module."""

from __future__ import annotations

import re
from collections.abc import Iterator
from pathlib import Path

LOCAL_RESULTS_DIR = Path("out/results")
"""Where a run writes unless `--results-dir` says otherwise: ignored by git, never read by the site, so a local
check cannot land in the committed `results/` or a pull request. The verified workflows pass `--results-dir results`."""
INTERPRETER_HARDWARE = "cpu-triton-interpreter"
"""The hardware key of `--interpret` runs (`hardware_key("cpu (Triton interpreter)")`): they time nothing, so the
site never ranks them even when one is written into `results/`."""
SHARD_FILE = re.compile(r"\.shard-[0-9]+-of-[0-9]+\.json$")
BASELINES_DIR = "baselines"


def hardware_key(gpu_name: str) -> str:
    """`NVIDIA H100 80GB HBM3` -> `nvidia-h100-80gb-hbm3`."""
    return re.sub(r"[^a-z0-9]+", "-", gpu_name.lower()).strip("-") or "unknown"


def shard_suffix(shard: tuple[int, int] | None) -> str:
    """File-name part for a shard's results: `.shard-2-of-4`, or empty for a whole run."""
    return f".shard-{shard[0]}-of-{shard[1]}" if shard else ""


def results_path(results_dir: Path, hardware: str, slug: str, shard: tuple[int, int] | None = None) -> Path:
    return results_dir / hardware / f"{slug}{shard_suffix(shard)}.json"


def is_shard_file(name: str) -> bool:
    """Whether a results file name is a shard's (`<slug>.shard-2-of-4.json`), not a whole run's."""
    return SHARD_FILE.search(name) is not None


def whole_run_files(results_dir: Path) -> Iterator[Path]:
    """Every whole run's results file, sorted; shard parts and baseline caches are not results."""
    for path in sorted(results_dir.glob("*/*.json")):
        if not is_shard_file(path.name):
            yield path


def baseline_cache_path(results_dir: Path, hardware: str, backend: str) -> Path:
    return results_dir / hardware / BASELINES_DIR / f"{backend}.json"
