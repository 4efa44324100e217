"""`kb-validate bot ...` end to end: the real github3.py client against a fake GitHub on loopback."""

from __future__ import annotations

import io
import json
import re
import socket
import subprocess
import time
from pathlib import Path

import pytest

from tests.fake_github import FakeGitHub
from validator import cli, commands
from validator.findings import ExitCode, Finding, StageOutcome, StageStatus
from validator.github import contributor_scope
from validator.github.client import COMMENT_LIMIT, BotExit
from validator.github.pr_report import REPORT_SCHEMA, Artifact, fit_comment, read_checked, render
from validator.github.results_guard import check, parse_path_list, touches_results
from validator.pipeline import SubmissionReport
from validator.report import to_json

TOKEN = "s3cret-" + "T0kenValue" * 4  # not GitHub-shaped: the exact value must be scrubbed
HEAD = "a" * 40
OLD = "c" * 40


@pytest.fixture
def fake(monkeypatch: pytest.MonkeyPatch):
    monkeypatch.setitem(commands.VERBS, "bot", "validator.commands.bot")
    with FakeGitHub(TOKEN) as server:
        monkeypatch.setenv("GITHUB_TOKEN", TOKEN)
        monkeypatch.setenv("GITHUB_REPOSITORY", f"{server.owner}/{server.name}")
        monkeypatch.setenv("GITHUB_API_URL", server.url)
        monkeypatch.setenv("KB_RESULTS_BOT", "kb-results-bot")
        monkeypatch.delenv("KB_BOT_LOGIN", raising=False)
        yield server


def bot(*argv: str) -> tuple[int, str, str]:
    out, err = io.StringIO(), io.StringIO()
    code = cli.main(["bot", *argv], out, err)
    text_out, text_err = out.getvalue(), err.getvalue()
    assert TOKEN not in text_out + text_err
    assert "Traceback" not in text_out + text_err
    return code, text_out, text_err


def report(exit_code: int = 0, message: str = "ok", n_findings: int = 0) -> dict:
    findings = [{"code": "hash-mismatch", "stage": "semantics", "message": message, "severity": "error",
                 "file": "submissions/x.json", "json_path": f"$.kernels[{i}]"} for i in range(n_findings)]
    verdict = {0: "passed", 1: "failed", 2: "unusable", 3: "unusable"}[exit_code]
    return {"report_version": 1, "validator_version": "0.1.0", "exit_code": exit_code, "machine": None,
            "submissions": [{"file": "submissions/x.json", "slug": "x", "verdict": verdict, "exit_code": exit_code,
                             "stages": [{"stage": "semantics", "status": "failed" if findings else "passed",
                                         "reason": "", "seconds": 0.1, "findings": findings}]}]}


def write_artifact(tmp_path: Path, rep: dict | None, *, pr: int = 7, sha: str = HEAD, workflow: str = "pr-check",
                   validated: bool = True, head_repo: str = "alice/board", run_id: int = 55) -> list[str]:
    """Write meta.json (+ report.json) as a workflow would; return the arguments the trusted job passes: the
    artifact's files plus the PR and commit from the workflow_run event (head commit and repository for pr-check,
    the run id for gpu-verify, whose run the test registers with the fake: `fake.add_run(run_id, pr, sha)`)."""
    meta = tmp_path / "meta.json"
    meta.write_text(json.dumps({"workflow": workflow, "pr": pr, "sha": sha, "validated": validated}))
    path = tmp_path / "report.json"
    path.unlink(missing_ok=True)
    if rep is not None:
        path.write_text(json.dumps(rep))
    args = ["--workflow", workflow, "--meta", str(meta), "--report", str(path)]
    if workflow == "pr-check":
        return [*args, "--event-sha", sha, "--event-repo", head_repo]
    return [*args, "--run-id", str(run_id)]


# -- changed files -------------------------------------------------------------------------------------

def test_changed_files_follows_every_page_of_a_large_pull_request(fake: FakeGitHub) -> None:
    names = [f"submissions/big/k{i:03}.py" for i in range(250)]
    fake.add_pull(7, "alice", HEAD, files=names)
    code, out, _ = bot("changed-files", "--pr", "7")
    assert code == BotExit.OK
    assert out.splitlines() == names
    assert fake.requests.count(("GET", "/repos/octo/board/pulls/7/files")) == 3


def test_changed_files_maps_kernel_files_to_their_submission_documents(fake: FakeGitHub, tmp_path: Path) -> None:
    (tmp_path / "submissions").mkdir()
    (tmp_path / "submissions/team.json").write_text("{}")
    fake.add_pull(7, "alice", HEAD, files=["submissions/team/k1.py", "submissions/gone.json", "README.md"])
    code, out, _ = bot("changed-files", "--pr", "7", "--submissions", "--repo-dir", str(tmp_path))
    assert (code, out) == (BotExit.OK, "submissions/team.json\n")


def _git(repo: Path, *args: str) -> str:
    done = subprocess.run(["git", "-C", str(repo), *args], capture_output=True, text=True, check=True)
    return done.stdout.strip()


@pytest.fixture
def repo(tmp_path: Path) -> Path:
    root = tmp_path / "repo"
    root.mkdir()
    _git(root, "init", "-q", "-b", "main")
    _git(root, "config", "user.email", "t@example.invalid")
    _git(root, "config", "user.name", "t")
    (root / "results").mkdir()
    (root / "results/old.json").write_text("{}\n")
    (root / "README.md").write_text("x\n")
    _git(root, "add", ".")
    _git(root, "commit", "-q", "-m", "base")
    return root


def test_changed_files_from_git_diff_needs_no_token(monkeypatch: pytest.MonkeyPatch, repo: Path) -> None:
    monkeypatch.setitem(commands.VERBS, "bot", "validator.commands.bot")
    monkeypatch.delenv("GITHUB_TOKEN", raising=False)
    base = _git(repo, "rev-parse", "HEAD")
    (repo / "submissions/s").mkdir(parents=True)
    (repo / "submissions/s.json").write_text("{}")
    (repo / "submissions/s/k.py").write_text("x = 1\n")
    _git(repo, "add", ".")
    _git(repo, "commit", "-q", "-m", "add")
    code, out, _ = bot("changed-files", "--git-diff", base, "HEAD", "--repo-dir", str(repo), "--submissions")
    assert (code, out) == (BotExit.OK, "submissions/s.json\n")


# -- results guard -------------------------------------------------------------------------------------

def test_guard_fails_a_contributor_pull_request_that_edits_results(fake: FakeGitHub, tmp_path: Path) -> None:
    files = tmp_path / "changed.txt"
    files.write_text("submissions/x.json\0results/nvidia-h100/x.json\0")
    code, _, err = bot("check-results-guard", "--files", str(files), "--author", "mallory")
    assert code == BotExit.CHECK_FAILED
    assert "results/nvidia-h100/x.json" in err and "kb-results-bot" in err


def test_guard_lets_the_results_bot_change_results_and_nothing_else(fake: FakeGitHub, tmp_path: Path) -> None:
    files = tmp_path / "changed.txt"
    files.write_text("results/a.json\nresults/b/c.json\n")
    assert bot("check-results-guard", "--files", str(files), "--author", "KB-Results-Bot")[0] == BotExit.OK
    files.write_text("results/a.json\nvalidator/cli.py\n")
    code, _, err = bot("check-results-guard", "--files", str(files), "--author", "kb-results-bot")
    assert code == BotExit.CHECK_FAILED and "validator/cli.py" in err


def test_guard_reads_files_and_author_from_the_api_and_sets_a_status(fake: FakeGitHub, tmp_path: Path) -> None:
    fake.add_pull(7, "mallory", HEAD, files=["results/x.json"])
    code, _, _ = bot("check-results-guard", "--event-repo", "mallory/board", "--status-sha", HEAD)
    assert code == BotExit.CHECK_FAILED
    assert [(s["context"], s["state"]) for s in fake.statuses] == [("kb-validate / results-guard", "failure")]


def test_guard_will_not_set_a_status_on_a_commit_that_is_not_the_pr_head(fake: FakeGitHub) -> None:
    fake.add_pull(7, "alice", HEAD, files=["submissions/x.json"], commits=[OLD, HEAD])
    code, _, err = bot("check-results-guard", "--pr", "7", "--status-sha", OLD)
    assert code == ExitCode.UNUSABLE and "not the head" in err
    assert fake.statuses == []


def test_guard_refuses_everyone_when_no_results_bot_is_configured() -> None:
    verdict = check(("results/a.json",), "kb-results-bot", None)
    assert not verdict.allowed and "not configured" in verdict.message
    assert check(("submissions/a.json",), "alice", None).allowed


@pytest.mark.parametrize("path", ["results/x.json", "./results/x.json", "Results/x.json", '"results/\\303\\251.json"',
                                  "results"])
def test_guard_sees_results_paths_however_they_are_spelled(path: str) -> None:
    assert all(touches_results(p) for p in parse_path_list(path + "\n"))


def test_guard_ignores_paths_that_only_mention_results() -> None:
    assert not any(touches_results(p) for p in ("submissions/results.json", "site_src/results/x.md", "results.md"))


def test_guard_keeps_decisions_on_held_results_in_a_pull_request_of_their_own() -> None:
    assert check(("reviews/decisions.json",), "maintainer", "kb-results-bot").allowed
    mixed = check(("submissions/x.json", "./Reviews/decisions.json"), "alice", "kb-results-bot")
    assert not mixed.allowed and mixed.offending == ("./Reviews/decisions.json",)
    assert "a pull request of its own" in mixed.message
    by_bot = check(("results/a.json", "reviews/decisions.json"), "kb-results-bot", "kb-results-bot")
    assert not by_bot.allowed and by_bot.offending == ("reviews/decisions.json",)


# -- sticky comment and status -------------------------------------------------------------------------

def test_comment_is_created_once_then_edited_in_place(fake: FakeGitHub, tmp_path: Path) -> None:
    fake.add_pull(7, "alice", HEAD)
    spoof = fake.add_comment(7, "mallory", "<!-- kb-validate-bot:pr-check --> fake result")
    code, out, _ = bot("comment", *write_artifact(tmp_path, report(0)), "--run-url", "https://example.invalid/run")
    assert code == BotExit.OK and "created" in out
    code, out, _ = bot("comment", *write_artifact(tmp_path, report(1, n_findings=1)))
    assert code == BotExit.OK and "updated" in out
    mine = [c for c in fake.comments[7] if c["user"]["login"] == "github-actions[bot]"]
    assert len(mine) == 1 and "❌ failed" in mine[0]["body"]
    assert spoof["body"] == "<!-- kb-validate-bot:pr-check --> fake result"


def test_comment_and_status_follow_the_report_exit_code(fake: FakeGitHub, tmp_path: Path) -> None:
    fake.add_pull(7, "alice", HEAD)
    args = write_artifact(tmp_path, report(1, n_findings=2))
    code, _, _ = bot("comment", *args, "--status-context", "kb-validate / pr-check")
    assert code == BotExit.OK
    set_statuses = [(s["context"], s["state"], s["sha"]) for s in fake.statuses]
    assert set_statuses == [("kb-validate / pr-check", "failure", HEAD)]


def test_comment_without_a_report_says_no_submission_changed(fake: FakeGitHub, tmp_path: Path) -> None:
    fake.add_pull(7, "alice", HEAD)
    assert bot("comment", *write_artifact(tmp_path, None), "--status-context", "kb-validate / pr-check")[0] == 0
    assert "no submission changed" in fake.comments[7][0]["body"]
    assert fake.statuses[0]["state"] == "success"


def test_a_run_that_did_not_finish_is_reported_as_an_error(fake: FakeGitHub, tmp_path: Path) -> None:
    fake.add_pull(7, "alice", HEAD)
    args = write_artifact(tmp_path, None, validated=False)
    assert bot("comment", *args, "--status-context", "kb-validate / pr-check")[0] == 0
    assert "did not finish" in fake.comments[7][0]["body"]
    assert fake.statuses[0]["state"] == "error"


def test_comment_refuses_a_pull_request_whose_head_is_another_commit(fake: FakeGitHub, tmp_path: Path) -> None:
    fake.add_pull(7, "alice", OLD)
    code, _, err = bot("comment", *write_artifact(tmp_path, report(0)))
    assert code == ExitCode.UNUSABLE and "refusing" in err
    assert fake.comments[7] == []


def test_gpu_comment_accepts_any_commit_of_the_pull_request(fake: FakeGitHub, tmp_path: Path) -> None:
    fake.add_pull(7, "alice", HEAD, commits=[OLD, HEAD])
    fake.add_run(55, 7, OLD)
    args = write_artifact(tmp_path, report(0), sha=OLD, workflow="gpu-verify")
    assert bot("comment", *args)[0] == BotExit.OK
    assert fake.comments[7][0]["body"].startswith("<!-- kb-validate-bot:gpu-verify -->")
    fake.add_run(56, 7, "f" * 40)
    args = write_artifact(tmp_path, report(0), sha="f" * 40, workflow="gpu-verify", run_id=56)
    assert bot("comment", *args)[0] == ExitCode.UNUSABLE


def test_comment_rejects_a_malformed_report_naming_the_json_path(fake: FakeGitHub, tmp_path: Path) -> None:
    fake.add_pull(7, "alice", HEAD)
    bad = report(0)
    bad["submissions"][0]["stages"][0]["status"] = "pwned"
    code, _, err = bot("comment", *write_artifact(tmp_path, bad))
    assert code == ExitCode.UNUSABLE
    assert "$['submissions'][0]['stages'][0]['status']" in err
    assert fake.requests == []


def test_a_pr_check_artifact_cannot_pass_itself_off_as_gpu_verification(fake: FakeGitHub, tmp_path: Path) -> None:
    fake.add_pull(7, "alice", HEAD)
    args = write_artifact(tmp_path, report(0), workflow="gpu-verify")
    code, _, err = bot("comment", *args[:1], "pr-check", *args[2:], "--event-sha", HEAD)
    assert code == ExitCode.UNUSABLE and "'gpu-verify'" in err
    assert fake.comments[7] == []


def test_comment_rejects_an_artifact_for_another_commit_than_the_run(fake: FakeGitHub, tmp_path: Path) -> None:
    fake.add_pull(7, "alice", HEAD)
    args = write_artifact(tmp_path, report(0))
    args[args.index("--event-sha") + 1] = OLD
    assert bot("comment", *args)[0] == ExitCode.UNUSABLE
    assert fake.requests == []


def test_untrusted_text_is_shown_only_inside_code_spans(tmp_path: Path) -> None:
    rep = report(1, message="@maintainers ![x](https://evil.invalid/p.png) <img src=x> | `tick`", n_findings=1)
    body = render(Artifact({"workflow": "pr-check", "pr": 7, "sha": HEAD}, rep), "<!-- m -->", "")
    line = next(li for li in body.splitlines() if "@maintainers" in li and "severity" not in li)
    assert "`@maintainers ![x](https://evil.invalid/p.png) <img src=x> \\| 'tick'`" in line


def test_a_long_report_is_cut_under_githubs_limit_with_a_link(fake: FakeGitHub, tmp_path: Path) -> None:
    fake.add_pull(7, "alice", HEAD)
    rep = report(1, message="x" * 250, n_findings=1500)
    code, _, _ = bot("comment", *write_artifact(tmp_path, rep), "--run-url", "https://example.invalid/runs/1")
    assert code == BotExit.OK
    body = fake.comments[7][0]["body"]
    assert len(body) <= COMMENT_LIMIT
    assert body.rstrip().endswith("https://example.invalid/runs/1")
    assert body.count("<details>") == body.count("</details>")


def test_fit_comment_leaves_short_bodies_alone() -> None:
    assert fit_comment("short", 100, "u") == "short"


def test_status_sets_one_commit_status(fake: FakeGitHub) -> None:
    fake.add_pull(7, "alice", HEAD)
    code, out, _ = bot("status", "--sha", HEAD, "--state", "pending", "--context", "kb-validate / gpu-verify",
                       "--description", "queued")
    assert code == BotExit.OK and "pending" in out
    assert fake.statuses[0]["description"] == "queued"


def test_status_refuses_a_short_sha_before_calling_github(fake: FakeGitHub) -> None:
    code, _, err = bot("status", "--sha", "abc123", "--state", "success", "--context", "c")
    assert code == ExitCode.UNUSABLE and "40-character" in err
    assert fake.requests == []


# -- errors --------------------------------------------------------------------------------------------

RESET = int(time.time()) + 600


@pytest.mark.parametrize(
    "case",
    [
        (401, "Bad credentials", {}, BotExit.AUTH, "rejected the token"),
        (403, "API rate limit exceeded", {"X-RateLimit-Remaining": "0", "X-RateLimit-Reset": str(RESET)},
         BotExit.RATE_LIMITED, time.strftime("resets at %Y-%m-%dT%H:%M", time.gmtime(RESET))),
        (429, "slow down", {"Retry-After": "60"}, BotExit.RATE_LIMITED, "retry after 60 s"),
        (403, "Resource not accessible by integration", {}, BotExit.FORBIDDEN, "permissions"),
        (404, "Not Found", {}, BotExit.NOT_FOUND, "not found (404)"),
        (422, "Validation Failed", {}, BotExit.REJECTED, "422 Validation Failed"),
        (502, "Bad Gateway", {}, BotExit.SERVER, "502"),
    ],
)
def test_api_errors_give_one_line_and_a_distinct_exit_code(fake: FakeGitHub, case: tuple) -> None:
    status, message, headers, expected, words = case
    fake.add_pull(7, "alice", HEAD)
    fake.fail_next("POST", r"/statuses/", status, message, headers=headers)
    code, _, err = bot("status", "--sha", HEAD, "--state", "success", "--context", "c")
    assert code == expected
    assert words in err
    assert len(err.strip().splitlines()) == 1


def test_a_refused_connection_is_a_network_error(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setitem(commands.VERBS, "bot", "validator.commands.bot")
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        port = sock.getsockname()[1]
    monkeypatch.setenv("GITHUB_TOKEN", TOKEN)
    code, _, err = bot("status", "--repo", "o/r", "--api-url", f"http://127.0.0.1:{port}", "--sha", HEAD,
                       "--state", "success", "--context", "c")
    assert code == BotExit.NETWORK and "connection refused" in err


def test_the_fake_server_stops_by_itself(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setitem(commands.VERBS, "bot", "validator.commands.bot")
    monkeypatch.setenv("GITHUB_TOKEN", TOKEN)
    with FakeGitHub(TOKEN, lifetime_s=0.2) as server:
        time.sleep(0.5)
        code, _, _ = bot("changed-files", "--repo", "octo/board", "--api-url", server.url, "--pr", "1")
    assert code == BotExit.NETWORK


def test_the_token_is_scrubbed_even_when_github_echoes_it(fake: FakeGitHub) -> None:
    fake.add_pull(7, "alice", HEAD)
    fake.fail_next("GET", r"/pulls/7$", 422, f"token {TOKEN} and ghp_{'a' * 36} are not allowed here")
    code, _, err = bot("changed-files", "--pr", "7")  # bot() asserts the token is absent
    assert code == BotExit.REJECTED and "***" in err and "ghp_" not in err


def test_a_missing_token_is_unusable_input(fake: FakeGitHub, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("GITHUB_TOKEN")
    code, _, err = bot("changed-files", "--pr", "7")
    assert code == ExitCode.UNUSABLE and "GITHUB_TOKEN is not set" in err


def test_more_files_than_github_can_list_is_refused(fake: FakeGitHub) -> None:
    fake.add_pull(7, "alice", HEAD, files=[f"submissions/s/{i}.py" for i in range(3001)])
    code, _, err = bot("changed-files", "--pr", "7")
    assert code == ExitCode.UNUSABLE and "3000" in err


# -- verified-rerun pull request -----------------------------------------------------------------------

def test_open_results_pr_commits_new_changed_and_deleted_results(fake: FakeGitHub, repo: Path) -> None:
    (repo / "results/hw").mkdir()
    (repo / "results/hw/new.json").write_text('{"verified": true}\n')
    (repo / "results/old.json").unlink()
    (repo / "README.md").write_text("not part of it\n")
    code, out, _ = bot("open-results-pr", "--repo-dir", str(repo), "--branch", "verified-rerun/1", "--title", "Rerun")
    assert code == BotExit.OK and "2 file(s)" in out
    tree = {e["path"]: e["sha"] for e in fake.trees[0]["tree"]}
    assert tree["results/old.json"] is None and fake.blobs[tree["results/hw/new.json"]] == '{"verified": true}\n'
    assert set(tree) == {"results/old.json", "results/hw/new.json"}
    assert fake.opened[0]["head"] == "verified-rerun/1" and fake.refs["heads/verified-rerun/1"]


def test_open_results_pr_on_an_existing_branch_is_rejected(fake: FakeGitHub, repo: Path) -> None:
    fake.refs["heads/verified-rerun/1"] = "b" * 40
    (repo / "results/old.json").write_text("[]\n")
    code, _, err = bot("open-results-pr", "--repo-dir", str(repo), "--branch", "verified-rerun/1", "--title", "R")
    assert code == BotExit.REJECTED and "Reference already exists" in err


# -- contract with the report writer -------------------------------------------------------------------

def test_the_validators_own_json_report_passes_the_artifact_shape_check(tmp_path: Path) -> None:
    finding = Finding(code="hash-mismatch", stage="semantics", message="m", file="f.json", json_path="$.a", line=3)
    outcomes = (StageOutcome("load", StageStatus.PASSED), StageOutcome("semantics", StageStatus.FAILED,
                                                                        findings=(finding,)))
    path = tmp_path / "r.json"
    path.write_text(json.dumps(to_json([SubmissionReport("f.json", "s", outcomes, ExitCode.FAILED)], None)))
    assert read_checked(path, REPORT_SCHEMA, "report")["exit_code"] == 1


# -- trusted context, sticky-comment ownership, stale GPU results (issue 19) ----------------------------

def test_the_pr_and_commit_come_from_the_event_and_an_artifact_that_disagrees_is_refused(
    fake: FakeGitHub, tmp_path: Path
) -> None:
    fake.add_pull(7, "alice", HEAD, commits=[OLD, HEAD])
    fake.add_pull(8, "bob", OLD, commits=[OLD])
    fake.add_run(55, 7, HEAD)  # what the maintainer dispatched
    args = write_artifact(tmp_path, report(0), pr=8, sha=OLD, workflow="gpu-verify")
    code, _, err = bot("comment", *args)
    assert code == ExitCode.UNUSABLE and "refusing" in err
    fake.add_run(55, 7, HEAD, display_title="gpu-verify PR 7 at main")
    assert bot("comment", *args)[0] == ExitCode.UNUSABLE
    args = write_artifact(tmp_path, report(0), pr=8)  # pr-check: alice/board's open PR at HEAD is PR 7
    assert bot("comment", *args)[0] == ExitCode.UNUSABLE
    assert fake.comments[7] == [] and fake.comments[8] == [] and fake.statuses == []


def test_a_pr_check_event_whose_repository_has_no_open_pull_request_at_that_commit_is_refused(
    fake: FakeGitHub, tmp_path: Path
) -> None:
    fake.add_pull(7, "alice", HEAD)
    code, _, err = bot("comment", *write_artifact(tmp_path, report(0), head_repo="mallory/board"))
    assert code == ExitCode.UNUSABLE and "no open pull request" in err
    code, _, err = bot("comment", *write_artifact(tmp_path, report(0), head_repo="alice/board\n::error::x"))
    assert code == ExitCode.UNUSABLE and "\n::" not in err
    fake.add_pull(9, "alice", HEAD)  # two open PRs from one repository at one commit: which one is unknowable
    code, _, err = bot("comment", *write_artifact(tmp_path, report(0)))
    assert code == ExitCode.UNUSABLE and "2 open pull requests" in err
    assert fake.comments[7] == [] and fake.comments[9] == []


def test_only_a_bot_comment_that_starts_with_the_marker_is_the_sticky_comment(fake: FakeGitHub, tmp_path: Path) -> None:
    fake.add_pull(7, "alice", HEAD)
    quoting = fake.add_comment(7, "github-actions[bot]", "## GPU\n`<!-- kb-validate-bot:pr-check -->` from a file name")
    code, out, _ = bot("comment", *write_artifact(tmp_path, report(0)))
    assert code == BotExit.OK and "created" in out
    assert quoting["body"].startswith("## GPU") and len(fake.comments[7]) == 2
    assert fake.comments[7][1]["body"].startswith("<!-- kb-validate-bot:pr-check -->\n")


def test_untrusted_file_names_cannot_add_html_or_headings_or_control_characters(tmp_path: Path) -> None:
    rep = report(1, message="bad\x1b[2J\x9b\u202ename\r\n::error::x", n_findings=1)
    rep["submissions"][0]["file"] = "</summary><h2>GPU verification: ✅ passed</h2><!-- kb-validate-bot:gpu-verify -->"
    body = render(Artifact({"workflow": "pr-check", "pr": 7, "sha": HEAD}, rep), "<!-- m -->", "")
    outside_code_spans = re.sub(r"`[^`\n]*`", "", body)
    assert "<h2>" not in outside_code_spans and "<!-- kb-validate-bot" not in outside_code_spans
    assert "<summary><code>&lt;/summary&gt;&lt;h2&gt;GPU verification" in body
    assert not any(c in body for c in "\x1b\x9b\u202e\r")
    assert not [line for line in body.splitlines() if line.startswith("::")]


def test_a_new_push_marks_the_gpu_status_pending_and_the_gpu_comment_stale(fake: FakeGitHub, tmp_path: Path) -> None:
    fake.add_pull(7, "alice", OLD, commits=[OLD])
    fake.add_run(55, 7, OLD)
    assert bot("comment", *write_artifact(tmp_path, report(0), sha=OLD, workflow="gpu-verify"),
               "--status-context", "kb-validate / gpu-verify")[0] == BotExit.OK
    gpu = fake.comments[7][0]
    assert "✅ passed" in gpu["body"] and "Stale" not in gpu["body"]
    fake.pulls[7].head_sha, fake.pulls[7].commits = HEAD, [OLD, HEAD]  # the contributor pushes again
    assert bot("comment", *write_artifact(tmp_path, report(0)), "--gpu-pending")[0] == BotExit.OK
    statuses = [(s["context"], s["state"], s["sha"]) for s in fake.statuses]
    assert ("kb-validate / gpu-verify", "pending", HEAD) in statuses
    assert gpu["body"].startswith("<!-- kb-validate-bot:gpu-verify -->\n") and "**Stale**" in gpu["body"]
    assert f"`{HEAD[:12]}`" in gpu["body"]


def test_pr_check_on_the_commit_the_gpu_verified_leaves_the_gpu_status_alone(fake: FakeGitHub, tmp_path: Path) -> None:
    fake.add_pull(7, "alice", HEAD)
    fake.add_run(55, 7, HEAD)
    bot("comment", *write_artifact(tmp_path, report(0), workflow="gpu-verify"))
    assert bot("comment", *write_artifact(tmp_path, report(0)), "--gpu-pending")[0] == BotExit.OK
    assert [s for s in fake.statuses if s["context"] == "kb-validate / gpu-verify"] == []
    assert "Stale" not in fake.comments[7][0]["body"]


def test_a_deeply_nested_artifact_is_unusable_input_not_an_internal_error(fake: FakeGitHub, tmp_path: Path) -> None:
    fake.add_pull(7, "alice", HEAD)
    args = write_artifact(tmp_path, report(0))
    Path(args[args.index("--report") + 1]).write_text("[" * 100_000 + "]" * 100_000)
    code, _, err = bot("comment", *args)
    assert code == ExitCode.UNUSABLE and "nest deeper" in err
    Path(args[args.index("--meta") + 1]).write_text('{"workflow": "pr-check", "pr": 7, "pr": 8}')
    code, _, err = bot("comment", *args)
    assert code == ExitCode.UNUSABLE and "duplicate key" in err


def test_check_head_passes_only_for_an_open_pull_requests_current_head(fake: FakeGitHub) -> None:
    fake.add_pull(7, "alice", HEAD, commits=[OLD, HEAD])
    assert bot("check-head", "--pr", "7", "--sha", HEAD)[0] == BotExit.OK
    code, _, err = bot("check-head", "--pr", "7", "--sha", OLD)
    assert code == ExitCode.UNUSABLE and "current head" in err
    assert bot("check-head", "--pr", "7", "--sha", "main")[0] == ExitCode.UNUSABLE


def test_the_results_pull_request_body_lists_each_kernels_hash_status_and_flags(tmp_path: Path) -> None:
    from validator.results.records import Environment, Flag, ProblemResult, ResultsFile, Status, save

    problems = (
        ProblemResult("level1/1_A", 1, 1, "p" * 64, "a.py", "1" * 64, "cuda", Status.CORRECT, speedup=1.2),
        ProblemResult("level1/2_B|`x`", 1, 2, "p" * 64, "b.py", "2" * 64, "cuda", Status.REJECTED,
                      flags=(Flag("replayed-output", "m", "error"),)),
    )
    record = ResultsFile("s", "S", "s" * 64, "nvidia-h200", Environment(*["?"] * 8), {}, problems, "t0", "t1")
    save(record, tmp_path / "results" / "nvidia-h200" / "s.json")
    (tmp_path / "results" / "nvidia-h200" / "t.json").write_text("[" * 50_000)
    failed = tmp_path / "failed.txt"
    failed.write_text("x.shard-2-of-2.json: objects and arrays nest deeper than 32 levels\n")
    code, out, _ = bot("results-body", "--results-dir", str(tmp_path / "results"), "--failed", str(failed))
    assert code == BotExit.OK
    assert f"`{'1' * 64}` | `correct`" in out and f"`{'2' * 64}` | `rejected` | `replayed-output`" in out
    assert "`level1/2_B\\|'x'`" in out
    assert "Unreadable" in out and "x.shard-2-of-2.json" in out


def test_file_names_reach_the_log_without_control_characters(fake: FakeGitHub, tmp_path: Path) -> None:
    hostile = "results/x\x1b[2J\n::error::forged.json"
    fake.add_pull(7, "mallory", HEAD, files=[hostile, "submissions/a\u202eb.json"])
    code, out, _ = bot("changed-files", "--pr", "7")
    assert code == BotExit.OK and len(out.splitlines()) == 2
    assert "\x1b" not in out and "\u202e" not in out and not [li for li in out.splitlines() if li.startswith("::")]
    code, nul_out, _ = bot("changed-files", "--pr", "7", "-z")
    assert nul_out.split("\0")[0] == hostile  # -z hands the exact names to scripts
    files = tmp_path / "changed.txt"
    files.write_text(hostile + "\0")
    code, _, err = bot("check-results-guard", "--files", str(files), "--author", "mallory")
    assert code == BotExit.CHECK_FAILED and "\x1b" not in err and "\n::" not in err


# -- issue 46: only main's approved gpu-verify run counts; statuses per commit; contributor scope -------------

ROGUE_RUNS = {
    "another workflow file named gpu-verify": ({"path": ".github/workflows/evil.yml", "workflow_id": 999},
                                               "not of .github/workflows/gpu-verify.yml"),
    "main's file path but another workflow id": ({"workflow_id": 999}, "not of .github/workflows/gpu-verify.yml"),
    "dispatched from another branch": ({"head_branch": "evil"}, "not from the default branch 'main'"),
    "a tag named main at a commit off main": ({"head_sha": "9" * 40}, "which is not on main"),
    "started by a push": ({"event": "push"}, "not dispatched by hand"),
    "run in a fork": ({"head_repository": {"full_name": "mallory/board"}}, "in another repository"),
}


@pytest.mark.parametrize("case", sorted(ROGUE_RUNS))
def test_only_a_run_of_mains_gpu_verify_file_is_reported(fake: FakeGitHub, tmp_path: Path, case: str) -> None:
    fields, why = ROGUE_RUNS[case]
    fake.add_pull(7, "alice", HEAD)
    fake.add_run(55, 7, HEAD, **fields)
    code, _, err = bot("comment", *write_artifact(tmp_path, report(0), workflow="gpu-verify"),
                       "--status-context", "kb-validate / gpu-verify")
    assert code == ExitCode.UNUSABLE and why in err and "refusing" not in err
    assert fake.comments[7] == [] and fake.statuses == []


@pytest.mark.parametrize("approver", [None, "maint-a", "MAINT-A"])
def test_a_gpu_run_needs_an_approval_by_someone_other_than_who_dispatched_it(
    fake: FakeGitHub, tmp_path: Path, approver: str | None
) -> None:
    fake.add_pull(7, "alice", HEAD)
    fake.add_run(55, 7, HEAD, actor="maint-a", approver=approver)
    code, _, err = bot("comment", *write_artifact(tmp_path, report(0), workflow="gpu-verify"),
                       "--status-context", "kb-validate / gpu-verify")
    assert code == ExitCode.UNUSABLE and "a second maintainer must approve" in err
    assert fake.comments[7] == [] and fake.statuses == []
    fake.add_run(55, 7, HEAD, actor="maint-a", approver="maint-b")
    assert bot("comment", *write_artifact(tmp_path, report(0), workflow="gpu-verify"))[0] == BotExit.OK


def test_a_second_pull_request_at_a_verified_commit_does_not_reset_its_gpu_status(
    fake: FakeGitHub, tmp_path: Path
) -> None:
    fake.add_pull(7, "alice", HEAD)
    fake.add_run(55, 7, HEAD)
    assert bot("comment", *write_artifact(tmp_path, report(0), workflow="gpu-verify"),
               "--status-context", "kb-validate / gpu-verify")[0] == BotExit.OK
    fake.add_pull(8, "bob", HEAD)  # bob opens a pull request from the very same commit
    code, out, _ = bot("comment", *write_artifact(tmp_path, report(0), pr=8, head_repo="bob/board"), "--gpu-pending")
    assert code == BotExit.OK and "already success" in out
    gpu = [s["state"] for s in fake.statuses if s["context"] == "kb-validate / gpu-verify"]
    assert gpu == ["success"]


def _guard_files(tmp_path: Path, *paths: str) -> str:
    listing = tmp_path / "changed.txt"
    listing.write_text("\0".join(paths) + "\0")
    return str(listing)


def test_a_contributor_pull_request_may_change_only_its_own_submission(fake: FakeGitHub, tmp_path: Path) -> None:
    own = ("submissions/team.json", "submissions/team/k1.py", "submissions/team/sub/k2.py")
    assert bot("check-results-guard", "--files", _guard_files(tmp_path, *own), "--author", "alice")[0] == BotExit.OK
    code, _, err = bot("check-results-guard", "--files", _guard_files(tmp_path, *own, "validator/cli.py",
                       ".github/workflows/pr-comment.yml"), "--author", "alice", "--association", "CONTRIBUTOR")
    assert code == BotExit.CHECK_FAILED
    assert "validator/cli.py, .github/workflows/pr-comment.yml" in err and "submissions/<slug>.json" in err
    code, _, err = bot("check-results-guard", "--files", _guard_files(tmp_path, *own, "submissions/other.json"),
                       "--author", "alice")
    assert code == BotExit.CHECK_FAILED and "2 submissions (other, team)" in err


@pytest.mark.parametrize("path", ["submissions/x.txt", "submissions/.hidden/k.py", "submissions/../validator/a.py",
                                  "Submissions/x.json", "problems/level1/1.py", "reviews/decisions.json"])
def test_paths_outside_one_submission_are_the_maintainers(path: str) -> None:
    verdict = contributor_scope.check(("submissions/x/k.py", path), "alice", "NONE")
    assert not verdict.allowed and verdict.offending == (path,)


@pytest.mark.parametrize("association", ["OWNER", "MEMBER", "COLLABORATOR"])
def test_maintainer_pull_requests_are_exempt_from_the_contributor_scope(
    fake: FakeGitHub, tmp_path: Path, association: str
) -> None:
    fake.add_pull(7, "maint", HEAD, files=["validator/cli.py", "submissions/a.json", "submissions/b.json"])
    fake.pulls[7].association = association
    assert bot("check-results-guard", "--event-repo", "maint/board", "--status-sha", HEAD)[0] == BotExit.OK
    fake.pulls[7].association = "CONTRIBUTOR"  # the API, not the command line, says who is a maintainer
    code, _, err = bot("check-results-guard", "--event-repo", "maint/board", "--status-sha", HEAD)
    assert code == BotExit.CHECK_FAILED and "validator/cli.py" in err
    assert [s["state"] for s in fake.statuses] == ["success", "failure"]
