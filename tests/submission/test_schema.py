"""The submission schema itself: valid Draft 2020-12, closed objects, and the example follows it."""

from __future__ import annotations

import json
from collections.abc import Iterator
from typing import Any

from jsonschema import Draft202012Validator

from tests.conftest import EXAMPLE_SLUG, REPO
from validator.submission.schema import schema_findings, submission_schema


def _objects(node: Any, where: str = "#") -> Iterator[tuple[str, dict]]:
    if isinstance(node, dict):
        if node.get("type") == "object":
            yield where, node
        for key, value in node.items():
            yield from _objects(value, f"{where}/{key}")
    elif isinstance(node, list):
        for i, value in enumerate(node):
            yield from _objects(value, f"{where}/{i}")


def test_the_schema_is_valid_draft_2020_12():
    schema = submission_schema()
    assert schema["$schema"].endswith("2020-12/schema")
    Draft202012Validator.check_schema(schema)


def test_every_object_in_the_schema_is_closed():
    for where, node in _objects(submission_schema()):
        assert node.get("additionalProperties") is False, where


def test_every_property_is_described_for_the_generated_docs_page():
    schema = submission_schema()
    assert all("description" in spec for spec in schema["properties"].values())
    assert all("description" in spec for spec in schema["$defs"]["kernel"]["properties"].values())


def test_the_committed_example_follows_the_schema():
    document = json.loads((REPO / "submissions" / f"{EXAMPLE_SLUG}.json").read_text())
    assert schema_findings(document, "example") == []


def test_formats_are_checked_not_just_annotated():
    document = json.loads((REPO / "submissions" / f"{EXAMPLE_SLUG}.json").read_text())
    document["date"] = "yesterday"
    assert [f.code for f in schema_findings(document, "x")] == ["schema-format"]
