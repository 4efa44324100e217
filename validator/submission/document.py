"""Read a JSON document from disk so that no input, however broken, raises past this module.

Rejects what `json` would quietly accept but a submission must not contain: NaN/Infinity literals,
duplicate keys (the later one would silently win) and nesting deep enough to exhaust the stack.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from validator.findings import Finding

MAX_DOCUMENT_BYTES = 1 << 20  # a 2,000-kernel submission is ~400 KB; larger is a mistake or an attack
MAX_DEPTH = 32  # the schema needs depth 4; deeper is rejected before the recursive parser sees it


class DocumentError(Exception):
    def __init__(self, finding: Finding) -> None:
        super().__init__(finding.message)
        self.finding = finding


def _fail(code: str, message: str, file: str, line: int | None = None, column: int | None = None) -> DocumentError:
    return DocumentError(Finding(code, "load", message, file=file, line=line, column=column))


def _reject_constant(name: str) -> Any:
    raise ValueError(f"{name} is not valid JSON; write a number or null")


def _no_duplicates(pairs: list[tuple[str, Any]]) -> dict[str, Any]:
    result: dict[str, Any] = {}
    for key, value in pairs:
        if key in result:
            raise ValueError(f"duplicate key {key!r}; each key may appear once per object")
        result[key] = value
    return result


def _nesting_depth(text: str) -> int:
    """Deepest bracket nesting outside strings: a cheap pre-check that never recurses."""
    depth = deepest = 0
    in_string = escaped = False
    for char in text:
        if in_string:
            if escaped:
                escaped = False
            elif char == "\\":
                escaped = True
            elif char == '"':
                in_string = False
        elif char == '"':
            in_string = True
        elif char in "[{":
            depth += 1
            deepest = max(deepest, depth)
        elif char in "]}":
            depth -= 1
    return deepest


def _read_bytes(path: Path, shown: str) -> bytes:
    if not path.exists():
        raise _fail("file-missing", "no such file", shown)
    if path.is_dir():
        raise _fail("file-is-directory", "is a directory; expected a submission .json file", shown)
    if not path.is_file():
        raise _fail("file-not-regular", "is not a regular file (device, pipe or socket)", shown)
    try:
        size = path.stat().st_size
        if size > MAX_DOCUMENT_BYTES:
            raise _fail("file-too-large", f"{size} bytes; a submission document is at most {MAX_DOCUMENT_BYTES}", shown)
        return path.read_bytes()
    except OSError as exc:
        raise _fail("file-unreadable", f"cannot be read: {exc.strerror or exc}", shown) from None


def read_json(path: Path, shown: str | None = None) -> Any:
    """Parse `path` as one strict JSON value or raise DocumentError carrying a located Finding."""
    shown = shown if shown is not None else str(path)
    raw = _read_bytes(path, shown)
    if not raw.strip():
        raise _fail("json-empty", "the file is empty; expected a JSON object", shown)
    try:
        text = raw.decode("utf-8")
    except UnicodeDecodeError as exc:
        raise _fail("json-not-utf8", f"byte {exc.start} is not UTF-8; expected a UTF-8 JSON text", shown) from None
    if "\x00" in text:
        raise _fail("json-binary", f"contains a NUL byte at offset {text.index(chr(0))}; not a text file", shown)
    if text.startswith("\ufeff"):
        text = text[1:]
    if _nesting_depth(text) > MAX_DEPTH:
        raise _fail("json-too-deep", f"objects and arrays nest deeper than {MAX_DEPTH} levels", shown)
    try:
        return json.loads(text, parse_constant=_reject_constant, object_pairs_hook=_no_duplicates)
    except json.JSONDecodeError as exc:
        raise _fail("json-syntax", f"invalid JSON: {exc.msg}", shown, exc.lineno, exc.colno) from None
    except ValueError as exc:  # raised by our hooks; json gives no position for them
        raise _fail("json-invalid-value", str(exc), shown) from None
    except RecursionError:
        raise _fail("json-too-deep", "nesting too deep to parse", shown) from None
