"""Downloads: every result and every score as CSV and JSON, plus the raw result files as committed."""

from __future__ import annotations

import pandas as pd

from site_src.model import SiteModel
from site_src.output import SiteBuild
from site_src.render import render
from site_src.scoring import NO_RECORD

RESULT_COLUMNS = [
    "slug",
    "hardware",
    "verified",
    "level",
    "problem_id",
    "key",
    "sha256",
    "status",
    "speedup",
    "ci_low",
    "ci_high",
    "speedup_vs_compile",
    "reference_ms",
    "kernel_ms",
    "compile_ms",
    "backend",
    "flags",
    "error",
]


def _json_records(frame: pd.DataFrame) -> str:
    """Records; pandas writes NaN as null."""
    return frame.to_json(orient="records", double_precision=6)


def build(model: SiteModel, out: SiteBuild) -> None:
    results = model.aligned[~model.aligned["status"].isin(NO_RECORD)][RESULT_COLUMNS]
    scores = model.scores
    out.data_text("downloads/results.csv", results.to_csv(index=False))
    out.data_text("downloads/results.json", _json_records(results))
    out.data_text("downloads/scores.csv", scores.to_csv(index=False))
    out.data_text("downloads/scores.json", _json_records(scores))
    raw = []
    for record in model.inputs.results:
        uri = f"downloads/raw/{record.hardware}/{record.slug}.json"
        out.copy(uri, model.inputs.sources.results_dir / record.hardware / f"{record.slug}.json")
        raw.append({"uri": uri, "slug": record.slug, "hardware": record.hardware, "verified": record.verified})
    markdown = render(
        "downloads.md.j2",
        n_results=len(results),
        n_scores=len(scores),
        raw=raw,
        result_columns=RESULT_COLUMNS,
        score_columns=list(scores.columns),
    )
    out.page("downloads.md", markdown)
