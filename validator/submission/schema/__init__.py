"""The submission JSON Schema (Draft 2020-12) and the stage that checks documents against it."""

from __future__ import annotations

import json
from collections.abc import Iterator
from functools import cache
from importlib import resources
from typing import Any

from jsonschema import Draft202012Validator, ValidationError

from validator.findings import Finding
from validator.untrusted import ANY_CONTROL, SURROGATE

SCHEMA_VERSION = 1
SCHEMA_FILE = f"submission-v{SCHEMA_VERSION}.schema.json"
MAX_ERRORS = 50  # past this a document is hopeless; more lines would only bury the first ones


@cache
def submission_schema() -> dict[str, Any]:
    """The schema document shipped inside the package."""
    return json.loads(resources.files(__package__).joinpath(SCHEMA_FILE).read_text(encoding="utf-8"))


@cache
def _validator() -> Draft202012Validator:
    schema = submission_schema()
    Draft202012Validator.check_schema(schema)
    return Draft202012Validator(schema, format_checker=Draft202012Validator.FORMAT_CHECKER)


def _explain(error: ValidationError) -> str:
    """jsonschema's message, with the field's own description where the raw message is a regex or a $ref."""
    described = error.schema.get("description") if isinstance(error.schema, dict) else None
    if error.validator == "pattern" and isinstance(error.instance, str):
        hit = ANY_CONTROL.search(error.instance)
        if hit and (error.validator_value.startswith("^[^") or "\\s" in error.validator_value):
            return (
                f"contains the control character U+{ord(hit.group()):04X} at character {hit.start() + 1}; "
                "text fields may not hold control characters (U+0000-U+001F, U+007F-U+009F; "
                "only the description may hold tabs and line breaks) or bidirectional marks and overrides "
                "(U+061C, U+200E, U+200F, U+202A-U+202E, U+2066-U+2069)"
            )
    if error.validator == "pattern" and described:
        return f"{error.instance!r} is not allowed here; expected: {described}"
    if error.validator == "pattern":
        return f"{error.instance!r} does not have the expected form (pattern {error.validator_value})"
    if error.validator == "format":
        return f"{error.instance!r} is not a valid {error.validator_value}"
    return error.message


def _leaves(error: ValidationError) -> Iterator[ValidationError]:
    if error.context:
        for sub in error.context:
            yield from _leaves(sub)
    else:
        yield error


def _lone_surrogates(value: Any, path: str = "$") -> Iterator[tuple[str, str]]:
    """(JSON path, text) of every string and key that holds a lone surrogate (`"\\udcff"` in the JSON): text no UTF-8
    file, page or terminal can hold, so the document is refused rather than carried into results and the site."""
    if isinstance(value, str):
        if SURROGATE.search(value):
            yield path, value
    elif isinstance(value, dict):
        for key, item in value.items():
            where = f"{path}.{key}" if key.isidentifier() else f"{path}[{key!r}]"
            yield from _lone_surrogates(key, where)
            yield from _lone_surrogates(item, where)
    elif isinstance(value, list):
        for index, item in enumerate(value):
            yield from _lone_surrogates(item, f"{path}[{index}]")


def schema_findings(document: Any, file: str) -> list[Finding]:
    """Every schema violation of `document`, in document order, each with its JSON path."""
    errors = sorted(_validator().iter_errors(document), key=lambda e: (list(map(str, e.absolute_path)), e.message))
    findings = [
        Finding("schema-surrogate", "schema", f"{text[:200]!r} holds a lone surrogate (a \\uD800-\\uDFFF escape not "
                "part of a pair); expected text that is valid Unicode", file=file, json_path=where)
        for where, text in _lone_surrogates(document)
    ][:MAX_ERRORS]
    for error in errors[:MAX_ERRORS]:
        for leaf in _leaves(error):
            findings.append(
                Finding(f"schema-{leaf.validator}", "schema", _explain(leaf), file=file, json_path=leaf.json_path)
            )
    if len(errors) > MAX_ERRORS:
        findings.append(
            Finding("schema-too-many-errors", "schema", f"{len(errors) - MAX_ERRORS} more errors not shown", file=file)
        )
    return findings
