"""Characters that make text act on whatever shows it, defined once for the schema, the site and the logs.

C0 and C1 controls move terminal cursors, rewrite lines and (through a newline) start GitHub workflow
commands; bidirectional marks and overrides make text read differently from what it holds.
"""

from __future__ import annotations

import re

CONTROLS = "\u0000-\u0008\u000b\u000c\u000e-\u001f\u007f-\u009f\u061c\u200e\u200f\u202a-\u202e\u2066-\u2069"
"""Every such character except tab and the line breaks (which one-line fields refuse on their own)."""
CONTROL = re.compile(f"[{CONTROLS}]")
ANY_CONTROL = re.compile(f"[{CONTROLS}\t\n\r]")


def printable(value: object) -> str:
    """`value` for one line of a terminal or a log: every control character shown as `\\uXXXX`."""
    return ANY_CONTROL.sub(lambda m: f"\\u{ord(m.group()):04x}", str(value))


def printable_block(value: object, indent: str = "    | ") -> str:
    """Multi-line `value` (a compiler log tail) for a terminal or a log: controls removed, and every line after
    the first led by `indent`, so that no line of it can start a GitHub workflow command (`::`)."""
    lines = CONTROL.sub("", str(value)).replace("\r\n", "\n").replace("\r", "\n").split("\n")
    return f"\n{indent}".join(line.replace("\t", " ") for line in lines)
