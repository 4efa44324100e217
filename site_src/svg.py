"""Static SVG fast_p curves for the home page: drawn at build time, so the page shows them without
JavaScript and loads no chart library (Plotly stays on the curves and heatmap pages).

Colours of text, axes and grid are `currentColor`, so light and dark palettes both work; each curve
names its submission in a <title> (the browser shows it on hover) and in the legend below the plot,
which wraps on a phone instead of taking the plot's width.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from datetime import date, timedelta
from html import escape

from site_src.figures import REFERENCE_GREY, NamedCurve, p_range, step_points

WIDTH, HEIGHT = 640, 300
LEFT, RIGHT, TOP, BOTTOM = 44, 12, 10, 36
PALETTE = (
    "#3f51b5", "#e65100", "#2e7d32", "#c62828", "#6a1b9a",
    "#00838f", "#ad1457", "#5d4037", "#9e9d24", "#546e7a",
)  # fmt: skip
"""Ten colours distinct in both palettes (the home chart shows the top ten)."""
MAJOR_TICKS = (0.1, 0.2, 0.5, 1.0, 2.0, 5.0, 10.0, 20.0, 50.0, 100.0)


def _x(value: float, low: float, high: float) -> float:
    span = math.log10(high) - math.log10(low)
    return LEFT + (WIDTH - LEFT - RIGHT) * (math.log10(value) - math.log10(low)) / span


def _y(share: float) -> float:
    return TOP + (HEIGHT - TOP - BOTTOM) * (1 - share)


def _axes(low: float, high: float) -> list[str]:
    parts = []
    for share in (0, 0.25, 0.5, 0.75, 1):
        y = _y(share)
        parts.append(f'<line class="kb-grid" x1="{LEFT}" x2="{WIDTH - RIGHT}" y1="{y:.1f}" y2="{y:.1f}"/>')
        parts.append(f'<text x="{LEFT - 4}" y="{y + 3:.1f}" text-anchor="end">{share:.0%}</text>')
    for tick in MAJOR_TICKS:
        if low <= tick <= high:
            x = _x(tick, low, high)
            css = "kb-grid kb-one" if tick == 1.0 else "kb-grid"
            parts.append(f'<line class="{css}" x1="{x:.1f}" x2="{x:.1f}" y1="{TOP}" y2="{HEIGHT - BOTTOM}"/>')
            parts.append(f'<text x="{x:.1f}" y="{HEIGHT - BOTTOM + 13}" text-anchor="middle">{tick:g}×</text>')
    parts.append(f'<text x="{(LEFT + WIDTH - RIGHT) / 2}" y="{HEIGHT - 4}" text-anchor="middle">'
                 "speedup threshold p (log scale)</text>")
    return parts


def _path(named: NamedCurve, low: float, high: float) -> str:
    """Whole-pixel corners (the chart is 640 wide; finer is bytes no reader sees), repeats dropped."""
    xs, ys = step_points(named.curve, low, high)
    points = [(round(_x(xs[0], low, high)), round(_y(ys[0])))]
    for x, y_before, y_after in zip(xs[1:], ys[:-1], ys[1:], strict=True):
        px = round(_x(x, low, high))
        for corner in ((px, round(_y(y_before))), (px, round(_y(y_after)))):
            if corner != points[-1]:
                points.append(corner)
    return " ".join(f"{x},{y}" for x, y in points)


def curves_svg(curves: Sequence[NamedCurve], label: str) -> str:
    """The top curves of one level as inline SVG plus an HTML legend; names are escaped here."""
    if not curves:
        return ""
    low, high = p_range(curves)
    lines = []
    legend = []
    submitted = 0
    for named in curves:
        colour = REFERENCE_GREY if named.reference else PALETTE[submitted % len(PALETTE)]
        submitted += not named.reference
        dash = ' stroke-dasharray="6 4" class="kb-ref-line"' if named.reference else ""
        name = escape(named.label)
        at_one = named.curve.value_at(1.0)
        lines.append(
            f'<polyline fill="none" stroke="{colour}" stroke-width="2"{dash} points="{_path(named, low, high)}">'
            f"<title>{name}: fast_1 {at_one:.1%}</title></polyline>"
        )
        legend.append(f'<li><span class="kb-swatch" style="background:{colour}"></span>{name}</li>')
    svg = (
        f'<svg class="kb-svg-chart" viewBox="0 0 {WIDTH} {HEIGHT}" role="img" aria-label="{escape(label)}">'
        + "".join(_axes(low, high))
        + "".join(lines)
        + "</svg>"
    )
    caption = f'<p class="kb-chart-title">{escape(label)}</p>'
    return f'<figure class="kb-static-chart">{caption}{svg}<ol class="kb-legend">{"".join(legend)}</ol></figure>'


def best_over_time_svg(records: Sequence[tuple[date, float, str]], label: str, until: date | None = None) -> str:
    """The best fast_1 so far against the date each record was set: `records` are (date, fast_1, name)
    of the entries that raised the best, in date order; the line runs on to `until` (the latest entry)."""
    if not records:
        return ""
    first = records[0][0]
    last = max(records[-1][0], until or first, first + timedelta(days=1))
    span = (last - first).days or 1

    def x(day: date) -> float:
        return LEFT + (WIDTH - LEFT - RIGHT) * (day - first).days / span

    parts = []
    for share in (0, 0.25, 0.5, 0.75, 1):
        y = _y(share)
        parts.append(f'<line class="kb-grid" x1="{LEFT}" x2="{WIDTH - RIGHT}" y1="{y:.0f}" y2="{y:.0f}"/>')
        parts.append(f'<text x="{LEFT - 4}" y="{y + 3:.0f}" text-anchor="end">{share:.0%}</text>')
    for day, anchor in ((first, "start"), (last, "end")):
        parts.append(f'<text x="{x(day):.0f}" y="{HEIGHT - BOTTOM + 13}" text-anchor="{anchor}">{day}</text>')
    corners = [(x(records[0][0]), _y(records[0][1]))]
    for (day, value, _), previous in zip(records[1:], records, strict=False):
        corners += [(x(day), _y(previous[1])), (x(day), _y(value))]
    corners.append((x(last), _y(records[-1][1])))
    line = " ".join(f"{cx:.0f},{cy:.0f}" for cx, cy in corners)
    parts.append(f'<polyline class="kb-best" fill="none" stroke="{PALETTE[0]}" stroke-width="2" points="{line}"/>')
    for day, value, name in records:
        parts.append(f'<circle cx="{x(day):.0f}" cy="{_y(value):.0f}" r="4" fill="{PALETTE[0]}">'
                     f"<title>{day}: {escape(name)}, fast_1 {value:.1%}</title></circle>")
    svg = (f'<svg class="kb-svg-chart" viewBox="0 0 {WIDTH} {HEIGHT}" role="img" aria-label="{escape(label)}">'
           + "".join(parts) + "</svg>")
    return f'<figure class="kb-static-chart"><p class="kb-chart-title">{escape(label)}</p>{svg}</figure>'
