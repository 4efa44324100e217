"""How to submit: the field reference is rendered from the JSON Schema file, which is also published."""

from __future__ import annotations

import json
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from site_src.output import SiteBuild, slot
from site_src.render import render
from site_src.sources import REPO_ROOT, SiteDataError

SCHEMA_URI = "schema/submission-v1.schema.json"
EXAMPLE = REPO_ROOT / "submissions" / "kernelbench-team-examples.json"
CONSTRAINT_KEYS = (
    ("minLength", "min length {}"),
    ("maxLength", "max length {}"),
    ("minimum", "≥ {}"),
    ("maximum", "≤ {}"),
    ("exclusiveMinimum", "> {}"),
    ("minItems", "at least {} items"),
    ("maxItems", "at most {} items"),
    ("format", "format: {}"),
    ("pattern", "pattern: {}"),
)


@dataclass(frozen=True)
class SchemaField:
    path: str
    """`kernels[].claimed.speedup`."""
    type: str
    required: bool
    constraints: tuple[str, ...]
    description: str


def _resolve(node: dict[str, Any], schema: dict[str, Any]) -> dict[str, Any]:
    ref = node.get("$ref")
    if not isinstance(ref, str) or not ref.startswith("#/"):
        return node
    target: Any = schema
    for part in ref[2:].split("/"):
        target = target[part]
    return {**target, **{k: v for k, v in node.items() if k != "$ref"}}


def _type_of(node: dict[str, Any], schema: dict[str, Any]) -> str:
    if "const" in node:
        return f"constant {json.dumps(node['const'])}"
    if "enum" in node:
        return "one of " + ", ".join(json.dumps(v) for v in node["enum"])
    kind = node.get("type", "any")
    if kind == "array":
        return f"array of {_type_of(_resolve(node.get('items', {}), schema), schema)}"
    return " or ".join(kind) if isinstance(kind, list) else str(kind)


def _constraints(node: dict[str, Any]) -> tuple[str, ...]:
    found = [text.format(node[key]) for key, text in CONSTRAINT_KEYS if key in node]
    if node.get("uniqueItems"):
        found.append("items unique")
    if node.get("additionalProperties") is False:
        found.append("no other keys")
    return tuple(found)


def schema_fields(schema: dict[str, Any]) -> list[SchemaField]:
    """Every property, depth first, with nested objects and array items flattened into dotted paths."""
    rows: list[SchemaField] = []

    def walk(node: dict[str, Any], prefix: str) -> None:
        node = _resolve(node, schema)
        required = set(node.get("required", []))
        for name, raw in node.get("properties", {}).items():
            child = _resolve(raw, schema)
            path = f"{prefix}{name}"
            description = child.get("description", "")
            rows.append(SchemaField(path, _type_of(child, schema), name in required, _constraints(child), description))
            items = _resolve(child.get("items", {}), schema) if child.get("type") == "array" else {}
            if items.get("properties"):
                walk(items, f"{path}[].")
            if child.get("properties"):
                walk(child, f"{path}.")

    walk(schema, "")
    return rows


def build(out: SiteBuild, schema_path: Path, hand_written: set[str]) -> None:
    """`hand_written`: pages in site_src/pages; the guides other parts of the project write are linked if present."""
    try:
        schema = json.loads(schema_path.read_text(encoding="utf-8"))
    except (OSError, json.JSONDecodeError) as exc:
        raise SiteDataError(f"{schema_path}: cannot read the submission schema ({exc})") from exc
    out.copy(SCHEMA_URI, schema_path)
    example = EXAMPLE.read_text(encoding="utf-8") if EXAMPLE.is_file() else ""
    fields_html = render("schema_fields.html.j2", fields=schema_fields(schema))
    markdown = render(
        "submitting.md.j2",
        schema=schema,
        schema_uri=SCHEMA_URI,
        example=example,
        maintainers_page="maintainers.md" in hand_written,
        flow_page="pull-request-flow.md" in hand_written,
        fields_slot=slot("fields"),
    )
    out.page("submitting.md", markdown, {"fields": fields_html})
