"""Characters that make text act on whatever shows it, defined once for the schema, the site and the logs, and the
one place that makes text a submission controls safe to store (`record_text`), print (`printable`) or render as
Markdown (`markdown_code`).

C0 and C1 controls move terminal cursors, rewrite lines and (through a newline) start GitHub workflow
commands; bidirectional marks and overrides make text read differently from what it holds. Lone surrogates (an
undecodable byte of a file name, `"\\udcff"` in JSON, a kernel's exception text) cannot be encoded as UTF-8, so
every write of them to a terminal or a file raises.
"""

from __future__ import annotations

import re

CONTROLS = "\u0000-\u0008\u000b\u000c\u000e-\u001f\u007f-\u009f\u061c\u200e\u200f\u202a-\u202e\u2066-\u2069"
"""Every such character except tab and the line breaks (which one-line fields refuse on their own)."""
CONTROL = re.compile(f"[{CONTROLS}]")
ANY_CONTROL = re.compile(f"[{CONTROLS}\t\n\r]")
SURROGATES = "\ud800-\udfff"
SURROGATE = re.compile(f"[{SURROGATES}]")
_ONE_LINE_ESCAPED = re.compile(f"[{CONTROLS}{SURROGATES}\t\n\r]")
_RECORD_ESCAPED = re.compile(f"[{CONTROLS}{SURROGATES}]")
RECORD_CHARS = 4000
"""The most a result record keeps of one text (an error, a log tail): its head and its tail."""
CUT_MARK = "\n[... {} characters cut ...]\n"


def _escaped(match: re.Match[str]) -> str:
    return f"\\u{ord(match.group()):04x}"


def encodable(value: object) -> str:
    """`value` with each lone surrogate written as `\\udcff`, so that UTF-8 can encode it (and nothing else changed)."""
    return SURROGATE.sub(_escaped, str(value))


def record_text(value: object, limit: int = RECORD_CHARS) -> str:
    """Text from a submission's run (exception text, stderr, a build log) as a result record stores it: lone
    surrogates and controls but tab and newline written as `\\uXXXX` (an ANSI escape keeps its letters, inert), line
    ends as `\\n`, and at most `limit` characters, its head and its tail around a note of what was cut. Applying it
    again changes nothing."""
    text = _RECORD_ESCAPED.sub(_escaped, str(value).replace("\r\n", "\n").replace("\r", "\n"))
    if len(text) <= limit:
        return text
    kept = limit - len(CUT_MARK.format(len(text)))  # the note's count is at most len(text): it fits
    head = kept // 2
    return text[:head] + CUT_MARK.format(len(text) - kept) + text[len(text) - (kept - head):]


def printable(value: object) -> str:
    """`value` for one line of a terminal or a log: every control character shown as `\\uXXXX`."""
    return _ONE_LINE_ESCAPED.sub(_escaped, str(value))


def printable_block(value: object, indent: str = "    | ") -> str:
    """Multi-line `value` (a compiler log tail) for a terminal or a log: controls removed, and every line after
    the first led by `indent`, so that no line of it can start a GitHub workflow command (`::`)."""
    lines = CONTROL.sub("", encodable(value)).replace("\r\n", "\n").replace("\r", "\n").split("\n")
    return f"\n{indent}".join(line.replace("\t", " ") for line in lines)


def one_line(value: object, limit: int) -> str:
    """`value` on one line of at most `limit` characters: controls removed, runs of white space one space."""
    flat = " ".join(CONTROL.sub("", encodable(value)).split())
    return flat if len(flat) <= limit else flat[: limit - 1] + "…"


def markdown_code(value: object, limit: int = 300) -> str:
    """Untrusted text as an inline code span that it cannot close, safe inside a Markdown table cell.

    Inside a code span GitHub shows `<`, `@`, `[` and `!` as written: no HTML, mention, link, image or autolink.
    """
    flat = one_line(value, limit).replace("`", "'").replace("|", "\\|")
    return f"`{flat}`" if flat else ""
