"""The board's additions to KernelBench's problems, kept beside the files instead of in them.

The problem files are upstream's, byte for byte; everything this board adds per problem lives in one
sidecar per catalogue root, `<root>/overlay.json`, read only by this module:

    {"schema_version": 1,
     "problems": {"level1/90_cumprod": {
         "reduced_sizes": {"batch_size": 16, "input_shape": [4096]},
         "input_scales": [1.0, 0.999, 1.001],
         "hidden_variants": ["negated"],
         "tolerances": {"float32": [1e-3, 1e-3]},
         "exempt": {"ignores-weights": "why keeping the failure is right"},
         "reason": "why the scales or tolerances differ from the protocol's (the evidence)",
         "note": "anything else a reader of the problem page should know"}}}

- `reduced_sizes`: module globals rebound after import for the CPU catalogue check (JSON arrays become
  tuples, as KernelBench writes shape constants).
- `input_scales`, `tolerances`: how an ill-conditioned problem is judged; both need a `reason`.
- `hidden_variants`: the hidden input variants (`protocol.HIDDEN_VARIANTS`) a problem whose `get_inputs`
  builds structure (triangular or symmetric matrices) is judged on: a fresh standard-normal draw has none of
  it, and a kernel may rely on what the problem promises. Needs a `reason`.
- `exempt`: catalogue filter failures kept on purpose, each with its reason.

The problem file a harness loads is found from its path: `<root>/levelN/<stem>.py` takes entry
`levelN/<stem>` of `<root>/overlay.json`, so a version track (its own root) has its own sidecar.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from functools import lru_cache
from pathlib import Path
from typing import Any

from jsonschema import Draft202012Validator

from validator.protocol import HIDDEN_VARIANTS

OVERLAY_NAME = "overlay.json"
SCHEMA_VERSION = 1
_NUMBER = {"type": "number"}
_ENTRY = {
    "type": "object",
    "additionalProperties": False,
    "properties": {
        "reduced_sizes": {"type": "object", "minProperties": 1},
        "input_scales": {"type": "array", "items": {**_NUMBER, "exclusiveMinimum": 0}, "minItems": 1},
        "hidden_variants": {"type": "array", "items": {"enum": list(HIDDEN_VARIANTS)}, "uniqueItems": True},
        "tolerances": {
            "type": "object", "minProperties": 1,
            "additionalProperties": {"type": "array", "items": {**_NUMBER, "minimum": 0}, "minItems": 2, "maxItems": 2},
        },
        "exempt": {"type": "object", "additionalProperties": {"type": "string", "minLength": 1}},
        "reason": {"type": "string", "minLength": 1},
        "note": {"type": "string", "minLength": 1},
    },
    "dependentRequired": {"input_scales": ["reason"], "tolerances": ["reason"], "hidden_variants": ["reason"]},
}
SCHEMA = {
    "$schema": "https://json-schema.org/draft/2020-12/schema",
    "type": "object",
    "additionalProperties": False,
    "required": ["schema_version", "problems"],
    "properties": {
        "schema_version": {"const": SCHEMA_VERSION},
        "about": {"type": "string"},
        "problems": {
            "type": "object",
            "propertyNames": {"pattern": r"^level\d+/\d+_[^/]+$"},
            "additionalProperties": _ENTRY,
        },
    },
}
_VALIDATOR = Draft202012Validator(SCHEMA)


class OverlayError(ValueError):
    """The sidecar is unreadable or does not match SCHEMA; the message names the file and the JSON path."""


@dataclass(frozen=True)
class Overlay:
    """What the board applies to one problem (all empty: upstream's file as it is)."""

    reduced_sizes: dict[str, Any] = field(default_factory=dict)
    """Module globals to rebind for the reduced-size CPU run."""
    input_scales: tuple[float, ...] | None = None
    """The scaled input variants the problem's maths allows; None: the protocol's."""
    hidden_variants: tuple[str, ...] | None = None
    """The hidden variants the problem's input structure allows; None: all of them."""
    tolerances: dict[str, tuple[float, float]] = field(default_factory=dict)
    """Output dtype name -> (atol, rtol), only ever wider than the protocol's."""
    exempt: dict[str, str] = field(default_factory=dict)
    """Catalogue filter code -> why that failure is kept."""
    reason: str = ""
    """The evidence for input_scales / tolerances / hidden_variants."""
    note: str = ""

    @property
    def judged_differently(self) -> bool:
        """Whether correctness differs from the protocol's default for this problem."""
        return self.input_scales is not None or bool(self.tolerances) or self.hidden_variants is not None

    def to_dict(self) -> dict[str, Any]:
        """The entry as it is written in the sidecar (empty fields left out)."""
        data: dict[str, Any] = {
            "reduced_sizes": {k: _as_json(v) for k, v in self.reduced_sizes.items()},
            "input_scales": list(self.input_scales) if self.input_scales is not None else None,
            "hidden_variants": list(self.hidden_variants) if self.hidden_variants is not None else None,
            "tolerances": {k: list(v) for k, v in self.tolerances.items()},
            "exempt": dict(self.exempt), "reason": self.reason, "note": self.note,
        }
        return {k: v for k, v in data.items() if v not in (None, {}, "")}


NO_OVERLAY = Overlay()


def _as_tuples(value: Any) -> Any:
    return tuple(_as_tuples(v) for v in value) if isinstance(value, list) else value


def _as_json(value: Any) -> Any:
    return [_as_json(v) for v in value] if isinstance(value, tuple | list) else value


def _entry(raw: dict[str, Any]) -> Overlay:
    scales = raw.get("input_scales")
    return Overlay(
        reduced_sizes={k: _as_tuples(v) for k, v in raw.get("reduced_sizes", {}).items()},
        input_scales=tuple(float(s) for s in scales) if scales is not None else None,
        hidden_variants=tuple(raw["hidden_variants"]) if "hidden_variants" in raw else None,
        tolerances={k: (float(v[0]), float(v[1])) for k, v in raw.get("tolerances", {}).items()},
        exempt=dict(raw.get("exempt", {})),
        reason=raw.get("reason", ""),
        note=raw.get("note", ""),
    )


def _json_path(parts: Any) -> str:
    return "$" + "".join(f"[{p}]" if isinstance(p, int) else f".{p}" if "/" not in str(p) else f"[{p!r}]"
                         for p in parts)


@lru_cache(maxsize=16)
def _read(path: Path, mtime_ns: int) -> dict[str, Overlay]:
    del mtime_ns  # part of the cache key only: an edited sidecar is read again
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, UnicodeDecodeError, json.JSONDecodeError) as exc:
        raise OverlayError(f"{path}: not readable JSON ({exc})") from exc
    errors = sorted(_VALIDATOR.iter_errors(data), key=lambda e: list(e.absolute_path))
    if errors:
        first = errors[0]
        raise OverlayError(f"{path}: {_json_path(first.absolute_path)}: {first.message}")
    return {key: _entry(raw) for key, raw in data["problems"].items()}


def read_overlays(root: Path | str) -> dict[str, Overlay]:
    """Every entry of `<root>/overlay.json` by problem key (`level1/19_ReLU`); {} where there is no sidecar."""
    path = Path(root) / OVERLAY_NAME
    try:
        mtime = path.stat().st_mtime_ns
    except FileNotFoundError:
        return {}
    return _read(path.resolve(), mtime)


def overlay_for(problem_path: Path | str) -> Overlay:
    """The overlay of the problem file at `problem_path` (`<root>/levelN/<stem>.py`)."""
    path = Path(problem_path)
    return read_overlays(path.parent.parent).get(f"{path.parent.name}/{path.stem}", NO_OVERLAY)

