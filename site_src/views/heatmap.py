"""The heatmap page: problem × submission speedup per level, one data file per (hardware, baseline)."""

from __future__ import annotations

from collections import Counter

from site_src.figures import heatmap_figure, log2_speedup
from site_src.model import BASELINE_NAMES, Combo, SiteModel
from site_src.output import SiteBuild
from site_src.render import render
from site_src.scoring import BASELINE_COLUMNS
from site_src.tables import number, speedup_text
from validator.results.records import Status


def unique_labels(names: list[str], slugs: list[str]) -> list[str]:
    """Plotly merges equal category labels, so a name two submissions share gets its slug added."""
    seen = Counter(names)
    return [name if seen[name] == 1 else f"{name} ({slug})" for name, slug in zip(names, slugs, strict=True)]


def level_figure(model: SiteModel, combo: Combo, level: int) -> dict:
    """Submissions best first; references in labelled columns at the right edge, after a separator."""
    ranked = model.ranked_scores(combo, level)["slug"].tolist()
    references = [s for s in ranked if model.is_reference(s)]
    slugs = [s for s in ranked if not model.is_reference(s)] + references
    rows = model.run_rows(combo)
    rows = rows[rows["level"] == level]
    column = BASELINE_COLUMNS[combo.baseline]
    verdict = "upstream_status" if combo.rule == "upstream" else "status"  # the combo's correctness rule
    cells = {
        (r.key, r.slug): (getattr(r, verdict), number(getattr(r, column)))
        for r in rows[["key", "slug", verdict, column]].itertuples(index=False)
    }
    problems = [p for p in model.tracks[combo.track] if p.level == level]
    z, text = [], []
    for problem in problems:
        z_row, text_row = [], []
        for slug in slugs:
            status, speedup = cells.get((problem.key, slug), ("missing", None))
            counts = status == Status.CORRECT.value and speedup is not None
            z_row.append(log2_speedup(speedup) if counts else None)
            text_row.append(speedup_text(speedup) if counts else status)
        z.append(z_row)
        text.append(text_row)
    names = unique_labels([model.submission_name(s) for s in slugs], slugs)
    names = [f"{name} (reference)" if model.is_reference(s) else name for name, s in zip(names, slugs, strict=True)]
    title = f"Level {level} ({combo.label(BASELINE_NAMES[combo.baseline])})"
    return heatmap_figure([p.name for p in problems], names, z, text, title, references=len(references))


def build(model: SiteModel, out: SiteBuild) -> None:
    for combo in model.combos:
        levels = {str(level): {"figure": level_figure(model, combo, level)} for level in model.level_sizes}
        out.data(f"data/{combo.id}/heatmap.json", {"combo": combo.id, "levels": levels})
    out.page("heatmap.md", render("heatmap.md.j2", model=model, combos=model.combos, baselines=BASELINE_NAMES))
