"""`attempted_levels`: a submission declares levels whose every problem it attempted. A declared level with no
kernel at all passes (KernelBench scores it fast_p 0) and is noted; the importer writes the field before the
kernels. Malformed values are schema errors: tests/submission/test_schema.py and the attempted-levels-* cases of
tests/fixtures/bad_submissions/."""

from __future__ import annotations

import dataclasses
import json

from tests.conftest import EXAMPLE_SLUG
from validator.submission.importer import ImportPlan, Metadata, submission_document


def test_a_declared_level_without_kernels_passes_and_is_noted_at_its_json_path(example_tree, cli):
    document_path = example_tree / "submissions" / f"{EXAMPLE_SLUG}.json"
    document = json.loads(document_path.read_text())
    assert {k["level"] for k in document["kernels"]} == {1, 2}
    document["attempted_levels"] = [3, 1]
    document_path.write_text(json.dumps(document))
    report = example_tree / "report.json"
    result = cli(str(document_path), "--no-gpu", "--json", str(report))
    assert result.exit_code == 0, result.output
    findings = [f for stage in json.loads(report.read_text())["submissions"][0]["stages"] for f in stage["findings"]]
    (noted,) = [f for f in findings if f["code"] == "declared-level-without-kernels"]
    assert noted["severity"] == "info" and noted["json_path"] == "$.attempted_levels[0]"
    assert noted["file"] == str(document_path)
    assert "level 3" in noted["message"] and "all 50 of its problems count as failures" in noted["message"]


def test_the_importer_writes_the_declared_levels_sorted_and_before_the_kernels():
    plan = ImportPlan("423217d", "--kernelbench-commit", (), ())
    meta = Metadata(slug="s", name="S", method="one-shot", date="2026-01-01", authors=("A",),
                    target_hardware=("H100",))
    assert "attempted_levels" not in submission_document(plan, meta)
    document = submission_document(plan, dataclasses.replace(meta, attempted_levels=(3, 1, 3)))
    assert document["attempted_levels"] == [1, 3]
    keys = list(document)
    assert keys.index("attempted_levels") == keys.index("kernels") - 1
