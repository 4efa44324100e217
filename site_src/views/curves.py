"""The fast_p curves page: one chart per level with a step line for every submission."""

from __future__ import annotations

from site_src.figures import NamedCurve, curve_figure
from site_src.model import BASELINE_NAMES, Combo, SiteModel
from site_src.output import SiteBuild
from site_src.render import render


def top_curves(model: SiteModel, combo: Combo, level: int, limit: int | None) -> list[NamedCurve]:
    ranked = model.ranked_scores(combo, level)["slug"].tolist()
    return [
        NamedCurve(model.submission_name(slug), model.curves[(slug, combo.hardware, combo.baseline, level)])
        for slug in ranked[:limit]
    ]


def build(model: SiteModel, out: SiteBuild) -> None:
    for combo in model.combos:
        levels = {}
        for level in model.level_sizes:
            named = top_curves(model, combo, level, None)
            title = f"Level {level} ({BASELINE_NAMES[combo.baseline]} baseline, {len(named)} submissions)"
            levels[str(level)] = {"figure": curve_figure(named, title, height=520)}
        out.data(f"data/{combo.id}/curves.json", {"combo": combo.id, "levels": levels})
    out.page("curves.md", render("curves.md.j2", model=model, combos=model.combos, baselines=BASELINE_NAMES))
