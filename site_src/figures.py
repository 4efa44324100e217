"""Plotly figures as JSON-ready dicts: fast_p step curves and the problem × submission heatmap.

Figures carry no colours for paper, fonts or grid: the browser fills those in from mkdocs-material's
palette when it draws them and again when the reader toggles light/dark.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

import plotly.graph_objects as go

from site_src.scoring import THRESHOLDS, StepCurve
from site_src.text import plotly_text

P_FLOOR = 0.1
P_CEILING = 10.0
LOG_TICKS = tuple(m * 10.0**e for e in range(-3, 4) for m in (1, 2, 5))
HEATMAP_LIMIT = 3.0
"""Colour scale of the heatmap: log2 speedup from -3 (8× slower) to +3 (8× faster)."""


@dataclass(frozen=True)
class NamedCurve:
    name: str
    curve: StepCurve
    problems: dict[float, str] | None = None
    """Breakpoint (a counted speedup) -> the problem(s) with that speedup, named in the hover."""
    reference: bool = False
    """A reference (`references.is_reference`): drawn grey and dashed, labelled so, listed last."""

    @property
    def label(self) -> str:
        return f"{self.name} (reference)" if self.reference else self.name


def _significant(value: float, digits: int = 4) -> float:
    return float(f"{value:.{digits}g}")


def p_range(curves: Sequence[NamedCurve]) -> tuple[float, float]:
    """The x range: at least [0.1, 10], widened to show every breakpoint."""
    points = [b for c in curves for b in c.curve.breakpoints if b > 0]
    low = min([P_FLOOR, *(b / 1.25 for b in points)])
    high = max([P_CEILING, *(b * 1.25 for b in points)])
    return low, high


STEP_STYLE = go.Scatter(
    mode="lines",
    line={"shape": "hv", "width": 2},
    hovertemplate="p = %{x:.3g}<br>fast_p = %{y:.1%}<br>%{customdata}<extra>%{fullData.name}</extra>",
).to_plotly_json()
"""Every curve trace's style, validated by plotly once; traces add only their data and name (validating
hundreds of data arrays per figure would cost seconds per build)."""
REFERENCE_GREY = "#9e9e9e"
REFERENCE_LINE = {"shape": "hv", "width": 2, "dash": "dash", "color": REFERENCE_GREY}


def step_points(curve: StepCurve, low: float, high: float) -> tuple[list[float], list[float]]:
    """Points of fast_p(p) for a horizontal-then-vertical line, exact at every breakpoint."""
    xs = [low, *(_significant(b) for b in curve.breakpoints if b > low), high]
    kept = [v for b, v in zip(curve.breakpoints, curve.values, strict=True) if b > low]
    dropped = len(curve.values) - len(kept)
    start = curve.values[dropped - 1] if dropped else curve.start
    ys = [round(start, 5), *(round(v, 5) for v in kept)]
    ys.append(ys[-1])
    return xs, ys


def step_trace(named: NamedCurve, low: float, high: float) -> dict[str, Any]:
    xs, ys = step_points(named.curve, low, high)
    trace = {**STEP_STYLE, "x": xs, "y": ys, "name": plotly_text(named.label)}
    if named.reference:
        trace.update(line=REFERENCE_LINE, legendrank=2000)  # after the submissions (Plotly's default is 1000)
    named_at = {_significant(b): text for b, text in (named.problems or {}).items()}
    # Each corner drops as the kernel of one problem stops counting: the hover names it (ends name none)
    trace["customdata"] = ["", *(plotly_text(named_at.get(x, "")) for x in xs[1:-1]), ""]
    return trace


def _threshold_lines(thresholds: Sequence[float]) -> list[dict[str, Any]]:
    return [
        {
            "type": "line",
            "xref": "x",
            "yref": "paper",
            "x0": p,
            "x1": p,
            "y0": 0,
            "y1": 1,
            "line": {"width": 1, "dash": "dot"},
            "opacity": 0.35,
        }
        for p in thresholds
        if p > 0
    ]


def curve_figure(curves: Sequence[NamedCurve], title: str, height: int = 420) -> dict[str, Any]:
    """fast_p curves of one level: one trace per submission, log-scale p, legend click hides a trace."""
    low, high = p_range(curves)
    layout = go.Layout(
        title={"text": title, "x": 0},
        height=height,
        margin={"l": 60, "r": 20, "t": 40, "b": 50},
        xaxis={
            "type": "log",
            "title": {"text": "speedup threshold p"},
            "range": [math.log10(low), math.log10(high)],
            # Labelled ticks at 1-2-5 steps only: Plotly's own log ticks label minor ticks "2 … 9"
            "tickvals": [t for t in LOG_TICKS if low <= t <= high],
            "ticktext": [f"{t:g}×" for t in LOG_TICKS if low <= t <= high],
        },
        yaxis={"title": {"text": "fast_p"}, "tickformat": ".0%", "range": [0, 1.02]},
        hovermode="closest",
        legend={"title": {"text": "click to hide"}},
        shapes=_threshold_lines(THRESHOLDS),
    )
    return {"data": [step_trace(c, low, high) for c in curves], "layout": layout.to_plotly_json()}


def log2_speedup(speedup: float | None) -> float | None:
    if speedup is None or not math.isfinite(speedup) or speedup <= 0:
        return None
    return round(max(-HEATMAP_LIMIT, min(HEATMAP_LIMIT, math.log2(speedup))), 3)


def _reference_separator(columns: int, references: int) -> list[dict[str, Any]]:
    """A dashed vertical line before the reference columns (category x positions are 0, 1, …)."""
    if not references or references >= columns:
        return []
    x = columns - references - 0.5
    return [{"type": "line", "xref": "x", "yref": "paper", "x0": x, "x1": x, "y0": 0, "y1": 1,
             "line": {"width": 2, "dash": "dash"}}]


def heatmap_figure(
    problems: Sequence[str],
    submissions: Sequence[str],
    z: Sequence[Sequence[float | None]],
    text: Sequence[Sequence[str]],
    title: str,
    *,
    references: int = 0,
) -> dict[str, Any]:
    """Rows are problems, columns submissions; empty cells are kernels that do not count. The last
    `references` columns are references, set apart by a dashed line."""
    ticks = [-3, -2, -1, 0, 1, 2, 3]
    style = go.Heatmap(
        zmin=-HEATMAP_LIMIT,
        zmax=HEATMAP_LIMIT,
        zmid=0,
        colorscale="RdBu",
        xgap=1,
        ygap=1,
        colorbar={"title": {"text": "speedup"}, "tickvals": ticks, "ticktext": [f"{2.0**t:g}×" for t in ticks]},
        hovertemplate="%{y}<br>%{x}<br>%{text}<extra></extra>",
    ).to_plotly_json()
    layout = go.Layout(
        title={"text": title, "x": 0},
        height=max(320, 120 + 14 * len(problems)),
        margin={"l": 220, "r": 20, "t": 40, "b": 160},
        xaxis={"tickangle": -60, "automargin": True},
        yaxis={"autorange": "reversed", "automargin": True},
        shapes=_reference_separator(len(submissions), references),
    )
    # Submission names and statuses are submitter text: Plotly must show them, not read its markup in them
    cells = {"z": [list(row) for row in z], "text": [[plotly_text(t) for t in row] for row in text]}
    trace = {**style, "x": [plotly_text(s) for s in submissions], "y": list(problems), **cells}
    return {"data": [trace], "layout": layout.to_plotly_json()}
