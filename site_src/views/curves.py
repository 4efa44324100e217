"""The fast_p curves page: one chart per level with a step line for every submission."""

from __future__ import annotations

from site_src.figures import NamedCurve, curve_figure
from site_src.model import BASELINE_NAMES, Combo, SiteModel
from site_src.output import SiteBuild
from site_src.render import render
from site_src.scoring import counted_frame


def problems_at_speedups(model: SiteModel) -> dict[tuple[str, str, str, int], dict[float, str]]:
    """(slug, hardware, baseline, level) -> counted speedup -> the problem name(s) that have it."""
    found: dict[tuple[str, str, str, int], dict[float, str]] = {}
    names = model.problem_names
    frame = counted_frame(model.aligned).dropna(subset=["counted"])
    columns = ["slug", "hardware", "baseline", "level", "counted", "key"]
    for slug, hardware, baseline, level, speedup, key in frame[columns].itertuples(index=False, name=None):
        at = found.setdefault((slug, hardware, baseline, int(level)), {})
        at[float(speedup)] = f"{at[float(speedup)]}, {names[key]}" if float(speedup) in at else names[key]
    return found


def top_curves(model: SiteModel, combo: Combo, level: int, limit: int | None,
               problems: dict[tuple[str, str, str, int], dict[float, str]] | None = None) -> list[NamedCurve]:
    ranked = model.ranked_scores(combo, level)["slug"].tolist()
    keys = [(slug, combo.hardware, combo.baseline, level) for slug in ranked[:limit]]
    return [NamedCurve(model.submission_name(k[0]), model.curves[k], (problems or {}).get(k)) for k in keys]


def build(model: SiteModel, out: SiteBuild) -> None:
    problems = problems_at_speedups(model)
    for combo in model.combos:
        levels = {}
        for level in model.level_sizes:
            named = top_curves(model, combo, level, None, problems)
            title = f"Level {level} ({BASELINE_NAMES[combo.baseline]} baseline, {len(named)} submissions)"
            levels[str(level)] = {"figure": curve_figure(named, title, height=520)}
        out.data(f"data/{combo.id}/curves.json", {"combo": combo.id, "levels": levels})
    out.page("curves.md", render("curves.md.j2", model=model, combos=model.combos, baselines=BASELINE_NAMES))
