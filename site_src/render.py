"""The Jinja environment of the page templates."""

from __future__ import annotations

from functools import cache
from pathlib import Path
from typing import Any

import jinja2

from site_src.scoring import RULES
from site_src.text import https_url, markdown_inline, page_title

TEMPLATES_DIR = Path(__file__).resolve().parent / "templates"


@cache
def environment() -> jinja2.Environment:
    env = jinja2.Environment(
        loader=jinja2.FileSystemLoader(TEMPLATES_DIR),
        autoescape=True,  # Markdown passes HTML through, so names from submissions must be escaped
        undefined=jinja2.StrictUndefined,
        trim_blocks=True,
        lstrip_blocks=True,
        keep_trailing_newline=True,
    )
    # Untrusted text in a Markdown template goes through `md`; see site_src/text.py
    env.filters.update(md=markdown_inline, title=page_title)
    env.globals.update(https_url=https_url, rules=RULES)
    return env


def render(template: str, **context: Any) -> str:
    return environment().get_template(template).render(**context)
