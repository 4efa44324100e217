"""The fast_p curves page: one chart per level with a step line for every submission.

The page carries the default view's top curves as static SVG (as the home page does): they show at once,
and without JavaScript; the Plotly chart of every submission replaces them once plotly.js is loaded.
"""

from __future__ import annotations

from site_src.figures import NamedCurve, curve_figure
from site_src.model import BASELINE_NAMES, Combo, SiteModel
from site_src.output import SiteBuild, slot
from site_src.render import render
from site_src.scoring import awaits_rerun, counted_frame
from site_src.svg import curves_svg

STATIC_CURVES = 10
"""Curves drawn in the page before plotly.js replaces them: the best few, like the home page."""


def problems_at_speedups(model: SiteModel) -> dict[tuple[str, str, str, str, int], dict[float, str]]:
    """(slug, hardware, baseline, rule, level) -> counted speedup -> the problem name(s) that have it."""
    found: dict[tuple[str, str, str, str, int], dict[float, str]] = {}
    names = model.problem_names
    frame = counted_frame(model.aligned).dropna(subset=["counted"])
    columns = ["slug", "hardware", "baseline", "rule", "level", "counted", "key"]
    for slug, hardware, baseline, rule, level, speedup, key in frame[columns].itertuples(index=False, name=None):
        at = found.setdefault((slug, hardware, baseline, rule, int(level)), {})
        at[float(speedup)] = f"{at[float(speedup)]}, {names[key]}" if float(speedup) in at else names[key]
    return found


def top_curves(model: SiteModel, combo: Combo, level: int, limit: int | None,
               problems: dict[tuple[str, str, str, str, int], dict[float, str]] | None = None) -> list[NamedCurve]:
    """The best `limit` submissions by fast_1, then every reference as a reference line; a run with nothing but
    stale records on the level (awaiting a rerun, `home.level_board`) has no curve: it would lie flat at 0."""
    scores = model.ranked_scores(combo, level)
    slugs = scores[~awaits_rerun(scores)]["slug"].tolist()
    submitted = [s for s in slugs if not model.is_reference(s)][:limit]
    keys = [(slug, combo.hardware, combo.baseline, combo.rule, level)
            for slug in [*submitted, *(s for s in slugs if model.is_reference(s))]]
    return [NamedCurve(model.submission_name(k[0]), model.curves[k], (problems or {}).get(k), model.is_reference(k[0]))
            for k in keys]


def build(model: SiteModel, out: SiteBuild) -> None:
    problems = problems_at_speedups(model)
    for combo in model.combos:
        levels = {}
        for level in model.level_sizes:
            named = top_curves(model, combo, level, None, problems)
            count = sum(not c.reference for c in named)
            title = f"Level {level} ({combo.label(BASELINE_NAMES[combo.baseline])}, {count} submissions)"
            levels[str(level)] = {"figure": curve_figure(named, title, height=520)}
        out.data(f"data/{combo.id}/curves.json", {"combo": combo.id, "levels": levels})
    slots = {}
    if model.combos:
        first = model.combos[0]
        for level in model.level_sizes:
            title = f"Level {level}: top {STATIC_CURVES} ({BASELINE_NAMES[first.baseline]} baseline)"
            slots[f"static-{level}"] = curves_svg(top_curves(model, first, level, STATIC_CURVES), title)
    markdown = render("curves.md.j2", model=model, combos=model.combos, baselines=BASELINE_NAMES, slot=slot)
    out.page("curves.md", markdown, slots)
