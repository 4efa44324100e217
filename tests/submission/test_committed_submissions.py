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
    known = {(p.level, p.problem_id, p.sha256) for p in catalogue.every_version}
    for kernel in data["kernels"]:
        assert (kernel["level"], kernel["problem_id"], kernel["problem_sha256"]) in known, kernel
        assert not (document.parent / data["slug"]).exists()  # references only: no kernel code is committed


KB2024 = sorted((REPO / "submissions").glob("kb2024-*.json"))


def test_each_2024_leaderboard_model_declares_the_three_levels_the_board_evaluated():
    """The 2024 board ran every model on all 250 problems of levels 1-3 and kept only the correct kernels
    (bench/leaderboard_submissions.py says how its data.json shows it): every model declares all three levels, so
    it is ranked on each, its missing kernels counting as failures, even on a level where it has none."""
    assert len(KB2024) == 7
    kernels_on = {}
    for document in KB2024:
        data = json.loads(document.read_text())
        assert data["attempted_levels"] == [1, 2, 3], document.name
        assert list(data).index("attempted_levels") == list(data).index("kernels") - 1
        kernels_on[data["slug"]] = {k["level"] for k in data["kernels"]}
    # declared although it solved nothing there: fast_p 0 is KernelBench's score for it
    assert kernels_on["kb2024-llama-3-1-405b"] == {1, 3}
    assert kernels_on["kb2024-llama-3-1-70b"] == {1}
