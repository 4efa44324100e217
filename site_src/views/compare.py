"""The compare view: two or more submissions side by side per problem, on one hardware.

The page is a shell; its script reads the submissions and hardware from the URL (`?hw=…&s=a,b`), fetches
one small data file per (hardware, submission) and renders a sortable table: per submission the status and
the speedup with its interval, and each one's ratio to the first. Every submission page links here.
"""

from __future__ import annotations

import math
from typing import Any

from site_src.model import SiteModel
from site_src.output import SiteBuild
from site_src.render import render


def _number(value: Any) -> float | None:
    return round(float(value), 4) if value is not None and math.isfinite(float(value)) else None


def build(model: SiteModel, out: SiteBuild) -> None:
    if not model.has_results:
        return
    columns = ["key", "status", "speedup", "ci_low", "ci_high", "speedup_vs_compile"]
    runs: dict[str, list[str]] = {}
    for (slug, hardware), rows in model.aligned.groupby(["slug", "hardware"], sort=True):
        problems = {
            key: [status, _number(speedup), _number(low), _number(high), _number(compiled)]
            for key, status, speedup, low, high, compiled in rows[columns].itertuples(index=False, name=None)
        }
        out.data(f"data/compare/{hardware}/{slug}.json", {"slug": slug, "problems": problems})
        runs.setdefault(str(hardware), []).append(str(slug))
    index = {
        "hardware": {h: {"name": model.hardware_names.get(h, h), "slugs": slugs} for h, slugs in runs.items()},
        "names": {slug: model.submission_name(slug) for slugs in runs.values() for slug in slugs},
        "problems": {p.key: [p.level, p.name] for track in model.tracks.values() for p in track},
    }
    out.data("data/compare/index.json", index)
    out.page("compare.md", render("compare.md.j2"))
