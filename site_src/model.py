"""The scored data every page reads: computed once per build from the site's inputs."""

from __future__ import annotations

import math
from collections import Counter
from dataclasses import dataclass
from functools import cached_property
from typing import Any

import pandas as pd

from site_src.references import is_reference
from site_src.scoring import (
    HEADLINE_RULE,
    RULES,
    StepCurve,
    aligned_from_results,
    best_per_problem,
    curves,
    fast_p_label,
    level_scores,
    protocol_of,
)
from site_src.sources import SiteInputs
from validator.catalogue.problems import HEADLINE_VERSION, Problem
from validator.protocol import PROTOCOL_VERSION

HEADLINE = fast_p_label(1.0)
"""Tables and charts rank by fast_1, KernelBench's headline number, then by geomean speedup (at the combo's rule:
upstream's by default, `HEADLINE_RULE`)."""
RULE_NAMES = RULES
BASELINE_NAMES = {"eager": "PyTorch eager", "torch-compile": "torch.compile"}


@dataclass(frozen=True)
class Combo:
    """A (hardware, baseline, track, correctness rule) view of the leaderboard; its id names the data files."""

    hardware: str
    baseline: str
    track: str = HEADLINE_VERSION
    rule: str = HEADLINE_RULE

    def label(self, baseline_name: str) -> str:
        """`PyTorch eager baseline`, with `KernelBench <version>` after it off the headline track and the rule's
        name off the headline rule."""
        track = "" if self.track == HEADLINE_VERSION else f", KernelBench {self.track}"
        rule = "" if self.rule == HEADLINE_RULE else f", {RULES[self.rule].lower()}"
        return f"{baseline_name} baseline{track}{rule}"

    @property
    def id(self) -> str:
        """`hardware--baseline`, `--track` after it for a track other than the headline's, `~rule` after that for
        a rule other than the headline's (upstream's)."""
        suffix = "" if self.track == HEADLINE_VERSION else f"--{self.track}"
        rule = "" if self.rule == HEADLINE_RULE else f"~{self.rule}"
        return f"{self.hardware}--{self.baseline}{suffix}{rule}"


def _speed_of_light_function() -> Any:
    """`validator.catalogue.speed_of_light.entry_bound_ms` when that module exists; the site works without it."""
    try:
        from validator.catalogue.speed_of_light import entry_bound_ms
    except ImportError:
        return None
    return entry_bound_ms


@dataclass(frozen=True)
class SiteModel:
    inputs: SiteInputs
    aligned: pd.DataFrame
    scores: pd.DataFrame
    curves: dict[tuple[str, str, str, int], StepCurve]
    best: pd.DataFrame
    """The best counted kernel per problem among submitted ones (references never lead a problem)."""
    references: frozenset[str] = frozenset()
    """Slugs of the submissions that are references (`references.is_reference`)."""

    def is_reference(self, slug: str) -> bool:
        return slug in self.references

    @cached_property
    def hardware_names(self) -> dict[str, str]:
        """Each hardware's display name, the one with the most results files at the current protocol first (the
        pages open on it), then the most files, then by key: a first run on another GPU does not move the board off
        the one most submissions were measured on, and neither do files awaiting a rerun (`scoring`'s stale)."""
        names: dict[str, str] = {}
        for results in self.inputs.results:
            names.setdefault(results.hardware, results.environment.gpu or results.hardware)
        files = Counter(results.hardware for results in self.inputs.results)
        current = Counter(r.hardware for r in self.inputs.results if protocol_of(r) == PROTOCOL_VERSION)
        return {key: names[key] for key in sorted(names, key=lambda key: (-current[key], -files[key], key))}

    @cached_property
    def combos(self) -> tuple[Combo, ...]:
        """Every scored (hardware, baseline, track), by hardware, then track (the headline's first)."""
        columns = [self.scores[c] for c in ("hardware", "baseline", "track")]
        present = set(zip(*columns, strict=True))
        return tuple(Combo(h, b, t, r) for h in self.hardware_names for t in self.tracks for r in RULES
                     for b in BASELINE_NAMES if (h, b, t) in present)

    @cached_property
    def tracks(self) -> dict[str, tuple[Problem, ...]]:
        """Each KernelBench version's problems (`Catalogue.tracks`), the headline's first."""
        return self.inputs.catalogue.tracks()

    @cached_property
    def problem_names(self) -> dict[str, str]:
        """Problem key of every track -> its file name (`19_ReLU`)."""
        return {p.key: p.name for problems in self.tracks.values() for p in problems}

    @property
    def headline_track(self) -> str:
        return HEADLINE_VERSION

    @cached_property
    def scored_tracks(self) -> tuple[str, ...]:
        """The tracks that have a run, the headline's first."""
        present = set(self.scores["track"])
        return tuple(t for t in self.tracks if t in present)

    @cached_property
    def level_sizes(self) -> dict[int, int]:
        return {level: len(self.inputs.catalogue.level(level)) for level in self.inputs.catalogue.levels}

    def track_size(self, track: str, level: int) -> int:
        return sum(1 for p in self.tracks.get(track, ()) if p.level == level)

    def run_rows(self, combo: Combo) -> pd.DataFrame:
        """The aligned rows of the runs of a combo's hardware on its track."""
        aligned = self.aligned
        return aligned[(aligned["hardware"] == combo.hardware) & (aligned["track"] == combo.track)]

    @property
    def has_results(self) -> bool:
        return bool(self.inputs.results)

    @cached_property
    def names(self) -> dict[str, str]:
        """Display name per slug: the submission file's, else the one its result files recorded."""
        names = {r.slug: r.submission_name for r in self.inputs.results}
        names.update({slug: doc.name for slug, doc in self.inputs.submissions.items()})
        return names

    @cached_property
    def sandboxes(self) -> dict[tuple[str, str], str]:
        """(slug, hardware) -> how the run confined its kernels (`bubblewrap`, `none`); "" where not recorded
        (runs from before the results recorded it)."""
        return {(r.slug, r.hardware): str(r.environment.extra.get("sandbox") or "") for r in self.inputs.results}

    def sandbox_of(self, slug: str, hardware: str) -> str:
        return self.sandboxes.get((slug, hardware), "")

    @cached_property
    def run_track(self) -> dict[tuple[str, str], str]:
        """(slug, hardware) -> the KernelBench version (track) the run is scored on."""
        runs = self.aligned[["slug", "hardware", "track"]].drop_duplicates(["slug", "hardware"])
        return {(slug, hw): track for slug, hw, track in runs.itertuples(index=False, name=None)}

    def submission_name(self, slug: str) -> str:
        return self.names.get(slug, slug)

    @cached_property
    def best_lookup(self) -> dict[tuple[str, str], dict[str, tuple[float, str]]]:
        """(hardware, problem key) -> baseline -> (best speedup, slug), at the headline's rule."""
        lookup: dict[tuple[str, str], dict[str, tuple[float, str]]] = {}
        for row in self.best[self.best["rule"] == HEADLINE_RULE].itertuples(index=False):
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
            & (self.scores["rule"] == combo.rule)
            & (self.scores["level"] == level)
            & (self.scores["track"] == combo.track)
        ]
        return picked.sort_values([HEADLINE, "geomean_speedup", "slug"], ascending=[False, False, True])

    def speed_of_light_ms(self, key: str, hardware: str) -> float | None:
        """Lower bound on the problem's time on this hardware, from the manifest's FLOPs and bytes."""
        entry = self.inputs.manifest.get(key)
        bound_ms = _speed_of_light_function()
        if entry is None or bound_ms is None:
            return None
        try:
            value = bound_ms(entry, hardware)
        except (KeyError, ValueError, TypeError, LookupError):
            return None
        return float(value) if isinstance(value, int | float) and math.isfinite(value) else None


def build_model(inputs: SiteInputs) -> SiteModel:
    kernels = {slug: doc.kernel_sha256s for slug, doc in inputs.submissions.items()}
    aligned = aligned_from_results(inputs.results, inputs.catalogue, kernels)
    references = frozenset(slug for slug, doc in inputs.submissions.items() if is_reference(doc.document))
    return SiteModel(
        inputs=inputs,
        aligned=aligned,
        scores=level_scores(aligned),
        curves=curves(aligned),
        best=best_per_problem(aligned[~aligned["slug"].isin(references)]),
        references=references,
    )
