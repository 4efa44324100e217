"""The fast_p curves page: one chart per level with a step line for every submission."""

from __future__ import annotations

from site_src.figures import curve_figure
from site_src.model import BASELINE_NAMES, SiteModel
from site_src.output import SiteBuild
from site_src.render import render
from site_src.views.home import top_curves


def build(model: SiteModel, out: SiteBuild) -> None:
    for combo in model.combos:
        levels = {}
        for level in model.level_sizes:
            named = top_curves(model, combo, level, None)
            title = f"Level {level} ({BASELINE_NAMES[combo.baseline]} baseline, {len(named)} submissions)"
            levels[str(level)] = {"figure": curve_figure(named, title, height=520)}
        out.data(f"data/{combo.id}/curves.json", {"combo": combo.id, "levels": levels})
    out.page("curves.md", render("curves.md.j2", model=model, combos=model.combos, baselines=BASELINE_NAMES))
