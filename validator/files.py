"""Files the project reads and writes, handled so that no input breaks it and no crash leaves half a file.

Reading: the one reader of JSON the project did not write itself in this process (submissions, workflow
artifacts, worker output, shards, results files). No input, however broken, raises past it anything but
`JsonError`. Every document is held to a size limit (its kind's) and one nesting limit, checked before the
recursive parser sees it, and to strict JSON: no NaN/Infinity literals, no duplicate keys (the later one
would silently win), UTF-8 only, no NUL byte.

Writing: to a temporary file beside the target, fsync, then rename over it, so a crash or a full disk never
leaves a half-written file in place of a good one.
"""

from __future__ import annotations

import json
import os
import re
import tempfile
from dataclasses import dataclass
from itertools import accumulate
from pathlib import Path
from typing import Any

from validator.findings import UserError

MAX_DEPTH = 32
"""Deepest nesting of objects and arrays anything the project reads needs (a results file needs 5)."""
MiB = 1 << 20
SUBMISSION_BYTES = 1 * MiB  # a 2,000-kernel submission is ~400 KB; larger is a mistake or an attack
ARTIFACT_BYTES = 5 * MiB
RESULTS_BYTES = 64 * MiB
WORKER_BYTES = 16 * MiB
# A string runs to its closing quote or, unterminated, to the end of the text (a lone trailing backslash
# included): every match attempt succeeds without backtracking, so no quote is ever scanned twice. A pattern
# that could fail on an unterminated string is retried from each later quote, which is quadratic.
_STRING = re.compile(r'"[^"\\]*(?:\\.[^"\\]*)*(?:"|\\?\Z)', re.DOTALL)
_NOT_BRACKET = re.compile(r"[^\[\]{}]+")
_STEP = {"[": 1, "{": 1, "]": -1, "}": -1}


@dataclass(frozen=True)
class JsonProblem:
    code: str
    """`json-too-deep`, `json-syntax`, … (the finding code a submission error carries)."""
    message: str
    line: int | None = None
    column: int | None = None


class JsonError(ValueError):
    """Unusable JSON input; `str()` names the file and what was expected."""

    def __init__(self, shown: str, problem: JsonProblem) -> None:
        where = f":{problem.line}:{problem.column}" if problem.line else ""
        super().__init__(f"{shown}{where}: {problem.message}")
        self.shown = shown
        self.problem = problem


def _reject_constant(name: str) -> Any:
    raise ValueError(f"{name} is not valid JSON; write a number or null")


def _no_duplicates(pairs: list[tuple[str, Any]]) -> dict[str, Any]:
    result: dict[str, Any] = {}
    for key, value in pairs:
        if key in result:
            raise ValueError(f"duplicate key {key!r}; each key may appear once per object")
        result[key] = value
    return result


def nesting_depth(text: str) -> int:
    """Deepest bracket nesting outside strings, in linear time and without recursion.

    Strings are cut out, then everything but brackets; the depth is the highest running sum of +1 per
    opening and -1 per closing bracket, summed in C (`accumulate` over `map`) so 5 MiB take milliseconds.
    """
    brackets = _NOT_BRACKET.sub("", _STRING.sub("", text))
    return max(accumulate(map(_STEP.__getitem__, brackets), initial=0))


def parse_json(raw: bytes, shown: str, max_bytes: int, expected: str = "a JSON document") -> Any:
    """Parse `raw` as one strict JSON value or raise JsonError naming `shown`."""

    def fail(code: str, message: str, line: int | None = None, column: int | None = None) -> JsonError:
        return JsonError(shown, JsonProblem(code, message, line, column))

    if len(raw) > max_bytes:
        raise fail("file-too-large", f"{len(raw)} bytes; {expected} is at most {max_bytes}")
    if not raw.strip():
        raise fail("json-empty", f"the file is empty; expected {expected}")
    try:
        text = raw.decode("utf-8")
    except UnicodeDecodeError as exc:
        raise fail("json-not-utf8", f"byte {exc.start} is not UTF-8; expected a UTF-8 JSON text") from None
    if "\x00" in text:
        raise fail("json-binary", f"contains a NUL byte at offset {text.index(chr(0))}; not a text file")
    text = text.removeprefix("\ufeff")
    if nesting_depth(text) > MAX_DEPTH:
        raise fail("json-too-deep", f"objects and arrays nest deeper than {MAX_DEPTH} levels")
    try:
        return json.loads(text, parse_constant=_reject_constant, object_pairs_hook=_no_duplicates)
    except json.JSONDecodeError as exc:
        raise fail("json-syntax", f"invalid JSON: {exc.msg}", exc.lineno, exc.colno) from None
    except ValueError as exc:  # raised by our hooks; json gives no position for them
        raise fail("json-invalid-value", str(exc)) from None
    except RecursionError:
        raise fail("json-too-deep", "nesting too deep to parse") from None


def read_json(path: Path, max_bytes: int, shown: str | None = None, expected: str = "a JSON document") -> Any:
    """Read and parse `path` (a regular file of at most `max_bytes`) or raise JsonError."""
    shown = shown if shown is not None else str(path)

    def fail(code: str, message: str) -> JsonError:
        return JsonError(shown, JsonProblem(code, message))

    if not path.exists():
        raise fail("file-missing", "no such file")
    if path.is_dir():
        raise fail("file-is-directory", f"is a directory; expected {expected}")
    if not path.is_file():
        raise fail("file-not-regular", "is not a regular file (device, pipe or socket)")
    try:
        size = path.stat().st_size
        if size > max_bytes:
            raise fail("file-too-large", f"{size} bytes; {expected} is at most {max_bytes}")
        raw = path.read_bytes()
    except OSError as exc:
        raise fail("file-unreadable", f"cannot be read: {exc.strerror or exc}") from None
    return parse_json(raw, shown, max_bytes, expected)


def write_text_atomic(path: Path, text: str) -> None:
    """Write to a temporary file beside `path`, fsync, then rename over it (atomic on POSIX)."""
    write_bytes_atomic(path, text.encode("utf-8"))


def write_bytes_atomic(path: Path, data: bytes) -> None:
    """`write_text_atomic` for bytes (a fetched kernel is kept exactly as its hash was checked)."""
    path.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(prefix=f".{path.name}.", suffix=".tmp", dir=path.parent)
    try:
        with os.fdopen(fd, "wb") as handle:
            handle.write(data)
            handle.flush()
            os.fsync(handle.fileno())
        Path(tmp).replace(path)
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise


def check_writable_target(path: Path | None, flag: str) -> None:
    """Fail before any work if an output file named by `flag` could not be written, so no run is wasted."""
    if path is None:
        return
    if path.is_dir():
        raise UserError(f"{flag} {path}: is a directory; expected a file name")
    if not path.parent.is_dir():
        raise UserError(f"{flag} {path}: directory {path.parent} does not exist")
