"""The GitHub workflows: the linters report nothing, and the security rules of the PR flow hold."""

from __future__ import annotations

import re
import shutil
import subprocess
from pathlib import Path
from typing import Any

import pytest
import yaml

from tests.paths import REPO

ROOT = REPO
WORKFLOWS = ROOT / ".github" / "workflows"
PINNED = re.compile(r"^[\w.-]+/[\w./-]+@[0-9a-f]{40}$")
USES_LINE = re.compile(r"^\s*(?:-\s+)?uses:\s*(\S+)(.*)$")
GPU_LABELS = ["self-hosted", "linux", "gpu"]

EXPECTED_PERMISSIONS = {
    ("pr-check", "check"): {"contents": "read"},
    ("pr-comment", "comment"): {"contents": "read", "actions": "read", "pull-requests": "write", "statuses": "write"},
    ("gpu-verify", "verify"): {"contents": "read", "pull-requests": "read"},
    ("deploy-site", "build"): {"contents": "read"},
    ("deploy-site", "deploy"): {"pages": "write", "id-token": "write"},
    ("verified-rerun", "plan"): {},
    ("verified-rerun", "rerun"): {"contents": "read"},
    ("verified-rerun", "merge"): {"contents": "read"},
    ("verified-rerun", "open-pr"): {"contents": "read"},
    ("ci", "test"): {"contents": "read"},
}


def _load(path: Path) -> dict[str, Any]:
    data = yaml.safe_load(path.read_text(encoding="utf-8"))
    data["on"] = data.pop(True, data.get("on"))  # YAML 1.1 reads the key `on` as the boolean true
    return data


WORKFLOW_FILES = sorted(WORKFLOWS.glob("*.yml"))
ALL = {path.stem: _load(path) for path in WORKFLOW_FILES}


def _steps(job: dict[str, Any]) -> list[dict[str, Any]]:
    return job.get("steps", [])


def _tool(name: str) -> str:
    found = shutil.which(name)
    if found is None:
        pytest.fail(f"{name} is not installed; `pip install -e '.[dev]'` installs it (see pyproject.toml)")
    return found


def test_the_expected_workflows_exist() -> None:
    assert set(ALL) == {"pr-check", "pr-comment", "gpu-verify", "deploy-site", "verified-rerun", "ci"}


def test_actionlint_reports_nothing() -> None:
    done = subprocess.run([_tool("actionlint"), "-no-color"], cwd=ROOT, capture_output=True, text=True, timeout=120,
                          check=False)
    assert done.returncode == 0, done.stdout + done.stderr


def test_zizmor_reports_nothing() -> None:
    done = subprocess.run([_tool("zizmor"), "--offline", "--no-progress", "--color", "never", str(WORKFLOWS)],
                          cwd=ROOT, capture_output=True, text=True, timeout=120, check=False)
    assert done.returncode == 0, done.stdout + done.stderr
    assert "No findings to report" in done.stdout


@pytest.mark.parametrize("path", WORKFLOW_FILES, ids=lambda p: p.name)
def test_every_action_is_pinned_to_a_full_sha_with_a_version_comment(path: Path) -> None:
    for number, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1):
        match = USES_LINE.match(line)
        if match:
            assert PINNED.match(match.group(1)), f"{path.name}:{number}: {match.group(1)} is not pinned by SHA"
            assert re.match(r"\s+# v\d+\.\d+\.\d+$", match.group(2)), f"{path.name}:{number}: no '# vX.Y.Z' comment"


@pytest.mark.parametrize("name", sorted(ALL))
def test_every_job_has_explicit_least_privilege_permissions(name: str) -> None:
    workflow = ALL[name]
    assert workflow.get("permissions") == {}, f"{name}: the workflow-level default must be permissions: {{}}"
    for job_id, job in workflow["jobs"].items():
        assert "permissions" in job, f"{name}/{job_id} has no explicit permissions"
        assert job["permissions"] == EXPECTED_PERMISSIONS[(name, job_id)], f"{name}/{job_id}: {job['permissions']}"
        assert "timeout-minutes" in job, f"{name}/{job_id} has no timeout"


@pytest.mark.parametrize("name", sorted(ALL))
def test_no_workflow_uses_pull_request_target(name: str) -> None:
    assert "pull_request_target" not in ALL[name]["on"]
    lines = (WORKFLOWS / f"{name}.yml").read_text(encoding="utf-8").splitlines()
    code = [line.split(" #")[0] for line in lines if not line.lstrip().startswith("#")]
    assert not any("pull_request_target" in line for line in code)


@pytest.mark.parametrize("name", sorted(ALL))
def test_every_checkout_leaves_no_credentials_behind(name: str) -> None:
    for job in ALL[name]["jobs"].values():
        for step in _steps(job):
            if step.get("uses", "").startswith("actions/checkout@"):
                assert step.get("with", {}).get("persist-credentials") is False


def test_workflow_run_jobs_never_check_out_or_run_pull_request_code() -> None:
    for name, workflow in ALL.items():
        if "workflow_run" not in workflow["on"]:
            continue
        text = (WORKFLOWS / f"{name}.yml").read_text(encoding="utf-8")
        assert "pull_requests[" not in text
        for job in workflow["jobs"].values():
            # head_branch is a contributor's branch name: compared in `if:`, never handed to a step
            assert "head_branch" not in yaml.safe_dump({k: v for k, v in job.items() if k != "if"})
            for step in _steps(job):
                if step.get("uses", "").startswith("actions/checkout@"):
                    assert set(step.get("with", {})) <= {"persist-credentials"}, "checkout must stay on main"
            assert "secrets." not in yaml.safe_dump(job)


def test_pr_check_runs_on_github_hosted_runners_with_no_secrets() -> None:
    job = ALL["pr-check"]["jobs"]["check"]
    assert ALL["pr-check"]["on"] == {"pull_request": {"branches": ["main"]}}
    assert job["runs-on"].startswith("ubuntu-")
    assert "secrets." not in yaml.safe_dump(job)


def test_self_hosted_gpu_jobs_start_only_by_hand_or_schedule_and_hold_no_secret() -> None:
    for name, workflow in ALL.items():
        gpu_jobs = [job for job in workflow["jobs"].values() if job["runs-on"] == GPU_LABELS]
        if not gpu_jobs:
            continue
        assert set(workflow["on"]) <= {"workflow_dispatch", "schedule"}, f"{name} may start a GPU job otherwise"
        for job in gpu_jobs:
            assert "secrets." not in yaml.safe_dump(job)


def test_gpu_verification_needs_an_approved_environment_on_main_and_an_exact_sha() -> None:
    workflow = ALL["gpu-verify"]
    job = workflow["jobs"]["verify"]
    assert set(workflow["on"]) == {"workflow_dispatch"}
    assert job["environment"] == "gpu-verification"
    assert job["if"] == "github.ref == 'refs/heads/main'"
    assert job["runs-on"] == GPU_LABELS
    assert set(workflow["on"]["workflow_dispatch"]["inputs"]) == {"pr", "sha"}
    assert "^[0-9a-f]{40}$" in yaml.safe_dump(job)


def test_the_gpu_queue_never_cancels_and_groups_by_pull_request_and_commit() -> None:
    concurrency = ALL["gpu-verify"]["concurrency"]
    assert concurrency["cancel-in-progress"] is False
    assert "inputs.pr" in concurrency["group"] and "inputs.sha" in concurrency["group"]
    assert ALL["verified-rerun"]["concurrency"]["cancel-in-progress"] is False
    assert ALL["deploy-site"]["concurrency"]["cancel-in-progress"] is False


def test_the_results_bot_token_is_used_only_by_the_job_that_opens_the_results_pull_request() -> None:
    for name, workflow in ALL.items():
        for job_id, job in workflow["jobs"].items():
            uses_secret = "secrets." in yaml.safe_dump(job)
            assert uses_secret == ((name, job_id) == ("verified-rerun", "open-pr")), f"{name}/{job_id}"
    job = ALL["verified-rerun"]["jobs"]["open-pr"]
    assert job["environment"] == "results-bot"
    assert not any("kb-validate submissions" in step.get("run", "") for step in _steps(job))


def test_pages_permissions_belong_to_the_deploy_job_only() -> None:
    for name, workflow in ALL.items():
        for job_id, job in workflow["jobs"].items():
            writes_pages = "pages" in job["permissions"] or "id-token" in job["permissions"]
            assert writes_pages == ((name, job_id) == ("deploy-site", "deploy"))
    deploy = ALL["deploy-site"]["jobs"]["deploy"]
    assert [step["uses"].split("@")[0] for step in _steps(deploy)] == ["actions/deploy-pages"]


def test_verified_reruns_shard_over_the_gpu_runners_and_record_provenance() -> None:
    rerun = ALL["verified-rerun"]["jobs"]["rerun"]
    script = " ".join(step.get("run", "") for step in _steps(rerun))
    assert '--shard "$SHARD/$TOTAL"' in script and "--verified" in script
    for key in ("runner", "workflow", "run_id", "commit"):
        assert f'--provenance "{key}=' in script
    assert "kb-validate merge" in yaml.safe_dump(ALL["verified-rerun"]["jobs"]["merge"])


REQUIREMENTS = ROOT / ".github" / "requirements"
LOCKED_INSTALL = re.compile(r'^(?:python3?|"\$RUNNER_TEMP/venv/bin/python") -m pip install --require-hashes '
                            r"-r (?:harness/)?\.github/requirements/([a-z-]+\.txt)$")
OWN_TREE_INSTALL = re.compile(r'^(?:python3?|"\$RUNNER_TEMP/venv/bin/python") -m pip install --no-deps '
                              r"--no-build-isolation -e (?:\.|harness)$")
PIN = re.compile(r"^[A-Za-z0-9_.-]+(?:\[[A-Za-z0-9_,.-]+\])?==[A-Za-z0-9_.+!-]+(?: ;[^\\]*)?$")


def _pip_installs(name: str) -> list[str]:
    text = (WORKFLOWS / f"{name}.yml").read_text(encoding="utf-8")
    return [line.strip() for line in text.splitlines() if "pip install" in line or "pip3 install" in line]


def _requirements(path: Path) -> list[str]:
    """The file's requirements, one a string with its continuation lines joined; comments dropped."""
    joined = path.read_text(encoding="utf-8").replace("\\\n", " ")
    lines = [line.strip() for line in joined.splitlines()]
    return [line.split(" #")[0].strip() for line in lines if line and not line.startswith("#")]


@pytest.mark.parametrize("name", sorted(ALL))
def test_every_pip_install_in_every_workflow_is_hash_locked(name: str) -> None:
    for line in _pip_installs(name):
        locked = LOCKED_INSTALL.match(line)
        assert locked or OWN_TREE_INSTALL.match(line), f"{name}: unlocked install {line!r}"
        if locked:
            assert (REQUIREMENTS / locked.group(1)).is_file(), f"{name}: {locked.group(1)} is not committed"


@pytest.mark.parametrize("path", sorted(REQUIREMENTS.glob("*.txt")), ids=lambda p: p.name)
def test_every_requirement_of_a_lock_file_is_pinned_with_a_hash(path: Path) -> None:
    entries = _requirements(path)
    assert entries, f"{path.name} lists nothing"
    for entry in entries:
        pin, _, hashes = entry.partition(" --hash=")
        assert PIN.match(pin.strip()), f"{path.name}: {pin!r} is not NAME==VERSION (no index, URL or -e)"
        assert hashes and all(h.startswith("--hash=sha256:") for h in ("--hash=" + hashes).split()), entry


def test_pr_comment_takes_the_pull_request_and_commit_from_the_event_not_the_artifact() -> None:
    job = ALL["pr-comment"]["jobs"]["comment"]
    env = job["env"]
    assert env["EVENT_SHA"] == "${{ github.event.workflow_run.head_sha }}"
    assert env["EVENT_REPO"] == "${{ github.event.workflow_run.head_repository.full_name }}"
    assert env["RUN_ID"] == "${{ github.event.workflow_run.id }}"
    script = "\n".join(step.get("run", "") for step in _steps(job))
    assert '--event-repo "$EVENT_REPO"' in script and '--run-id "$RUN_ID"' in script
    assert "--gpu-pending" in script
    assert "check-results-guard --meta" not in script
    run_name = ALL["gpu-verify"]["run-name"]
    assert run_name == "gpu-verify PR ${{ inputs.pr }} at ${{ inputs.sha }}"  # the form the bot parses


def test_gpu_verify_checks_the_pull_requests_head_before_fetching_anything_of_it() -> None:
    steps = _steps(ALL["gpu-verify"]["jobs"]["verify"])
    names = [step.get("name", "") for step in steps]
    check = next(i for i, step in enumerate(steps) if "bot check-head" in step.get("run", ""))
    fetch = next(i for i, step in enumerate(steps) if step.get("with", {}).get("ref") == "${{ inputs.sha }}")
    assert check < fetch, names


def test_one_unusable_shard_does_not_stop_the_merge_or_the_results_pull_request() -> None:
    merge = "\n".join(step.get("run", "") for step in _steps(ALL["verified-rerun"]["jobs"]["merge"]))
    assert "|| status=$?" in merge and "merge-failures.txt" in merge
    open_pr = "\n".join(step.get("run", "") for step in _steps(ALL["verified-rerun"]["jobs"]["open-pr"]))
    assert "bot results-body" in open_pr and "--failed" in open_pr


def test_pr_comment_runs_only_for_the_workflow_files_and_a_gpu_run_dispatched_on_the_default_branch() -> None:
    """`workflows: [gpu-verify]` matches a display name any file on any branch can claim (issue 46)."""
    job = ALL["pr-comment"]["jobs"]["comment"]
    condition = " ".join(job["if"].split())
    assert "workflow_run.name" not in yaml.safe_dump(job)
    gpu = ("(github.event.workflow_run.path == '.github/workflows/gpu-verify.yml' && "
           "github.event.workflow_run.event == 'workflow_dispatch' && "
           "github.event.workflow_run.head_branch == github.event.repository.default_branch && "
           "github.event.workflow_run.head_repository.full_name == github.repository)")
    check = ("(github.event.workflow_run.path == '.github/workflows/pr-check.yml' && "
             "github.event.workflow_run.event == 'pull_request')")
    assert condition == f"github.event.workflow_run.conclusion != 'cancelled' && ( {check} || {gpu})"
    assert "workflow_run.path == '.github/workflows/gpu-verify.yml'" in job["env"]["WORKFLOW"]


def test_the_pr_check_guard_gets_the_authors_association_from_the_event() -> None:
    job = ALL["pr-check"]["jobs"]["check"]
    assert job["env"]["PR_ASSOCIATION"] == "${{ github.event.pull_request.author_association }}"
    script = "\n".join(step.get("run", "") for step in _steps(job))
    assert '--association "$PR_ASSOCIATION"' in script


def test_codeowners_gives_everything_outside_submissions_to_the_maintainers() -> None:
    rules = {}
    for line in (ROOT / ".github" / "CODEOWNERS").read_text(encoding="utf-8").splitlines():
        if line.strip() and not line.startswith("#"):
            pattern, *owners = line.split()
            rules[pattern] = owners
    assert rules.get("*"), "a default owner for every path"
    for path in ("/.github/", "/validator/", "/problems/", "/site_src/", "/tests/", "/bench/", "/results/"):
        assert rules.get(path) == rules["*"], path
