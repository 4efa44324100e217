"""The home page: per-level leaderboard tables and top curves, one data file per (hardware, baseline)."""

from __future__ import annotations

import statistics

from site_src.figures import NamedCurve, curve_figure
from site_src.model import BASELINE_NAMES, HEADLINE, Combo, SiteModel
from site_src.output import SiteBuild, slot
from site_src.render import render
from site_src.scoring import THRESHOLDS, fast_p_label
from site_src.tables import Cell, Column, Table, number, percent_text, speedup_text, table_html
from site_src.tables import table_json as packed

TOP_CURVES = 10
"""The home chart shows the best few; the curves page shows everyone."""

COLUMNS = (
    Column("#", "Rank by fast_1, then geomean speedup", better_is_lower=True),
    Column("Submission", numeric=False),
    Column("Run", "verified: produced by a maintainer's runner; self-reported: by the submitter", numeric=False),
    Column("Method", numeric=False),
    *(Column(f"fast_{p:g}", f"share of the level's problems correct and faster than {p:g}×") for p in THRESHOLDS),
    Column("Geomean", "geometric-mean speedup over the kernels that count"),
    Column("Compiled", "built and ran / attempted"),
    Column("Correct", "correct / attempted"),
    Column("Attempted", "problems with a result / problems in the level; a run in progress also says how many "
           "it has not measured yet (they count as failures until it has)"),
)


class Record(dict):
    """A score row whose columns read as attributes (`fast_0.5` is not an identifier, so rows are dicts)."""

    __getattr__ = dict.__getitem__


def run_cell(verified: bool) -> Cell:
    if verified:
        return Cell("verified", "verified", css="kb-badge kb-verified")
    return Cell("self-reported", "self-reported", css="kb-badge kb-self")


def attempted_cell(attempted: int, problems: int, pending: int) -> Cell:
    """`84/100`, and for a run that has not finished `84/100 · 16 pending`, marked as in progress."""
    if not pending:
        return Cell(attempted, f"{attempted}/{problems}")
    why = (f"run in progress: {pending} problem(s) of this level not measured yet; until they are, they count "
           "as failures, so these fast_p values are lower bounds")
    return Cell(attempted, f"{attempted}/{problems} · {pending} pending", css="kb-badge kb-partial", title=why)


def leaderboard_table(model: SiteModel, combo: Combo, level: int) -> Table:
    rows = []
    for rank, values in enumerate(model.ranked_scores(combo, level).to_dict("records"), start=1):
        score = Record(values)
        doc = model.inputs.submissions.get(score.slug)
        method = str(doc.document.get("method", "")) if doc else ""
        fast = [number(values[fast_p_label(p)]) for p in THRESHOLDS]
        rows.append(
            (
                Cell(rank, str(rank)),
                Cell(
                    model.submission_name(score.slug),
                    model.submission_name(score.slug),
                    link=f"submissions/{score.slug}/",
                ),
                run_cell(bool(score.verified)),
                Cell(method, method),
                *(Cell(v, percent_text(v)) for v in fast),
                Cell(number(score.geomean_speedup), speedup_text(number(score.geomean_speedup))),
                Cell(number(score.compile_rate), percent_text(number(score.compile_rate))),
                Cell(number(score.correct_rate), percent_text(number(score.correct_rate))),
                attempted_cell(int(score.n_attempted), int(score.n_problems), int(score.n_pending)),
            )
        )
    return Table(COLUMNS, tuple(rows), sort_column=4 + THRESHOLDS.index(1.0))


def top_curves(model: SiteModel, combo: Combo, level: int, limit: int | None) -> list[NamedCurve]:
    ranked = model.ranked_scores(combo, level)["slug"].tolist()
    return [
        NamedCurve(model.submission_name(slug), model.curves[(slug, combo.hardware, combo.baseline, level)])
        for slug in ranked[:limit]
    ]


def _pending_table(model: SiteModel) -> Table | None:
    measured = {r.slug for r in model.inputs.results}
    rows = []
    for slug, doc in model.inputs.submissions.items():
        if slug in measured:
            continue
        claims = [k["claimed"]["speedup"] for k in doc.kernels if isinstance(k.get("claimed"), dict)]
        claim = f"median {statistics.median(claims):.3g}× over {len(claims)} kernels (claimed)" if claims else "none"
        rows.append(
            (
                Cell(doc.name, doc.name, link=f"submissions/{slug}/"),
                Cell(str(doc.document.get("method", "")), str(doc.document.get("method", ""))),
                Cell(str(doc.document.get("date", "")), str(doc.document.get("date", ""))),
                Cell(len(doc.kernels), str(len(doc.kernels))),
                Cell(claim, claim, css="kb-claimed" if claims else ""),
            )
        )
    if not rows:
        return None
    columns = (
        Column("Submission", numeric=False),
        Column("Method", numeric=False),
        Column("Date", numeric=False),
        Column("Kernels"),
        Column("Claimed speedups", numeric=False),
    )
    return Table(columns, tuple(rows))


def build(model: SiteModel, out: SiteBuild) -> None:
    for combo in model.combos:
        levels = {}
        for level in model.level_sizes:
            title = f"Level {level}: top {TOP_CURVES} by {HEADLINE} ({BASELINE_NAMES[combo.baseline]} baseline)"
            levels[str(level)] = {
                "table": packed(leaderboard_table(model, combo, level)),
                "figure": curve_figure(top_curves(model, combo, level, TOP_CURVES), title, height=360),
            }
        out.data(f"data/{combo.id}/leaderboard.json", {"combo": combo.id, "levels": levels})
    pending = _pending_table(model)
    markdown = render(
        "home.md.j2",
        model=model,
        combos=model.combos,
        baselines=BASELINE_NAMES,
        pending=pending is not None,
        pending_slot=slot("pending"),
    )
    out.page("index.md", markdown, {"pending": table_html(pending, "./")} if pending else {})
