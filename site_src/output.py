"""What the generator produces: files for MkDocs (pages, data, copies) and HTML slots filled after Markdown.

Big tables go into slots: the Markdown page holds `<!-- kb-slot:NAME -->` and the hook puts the HTML
in after Markdown and search indexing have run, so neither parses hundreds of table rows per page.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from pathlib import Path, PurePosixPath
from typing import Any

from markupsafe import Markup


@dataclass(frozen=True)
class SiteFile:
    uri: str
    """Path in the site's source tree (`index.md`, `data/x/leaderboard.json`), forward slashes."""
    content: str | bytes | None = None
    source: Path | None = None
    """Copy this file instead of writing `content`."""


@dataclass
class SiteBuild:
    """Everything one generator run produced (mutable while views add to it)."""

    files: list[SiteFile] = field(default_factory=list)
    slots: dict[str, dict[str, str]] = field(default_factory=dict)
    """Page uri -> slot name -> HTML."""

    def page(self, uri: str, markdown: str, slots: dict[str, str] | None = None) -> None:
        self.files.append(SiteFile(uri, content=markdown))
        if slots:
            self.slots[uri] = dict(slots)

    def data(self, uri: str, payload: Any) -> None:
        self.files.append(SiteFile(uri, content=json_text(payload)))

    def data_text(self, uri: str, text: str) -> None:
        self.files.append(SiteFile(uri, content=text))

    def copy(self, uri: str, source: Path) -> None:
        self.files.append(SiteFile(uri, source=source))


def slot(name: str) -> Markup:
    """The marker a template puts where slot `name` goes (Markup: templates must not escape it)."""
    return Markup(f"<!-- kb-slot:{name} -->")


def json_text(payload: Any) -> str:
    """Compact JSON; NaN is not JSON, so numbers must already be finite or None."""
    return json.dumps(payload, separators=(",", ":"), ensure_ascii=False, allow_nan=False)


def page_url(uri: str) -> str:
    """Site-root-relative URL of a Markdown page under directory URLs: `a/b.md` -> `a/b/`."""
    path = PurePosixPath(uri)
    if path.name == "index.md":
        parent = str(path.parent)
        return "" if parent == "." else f"{parent}/"
    return f"{path.with_suffix('')}/"


def page_root(uri: str) -> str:
    """Relative way from a page's URL back to the site root: `problems/level1/x.md` -> `../../../`."""
    depth = page_url(uri).count("/")
    return "../" * depth if depth else "./"


def source_root(uri: str) -> str:
    """Relative way from a Markdown file's directory to the docs root, for Markdown links to `.md` files."""
    return "../" * (uri.count("/"))
