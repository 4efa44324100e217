"""Reference rows: PyTorch eager and torch.compile scored like entries, shown beside them, never ranked.

Every record carries the eager and torch.compile times its run measured for the problem, so both
references can be scored from the measurements already made: per problem, the median of those times over
the runs of one hardware. A reference's speedup against a baseline is baseline time / its own time (eager
against eager is exactly 1, so its fast_1 is 0 by the strict `>`). A submission whose method is
`compiler` (the committed torch.compile baseline run) is also a reference: it is measured as a kernel and
keeps its own row, styled as a reference.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

import numpy as np
import pandas as pd

from site_src.scoring import THRESHOLDS, fast_p, fast_p_label

REFERENCE_METHODS = frozenset({"compiler"})
"""Submission methods that make an entry a reference rather than a competitor."""
REFERENCE_NOTE = "reference: shown for comparison, never ranked"
TIME_COLUMNS = {"eager": "reference_ms", "torch-compile": "compile_ms"}
REFERENCE_LABELS = {
    "eager": "PyTorch eager (reference)",
    "torch-compile": "torch.compile (reference, baseline timings)",
}


def is_reference(document: Mapping[str, Any] | None) -> bool:
    """Whether a submission document is a reference (its method is in `REFERENCE_METHODS`): every page shows
    it apart, as a reference row or line, and never ranks it or names it best."""
    return document is not None and str(document.get("method", "")) in REFERENCE_METHODS


@dataclass(frozen=True)
class ReferenceScore:
    name: str
    reference: str
    """Which reference: `eager` or `torch-compile`."""
    fast: dict[str, float]
    """fast_p label -> value, at every threshold of the tables."""
    geomean: float | None
    measured: int
    """Problems of the level that have the times this row needs."""
    problems: int


def _median_times(aligned: pd.DataFrame, hardware: str, level: int) -> pd.DataFrame:
    rows = aligned[(aligned["hardware"] == hardware) & (aligned["level"] == level)]
    return rows.groupby("key")[list(TIME_COLUMNS.values())].median()


def reference_scores(aligned: pd.DataFrame, hardware: str, baseline: str, level: int, problems: int) -> list[
    ReferenceScore
]:
    """Eager and torch.compile scored against `baseline` on one (hardware, level) of `problems` problems."""
    times = _median_times(aligned, hardware, level)
    base = times[TIME_COLUMNS[baseline]]
    scores = []
    for reference, column in TIME_COLUMNS.items():
        speedups = (base / times[column]).replace([np.inf, -np.inf], np.nan).dropna()
        speedups = speedups[speedups > 0].tolist()
        if not speedups:
            continue
        geomean = float(np.exp(np.mean(np.log(speedups))))
        fast = {fast_p_label(p): fast_p(speedups, problems, p) for p in THRESHOLDS}
        scores.append(ReferenceScore(REFERENCE_LABELS[reference], reference, fast, geomean, len(speedups), problems))
    return scores
