"""A page per problem (reference code, FLOPs/bytes, speed-of-light, every kernel ranked) and the index."""

from __future__ import annotations

import re
from typing import Any

import pandas as pd

from site_src.model import SiteModel
from site_src.operators import operators
from site_src.output import SiteBuild, page_root, slot, source_root
from site_src.references import REFERENCE_NOTE
from site_src.render import render
from site_src.scoring import NO_RECORD
from site_src.tables import Cell, Column, Table, ms_text, number, percent_text, quantity_text, speedup_text, table_html
from site_src.views.home import run_cell
from site_src.views.submissions import claimed_text, source_anchor, status_cell, upstream_cell
from validator.catalogue.overlay import Overlay, overlay_for
from validator.catalogue.problems import Problem
from validator.protocol import HIDDEN_VARIANTS as HIDDEN
from validator.protocol import PROTOCOL
from validator.results.records import Status

RANK_COLUMNS = (
    Column("#", "rank among the submitted kernels that count, by speedup; ref: a reference, never ranked",
           better_is_lower=True),
    Column("Submission", numeric=False, wrap=True),
    Column("Run", numeric=False),
    Column("Status", "the strict rule's verdict", numeric=False),
    Column("KernelBench", "the headline, which ranks: KernelBench's allclose at 1e-2 on every call read, its own draws "
           "and the hidden variants; '(upstream's rule: correct)' where KernelBench's rule on its draws alone is "
           "fooled; – where not recorded", numeric=False),
    Column("Speedup", "vs PyTorch eager [bootstrap 95% interval]"),
    Column("vs compile", "vs torch.compile of the reference"),
    Column("Kernel", "median kernel time", better_is_lower=True),
    Column("of speed of light", "speed-of-light time / kernel time: 100% is the hardware bound"),
    Column("Claimed", numeric=False),
)


def ranked_rows(aligned: pd.DataFrame, references: frozenset[str] = frozenset()) -> pd.DataFrame:
    """Every attempted kernel, ordered within each (problem, hardware): submitted kernels that count (correct at
    upstream's rule, the headline's) fastest first, then the rest, then the references (never ranked)."""
    reference = aligned["slug"].isin(references)
    counts = (aligned["upstream_status"] == Status.CORRECT.value) & aligned["speedup"].notna() & ~reference
    ranked = aligned.assign(counts=counts, reference=reference, rank_order=aligned["speedup"].where(counts, -1.0))
    ranked = ranked[~ranked["status"].isin(NO_RECORD)]
    order = ["key", "hardware", "reference", "rank_order", "status", "slug"]
    return ranked.sort_values(order, ascending=[True, True, True, False, True, True])


def rank_cell(row: Any, rank: int) -> Cell:
    if row.reference:
        return Cell(None, "ref", title=REFERENCE_NOTE)
    return Cell(rank, str(rank)) if row.counts else Cell(None, "–")


def ranking_table(model: SiteModel, rows: pd.DataFrame, sol_ms: float | None, claims: dict) -> Table:
    """`rows`: one problem on one hardware, in the order of `ranked_rows`; references last, styled apart."""
    out = []
    rank = 0
    for row in rows.itertuples(index=False):
        rank += 1 if row.counts else 0
        kernel_ms = number(row.kernel_ms)
        share = sol_ms / kernel_ms if sol_ms and kernel_ms and row.counts else None
        ci = f" [{row.ci_low:.3g}–{row.ci_high:.3g}]" if number(row.ci_low) and number(row.ci_high) else ""
        claim = claimed_text(claims.get(row.slug))
        name = model.submission_name(row.slug) + (" (reference)" if row.reference else "")
        out.append(
            (
                rank_cell(row, rank),
                Cell(name, name, link=f"submissions/{row.slug}/#{source_anchor(row.level, row.problem_id)}"),
                run_cell(bool(row.verified), model.sandbox_of(row.slug, row.hardware)),
                status_cell(row),
                upstream_cell(row),
                Cell(number(row.speedup), speedup_text(number(row.speedup)) + (ci if number(row.speedup) else "")),
                Cell(number(row.speedup_vs_compile), speedup_text(number(row.speedup_vs_compile))),
                Cell(kernel_ms, ms_text(kernel_ms)),
                Cell(share, percent_text(share)),
                Cell(claim, claim, css="kb-claimed"),
            )
        )
    row_css = tuple("kb-ref-row" if r else "" for r in rows["reference"])
    return Table(RANK_COLUMNS, tuple(out), sort_column=0, row_css=row_css if any(row_css) else ())


def _median(rows: pd.DataFrame | None, column: str) -> float | None:
    return number(rows[column].median()) if rows is not None and len(rows) else None


def _cached_ms(model: SiteModel, problem: Problem, hardware: str, which: str) -> float | None:
    entry = model.compile_cache.get(hardware, {}).get(problem.sha256)
    timing = entry.get(which) if isinstance(entry, dict) and entry.get("key") == problem.key else None
    return number(timing.get("median")) if isinstance(timing, dict) else None


def eager_note(manifest_ms: float | None, runs_ms: float | None) -> str:
    """Why two eager times of one problem differ, when they differ by more than 10%."""
    if not manifest_ms or not runs_ms or abs(runs_ms / manifest_ms - 1) <= 0.10:
        return ""
    return (f"the two eager times differ by {abs(runs_ms / manifest_ms - 1):.0%}: the manifest's was timed once "
            "when the problem was catalogued, the runs' is timed beside each kernel (other process, clocks, "
            "inputs); speedups always use the runs' own, interleaved time")


def hardware_facts(model: SiteModel, problem: Problem, rows: dict[str, pd.DataFrame]) -> list[dict[str, Any]]:
    entry = model.inputs.manifest.get(problem.key)
    measured = entry.measured if entry else {}
    facts = []
    for hardware in sorted(set(model.hardware_names) | set(measured)):
        here = rows.get(hardware)
        best_by = model.best_lookup.get((hardware, problem.key), {})
        compiled = _median(here, "compile_ms")
        source = "median over runs"
        if compiled is None:  # no record ran it: the baseline cache times every problem once
            compiled, source = _cached_ms(model, problem, hardware, "compiled"), "baseline cache"
        manifest_ms, runs_ms = entry.eager_ms(hardware) if entry else None, _median(here, "reference_ms")
        facts.append(
            {
                "hardware": model.hardware_names.get(hardware, hardware),
                "eager_manifest": ms_text(manifest_ms),
                "eager_results": ms_text(runs_ms),
                "compile": ms_text(compiled) + (f" ({source})" if compiled is not None else ""),
                "note": eager_note(manifest_ms, runs_ms),
                "sol": ms_text(model.speed_of_light_ms(problem.key, hardware)),
                "best": {b: (speedup_text(s), model.submission_name(slug)) for b, (s, slug) in best_by.items()},
            }
        )
    return facts


def fence(source: str) -> str:
    """A backtick fence longer than any run of backticks in the source."""
    longest = max((len(m) for m in re.findall(r"`+", source)), default=0)
    return "`" * max(3, longest + 1)


def scales_text(scales: Any) -> str:
    return ", ".join(f"×{s:g}" for s in scales)


def correctness_text(overlay: Overlay) -> str:
    """The tolerances and input scales a problem is judged by, where its overlay departs from the protocol's."""
    default_scales = scales_text(PROTOCOL.input_scales)
    scales = overlay.input_scales
    parts = [f"input scales {scales_text(scales)} (the board's overlay; the protocol's are {default_scales})"
             if scales is not None else f"input scales {default_scales}"]
    for dtype, (atol, rtol) in sorted(overlay.tolerances.items()):
        base = PROTOCOL.tolerances.get(dtype)
        parts.append(f"{dtype} atol {atol:g}, rtol {rtol:g} (the board's overlay; the protocol's are "
                     f"{base.atol:g} and {base.rtol:g})" if base else f"{dtype} atol {atol:g}, rtol {rtol:g}")
    if not overlay.tolerances:
        parts.append("the protocol's tolerances")
    if overlay.hidden_variants is not None:
        parts.append(f"hidden input variants: {', '.join(overlay.hidden_variants) or 'none'} (the board's overlay; "
                     f"the protocol's are {', '.join(HIDDEN)})")
    return " · ".join(parts)


def overlay_items(overlay: Overlay) -> list[dict[str, str]]:
    """What the board applies to upstream's unchanged file, each with why (from problems/overlay.json)."""
    items = []
    if overlay.judged_differently:
        items.append({"what": "Correctness", "applied": correctness_text(overlay), "why": overlay.reason})
    for code, why in sorted(overlay.exempt.items()):
        items.append({"what": f"Catalogue filter {code}", "applied": "failure kept", "why": why})
    if overlay.reduced_sizes:
        sizes = ", ".join(f"{name} = {value}" for name, value in overlay.reduced_sizes.items())
        items.append({"what": "Reduced sizes", "applied": sizes,
                      "why": "the catalogue's CPU check runs the problem at these sizes; GPU runs use upstream's"})
    if overlay.note:
        items.append({"what": "Note", "applied": "", "why": overlay.note})
    return items


def problem_page(model: SiteModel, problem: Problem, rows: dict[str, pd.DataFrame], out: SiteBuild) -> None:
    """`rows`: hardware -> this problem's attempted kernels there, ranked."""
    uri = f"problems/{problem.key}.md"
    root = page_root(uri)
    entry = model.inputs.manifest.get(problem.key)
    flops, min_bytes = (number(entry.flops), number(entry.min_bytes)) if entry else (None, None)
    claims = model.claims.get((problem.level, problem.problem_id), {})
    slots, sections = {}, []
    for hardware, name in model.hardware_names.items():
        if hardware not in rows:
            continue
        sol = model.speed_of_light_ms(problem.key, hardware)
        slots[f"rank-{hardware}"] = table_html(ranking_table(model, rows[hardware], sol, claims), root)
        sections.append({"name": name, "slot": slot(f"rank-{hardware}")})
    source = problem.path.read_text(encoding="utf-8")
    markdown = render(
        "problem.md.j2",
        problem=problem,
        md_root=source_root(uri),
        sections=sections,
        source=source,
        fence=fence(source),
        correctness=correctness_text(overlay_for(problem.path)),
        overlay=overlay_items(overlay_for(problem.path)),
        flops=quantity_text(flops, "FLOP"),
        min_bytes=quantity_text(min_bytes, "B"),
        intensity=f"{flops / min_bytes:.3g} FLOP/B" if flops and min_bytes else "–",
        facts=hardware_facts(model, problem, rows),
        has_manifest=entry is not None,
        operators=operators(source),
    )
    out.page(uri, markdown, slots)


def index_table(model: SiteModel, level: int) -> Table:
    hardware = list(model.hardware_names)
    columns = (
        Column("Problem", numeric=False),
        Column("FLOPs"),
        Column("Min bytes"),
        *(Column(f"Best on {model.hardware_names[h]}", "best eager speedup among counted kernels") for h in hardware),
    )
    rows = []
    for problem in model.inputs.catalogue.level(level):
        entry = model.inputs.manifest.get(problem.key)
        flops, min_bytes = (number(entry.flops), number(entry.min_bytes)) if entry else (None, None)
        bests = [number(model.best_lookup.get((h, problem.key), {}).get("eager", (None,))[0]) for h in hardware]
        rows.append(
            (
                Cell(problem.problem_id, problem.name, link=f"problems/{problem.key}/"),
                Cell(flops, quantity_text(flops, "FLOP")),
                Cell(min_bytes, quantity_text(min_bytes, "B")),
                *(Cell(b, speedup_text(b)) for b in bests),
            )
        )
    return Table(columns, tuple(rows))


def pages_for(model: SiteModel) -> list[Problem]:
    """The headline's problems, and every problem of another version's track that has runs (its results link
    to it); a file equal to the headline's is the headline's page."""
    pages = {p.key: p for p in model.inputs.catalogue.problems}
    for track in model.scored_tracks:
        pages.update({p.key: p for p in model.tracks[track] if p.key not in pages})
    return list(pages.values())


def build(model: SiteModel, out: SiteBuild) -> None:
    by_problem: dict[str, dict[str, pd.DataFrame]] = {}
    for (key, hardware), rows in ranked_rows(model.aligned, model.references).groupby(["key", "hardware"], sort=False):
        by_problem.setdefault(key, {})[hardware] = rows
    for problem in pages_for(model):
        problem_page(model, problem, by_problem.get(problem.key, {}), out)
    levels = list(model.level_sizes.items())
    slots = {f"level{level}": table_html(index_table(model, level), "../") for level, _ in levels}
    markdown = render("problems.md.j2", levels=levels, slot=slot)
    out.page("problems/index.md", markdown, slots)
