"""The submission schema itself: valid Draft 2020-12, closed objects, and the example follows it."""

from __future__ import annotations

import json
from collections.abc import Iterator
from typing import Any

import pytest
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


def _example() -> dict:
    return json.loads((REPO / "submissions" / f"{EXAMPLE_SLUG}.json").read_text())


@pytest.mark.parametrize("levels", [[1], [3], [1, 2, 3], [3, 1]])
def test_attempted_levels_takes_unique_levels_of_the_board(levels):
    document = {**_example(), "attempted_levels": levels}
    assert schema_findings(document, "x.json") == []


@pytest.mark.parametrize(("value", "code", "where", "says"), [
    (1, "schema-type", "$.attempted_levels", "is not of type 'array'"),
    ({"1": True}, "schema-type", "$.attempted_levels", "is not of type 'array'"),
    ([1, 2, 1], "schema-uniqueItems", "$.attempted_levels", "non-unique"),
    ([1, 4], "schema-enum", "$.attempted_levels[1]", "4 is not one of [1, 2, 3]"),
    ([0], "schema-enum", "$.attempted_levels[0]", "0 is not one of [1, 2, 3]"),
    (["1"], "schema-enum", "$.attempted_levels[0]", "'1' is not one of [1, 2, 3]"),
    ([True], "schema-enum", "$.attempted_levels[0]", "True is not one of [1, 2, 3]"),
    ([1.5], "schema-enum", "$.attempted_levels[0]", "1.5 is not one of [1, 2, 3]"),
    ([], "schema-minItems", "$.attempted_levels", "should be non-empty"),
])
def test_a_bad_attempted_levels_is_refused_at_its_json_path(value, code, where, says):
    findings = schema_findings({**_example(), "attempted_levels": value}, "x.json")
    assert [(f.code, f.json_path, f.file) for f in findings] == [(code, where, "x.json")]
    assert says in findings[0].message
