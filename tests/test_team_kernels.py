"""The team's hand-written Triton kernels pass the full correctness protocol in CPU interpret mode.

Their speed is measured on a GPU; here CI guards that an edit never leaves one wrong."""

from __future__ import annotations

import json

import pytest

from tests.conftest import REPO
from tests.test_worker import finish, make_job, start_worker
from validator.catalogue import load_catalogue

TEAM = REPO / "submissions" / "kernelbench-team"
ENTRIES = [k for k in json.loads((REPO / "submissions" / "kernelbench-team.json").read_text())["kernels"]
           if k["backend"] == "triton"]


@pytest.mark.parametrize("entry", ENTRIES, ids=[e["path"].removesuffix(".py") for e in ENTRIES])
def test_a_team_triton_kernel_is_correct_in_cpu_interpret_mode(entry, tmp_path):
    problem = load_catalogue(REPO / "problems").get(entry["level"], entry["problem_id"])
    job = make_job(problem.key, TEAM / entry["path"], tmp_path, {"interpret": True})
    data = finish(*start_worker(job, tmp_path / "run"), timeout=300)
    assert data["status"] == "correct", (entry["path"], data["error"], data["flags"])
