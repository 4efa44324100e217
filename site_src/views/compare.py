"""The compare view: submissions side by side per problem, on one hardware.

Two paths to the same numbers. Static, for every reader: one page per (hardware, track, level) with every
full entry of the level as a column (ranked by fast_1, as on the leaderboard) and every problem as a row,
built here and sortable when JavaScript runs. Interactive: the compare page's script reads the chosen
submissions and hardware from the URL (`?hw=…&s=a,b`), fetches one small data file per (hardware,
submission) and renders each one's status, speedup with its interval and ratio to the first. Every
submission page links to the compare page, which links to the static tables. Both judge correctness by the
headline's rule (KernelBench's, `scoring.HEADLINE_RULE`), as the leaderboard ranks.
"""

from __future__ import annotations

import math
from html import escape
from typing import Any

from site_src.model import Combo, SiteModel
from site_src.output import SiteBuild, page_root, slot
from site_src.render import render
from site_src.scoring import HEADLINE_RULE
from site_src.tables import Cell, Column, Table, number, speedup_text, table_html
from site_src.views.home import DECLARED_NOTE, level_board

SHORT_STATUS = {"incorrect": "wrong", "compile_error": "build", "runtime_error": "crash", "needs_review": "review",
                "missing": "–", "not_run": "–", "pending": "…", "unknown": "–"}
"""Failures in a few letters: the tables hold a cell per (problem, entry), tens of thousands at full scale."""


def _number(value: Any) -> float | None:
    return round(float(value), 4) if value is not None and math.isfinite(float(value)) else None


def full_entries(model: SiteModel, combo: Combo, level: int) -> tuple[list[str], set[str]]:
    """Slugs ranked on the leaderboard for this level, in rank order (references and partial entries left out), and
    those of them ranked by their declaration (`attempted_levels`) below the coverage the others reach."""
    ranked = level_board(model, combo, level).ranked
    return [s.slug for s in ranked], {s.slug for s in ranked if s.get("declared")}


def _cell(status: str, speedup: float | None) -> Cell:
    if status == "correct" and speedup is not None:
        return Cell(speedup, speedup_text(speedup))
    return Cell(None, SHORT_STATUS.get(status, status))


def level_table(model: SiteModel, combo: Combo, level: int, slugs: list[str]) -> Table:
    rows = model.run_rows(combo)
    rows = rows[(rows["level"] == level) & rows["slug"].isin(slugs)]
    found = {(key, slug): (status, number(speedup)) for key, slug, status, speedup
             in rows[["key", "slug", "upstream_status", "speedup"]].itertuples(index=False, name=None)}
    columns = (Column("Problem", numeric=False, wrap=True),
               *(Column(f"#{rank}", model.submission_name(slug), text_sorts=True, bare=True)
                 for rank, slug in enumerate(slugs, start=1)))
    body = []
    for problem in (p for p in model.tracks[combo.track] if p.level == level):
        cells = [_cell(*found.get((problem.key, slug), ("missing", None))) for slug in slugs]
        body.append((Cell(problem.problem_id, problem.name, link=f"problems/{problem.key}/"), *cells))
    return Table(columns, tuple(body), css="kb-compare-static")


def legend_html(model: SiteModel, slugs: list[str], root: str, declared: set[str] | None = None) -> str:
    """`#rank` -> submission, in a slot (hundreds of names would otherwise swell the search index); an entry ranked
    by its declaration says so."""
    note = f' <small class="kb-note">({DECLARED_NOTE})</small>'
    items = "".join(f'<li value="{rank}">#{rank} = <a href="{escape(root)}submissions/{escape(slug)}/">'
                    f"{escape(model.submission_name(slug))}</a>{note if slug in (declared or ()) else ''}</li>"
                    for rank, slug in enumerate(slugs, start=1))
    return f'<ol class="kb-compare-legend">{items}</ol>'


def static_pages(model: SiteModel, out: SiteBuild) -> list[dict[str, str]]:
    """A page per (hardware, track, level) that has a full entry, against eager; returns their links."""
    links = []
    for combo in (c for c in model.combos if c.baseline == "eager" and c.rule == HEADLINE_RULE):
        gpu = model.hardware_names.get(combo.hardware, combo.hardware)
        track = "" if combo.track == model.headline_track else f", KernelBench {combo.track}"
        for level in model.level_sizes:
            slugs, declared = full_entries(model, combo, level)
            if not slugs:
                continue
            uri = f"compare/{combo.id}/level{level}.md"
            title = f"Level {level} on {gpu}{track}"
            slots = {"table": legend_html(model, slugs, page_root(uri), declared)
                     + table_html(level_table(model, combo, level, slugs), page_root(uri))}
            out.page(uri, render("compare_level.md.j2", title=title, table=slot("table")), slots)
            links.append({"title": title, "url": uri, "entries": str(len(slugs))})
    return links


def build(model: SiteModel, out: SiteBuild) -> None:
    if not model.has_results:
        return
    columns = ["key", "upstream_status", "speedup", "ci_low", "ci_high", "speedup_vs_compile"]  # the headline's rule
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
        "names": {slug: model.submission_name(slug) + (" (reference)" if model.is_reference(slug) else "")
                  for slugs in runs.values() for slug in slugs},
        "problems": {p.key: [p.level, p.name] for track in model.tracks.values() for p in track},
    }
    out.data("data/compare/index.json", index)
    out.page("compare.md", render("compare.md.j2", tables=static_pages(model, out)))
