"""Which pull request and commit a gpu-verify run vouches for, checked through the Actions API.

pr-comment is triggered by any completed run *named* gpu-verify, and a name is only a string in a workflow
file: anyone with write access can dispatch a copy of gpu-verify.yml from their own branch (or a tag named
like the default branch) with the `gpu-verification` environment removed, and upload a passing artifact.
So a run counts only when GitHub itself reports that it is the run of main's workflow file: the workflow id
of `.github/workflows/gpu-verify.yml`, dispatched by hand on the default branch, at a commit that is on the
default branch, in this repository, and approved for the `gpu-verification` environment by someone other
than the account that dispatched it. The PR and commit then come from the run's name, which that file
writes from the maintainer's inputs.
"""

from __future__ import annotations

import re
from typing import Any, Protocol

from validator.findings import UserError

WORKFLOW_FILE = "gpu-verify.yml"
WORKFLOW_PATH = f".github/workflows/{WORKFLOW_FILE}"
ENVIRONMENT = "gpu-verification"
TITLE = re.compile(r"^gpu-verify PR ([1-9][0-9]{0,6}) at ([0-9a-f]{40})$")


class RunSource(Protocol):
    """The client calls this check needs (GitHubClient, or a stand-in in tests)."""

    def workflow_run(self, run_id: int) -> dict[str, Any]: ...
    def workflow_id(self, file_name: str) -> int: ...
    def default_branch(self) -> str: ...
    def is_ancestor(self, sha: str, branch: str) -> bool: ...
    def run_approvals(self, run_id: int) -> list[dict[str, Any]]: ...


def _login(value: Any) -> str:
    return str((value or {}).get("login") or "").casefold() if isinstance(value, dict) else ""


def _approved_by_another(approvals: list[dict[str, Any]], dispatchers: set[str]) -> bool:
    for approval in approvals:
        environments = {str(e.get("name")) for e in approval.get("environments") or [] if isinstance(e, dict)}
        user = _login(approval.get("user"))
        if approval.get("state") == "approved" and ENVIRONMENT in environments and user and user not in dispatchers:
            return True
    return False


def _refusal(run: dict[str, Any], run_id: int, source: RunSource, repo: str) -> str | None:
    """Why the run is not main's approved gpu-verify run, or None when it is."""
    default = source.default_branch()
    path = str(run.get("path") or "")
    if path.split("@", 1)[0] != WORKFLOW_PATH or run.get("workflow_id") != source.workflow_id(WORKFLOW_FILE):
        return f"it is a run of {path or 'an unknown workflow'}, not of {WORKFLOW_PATH}"
    if run.get("event") != "workflow_dispatch":
        return f"it was started by {run.get('event')!r}, not dispatched by hand"
    if run.get("head_branch") != default:
        return f"it ran the workflow from {run.get('head_branch')!r}, not from the default branch {default!r}"
    if str(((run.get("head_repository") or {}).get("full_name")) or "").casefold() != repo.casefold():
        return "it ran in another repository"
    head_sha = str(run.get("head_sha") or "")
    if not re.fullmatch(r"[0-9a-f]{40}", head_sha) or not source.is_ancestor(head_sha, default):
        return f"its workflow file comes from commit {head_sha[:12] or '?'}, which is not on {default}"
    dispatchers = {_login(run.get("actor")), _login(run.get("triggering_actor"))} - {""}
    if not _approved_by_another(source.run_approvals(run_id), dispatchers):
        return (f"no one but the account that dispatched it approved the {ENVIRONMENT!r} environment; a second "
                "maintainer must approve a GPU verification")
    return None


def verified_target(source: RunSource, run_id: int, repo: str) -> tuple[int, str]:
    """(PR number, commit) of run `run_id` when it is main's approved gpu-verify run; UserError otherwise."""
    if run_id < 1:
        raise UserError(f"--run-id {run_id}: expected the workflow_run event's run id")
    run = source.workflow_run(run_id)
    why = _refusal(run, run_id, source, repo)
    if why:
        raise UserError(f"workflow run {run_id} is not a GPU verification this bot may report: {why}")
    match = TITLE.match(str(run.get("display_title") or ""))
    if not match:
        raise UserError(f"workflow run {run_id} is named {run.get('display_title')!r}, not 'gpu-verify PR N at SHA'")
    return int(match.group(1)), match.group(2)
