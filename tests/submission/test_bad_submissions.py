"""Every malformed submission in tests/fixtures/bad_submissions/ gets a located error, the right exit
status and never a traceback. A case is one JSON file: how to build the input, and what must come out."""

from __future__ import annotations

import json
import re
import shutil
from pathlib import Path
from typing import Any

import pytest

from tests.conftest import EXAMPLE_SLUG, REPO
from tests.paths import FIXTURES
from validator.catalogue.problems import load_catalogue

CASES_DIR = FIXTURES / "bad_submissions"
CASES = sorted(CASES_DIR.glob("*.json"))
PATH_PART = re.compile(r"\.([A-Za-z_$][\w$]*)|\[(\d+)\]")


def _walk(document: Any, path: str) -> tuple[Any, str | int]:
    """Parent container and final key of a `$.a[0].b` path."""
    parts: list[str | int] = [name if name else int(index) for name, index in PATH_PART.findall(path[1:])]
    node = document
    for part in parts[:-1]:
        node = node[part]
    return node, parts[-1]


def _resolve(value: Any) -> Any:
    if isinstance(value, str) and value.startswith("@hash:"):
        _, level, problem_id = value.split(":")
        return load_catalogue(REPO / "problems").get(int(level), int(problem_id)).sha256
    return value


def _setup(root: Path, steps: list[dict[str, Any]]) -> None:
    for step in steps:
        if "mkdir" in step:
            (root / step["mkdir"]).mkdir(parents=True)
        elif "symlink" in step:
            (root / step["symlink"]).symlink_to(step["to"])
        elif "write" in step:
            text = step["text"]
            (root / step["write"]).write_text(text + "#" * max(0, step.get("pad_to", 0) - len(text)))
        elif "write_hex" in step:
            (root / step["write_hex"]).write_bytes(bytes.fromhex(step["hex"]))
        elif "remove_tree" in step:
            shutil.rmtree(root / step["remove_tree"])
        else:
            raise ValueError(f"unknown setup step {step}")


def _raw_text(case: dict[str, Any]) -> bytes | None:
    if "raw_hex" in case:
        return bytes.fromhex(case["raw_hex"])
    if "raw_text" in case:
        return case["raw_text"].encode("utf-8")
    generate = case.get("raw_generate")
    if generate and generate["kind"] == "nested":
        return ("[" * generate["depth"] + "]" * generate["depth"]).encode()
    if generate and generate["kind"] == "padded":
        return json.dumps({"description": "x" * generate["bytes"]}).encode()
    return None


def build_case(case: dict[str, Any], root: Path) -> Path:
    """Lay out the case under root (an example tree) and return the path to validate."""
    document_path = root / "submissions" / case.get("file_name", f"{EXAMPLE_SLUG}.json")
    base_text = (root / "submissions" / f"{EXAMPLE_SLUG}.json").read_text()
    (root / "submissions" / f"{EXAMPLE_SLUG}.json").unlink()
    _setup(root, case.get("setup", []))
    if case.get("no_document"):
        return document_path
    raw = _raw_text(case)
    if raw is None and case.get("base") and "raw_replace" in case:
        old, new = case["raw_replace"]
        raw = base_text.replace(old, new).encode()
    if raw is None:
        document = json.loads(base_text) if case.get("base") else case["document"]
        for path in case.get("delete", []):
            parent, key = _walk(document, path)
            del parent[key]
        for path, value in case.get("set", {}).items():
            parent, key = _walk(document, path)
            parent[key] = _resolve(value)
        raw = json.dumps(document).encode()
    document_path.write_bytes(raw)
    return document_path


def test_there_are_at_least_thirty_malformed_cases():
    assert len(CASES) >= 30


@pytest.mark.parametrize("case_file", CASES, ids=[c.stem for c in CASES])
def test_malformed_submission_gets_a_located_error_and_its_exit_status(case_file, example_tree, cli):
    case = json.loads(case_file.read_text())
    expect = case["expect"]
    target = build_case(case, example_tree)
    report_path = example_tree / "report.json"
    result = cli(str(target), "--problems-dir", str(REPO / "problems"), "--json", str(report_path), "--no-gpu")

    assert result.exit_code == expect["exit_code"], result.output
    assert "Traceback" not in result.output
    findings = json.loads(report_path.read_text())["submissions"][0]["stages"]
    errors = [f for stage in findings for f in stage["findings"] if f["severity"] == "error"]
    assert errors, "a failing submission must carry at least one error finding"
    matching = [f for f in errors if "code" not in expect or f["code"] == expect["code"]]
    assert matching, f"expected code {expect.get('code')}, got {[f['code'] for f in errors]}"
    finding = matching[0]
    kernel_dir = str(target.parent / EXAMPLE_SLUG)
    assert finding["file"] == str(target) or finding["file"].startswith(kernel_dir)
    if "json_path" in expect:
        assert expect["json_path"] in [f.get("json_path") for f in matching]
    if "line" in expect:
        assert finding.get("line") == expect["line"]
    if "message_contains" in expect:
        assert any(expect["message_contains"] in f["message"] for f in matching)
    assert (finding.get("code") or "") in result.stdout  # the terminal report names the code too
