"""A page per submission (metadata, scores, per-problem results, kernel sources) and the submissions index."""

from __future__ import annotations

from collections import Counter
from html import escape
from typing import Any

import pandas as pd

from site_src.model import BASELINE_NAMES, SiteModel
from site_src.output import SiteBuild, page_root, slot
from site_src.render import render
from site_src.scoring import NO_RECORD, RULES, STALE, THRESHOLDS, fast_p_label, protocol_of
from site_src.sources import SubmissionDoc, regular_files
from site_src.tables import Cell, Column, Table, ms_text, number, percent_text, speedup_text, table_html
from site_src.text import css_token, html_paragraphs, https_url, one_line
from site_src.verdicts import UNJUDGED, KernelVerdicts, compare_verdicts
from site_src.views.home import COVERAGE, Record, attempted_cell, declared_levels
from validator.protocol import PROTOCOL_VERSION
from validator.results.records import ResultsFile, Status
from validator.submission.source import GITHUB, KernelSource

STALE_TEXT = "stale — awaiting rerun"
RESULT_COLUMNS = (
    Column("Problem", numeric=False),
    Column("Backend", numeric=False),
    Column("Status", "the strict rule's verdict; hover for the cause", numeric=False),
    Column("KernelBench", "the headline: KernelBench's allclose at 1e-2 on every call read, its own draws and the "
           "hidden variants; '(upstream's rule: correct)' where its rule on its draws alone is fooled; – where not "
           "recorded", numeric=False),
    Column("Speedup", "vs PyTorch eager: median ratio [bootstrap 95% interval]"),
    Column("vs compile", "vs torch.compile of the reference"),
    Column("Reference", "median eager reference time", better_is_lower=True),
    Column("Kernel", "median kernel time", better_is_lower=True),
    Column("Flags", "reason codes; hover for messages", numeric=False),
    Column("Claimed", "the submitter's own number, not measured here", numeric=False),
    Column("Source", numeric=False),
)
SCORE_COLUMNS = (
    Column("Baseline", numeric=False),
    Column("Rule", "which verdict counts a kernel as correct", numeric=False),
    Column("Level"),
    *(Column(fast_p_label(p), "[95% interval with every kernel drawn from its speedup interval]; ambiguous: "
             "kernels whose interval straddles p") for p in THRESHOLDS),
    Column("Geomean"),
    Column("Compiled", "built and ran / attempted"),
    Column("Correct", "correct / attempted"),
    Column("Attempted"),
)


def source_anchor(level: int, problem_id: int) -> str:
    return f"src-l{level}-{problem_id}"


def claimed_text(kernel: dict[str, Any] | None) -> str:
    claimed = kernel.get("claimed") if kernel else None
    if not isinstance(claimed, dict) or not isinstance(claimed.get("speedup"), int | float):
        return ""
    baseline = claimed.get("baseline", "eager")
    return f"{claimed['speedup']:.3g}× on {claimed.get('hardware', '?')} vs {baseline} (claimed)"


def status_cell(row: Any) -> Cell:
    """A result's status; the error (compiler and worker output, submitter-controlled) only as its tooltip."""
    status = str(row.status)
    if status == STALE:  # measured on another version of the kernel or problem: not ranked, rerun next
        return Cell(status, STALE_TEXT, css="kb-status kb-stale", title=str(row.stale_reason))
    return Cell(status, status, css=f"kb-status kb-{css_token(status)}", title=str(row.error)[:300])


def upstream_cell(row: Any) -> Cell:
    """A result's verdict at upstream's rule: "–" where it is not known (not recorded, stale, no record)."""
    verdict = str(row.upstream_status)
    if verdict not in (Status.CORRECT.value, Status.INCORRECT.value, Status.NEEDS_REVIEW.value):
        return Cell("", "–", css="kb-status", title="not recorded: results written before upstream's verdict was")
    fooled = str(getattr(row, "upstream_fooled", "") or "")
    if fooled:  # KernelBench's own rule, on its draws alone, passes what the headline rejects
        return Cell(verdict, f"{verdict} (upstream's rule: correct)", css=f"kb-status kb-{css_token(verdict)}",
                    title=fooled[:300])
    return Cell(verdict, verdict, css=f"kb-status kb-{css_token(verdict)}", title=str(row.upstream_error)[:300])


def _speedup_display(row: Any) -> str:
    text = speedup_text(number(row.speedup))
    low, high = number(row.ci_low), number(row.ci_high)
    if low is not None and high is not None:
        text += f" [{low:.3g}–{high:.3g}]"
    return text


def result_table(rows: pd.DataFrame, kernels: dict[tuple[int, int], dict], problem_names: dict[str, str]) -> Table:
    out = []
    for row in rows.itertuples(index=False):
        kernel = kernels.get((int(row.level), int(row.problem_id)))
        flags = str(row.flags)
        anchor = f"#{source_anchor(int(row.level), int(row.problem_id))}" if kernel else None
        out.append(
            (
                Cell(row.key, problem_names.get(row.key, row.key) + ("" if "@" not in row.key else f" ({row.track})"),
                     link=f"problems/{row.key}/"),
                Cell(str(row.backend), str(row.backend)),
                status_cell(row),
                upstream_cell(row),
                Cell(number(row.speedup), _speedup_display(row)),
                Cell(number(row.speedup_vs_compile), speedup_text(number(row.speedup_vs_compile))),
                Cell(number(row.reference_ms), ms_text(number(row.reference_ms))),
                Cell(number(row.kernel_ms), ms_text(number(row.kernel_ms))),
                Cell(flags, flags, title=str(row.flag_messages)[:500]),
                Cell(claimed_text(kernel), claimed_text(kernel), css="kb-claimed"),
                Cell("source" if anchor else "", "source" if anchor else "", link=anchor),
            )
        )
    return Table(RESULT_COLUMNS, tuple(out))


AMBIGUOUS_NOTE = ("ambiguous: counted kernels whose speedup interval straddles p, so a rerun could count them on "
                  "either side of p")


def fast_cell(values: dict[str, Any], p: float) -> Cell:
    """fast_p with its interval and, where there are any, the kernels that could fall on either side of p."""
    label = fast_p_label(p)
    value = number(values[label])
    text = percent_text(value)
    lo, hi = number(values.get(f"{label}_lo")), number(values.get(f"{label}_hi"))
    if lo is not None and hi is not None and (lo, hi) != (value, value):
        text += f" [{percent_text(lo)}–{percent_text(hi)}]"
    count = int(values.get(f"ambiguous_{p:g}") or 0)
    if count:
        text += f" · {count} ambiguous"
    return Cell(value, text)


def score_table(scores: pd.DataFrame, declared: frozenset[int] = frozenset()) -> Table:
    """`declared`: the levels the submission declares attempted in full; a level's row under COVERAGE says so."""
    rows = []
    for values in scores.to_dict("records"):
        s = Record(values)
        by_declaration = int(s.level) in declared and s.n_attempted < COVERAGE * s.n_problems
        rows.append(
            (
                Cell(BASELINE_NAMES[s.baseline], BASELINE_NAMES[s.baseline]),
                Cell(RULES[s.rule], RULES[s.rule]),
                Cell(int(s.level), str(s.level)),
                *(fast_cell(values, p) for p in THRESHOLDS),
                Cell(number(s.geomean_speedup), speedup_text(number(s.geomean_speedup))),
                Cell(number(s.compile_rate), percent_text(number(s.compile_rate))),
                Cell(number(s.correct_rate), percent_text(number(s.correct_rate))),
                attempted_cell(int(s.n_attempted), int(s.n_problems), int(s.n_pending), by_declaration),
            )
        )
    return Table(SCORE_COLUMNS, tuple(rows))


def run_badge(results: ResultsFile) -> str:
    """`verified` or `self-reported`, then `no sandbox` for a run whose kernels ran unconfined and `in progress`
    while the run has not finished."""
    badge = "verified" if results.verified else "self-reported"
    if results.environment.extra.get("sandbox") == "none":
        badge += ", no sandbox"
    return badge if results.finished_at else f"{badge}, in progress"


def run_verdicts(rows: pd.DataFrame, results: ResultsFile) -> tuple[KernelVerdicts, ...]:
    """The verdicts of the rows a run's table shows, in its order: a row with a current record has the record's, a
    stale, missing or pending one its status alone."""
    if rows.empty:
        return ()
    records = {record.key: record for record in results.problems}  # a key recorded twice: the last, as scored
    return tuple(KernelVerdicts(key, status) if status in UNJUDGED or key not in records
                 else KernelVerdicts.of(records[key]) for key, status in zip(rows["key"], rows["status"], strict=True))


def verdicts_html(rows: pd.DataFrame, results: ResultsFile, names: dict[str, str], root: str) -> str:
    """The paragraph above a run's table: the board's verdicts beside KernelBench's rule's, and where they
    disagree (`site_src.verdicts`); "" for a run without a row."""
    comparison = compare_verdicts(run_verdicts(rows, results))
    if not comparison.kernels:
        return ""
    return render("verdicts.html.j2", comparison=comparison, names=names, root=root)


def _run_info(model: SiteModel, results: ResultsFile, slot_name: str) -> dict[str, Any]:
    env = results.environment
    track = model.run_track.get((results.slug, results.hardware), model.headline_track)
    return {
        "track": track,
        "headline": track == model.headline_track,
        "sandbox": model.sandbox_of(results.slug, results.hardware),
        "sandbox_detail": str(env.extra.get("sandbox_detail") or ""),
        "gpu": env.gpu or results.hardware,
        "hardware": results.hardware,
        "badge": "verified" if results.verified else "self-reported",
        "protocol": protocol_of(results),
        "protocol_now": PROTOCOL_VERSION if protocol_of(results) != PROTOCOL_VERSION else "",
        "harness": env.harness_version,
        "driver": env.driver,
        "cuda": env.cuda,
        "torch": env.torch,
        "triton": env.triton,
        "host": one_line(str(env.extra.get("cpu_model") or "")),
        "finished": results.finished_at,
        "started": results.started_at,
        "slot": slot(slot_name),
        "verdicts_slot": slot(f"verdicts-{results.hardware}"),
    }


def source_link(kernel: dict[str, Any]) -> str:
    """` · <a>owner/name@commit</a>` to an external kernel's page at its pinned commit, as escaped HTML; "" for a
    kernel without a `source` (or one the schema would refuse: only https://github.com/ pages are linked)."""
    ref = kernel.get("source")
    fields = ("repository", "commit", "path", "sha256")
    if not isinstance(ref, dict) or not all(isinstance(ref.get(f), str) for f in fields):
        return ""
    source = KernelSource.from_json(ref)
    url = https_url(source.blob_url) if source.repository.startswith(GITHUB) else None
    if url is None:
        return ""
    text = f"{source.owner_name}@{source.commit[:12]}"
    return f' · <a class="kb-source-link" href="{escape(url)}">{escape(one_line(text))}</a>'


def sources_html(doc: SubmissionDoc | None, root: str, out: SiteBuild) -> str:
    """A collapsed block per kernel. The sources go into one JSON bundle per (submission, level) that the
    browser fetches when a block is first opened: tens of thousands of small files would dominate the build."""
    if doc is None:
        return ""
    files = regular_files(doc.kernel_dir)
    bundles: dict[str, dict[str, str]] = {}
    blocks = []
    for kernel in doc.kernels:
        level, problem_id, path = kernel.get("level"), kernel.get("problem_id"), str(kernel.get("path", ""))
        source = files.get(path)
        claim = claimed_text(kernel)
        backend = escape(str(kernel.get("backend", "")))
        summary = f"<code>{escape(f'level{level}/{problem_id}')}</code> · {escape(path)} · {backend}"
        summary += source_link(kernel)
        if claim:
            summary += f' · <span class="kb-claimed">{escape(claim)}</span>'
        if source is not None:
            uri = f"data/kernels/{doc.slug}/level{level}.json"
            bundles.setdefault(uri, {})[path] = source.read_text(encoding="utf-8", errors="replace")
            attrs = f' data-kb-bundle="{escape(root + uri)}" data-kb-path="{escape(path)}"'
            body = "<p>Loading…</p>"
        else:
            attrs, body = "", ("<p>Kept in its authors' repository: follow the link above.</p>" if source_link(kernel)
                               else "<p>The kernel file is missing from the repository.</p>")
        anchor = escape(source_anchor(level, problem_id))
        blocks.append(f'<details class="kb-source" id="{anchor}"{attrs}><summary>{summary}</summary>{body}</details>')
    for uri, sources in bundles.items():
        out.data(uri, sources)
    return "\n".join(blocks)


def declared_text(doc: SubmissionDoc | None, level_sizes: dict[int, int], reference: bool = False) -> str:
    """The submission's `attempted_levels` in words, with how many problems of each have a kernel; "" without."""
    if doc is None or not doc.attempted_levels:
        return ""
    listed = Counter(kernel.get("level") for kernel in doc.kernels)
    levels = ", ".join(f"level {level} ({listed.get(level, 0)} of {level_sizes.get(level, '?')} problems with a "
                       "kernel)" for level in sorted(doc.attempted_levels))
    ranked = ("as a reference it is never ranked" if reference else
              "the entry is ranked on each of them whatever its coverage")
    return (f"{levels}: the submission declares every problem of these levels attempted (attempted_levels), so a "
            f"problem without a kernel counts as a failure, and {ranked}")


def _meta_html(doc: SubmissionDoc | None, slug: str, name: str, root: str, declared: str = "") -> str:
    document = doc.document if doc else {}
    model_info = document.get("model") if isinstance(document.get("model"), dict) else {}
    model_name = " ".join(str(model_info.get(k, "")) for k in ("provider", "name", "version")).strip()
    return render(
        "submission_meta.html.j2",
        slug=slug,
        name=name,
        authors=[a for a in document.get("authors", []) if isinstance(a, dict)],
        model_name=model_name,
        method=document.get("method", "–"),
        date=document.get("date", "–"),
        target_hardware=document.get("target_hardware", []),
        links=[link for link in document.get("links", []) if isinstance(link, dict)],
        n_kernels=len(doc.kernels) if doc else "–",
        declared=declared,
        document_link=f"{root}downloads/submissions/{slug}.json" if doc else "",
    )


def _shown_rows(aligned: pd.DataFrame | None, hardware: str, kernels: dict) -> pd.DataFrame:
    """This hardware's records, plus the submission's own problems that have none (shown as missing, or as
    pending while the run is in progress)."""
    if aligned is None:
        return pd.DataFrame(columns=["level"])
    rows = aligned[aligned["hardware"] == hardware]
    listed = pd.Series(
        [(lvl, pid) in kernels for lvl, pid in zip(rows["level"], rows["problem_id"], strict=True)],
        index=rows.index,
        dtype=bool,
    )
    return rows[~rows["status"].isin(NO_RECORD) | listed]


def submission_page(model: SiteModel, slug: str, aligned: pd.DataFrame | None, out: SiteBuild) -> None:
    uri = f"submissions/{slug}.md"
    root = page_root(uri)
    doc = model.inputs.submissions.get(slug)
    if doc is not None:
        out.copy(f"downloads/submissions/{slug}.json", doc.path)
    kernels = {(k.get("level"), k.get("problem_id")): k for k in doc.kernels} if doc else {}
    names = model.problem_names
    name = model.submission_name(slug)
    slots = {
        "meta": _meta_html(doc, slug, name, root, declared_text(doc, model.level_sizes, model.is_reference(slug))),
        "sources": sources_html(doc, root, out),
    }
    runs = []
    mine = sorted((r for r in model.inputs.results if r.slug == slug), key=lambda r: r.hardware)
    if mine:
        scores = model.scores[model.scores["slug"] == slug]
        parts = []
        for results in mine:
            here = scores[scores["hardware"] == results.hardware]
            gpu = results.environment.gpu or results.hardware
            declared = frozenset() if model.is_reference(slug) else declared_levels(model, slug)
            parts.append(f"<h3>{escape(gpu)}</h3>\n" + table_html(score_table(here, declared), root))
        if scores[[f"ambiguous_{p:g}" for p in THRESHOLDS]].to_numpy().any():  # said here, not only in a tooltip
            parts.append(f'<p class="kb-note">{AMBIGUOUS_NOTE}</p>')
        slots["scores"] = "\n".join(parts)
    for results in mine:
        slot_name = f"results-{results.hardware}"
        rows = _shown_rows(aligned, results.hardware, kernels)
        slots[slot_name] = table_html(result_table(rows, kernels, names), root)
        slots[f"verdicts-{results.hardware}"] = verdicts_html(rows, results, names, root)
        runs.append(_run_info(model, results, slot_name))
    slots["description"] = html_paragraphs(doc.document.get("description", "")) if doc else ""
    markdown = render(
        "submission.md.j2",
        name=name,
        slug=slug,
        description_slot=slot("description"),
        runs=runs,
        meta_slot=slot("meta"),
        scores_slot=slot("scores"),
        sources_slot=slot("sources"),
    )
    out.page(uri, markdown, slots)


INDEX_COLUMNS = (
    Column("Submission", numeric=False),
    Column("Method", numeric=False),
    Column("Model", numeric=False),
    Column("Date", numeric=False),
    Column("Kernels"),
    Column("Runs", numeric=False),
)


def index_table(model: SiteModel, slugs: list[str]) -> Table:
    runs: dict[str, list[str]] = {}
    for results in model.inputs.results:
        badge = run_badge(results)
        runs.setdefault(results.slug, []).append(f"{results.environment.gpu or results.hardware} ({badge})")
    rows = []
    for slug in slugs:
        doc = model.inputs.submissions.get(slug)
        document = doc.document if doc else {}
        model_info = document.get("model") if isinstance(document.get("model"), dict) else {}
        shown = ", ".join(sorted(runs.get(slug, []))) or "not measured yet"
        rows.append(
            (
                Cell(model.submission_name(slug), model.submission_name(slug), link=f"submissions/{slug}/"),
                Cell(str(document.get("method", "")), str(document.get("method", ""))),
                Cell(str(model_info.get("name", "")), str(model_info.get("name", ""))),
                Cell(str(document.get("date", "")), str(document.get("date", ""))),
                Cell(len(doc.kernels) if doc else 0, str(len(doc.kernels)) if doc else "–"),
                Cell(shown, shown),
            )
        )
    return Table(INDEX_COLUMNS, tuple(rows))


def build(model: SiteModel, out: SiteBuild) -> None:
    slugs = sorted(set(model.inputs.submissions) | {r.slug for r in model.inputs.results})
    by_slug = dict(tuple(model.aligned.groupby("slug", sort=False))) if model.has_results else {}
    for slug in slugs:
        submission_page(model, slug, by_slug.get(slug), out)
    markdown = render("submissions.md.j2", count=len(slugs), table=slot("index"))
    out.page("submissions/index.md", markdown, {"index": table_html(index_table(model, slugs), "../")})
