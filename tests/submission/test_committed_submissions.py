"""Every submission committed to the repository passes every stage that runs without a GPU."""

from __future__ import annotations

import pytest

from tests.conftest import REPO

SUBMISSIONS = sorted((REPO / "submissions").glob("*.json"))


@pytest.mark.parametrize("document", SUBMISSIONS, ids=[p.stem for p in SUBMISSIONS])
def test_a_committed_submission_passes_the_cpu_stages(document, cli):
    result = cli(str(document), "--no-gpu")
    assert result.exit_code == 0, result.output
    assert "warning" not in result.stdout, result.stdout  # policy review flags would need a maintainer
