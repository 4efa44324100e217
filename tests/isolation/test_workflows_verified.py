"""Issue 46 (1): no workflow runs submitted code outside the sandbox. A GPU job's kb-validate passes --verified,
which refuses (exit 4) where the sandbox is missing, blocked or times out; any other job's runs no code at all."""

from __future__ import annotations

import re
from pathlib import Path

import pytest
import yaml

from tests.paths import REPO

WORKFLOWS = sorted((REPO / ".github" / "workflows").glob("*.yml"))
NOT_VALIDATING = ("bot", "merge", "catalogue", "site", "--help", "--version")
"""kb-validate subcommands that read reports, results or the catalogue: no submission's code."""
COMMAND = re.compile(r"(?:^|[;&|(])\s*(kb-validate\b[^|;&]*)")
"""kb-validate where a shell runs it (not inside an echo's text)."""


def validations(workflow: Path) -> list[tuple[str, bool, str]]:
    """(job, runs on a GPU runner, command) for every kb-validate call that validates submissions."""
    found = []
    for job_id, job in yaml.safe_load(workflow.read_text())["jobs"].items():
        gpu = "gpu" in str(job.get("runs-on", ""))
        for step in job.get("steps", []):
            script = re.sub(r"\\\n\s*", " ", step.get("run", ""))
            for line in script.splitlines():
                for call in COMMAND.findall(line.strip()):
                    words = call.split()
                    if len(words) > 1 and words[1] not in NOT_VALIDATING:
                        found.append((job_id, gpu, call))
    return found


ALL = [(w.stem, *v) for w in WORKFLOWS for v in validations(w)]


def test_the_gpu_workflows_validate_submissions():
    assert {name for name, _job, gpu, _call in ALL if gpu} >= {"gpu-verify", "verified-rerun"}


@pytest.mark.parametrize(("name", "job", "gpu", "call"), ALL, ids=[f"{n}/{j}" for n, j, _g, _c in ALL])
def test_every_validation_of_submitted_code_is_verified_or_runs_none_of_it(name: str, job: str, gpu: bool,
                                                                           call: str):
    if gpu:
        assert "--verified" in call.split(), f"{name}/{job} runs submitted code without --verified: {call}"
        assert "--interpret" not in call.split()
    else:  # a hosted runner: no GPU, so with --no-gpu and no --arch neither build nor evaluate runs
        words = call.split()
        assert "--no-gpu" in words and not {"--arch", "--interpret"} & set(words), f"{name}/{job}: {call}"
