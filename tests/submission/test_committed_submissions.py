"""Every submission committed to the repository passes every stage that runs without a GPU; one whose kernels live
in another repository at a pinned commit (the 2024 leaderboard's) follows the schema and names known problem files:
fetching its kernels needs the network, which the tests do not use."""

from __future__ import annotations

import json

import pytest

from tests.conftest import REPO
from validator.catalogue.problems import load_catalogue
from validator.submission.schema import schema_findings

SUBMISSIONS = sorted((REPO / "submissions").glob("*.json"))
LOCAL = [p for p in SUBMISSIONS if not any("source" in k for k in json.loads(p.read_text())["kernels"])]
EXTERNAL = [p for p in SUBMISSIONS if p not in LOCAL]


@pytest.mark.parametrize("document", LOCAL, ids=[p.stem for p in LOCAL])
def test_a_committed_submission_passes_the_cpu_stages(document, cli):
    result = cli(str(document), "--no-gpu")
    assert result.exit_code == 0, result.output
    assert "warning" not in result.stdout, result.stdout  # policy review flags would need a maintainer


@pytest.mark.parametrize("document", EXTERNAL, ids=[p.stem for p in EXTERNAL])
def test_a_committed_external_submission_follows_the_schema_and_names_known_problem_files(document):
    data = json.loads(document.read_text())
    assert schema_findings(data, str(document)) == []
    catalogue = load_catalogue()
    known = {(p.level, p.problem_id, p.sha256) for p in (*catalogue.problems, *catalogue.other_versions)}
    for kernel in data["kernels"]:
        assert (kernel["level"], kernel["problem_id"], kernel["problem_sha256"]) in known, kernel
        assert not (document.parent / data["slug"]).exists()  # references only: no kernel code is committed
