"""Text from submissions and results is data: these are the only ways it reaches a page.

Submitter text (names, descriptions, authors, model, hardware, flags, errors) is shown as text, never as
Markdown or HTML: in a Markdown template it is HTML-escaped and every character Markdown would act on is
backslash-escaped (so no link, image, emphasis or `{: attr_list }` can form); in HTML it is escaped; in a
page title it loses `<`, `>` and `&` altogether (the theme runs titles through `striptags`, which turns
`&lt;` back into `<`). The only submitter links are `https:` URLs from a `url` field.
"""

from __future__ import annotations

import re
from html import escape
from urllib.parse import urlsplit

from markupsafe import Markup

from validator.untrusted import CONTROL

MARKDOWN_SPECIAL = re.compile(r"([\\`*_{}\[\]()#+\-.!|>])")
"""Characters Python-Markdown (with the tables extension) accepts a backslash escape for."""
TITLE_LOOKALIKES = str.maketrans({"<": "‹", ">": "›", "&": "+", '"': "”", "'": "’"})


def plain(value: object) -> str:
    """`value` as text without control or bidi characters."""
    return CONTROL.sub("", "" if value is None else str(value))


def one_line(value: object) -> str:
    return " ".join(plain(value).split())


def markdown_inline(value: object) -> Markup:
    """Text for a Markdown template (heading, paragraph, table cell) that renders as exactly that text."""
    return Markup(MARKDOWN_SPECIAL.sub(r"\\\1", escape(one_line(value), quote=True)))


def html_paragraphs(value: object) -> Markup:
    """Multi-line text as escaped HTML paragraphs (blank lines split paragraphs, single newlines break lines)."""
    blocks = [b.strip() for b in re.split(r"\n\s*\n", plain(value).replace("\r", ""))]
    parts = ["<br>".join(escape(line, quote=True) for line in b.split("\n")) for b in blocks if b]
    return Markup("".join(f'<p class="kb-text">{p}</p>' for p in parts))


def page_title(value: object) -> str:
    """A title the theme may put anywhere (`<title>`, header, nav) without escaping it."""
    return one_line(value).translate(TITLE_LOOKALIKES) or "untitled"


def https_url(value: object) -> str | None:
    """`value` if it is a plain `https:` URL with a host (no credentials, spaces or controls), else None."""
    text = "" if value is None else str(value)
    if not text or text != text.strip() or CONTROL.search(text) or any(c.isspace() for c in text):
        return None
    try:
        parts = urlsplit(text)
        parts.port  # noqa: B018 - raises ValueError on a malformed port
    except ValueError:
        return None
    if parts.scheme != "https" or not parts.hostname or "@" in parts.netloc or "\\" in text:
        return None
    return text


def plotly_text(value: object) -> str:
    """Plotly reads `<br>`, `<a href>` and entities in labels; escaping makes them show as written."""
    return escape(one_line(value), quote=True)


def css_token(value: object) -> str:
    """A class-name fragment made of letters, digits, `-` and `_` only."""
    return re.sub(r"[^A-Za-z0-9_-]", "-", plain(value))[:40]
