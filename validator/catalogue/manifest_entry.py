"""The manifest's entry as one typed record, and the one reader every consumer uses (catalogue verb, site).

`problems/manifest.json` is `{"schema_version": 1, "notes": {...}, "problems": {<key>: <entry>}}`, one entry
per problem (see `validator.catalogue.manifest` for how each field is derived). Reading checks every field
and says which file, which JSON path and what was expected; writing goes through `ManifestEntry.to_json`,
so what is written is what is read.
"""

from __future__ import annotations

import json
import math
import re
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

MANIFEST_SCHEMA_VERSION = 1
SHA256 = re.compile(r"^[0-9a-f]{64}$")
FLOATING = ("half", "double")


class ManifestError(ValueError):
    """A manifest file that cannot be used; the message names the file, the JSON path and what was expected."""


@dataclass(frozen=True)
class Measurement:
    """One hardware's eager time of the problem, from a full-size catalogue check."""

    eager_ms: float
    peak_mem_bytes: int | None
    measured_at: str
    sha256: str
    """The problem file's hash when it was measured: the measurement holds only for that content."""

    def to_json(self) -> dict[str, Any]:
        return {"eager_ms": self.eager_ms, "peak_mem_bytes": self.peak_mem_bytes, "measured_at": self.measured_at,
                "sha256": self.sha256}


@dataclass(frozen=True)
class ManifestEntry:
    key: str
    level: int
    problem_id: int
    """`id` in the file."""
    name: str
    sha256: str
    init_inputs: Any = None
    """The constructor's arguments as JSON (tensors as their shape and dtype); None where they failed."""
    inputs: tuple[Mapping[str, Any], ...] | None = None
    """Per forward input: `{"shape", "dtype"}` for a tensor, `{"value"}` otherwise; None where unknown."""
    output: Mapping[str, Any] | None = None
    flops: int | None = None
    min_bytes: int | None = None
    measured: Mapping[str, Measurement] = field(default_factory=dict)
    """Hardware key -> its measurement."""
    error: str = ""
    meta_note: str = ""
    """Why the meta-device facts are null."""
    catalogue_exempt: Mapping[str, str] = field(default_factory=dict)

    def compute_dtype(self) -> str:
        """The dtype whose compute ceiling applies: the first floating tensor's among inputs and output."""
        for tensor in [*(self.inputs or ()), self.output]:
            dtype = tensor.get("dtype") if isinstance(tensor, Mapping) else None
            if isinstance(dtype, str) and ("float" in dtype or dtype in FLOATING):
                return dtype
        return "float32"

    def eager_ms(self, hardware: str) -> float | None:
        measured = self.measured.get(hardware)
        return measured.eager_ms if measured else None

    def to_json(self) -> dict[str, Any]:
        """The entry as written: the static fields in a fixed order, the optional notes only when present."""
        data: dict[str, Any] = {"key": self.key, "level": self.level, "id": self.problem_id, "name": self.name,
                                "sha256": self.sha256, "init_inputs": self.init_inputs}
        if self.error:
            data["error"] = self.error
        data.update(inputs=None if self.inputs is None else [dict(i) for i in self.inputs],
                    output=None if self.output is None else dict(self.output),
                    flops=self.flops, min_bytes=self.min_bytes)
        if self.meta_note:
            data["meta_note"] = self.meta_note
        if self.catalogue_exempt:
            data["catalogue_exempt"] = dict(self.catalogue_exempt)
        data["measured"] = {hw: m.to_json() for hw, m in sorted(self.measured.items())}
        return data


class _Reader:
    """Typed reads of one JSON object, each failure naming the file and the JSON path."""

    def __init__(self, path: Path | str, where: str, data: Any) -> None:
        self.path, self.where = path, where
        if not isinstance(data, dict):
            self.fail("", "an object", data)
        self.data: dict[str, Any] = data

    def fail(self, name: str, expected: str, got: Any) -> None:
        at = f"{self.where}.{name}" if name else self.where
        raise ManifestError(f"{self.path}: {at}: expected {expected}, got {json.dumps(got)[:80]}")

    def get(self, name: str, expected: str, test: Any, default: Any = ..., required: bool = True) -> Any:
        if name not in self.data:
            if required:
                raise ManifestError(f"{self.path}: {self.where}: missing key {name!r} ({expected})")
            return default
        value = self.data[name]
        if not test(value):
            self.fail(name, expected, value)
        return value


def _integer(value: Any) -> bool:
    return isinstance(value, int) and not isinstance(value, bool)


def _count_or_null(value: Any) -> bool:
    return value is None or (_integer(value) and value >= 0)


def _measurement(path: Path | str, where: str, data: Any) -> Measurement:
    read = _Reader(path, where, data)
    positive = read.get("eager_ms", "a positive number", lambda v: isinstance(v, int | float) and not
                        isinstance(v, bool) and math.isfinite(v) and v > 0)
    return Measurement(
        eager_ms=float(positive),
        peak_mem_bytes=read.get("peak_mem_bytes", "a byte count or null", _count_or_null, None, required=False),
        measured_at=read.get("measured_at", "a timestamp string", lambda v: isinstance(v, str), "", required=False),
        sha256=read.get("sha256", "a 64-hex sha256", lambda v: isinstance(v, str) and bool(SHA256.match(v))),
    )


def entry_from_json(path: Path | str, key: str, data: Any) -> ManifestEntry:
    """One entry of `$.problems`; `key` is the mapping's key, which the entry's own `key` must repeat."""
    where = f"$.problems[{json.dumps(key)}]"
    read = _Reader(path, where, data)
    read.get("key", f"the string {json.dumps(key)} (the entry's key in $.problems)", lambda v: v == key)
    measured = read.get("measured", "an object of hardware -> measurement", lambda v: isinstance(v, dict), {},
                        required=False)
    inputs = read.get("inputs", "a list of objects or null", lambda v: v is None or (
        isinstance(v, list) and all(isinstance(i, dict) for i in v)), None, required=False)
    return ManifestEntry(
        key=key,
        level=read.get("level", "a level number", lambda v: _integer(v) and v > 0),
        problem_id=read.get("id", "a problem id", lambda v: _integer(v) and v >= 0),
        name=read.get("name", "the file's name", lambda v: isinstance(v, str) and bool(v)),
        sha256=read.get("sha256", "a 64-hex sha256", lambda v: isinstance(v, str) and bool(SHA256.match(v))),
        init_inputs=read.get("init_inputs", "JSON", lambda v: True, None, required=False),
        inputs=None if inputs is None else tuple(inputs),
        output=read.get("output", "an object or null", lambda v: v is None or isinstance(v, dict), None,
                        required=False),
        flops=read.get("flops", "a FLOP count or null", _count_or_null, None, required=False),
        min_bytes=read.get("min_bytes", "a byte count or null", _count_or_null, None, required=False),
        measured={hw: _measurement(path, f"{where}.measured[{json.dumps(hw)}]", m) for hw, m in measured.items()},
        error=read.get("error", "a string", lambda v: isinstance(v, str), "", required=False),
        meta_note=read.get("meta_note", "a string", lambda v: isinstance(v, str), "", required=False),
        catalogue_exempt=read.get("catalogue_exempt", "an object of filter code -> reason", lambda v: isinstance(
            v, dict) and all(isinstance(r, str) for r in v.values()), {}, required=False),
    )


def entries_from_json(path: Path | str, document: Any) -> dict[str, ManifestEntry]:
    """Every entry of a manifest document, by key (ManifestError on the first malformed field)."""
    read = _Reader(path, "$", document)
    read.get("schema_version", f"{MANIFEST_SCHEMA_VERSION}", lambda v: v == MANIFEST_SCHEMA_VERSION)
    problems = read.get("problems", "an object of problem key -> entry", lambda v: isinstance(v, dict))
    return {key: entry_from_json(path, key, entry) for key, entry in problems.items()}


def _read_json(path: Path) -> Any:
    if not path.is_file():
        return None
    try:
        return json.loads(path.read_text(encoding="utf-8"))
    except (OSError, UnicodeDecodeError, json.JSONDecodeError) as exc:
        raise ManifestError(f"{path}: not readable as JSON: {exc}") from None


def load_document(path: Path) -> dict[str, Any] | None:
    """The manifest file's JSON, checked entry by entry; None when there is no file yet."""
    document = _read_json(path)
    if document is not None:
        entries_from_json(path, document)
    return document


def read_entries(path: Path) -> dict[str, ManifestEntry]:
    """The manifest's entries by problem key; none when there is no file yet."""
    document = _read_json(path)
    return entries_from_json(path, document) if document is not None else {}
