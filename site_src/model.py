"""The scored data every page reads: computed once per build from the site's inputs."""

from __future__ import annotations

import math
from dataclasses import dataclass
from functools import cached_property
from typing import Any

import pandas as pd

from site_src.scoring import (
    StepCurve,
    aligned_from_results,
    best_per_problem,
    curves,
    fast_p_label,
    level_scores,
)
from site_src.sources import SiteInputs

HEADLINE = fast_p_label(1.0)
"""Tables and charts rank by fast_1, KernelBench's headline number, then by geomean speedup."""
BASELINE_NAMES = {"eager": "PyTorch eager", "torch-compile": "torch.compile"}


@dataclass(frozen=True)
class Combo:
    """A (hardware, baseline) view of the leaderboard; its id names the data files."""

    hardware: str
    baseline: str

    @property
    def id(self) -> str:
        return f"{self.hardware}--{self.baseline}"


def _speed_of_light_function() -> Any:
    """`validator.catalogue.speed_of_light.bound_ms` when that module exists; the site works without it."""
    try:
        from validator.catalogue.speed_of_light import bound_ms
    except ImportError:
        return None
    return bound_ms


@dataclass(frozen=True)
class SiteModel:
    inputs: SiteInputs
    aligned: pd.DataFrame
    scores: pd.DataFrame
    curves: dict[tuple[str, str, str, int], StepCurve]
    best: pd.DataFrame

    @cached_property
    def hardware_names(self) -> dict[str, str]:
        names: dict[str, str] = {}
        for results in self.inputs.results:
            names.setdefault(results.hardware, results.environment.gpu or results.hardware)
        return dict(sorted(names.items()))

    @cached_property
    def combos(self) -> tuple[Combo, ...]:
        present = {(h, b) for h, b in zip(self.scores["hardware"], self.scores["baseline"], strict=True)}
        return tuple(Combo(h, b) for h in self.hardware_names for b in BASELINE_NAMES if (h, b) in present)

    @cached_property
    def level_sizes(self) -> dict[int, int]:
        return {level: len(self.inputs.catalogue.level(level)) for level in self.inputs.catalogue.levels}

    @property
    def has_results(self) -> bool:
        return bool(self.inputs.results)

    @cached_property
    def names(self) -> dict[str, str]:
        """Display name per slug: the submission file's, else the one its result files recorded."""
        names = {r.slug: r.submission_name for r in self.inputs.results}
        names.update({slug: doc.name for slug, doc in self.inputs.submissions.items()})
        return names

    def submission_name(self, slug: str) -> str:
        return self.names.get(slug, slug)

    @cached_property
    def best_lookup(self) -> dict[tuple[str, str], dict[str, tuple[float, str]]]:
        """(hardware, problem key) -> baseline -> (best speedup, slug)."""
        lookup: dict[tuple[str, str], dict[str, tuple[float, str]]] = {}
        for row in self.best.itertuples(index=False):
            lookup.setdefault((row.hardware, row.key), {})[row.baseline] = (float(row.speedup), row.slug)
        return lookup

    @cached_property
    def claims(self) -> dict[tuple[int, int], dict[str, dict[str, Any]]]:
        """(level, problem id) -> slug -> the kernel entry that carries a `claimed` number."""
        found: dict[tuple[int, int], dict[str, dict[str, Any]]] = {}
        for slug, doc in self.inputs.submissions.items():
            for kernel in doc.kernels:
                if isinstance(kernel.get("claimed"), dict):
                    found.setdefault((kernel.get("level"), kernel.get("problem_id")), {})[slug] = kernel
        return found

    @cached_property
    def compile_cache(self) -> dict[str, dict[str, dict[str, Any]]]:
        """hardware -> problem sha256 -> the torch.compile baseline's cached timings (compiled and eager medians).

        The baseline is timed once per problem version and hardware, for every problem, while a result
        record carries it only where its kernel ran; pages fall back on the cache where no record has it.
        """
        from validator.results.baselines import cache_path, load_cache

        results_dir = self.inputs.sources.results_dir
        return {hardware: load_cache(cache_path(results_dir, hardware)) for hardware in self.hardware_names}

    def ranked_scores(self, combo: Combo, level: int) -> pd.DataFrame:
        picked = self.scores[
            (self.scores["hardware"] == combo.hardware)
            & (self.scores["baseline"] == combo.baseline)
            & (self.scores["level"] == level)
        ]
        return picked.sort_values([HEADLINE, "geomean_speedup", "slug"], ascending=[False, False, True])

    def speed_of_light_ms(self, key: str, hardware: str) -> float | None:
        """Lower bound on the problem's time on this hardware, from the manifest's FLOPs and bytes."""
        entry = self.inputs.manifest.get(key)
        bound_ms = _speed_of_light_function()
        if entry is None or bound_ms is None or entry.min_bytes is None:
            return None
        try:
            value = bound_ms(entry.flops, entry.min_bytes, hardware, entry.compute_dtype())
        except (KeyError, ValueError, TypeError, LookupError):
            return None
        return float(value) if isinstance(value, int | float) and math.isfinite(value) else None


def build_model(inputs: SiteInputs) -> SiteModel:
    kernels = {slug: doc.kernel_sha256s for slug, doc in inputs.submissions.items()}
    aligned = aligned_from_results(inputs.results, inputs.catalogue, kernels)
    return SiteModel(
        inputs=inputs,
        aligned=aligned,
        scores=level_scores(aligned),
        curves=curves(aligned),
        best=best_per_problem(aligned),
    )
