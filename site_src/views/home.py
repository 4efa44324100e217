"""The home page: who leads each level and by how much, then the tables, then the charts.

Everything is static HTML for the default (hardware, baseline), so the page reads without JavaScript;
switching hardware or baseline fetches one data file per combo holding the same HTML for that combo.
Reference rows (PyTorch eager, torch.compile) sit in the tables at their own fast_1, styled apart and never
ranked; entries that attempted under COVERAGE of a level are listed apart, unranked, unless their submission declares
the level attempted in full (`attempted_levels`): KernelBench counts a missing kernel as a failure, so such an entry
is ranked on what it has, and its row says so.
"""

from __future__ import annotations

import statistics
from dataclasses import dataclass
from datetime import date
from html import escape

from site_src.figures import NamedCurve
from site_src.model import BASELINE_NAMES, HEADLINE, Combo, SiteModel
from site_src.output import SiteBuild, slot
from site_src.references import REFERENCE_NOTE, ReferenceScore, reference_scores
from site_src.render import render
from site_src.scoring import awaits_rerun, fast_p_label
from site_src.svg import best_over_time_svg, curves_svg
from site_src.tables import Cell, Column, Table, number, percent_text, speedup_text, table_html
from site_src.tables import table_json as packed

TOP_CURVES = 10
"""The home chart shows the best few; the curves page shows everyone."""
COVERAGE = 0.5
"""An entry is ranked on a level if it attempted at least this share of the level's problems, or if its submission
declares every problem of the level attempted (`attempted_levels`)."""
DECLARED_MEANS = "every problem attempted; missing kernels count as failures"
DECLARED_NOTE = f"declared: {DECLARED_MEANS}"
"""Said in the page's own text (not only a tooltip) wherever an entry is ranked by its declaration below COVERAGE."""
DECLARED_TITLE = ("the submission declares every problem of this level attempted (attempted_levels), so it is ranked "
                  "although it has results for fewer than {coverage:.0%} of them; a problem without a kernel counts "
                  "as a failure, as in KernelBench's fast_p")
HOME_THRESHOLDS = (0.5, 1.0, 2.0)
"""fast_p columns of the home tables (every threshold is on the submission pages, the curves and downloads):
600 rows of 200 entries must stay within the home page's 1 MB."""

COLUMNS = (
    Column("#", "Rank by fast_1, then geomean speedup; reference rows are not ranked", better_is_lower=True),
    Column("Submission", numeric=False, wrap=True),
    Column("Run", "verified: produced by a maintainer's runner; self-reported: by the submitter", numeric=False,
           filter=True, narrow=False),
    Column("Method", numeric=False, filter=True, narrow=False),
    Column("Backend", "what the submission's kernels are written in", numeric=False, filter=True, narrow=False),
    *(Column(f"fast_{p:g}", f"share of the level's problems correct and faster than {p:g}×", text_sorts=True,
             narrow=p == 1.0) for p in HOME_THRESHOLDS),  # a phone keeps fast_1, the headline
    Column("Geomean", "geometric-mean speedup over the kernels that count", narrow=False),
    Column("Correct", "correct / attempted", narrow=False, text_sorts=True),
    Column("Attempted", "problems with a result / problems in the level; a run in progress also says how many "
           "it has not measured yet (they count as failures until it has)", text_sorts=True),
)
SORT_COLUMN = 5 + HOME_THRESHOLDS.index(1.0)
INTERVAL_TITLE = ("95% interval of fast_1 with every kernel's speedup drawn from its own interval (where a rerun "
                  "is expected to land)")
AMBIGUOUS_NOTE = "speedup interval straddles 1×: a rerun could count it on either side"


def ambiguous_html(count: int) -> str:
    """The ambiguous count beside a fast_p interval, explained in the line itself (a phone has no hover);
    nothing when no kernel is ambiguous."""
    if count <= 0:
        return ""
    return f' <span class="kb-ambiguous">{count} ambiguous</span> <small class="kb-note">({AMBIGUOUS_NOTE})</small>'


class Record(dict):
    """A score row whose columns read as attributes (`fast_0.5` is not an identifier, so rows are dicts)."""

    __getattr__ = dict.__getitem__


NO_SANDBOX = ("measured without the runner's sandbox (its environment records sandbox: none): the kernels could "
              "reach the judge's process and files, so tampering is not ruled out; see the submission page")


def run_cell(verified: bool, sandbox: str = "") -> Cell:
    """`verified` or `self-reported`; a run whose kernels ran unconfined says so (`sandbox: none`)."""
    text, css = ("verified", "kb-verified") if verified else ("self-reported", "kb-self")
    if sandbox == "none":
        return Cell(f"{text}, no sandbox", f"{text}, no sandbox", css=f"kb-badge {css} kb-nosandbox", title=NO_SANDBOX)
    return Cell(text, text, css=f"kb-badge {css}")


def attempted_cell(attempted: int, problems: int, pending: int, declared: bool = False) -> Cell:
    """`84/100`; for a run that has not finished `84/100 · 16 pending`, marked as in progress; for an entry ranked
    by its declaration below COVERAGE `38/100 · declared` (the page says what that means beside the table)."""
    text, why = f"{attempted}/{problems}", []
    if pending:
        text += f" · {pending} pending"
        why.append(f"run in progress: {pending} problem(s) of this level not measured yet; until they are, they "
                   "count as failures, so these fast_p values are lower bounds")
    if declared:
        text += " · declared"
        why.append(DECLARED_TITLE.format(coverage=COVERAGE))
    if not why:
        return Cell(attempted, text)
    css = "kb-badge kb-partial" if pending else "kb-badge kb-declared"
    return Cell(attempted, text, css=css, title="; ".join(why))


@dataclass(frozen=True)
class LevelBoard:
    """One level of one combo, split the way the page shows it."""

    ranked: list[Record]
    compiler: list[Record]
    """Entries whose method is a compiler: reference rows measured as kernels."""
    partial: list[Record]
    references: list[ReferenceScore]
    awaiting: list[Record]
    """Entries and compiler runs whose every record on the level is stale (`scoring`): nothing of theirs describes
    what is committed under the current protocol, so they are listed apart until a rerun, never ranked."""


def backend_of(model: SiteModel, slug: str) -> str:
    """`cuda`, `triton`, `cuda+triton`: the backends the submission's kernels name."""
    doc = model.inputs.submissions.get(slug)
    names = sorted({str(k.get("backend")) for k in doc.kernels if k.get("backend")}) if doc else []
    return "+".join(names)


def method_of(model: SiteModel, slug: str) -> str:
    doc = model.inputs.submissions.get(slug)
    return str(doc.document.get("method", "")) if doc else ""


def declared_levels(model: SiteModel, slug: str) -> frozenset[int]:
    """The levels a submission declares every problem of attempted (`attempted_levels`); none for a results file
    without its submission."""
    doc = model.inputs.submissions.get(slug)
    return doc.attempted_levels if doc else frozenset()


def level_board(model: SiteModel, combo: Combo, level: int) -> LevelBoard:
    """The ranking rule, the one every page uses: a reference is never ranked; an entry is ranked when it
    attempted at least COVERAGE of the level, or when its submission declares the level attempted in full (then
    `declared` marks the rows below COVERAGE); the rest are partial, listed apart. A run with nothing but stale
    records on the level awaits a rerun, listed apart too, whatever it declares."""
    ranked, compiler, partial, awaiting = [], [], [], []
    for values in model.ranked_scores(combo, level).to_dict("records"):
        score = Record(values)
        covered = score.n_attempted >= COVERAGE * score.n_problems
        if awaits_rerun(score):
            awaiting.append(score)
        elif model.is_reference(score.slug):
            compiler.append(score)
        elif covered:
            ranked.append(score)
        elif level in declared_levels(model, score.slug):
            score["declared"] = True
            ranked.append(score)
        else:
            partial.append(score)
    size = model.track_size(combo.track, level)
    references = reference_scores(model.run_rows(combo), combo.hardware, combo.baseline, level, size)
    if compiler:  # the measured compiler run stands for torch.compile; the timing-derived row would repeat it
        references = [r for r in references if r.reference != "torch-compile"]
    return LevelBoard(ranked, compiler, partial, references, awaiting)


def entry_row(model: SiteModel, score: Record, rank: int | None) -> tuple[Cell, ...]:
    fast = [number(score[fast_p_label(p)]) for p in HOME_THRESHOLDS]
    method = method_of(model, score.slug)
    backend = backend_of(model, score.slug)
    name = model.submission_name(score.slug)
    return (
        Cell(rank, str(rank)) if rank else Cell(None, "ref" if model.is_reference(score.slug) else "–"),
        Cell(name, name, link=f"submissions/{score.slug}/"),
        run_cell(bool(score.verified), model.sandbox_of(score.slug, score.hardware)),
        Cell(method, method),
        Cell(backend, backend),
        *(Cell(v, percent_text(v)) for v in fast),
        Cell(number(score.geomean_speedup), speedup_text(number(score.geomean_speedup))),
        Cell(number(score.correct_rate), percent_text(number(score.correct_rate))),
        attempted_cell(int(score.n_attempted), int(score.n_problems), int(score.n_pending),
                       declared=bool(score.get("declared"))),
    )


def reference_row(model: SiteModel, ref: ReferenceScore) -> tuple[Cell, ...]:
    why = "derived from the eager and torch.compile times every run measured (median per problem)"
    return (
        Cell(None, "ref", title=REFERENCE_NOTE),
        Cell(ref.name, ref.name, title=why),
        Cell("reference", "reference", css="kb-badge kb-ref"),
        Cell("baseline", "baseline"),
        Cell("pytorch", "pytorch"),
        *(Cell(ref.fast[fast_p_label(p)], percent_text(ref.fast[fast_p_label(p)])) for p in HOME_THRESHOLDS),
        Cell(ref.geomean, speedup_text(ref.geomean)),
        Cell(None, "–"),
        Cell(ref.measured, f"{ref.measured}/{ref.problems}"),
    )


def leaderboard_table(model: SiteModel, board: LevelBoard) -> Table:
    """Ranked entries with the reference rows placed at their own fast_1 (styled apart, no rank)."""
    rows: list[tuple[float, int, tuple[Cell, ...], str]] = []
    for rank, score in enumerate(board.ranked, start=1):
        rows.append((-float(score[HEADLINE]), rank, entry_row(model, score, rank), ""))
    others = [(float(s[HEADLINE]), entry_row(model, s, None)) for s in board.compiler]
    others += [(r.fast[HEADLINE], reference_row(model, r)) for r in board.references]
    for fast_1, row in others:  # a reference goes after the entries it ties with
        rows.append((-fast_1, len(board.ranked) + 1, row, "kb-ref-row"))
    rows.sort(key=lambda item: (item[0], item[1]))
    return Table(COLUMNS, tuple(r[2] for r in rows), sort_column=SORT_COLUMN,
                 row_css=tuple(r[3] for r in rows))


def apart_table(model: SiteModel, scores: list[Record]) -> Table | None:
    """Unranked entries (`LevelBoard.partial` or `.awaiting`) in the ranked table's columns, without a rank."""
    if not scores:
        return None
    return Table(COLUMNS, tuple(entry_row(model, s, None) for s in scores), sort_column=SORT_COLUMN)


def points(value: float) -> str:
    return f"{100 * value:+.1f} pp"


def best_reference(board: LevelBoard, model: SiteModel) -> tuple[str, float] | None:
    """The reference with the highest fast_1 on this level: (its short name, fast_1)."""
    found = [(model.submission_name(s.slug), float(s[HEADLINE])) for s in board.compiler]
    found += [(BASELINE_NAMES[r.reference], r.fast[HEADLINE]) for r in board.references]
    return max(found, key=lambda item: item[1], default=None)


AWAITING_NOTE = ("every result is stale (measured under an earlier protocol than the methodology's, or on another "
                 "version of the problem or kernel), so not ranked until a rerun")


def no_leader_text(board: LevelBoard) -> str:
    """What a level without a ranked entry says instead of naming an unranked one."""
    reasons = []
    if board.partial:
        reasons.append(f"{len(board.partial)} submission(s) attempted fewer than {COVERAGE:.0%} of this level's "
                       "problems and did not declare it attempted in full (listed apart, unranked)")
    if board.awaiting:
        reasons.append(f"{len(board.awaiting)} run(s) await a rerun: {AWAITING_NOTE}")
    return f"No ranked entry yet: {'; '.join(reasons)}" if reasons else "no ranked entry yet"


def leader_html(model: SiteModel, combo: Combo, level: int, board: LevelBoard) -> str:
    """The best ranked entry, its fast_1 and its margins over #2 and against the best reference."""
    size = model.track_size(combo.track, level)
    track = "" if combo.track == model.headline_track else f" · KernelBench {escape(combo.track)}"
    head = f'<span class="kb-leader-level">Level {level}{track}</span>'
    if not board.ranked:
        elsewhere = elsewhere_html(model, combo, level)
        return f'<li class="kb-leader kb-no-leader">{head} {no_leader_text(board)}{elsewhere}</li>'
    top = board.ranked[0]
    best = float(top[HEADLINE])
    around = (f' <span class="kb-ci" title="{INTERVAL_TITLE}">'
              f"[{percent_text(number(top.fast_1_lo))}–{percent_text(number(top.fast_1_hi))}]</span>"
              f"{ambiguous_html(int(top.ambiguous_1))}")
    parts = [f"<strong>{percent_text(best)}</strong> fast_1{around}"]
    if len(board.ranked) > 1:
        second = board.ranked[1]
        parts.append(f"{points(best - float(second[HEADLINE]))} over #2 "
                     f"{escape(model.submission_name(second.slug))}")
    reference = best_reference(board, model)
    if reference:
        parts.append(f"{points(best - reference[1])} vs the best reference, {escape(reference[0])}")
    parts.append(f"attempted {int(top.n_attempted)}/{size}" + (f" ({DECLARED_NOTE})" if top.get("declared") else ""))
    if model.sandbox_of(top.slug, combo.hardware) == "none":
        parts.append(f'<span class="kb-badge kb-nosandbox" title="{NO_SANDBOX}">no sandbox</span>')
    name = escape(model.submission_name(top.slug))
    link = f'<a href="submissions/{escape(top.slug)}/">{name}</a>'
    return f'<li class="kb-leader">{head} {link} · ' + " · ".join(parts) + "</li>"


def elsewhere_html(model: SiteModel, combo: Combo, level: int) -> str:
    """Where this track ranks nobody on a level, the leaders of the other tracks of the same hardware, baseline and
    rule, so a reader learns who leads without trying every track (the 2024 board's models run on 91bfc2c only)."""
    found = []
    for other in model.combos:
        if (other.hardware, other.baseline, other.rule) != (combo.hardware, combo.baseline, combo.rule) or \
                other.track == combo.track:
            continue
        ranked = level_board(model, other, level).ranked
        if ranked:
            name = escape(model.submission_name(ranked[0].slug))
            found.append(f'on KernelBench {escape(other.track)}, <a href="submissions/{escape(ranked[0].slug)}/">'
                         f"{name}</a> leads with {percent_text(float(ranked[0][HEADLINE]))} fast_1")
    return f" · {'; '.join(found)} (the Track selector above)" if found else ""


def declared_html(board: LevelBoard) -> str:
    """What `· declared` in the table means, said on the page under it; nothing when no row is ranked that way."""
    declared = sum(1 for s in board.ranked if s.get("declared"))
    if not declared:
        return ""
    one = declared == 1
    return ('<p class="kb-note kb-declared-note"><span class="kb-badge kb-declared">declared</span>: '
            f"{DECLARED_MEANS}. "
            f"{declared} ranked entr{'y has' if one else 'ies have'} results for fewer than {COVERAGE:.0%} of the "
            f"level's problems, but {'its submission declares' if one else 'their submissions declare'} every "
            "problem of the level attempted (<code>attempted_levels</code>), so "
            f"{'it is' if one else 'they are'} scored on the whole level, as KernelBench scores a run.</p>")


def level_html(model: SiteModel, combo: Combo, level: int, board: LevelBoard) -> str:
    html = [table_html(leaderboard_table(model, board), "./")]
    if declared := declared_html(board):
        html.append(declared)
    partial = apart_table(model, board.partial)
    if partial:
        html.append(f'<p class="kb-partial-note">Attempted fewer than {COVERAGE:.0%} of the level\'s problems and '
                    "not declared attempted in full, so not ranked:</p>")
        html.append(table_html(partial, "./"))
    awaiting = apart_table(model, board.awaiting)
    if awaiting:
        html.append(f'<p class="kb-partial-note kb-awaiting-note">Awaiting a rerun: {AWAITING_NOTE}.</p>')
        html.append(table_html(awaiting, "./"))
    unknown = sum(int(s.n_unknown) for s in (*board.ranked, *board.compiler, *board.partial))
    if unknown and combo.rule == "upstream":
        html.append(f'<p class="kb-unknown-note">{unknown} result(s) here were recorded before the judge kept '
                    "KernelBench's verdict: they show \"–\" and count as not correct at KernelBench's rule until "
                    "they are measured again; the strict rule scores them as recorded.</p>")
    at = (combo.hardware, combo.baseline, combo.rule, level)
    curves = [NamedCurve(model.submission_name(s.slug), model.curves[(s.slug, *at)]) for s in board.ranked[:TOP_CURVES]]
    title = f"Level {level}: top {len(curves)} by {HEADLINE} ({combo.label(BASELINE_NAMES[combo.baseline])})"
    html.append(curves_svg(curves, title))
    html.append(best_over_time_html(model, board, level))
    return "\n".join(html)


def entry_date(model: SiteModel, slug: str) -> date | None:
    doc = model.inputs.submissions.get(slug)
    try:
        return date.fromisoformat(str(doc.document.get("date", ""))[:10]) if doc else None
    except ValueError:
        return None


def dated_entries(model: SiteModel, board: LevelBoard) -> list[tuple[date, float, str]]:
    """(date, fast_1, name) of the ranked entries that have a date, in date order (ties: the higher first)."""
    return sorted(
        ((day, float(s[HEADLINE]), model.submission_name(s.slug)) for s in board.ranked
         if (day := entry_date(model, s.slug)) is not None),
        key=lambda item: (item[0], -item[1]),
    )


def record_setters(dated: list[tuple[date, float, str]]) -> list[tuple[date, float, str]]:
    """The dated entries that raised the level's best fast_1 (ties: the earlier entry)."""
    setters: list[tuple[date, float, str]] = []
    for day, value, name in dated:
        if not setters or value > setters[-1][1]:
            setters.append((day, value, name))
    return setters


def best_over_time_html(model: SiteModel, board: LevelBoard, level: int) -> str:
    """The best fast_1 over time once two ranked entries have a date (one point is no trend); else why not."""
    dated = dated_entries(model, board)
    if len(dated) < 2:
        return (f'<p class="kb-note">Level {level}: the best {HEADLINE} over time is drawn once two ranked entries '
                f"have a submission date ({len(dated)} so far).</p>")
    label = f"Level {level}: best {HEADLINE} over time (ranked entries, by submission date)"
    return best_over_time_svg(record_setters(dated), label, until=dated[-1][0])


def combo_payload(model: SiteModel, combo: Combo) -> dict:
    leaders, levels = [], {}
    for level in model.level_sizes:
        board = level_board(model, combo, level)
        leaders.append(leader_html(model, combo, level, board))
        partial = apart_table(model, board.partial)
        levels[str(level)] = {
            "table": packed(leaderboard_table(model, board)),
            "partial": packed(partial) if partial else None,
            "html": level_html(model, combo, level, board),
        }
    return {"combo": combo.id, "leaders": '<ul class="kb-leaders">' + "".join(leaders) + "</ul>", "levels": levels}


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
    slots: dict[str, str] = {}
    for index, combo in enumerate(model.combos):
        payload = combo_payload(model, combo)
        out.data(f"data/{combo.id}/leaderboard.json", payload)
        if index == 0:  # the default combo is in the page itself
            slots["leaders"] = payload["leaders"]
            slots.update({f"level-{level}": part["html"] for level, part in payload["levels"].items()})
    pending = _pending_table(model)
    if pending:
        slots["pending"] = table_html(pending, "./")
    markdown = render(
        "home.md.j2",
        model=model,
        combos=model.combos,
        baselines=BASELINE_NAMES,
        pending=pending is not None,
        slot=slot,
        coverage=COVERAGE,
    )
    out.page("index.md", markdown, slots)

