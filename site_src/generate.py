"""The site generator: inputs -> scores -> pages, data files and assets for MkDocs.

`generate()` reads as the build: load what is committed, score it once, let each page module add its
pages and data files, then add the static assets (plotly.js is a partial bundle of the core and heatmap
vendored in site_src/vendor/plotly/, so the site needs no CDN and ships no trace type it does not draw).
The MkDocs hook (`hooks.py`) hands the result to MkDocs.
"""

from __future__ import annotations

from collections.abc import Iterable
from pathlib import Path

from site_src.model import build_model
from site_src.output import SiteBuild
from site_src.sources import SiteDataError, SiteSources, load_inputs
from site_src.views import compare, curves, downloads, heatmap, home, methodology, problems, submissions, submitting

ASSETS_DIR = Path(__file__).resolve().parent / "assets"
PLOTLY_JS = Path(__file__).resolve().parent / "vendor" / "plotly" / "plotly-kb.min.js"
PLOTLY_URI = "assets/kb/plotly.min.js"


def add_assets(out: SiteBuild) -> None:
    for path in sorted(ASSETS_DIR.rglob("*")):
        if path.is_file():
            out.copy(f"assets/{path.relative_to(ASSETS_DIR).as_posix()}", path)
    if not PLOTLY_JS.is_file():
        raise SiteDataError(f"{PLOTLY_JS}: the vendored plotly.js bundle is missing")
    out.copy(PLOTLY_URI, PLOTLY_JS)


def generate(sources: SiteSources, hand_written: Iterable[str] = ()) -> SiteBuild:
    """Every generated file of the site; `hand_written` lists the pages already in the docs directory."""
    hand_written = set(hand_written)
    model = build_model(load_inputs(sources))
    out = SiteBuild()
    home.build(model, out)
    curves.build(model, out)
    heatmap.build(model, out)
    submissions.build(model, out)
    problems.build(model, out)
    methodology.build(model, out)
    submitting.build(out, sources.schema_path, hand_written)
    downloads.build(model, out)
    compare.build(model, out)
    add_assets(out)
    clashes = sorted({f.uri for f in out.files} & hand_written)
    if clashes:
        raise SiteDataError(f"site_src/pages/ has files the generator also writes: {', '.join(clashes)}")
    return out
