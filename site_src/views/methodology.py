"""The methodology page, generated from the validator's own constants and docstrings so it cannot drift."""

from __future__ import annotations

import ast
import inspect
import itertools
from dataclasses import fields, is_dataclass
from typing import Any

from site_src import scoring
from site_src.model import BASELINE_NAMES, SiteModel
from site_src.output import SiteBuild
from site_src.render import render
from validator.catalogue.overlay import overlay_for
from validator.protocol import PROTOCOL, Protocol
from validator.results.records import Status

STATUS_MEANING = {
    Status.CORRECT: "ran, matched the reference on every trial; counts towards fast_p",
    Status.INCORRECT: "ran, output wrong (values, shape, dtype, NaN pattern, or inputs mutated)",
    Status.COMPILE_ERROR: "the build failed or timed out",
    Status.RUNTIME_ERROR: "exception, crash or illegal memory access",
    Status.TIMEOUT: "exceeded the per-problem time limit",
    Status.OOM: "ran out of GPU memory",
    Status.REJECTED: "refused by the static policy or an integrity check; the flags say why",
    Status.NEEDS_REVIEW: "correct, but held (for example an implausible speedup) until a maintainer clears it",
    Status.NOT_RUN: "not evaluated on this hardware",
}


def attribute_docs(cls: type) -> dict[str, str]:
    """The string literal written under each field of a dataclass (`x: int = 1` then `\"\"\"doc\"\"\"`)."""
    tree = ast.parse(inspect.getsource(cls))
    body = tree.body[0].body if tree.body and isinstance(tree.body[0], ast.ClassDef) else []
    docs = {}
    for node, following in itertools.pairwise(body):
        is_doc = isinstance(following, ast.Expr) and isinstance(following.value, ast.Constant)
        if isinstance(node, ast.AnnAssign) and isinstance(node.target, ast.Name) and is_doc:
            docs[node.target.id] = " ".join(str(following.value.value).split())
    return docs


def _shown(value: Any) -> str:
    if isinstance(value, tuple):
        return ", ".join(f"{v:g}" if isinstance(v, float) else str(v) for v in value)
    if isinstance(value, float):
        return f"{value:g}"
    return str(value)


def protocol_rows(protocol: Protocol) -> list[dict[str, str]]:
    docs = attribute_docs(Protocol)
    return [
        {"name": f.name, "value": _shown(getattr(protocol, f.name)), "doc": docs.get(f.name, "")}
        for f in fields(protocol)
        if f.name != "tolerances"
    ]


def tolerance_rows(protocol: Protocol) -> list[dict[str, str]]:
    return [
        {"dtype": dtype, "atol": f"{t.atol:g}", "rtol": f"{t.rtol:g}"}
        for dtype, t in protocol.tolerances.items()
        if is_dataclass(t)
    ]


def scoring_definitions() -> str:
    """The definitions list of site_src.scoring's docstring (its paragraphs after the heading line)."""
    paragraphs = inspect.cleandoc(scoring.__doc__ or "").split("\n\n")
    return "\n\n".join(paragraphs[2:])


def _speed_of_light_doc() -> str:
    try:
        import validator.catalogue.speed_of_light as sol
    except ImportError:
        return ""
    return inspect.cleandoc(sol.__doc__ or "")


def departures(model: SiteModel) -> list[dict[str, str]]:
    """The problems judged by their own input scales, tolerances or hidden variants (the board's overlay)."""
    from site_src.views.problems import scales_text

    rows = []
    for problem in model.inputs.catalogue.problems:
        overlay = overlay_for(problem.path)
        if not overlay.judged_differently:
            continue
        scales, tolerances = overlay.input_scales, overlay.tolerances
        rows.append({
            "key": problem.key,
            "scales": scales_text(scales) if scales is not None else "the protocol's",
            "tolerances": "; ".join(f"{k} atol {a:g}, rtol {r:g}" for k, (a, r) in sorted(tolerances.items()))
            if tolerances else "the protocol's",
            "variants": ", ".join(overlay.hidden_variants) or "none" if overlay.hidden_variants is not None
            else "the protocol's",
        })
    return rows


def review_rows(model: SiteModel) -> list[dict[str, Any]]:
    """Every maintainer decision on a held result, and whether it applies to a result on the board."""
    unused = set(model.inputs.unused_reviews)
    return [{"review": r, "name": model.submission_name(r.slug), "applies": r not in unused,
             "linked": r.problem in model.problem_names} for r in model.inputs.reviews]


def build(model: SiteModel, out: SiteBuild) -> None:
    from site_src.views.problems import scales_text

    markdown = render(
        "methodology.md.j2",
        departures=departures(model),
        reviews=review_rows(model),
        protocol=PROTOCOL,
        protocol_rows=protocol_rows(PROTOCOL),
        precision_sample=f"{PROTOCOL.precision_sample:,}",
        tolerances=tolerance_rows(PROTOCOL),
        scales=scales_text(tuple(s for s in PROTOCOL.input_scales if s != 1.0)),
        scoring_doc=scoring_definitions(),
        thresholds=", ".join(f"{p:g}" for p in scoring.THRESHOLDS),
        statuses=STATUS_MEANING,
        baselines=BASELINE_NAMES,
        sol_doc=_speed_of_light_doc(),
    )
    out.page("methodology.md", markdown)
