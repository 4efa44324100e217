"""`kb-validate bot ACTION`: the GitHub side of the pull-request flow (comments, statuses, guard, reruns).

Actions:
  changed-files        list a pull request's changed paths (from the API, or from `git diff` with no token)
  check-results-guard  fail a pull request that touches results/ unless the results bot opened it, or a
                       contributor's pull request that changes anything but one submission
  comment              post or update the sticky comment for a validation report (and set a status)
  status               set one commit status
  check-head           exit 0 only if a pull request is open with exactly this head commit (before fetching it)
  results-body         the results pull request's body: each kernel's sha256, status and flags
  open-results-pr      commit the changed files under results/ to a new branch and open a pull request

The token comes from GITHUB_TOKEN and is never printed. Exit codes: see `validator.github.client.BotExit`.
"""

from __future__ import annotations

import argparse
import os
import re
import subprocess
import sys
from pathlib import Path

from rich.console import Console

from validator.findings import UserError
from validator.github import contributor_scope, gpu_run, pr_report, results_guard, results_summary
from validator.github.client import (
    COMMENT_LIMIT,
    DEFAULT_BOT_LOGIN,
    STATUS_STATES,
    BotExit,
    GitHubClient,
    GitHubFailure,
    one_line,
    settings_from_env,
)
from validator.github.pr_changes import git_changed_paths, submission_documents
from validator.untrusted import encodable, printable

HELP = "GitHub bot: changed files, results guard, sticky PR comment, commit status, results pull request"
_SHA = re.compile(r"^[0-9a-f]{40}$")
_CONTEXT = re.compile(r"^[A-Za-z0-9 ._/:()-]{1,100}$")
_KEY = re.compile(r"^[a-z0-9-]{1,40}$")
_BRANCH = re.compile(r"^[A-Za-z0-9._/-]{1,100}$")
GUARD_CONTEXT = "kb-validate / results-guard"
GPU_CONTEXT = "kb-validate / gpu-verify"
_REPO_NAME = re.compile(r"^[A-Za-z0-9](?:[A-Za-z0-9-]{0,38})/[A-Za-z0-9._-]{1,100}$")
MARKERS = {workflow: f"<!-- kb-validate-bot:{workflow} -->" for workflow in pr_report.TITLES}


def _common(p: argparse.ArgumentParser) -> None:
    p.add_argument("--repo", help="OWNER/NAME (default: $GITHUB_REPOSITORY)")
    p.add_argument("--api-url", help="REST API root (default: $GITHUB_API_URL or https://api.github.com)")


def _source(p: argparse.ArgumentParser) -> None:
    p.add_argument("--pr", type=int, metavar="N", help="pull request number (paths come from the API)")
    p.add_argument("--git-diff", nargs=2, metavar=("BASE", "HEAD"), help="paths from git diff BASE...HEAD instead")
    p.add_argument("--repo-dir", type=Path, default=Path(), help="git working tree for --git-diff (default: .)")


def _guard_parser(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser("check-results-guard",
                       help="fail a PR that touches results/, or a contributor PR beyond one submission")
    _source(p)
    p.add_argument("--event-repo", metavar="OWNER/NAME",
                   help="find the open PR from this head repository whose head is --status-sha (the event's)")
    p.add_argument("--files", type=Path, metavar="FILE", help="changed paths as data (NUL- or newline-separated)")
    p.add_argument("--author", help="login that opened the pull request (read from the API with --pr/--meta)")
    p.add_argument("--association", help="the author's author_association from the event (OWNER, MEMBER, "
                   "COLLABORATOR are maintainers); read from the API with --pr/--event-repo")
    p.add_argument("--bot-login", help="the results bot's login (default: $KB_RESULTS_BOT)")
    p.add_argument("--status-sha", metavar="SHA", help="set status 'kb-validate / results-guard' on SHA (the PR head)")
    _common(p)


def add_arguments(parser: argparse.ArgumentParser) -> None:
    sub = parser.add_subparsers(dest="action", required=True, metavar="ACTION")
    p = sub.add_parser("changed-files", help="print changed paths, one per line")
    _source(p)
    p.add_argument("--submissions", action="store_true", help="print the submission documents they touch instead")
    p.add_argument("-z", dest="nul", action="store_true", help="separate output by NUL instead of newline")
    _common(p)
    _guard_parser(sub)
    p = sub.add_parser("comment", help="post or update the sticky comment for a workflow's report artifact")
    p.add_argument("--workflow", required=True, choices=sorted(pr_report.TITLES), help="from the trusted event")
    p.add_argument("--meta", type=Path, required=True, metavar="FILE", help="the artifact's meta.json")
    p.add_argument("--report", type=Path, metavar="FILE", help="the artifact's report JSON; none: nothing validated")
    p.add_argument("--event-sha", help="pr-check: the run's head SHA from the trusted event; must be the PR head")
    p.add_argument("--event-repo", metavar="OWNER/NAME", help="pr-check: the event's head repository (finds the PR)")
    p.add_argument("--run-id", type=int, default=0,
                   help="gpu-verify: the event's run id; the run must be main's approved gpu-verify.yml run")
    p.add_argument("--gpu-pending", action="store_true",
                   help=f"pr-check: set {GPU_CONTEXT!r} pending on an unverified head; mark the GPU comment stale")
    p.add_argument("--markdown", type=Path, metavar="FILE", help="TRUSTED Markdown body to post instead of rendering")
    p.add_argument("--run-url", default="", help="link to the full report (the workflow run)")
    p.add_argument("--status-context", help="also set this commit status from the report")
    p.add_argument("--bot-login", help=f"author of the sticky comment (default: $KB_BOT_LOGIN or {DEFAULT_BOT_LOGIN})")
    _common(p)
    p = sub.add_parser("status", help="set a commit status")
    p.add_argument("--sha", required=True)
    p.add_argument("--state", required=True, choices=STATUS_STATES)
    p.add_argument("--context", required=True)
    p.add_argument("--description", default="")
    p.add_argument("--target-url")
    _common(p)
    p = sub.add_parser("check-head", help="refuse unless PR N is open with head SHA (before fetching it)")
    p.add_argument("--pr", type=int, required=True, metavar="N")
    p.add_argument("--sha", required=True)
    _common(p)
    p = sub.add_parser("results-body", help="print the results pull request's body (Markdown) for a results tree")
    p.add_argument("--results-dir", type=Path, required=True, metavar="DIR", help="results/<hardware>/<slug>.json")
    p.add_argument("--failed", type=Path, metavar="FILE", help="lines 'FILE: why' of shards the merge could not use")
    p = sub.add_parser("open-results-pr", help="open a pull request with the changed files under results/")
    p.add_argument("--branch", required=True)
    p.add_argument("--title", required=True)
    p.add_argument("--body-file", type=Path)
    p.add_argument("--base", default="main")
    p.add_argument("--repo-dir", type=Path, default=Path())
    _common(p)
    out = getattr(parser, "out", sys.stdout)
    for action_parser in sub.choices.values():
        action_parser.out = out  # type: ignore[attr-defined]  # help goes where the top parser prints


def _client(args: argparse.Namespace) -> GitHubClient:
    return GitHubClient(settings_from_env(os.environ, args.repo, args.api_url))


def _check_sha(sha: str | None, flag: str) -> str:
    if not _SHA.match(sha or ""):
        raise UserError(f"{flag} {sha!r}: expected a full 40-character lowercase hex commit SHA")
    return sha or ""


def _read_text(path: Path, flag: str) -> str:
    try:
        return path.read_text(encoding="utf-8", errors="replace")
    except OSError as exc:
        raise UserError(f"{flag} {path}: {exc.strerror}") from None


def _pr_of_head(client: GitHubClient, repo: str | None, sha: str) -> int:
    """The one open pull request from repository `repo` whose head is `sha` (both from the trusted event)."""
    if not _REPO_NAME.match(repo or ""):
        raise UserError(f"--event-repo {repo!r}: expected OWNER/NAME, the workflow_run event's head repository")
    numbers = client.pulls_for_head(repo or "", sha)
    if len(numbers) != 1:
        found = "no open pull request" if not numbers else f"{len(numbers)} open pull requests"
        raise UserError(f"{found} from {repo} has head {sha[:12]}; refusing to report on it")
    return numbers[0]


def _trusted_pr(client: GitHubClient, args: argparse.Namespace, meta: dict) -> tuple[int, str]:
    """The pull request and commit a report is about, from the trusted workflow_run context only.

    pr-check: the event's head commit and head repository (set by GitHub): the one open pull request from
    that repository with that head. gpu-verify: the run, read back from the Actions API, must be main's approved
    gpu-verify.yml run; its name, which that file writes from the maintainer's inputs, gives the PR and commit.
    The artifact, written where the submission ran, must agree or nothing is posted.
    """
    if meta["workflow"] != args.workflow:
        raise UserError(f"the artifact says it comes from {meta['workflow']!r}, but the event is {args.workflow!r}")
    if args.workflow == "gpu-verify":
        number, sha = gpu_run.verified_target(client, args.run_id, client.full_name)
    else:
        number, sha = 0, _check_sha(args.event_sha, "--event-sha")
    if meta["sha"] != sha or (number and meta["pr"] != number):
        raise UserError(f"the artifact names PR #{meta['pr']} at {meta['sha'][:12]}, but the run was for "
                        f"{f'PR #{number} at ' if number else ''}{sha[:12]}; refusing to report on it")
    if args.workflow == "gpu-verify":
        if sha not in client.commit_shas(number):
            raise UserError(f"commit {sha[:12]} is not one of PR #{number}'s commits; refusing to report on it")
        return number, sha
    number = _pr_of_head(client, args.event_repo, sha)
    if meta["pr"] != number:
        raise UserError(f"the artifact names PR #{meta['pr']}, but the run was for PR #{number}; refusing")
    return number, sha


def _changed_paths(args: argparse.Namespace, client: GitHubClient | None, number: int | None) -> tuple[str, ...]:
    if args.git_diff:
        return git_changed_paths(args.git_diff[0], args.git_diff[1], args.repo_dir)
    if getattr(args, "files", None):
        return results_guard.parse_path_list(_read_text(args.files, "--files"))
    if client is not None and number:
        return client.changed_files(number)
    raise UserError("say where the changed paths come from: --pr N, --git-diff BASE HEAD or --files FILE")


def _changed_files(args: argparse.Namespace, out: Console) -> int:
    paths = _changed_paths(args, _client(args) if args.pr else None, args.pr)
    if args.submissions:
        paths = submission_documents(paths, args.repo_dir)
    # one path a line for people and logs: a name's own controls and newlines are shown escaped; with -z, data for
    # the next step, as named, but for what UTF-8 cannot hold (a lone surrogate), written escaped
    shown = encodable if args.nul else printable
    paths = tuple(shown(p) for p in paths)
    sep = "\0" if args.nul else "\n"
    out.file.write("".join(p + sep for p in paths))
    return BotExit.OK


def _guard_pr(args: argparse.Namespace, client: GitHubClient) -> int | None:
    """The PR to read files and author from (None: they come from the command line), checked against --status-sha."""
    if args.event_repo:
        return _pr_of_head(client, args.event_repo, _check_sha(args.status_sha, "--status-sha"))
    if args.pr and args.status_sha and client.pull(args.pr).head_sha != _check_sha(args.status_sha, "--status-sha"):
        raise UserError(f"--status-sha {args.status_sha[:12]} is not the head of PR #{args.pr}")
    return args.pr


def _guard(args: argparse.Namespace, out: Console, err: Console) -> int:
    needs_api = bool(args.pr or args.event_repo or args.status_sha)
    client = _client(args) if needs_api else None
    number = _guard_pr(args, client) if client else None
    paths = _changed_paths(args, client, number)
    author, association = args.author, args.association
    if author is None or (association is None and client is not None and number):
        if client is None or not number:
            raise UserError("--author LOGIN is needed unless --pr/--event-repo lets the API tell who opened the PR")
        pull = client.pull(number)
        author, association = author or pull.author, association or pull.association
    bot_login = args.bot_login or os.environ.get("KB_RESULTS_BOT") or None
    verdict = results_guard.check(paths, author, bot_login)
    if verdict.allowed and not results_guard.is_results_bot(author, bot_login):
        verdict = contributor_scope.check(paths, author, association or "NONE")  # unknown: a contributor
    if client and args.status_sha:
        state = "success" if verdict.allowed else "failure"
        client.set_status(_check_sha(args.status_sha, "--status-sha"), state, GUARD_CONTEXT, verdict.message, None)
    (out if verdict.allowed else err).print(f"results guard: {printable(verdict.message)}", markup=False)
    return BotExit.OK if verdict.allowed else BotExit.CHECK_FAILED


def _comment(args: argparse.Namespace, out: Console) -> int:
    meta = pr_report.read_checked(args.meta, pr_report.META_SCHEMA, "the artifact's meta.json")
    report = None
    if args.report is not None and args.report.exists():
        report = pr_report.read_checked(args.report, pr_report.REPORT_SCHEMA, "the validation report")
    client = _client(args)
    number, sha = _trusted_pr(client, args, meta)
    marker = MARKERS[args.workflow]
    artifact = pr_report.Artifact(meta, report)
    body = pr_report.render(artifact, marker, args.run_url)
    if args.markdown:
        body = marker + "\n" + _read_text(args.markdown, "--markdown")
    body = pr_report.fit_comment(body, COMMENT_LIMIT - 500, args.run_url)
    bot_login = args.bot_login or os.environ.get("KB_BOT_LOGIN") or DEFAULT_BOT_LOGIN
    result = client.upsert_comment(number, marker, body, bot_login)
    out.print(f"comment {result.action}: {printable(result.html_url)}", markup=False)
    if args.gpu_pending and args.workflow == "pr-check":
        _mark_gpu_stale(client, number, sha, bot_login, out)
    if args.status_context:
        state = pr_report.status_state(artifact)
        description = {"success": "passed", "failure": "failed", "error": "did not finish or validator error"}[state]
        client.set_status(sha, state, _check_context(args.status_context), description, args.run_url or None)
        out.print(f"status {args.status_context!r} set to {state} on {sha[:12]}", markup=False)
    return BotExit.OK


def _mark_gpu_stale(client: GitHubClient, number: int, head: str, bot_login: str, out: Console) -> None:
    """A push the GPU has not verified: its gpu-verify status is pending and the GPU comment says it is stale."""
    marker = MARKERS["gpu-verify"]
    body = client.comment_body(number, marker, bot_login)
    if body is not None and pr_report.commit_of(body) == head:
        return  # this very commit was verified on the GPU (pr-check ran again): nothing went stale
    # Statuses belong to the commit, not the pull request: another PR at this commit may have had it verified,
    # and a pending here would undo that for both. Only a commit with no GPU status at all becomes pending.
    current = client.latest_status(head, GPU_CONTEXT)
    if current is not None:
        out.print(f"status {GPU_CONTEXT!r} on {head[:12]} is already {current}; left as it is", markup=False)
    else:
        client.set_status(head, "pending", GPU_CONTEXT, "awaiting GPU verification of this commit by a maintainer",
                          None)
        out.print(f"status {GPU_CONTEXT!r} set to pending on {head[:12]}", markup=False)
    if body is not None:
        client.upsert_comment(number, marker, pr_report.mark_stale(body, head), bot_login)
        out.print("GPU comment marked stale", markup=False)


def _check_context(context: str) -> str:
    if not _CONTEXT.match(context):
        raise UserError(f"--context {context!r}: use letters, digits, spaces and . _ / : ( ) - (at most 100)")
    return context


def _status(args: argparse.Namespace, out: Console) -> int:
    url = _client(args).set_status(
        _check_sha(args.sha, "--sha"), args.state, _check_context(args.context), args.description, args.target_url
    )
    out.print(f"status {args.context!r} set to {args.state}: {url}", markup=False)
    return BotExit.OK


def _check_head(args: argparse.Namespace, out: Console) -> int:
    sha = _check_sha(args.sha, "--sha")
    if args.pr < 1:
        raise UserError(f"--pr {args.pr}: expected a pull request number")
    pull = _client(args).pull(args.pr)
    if pull.state != "open" or pull.head_sha != sha:
        raise UserError(f"PR #{args.pr} is {pull.state} with head {pull.head_sha[:12]}, not {sha[:12]}: the commit "
                        "to verify must be the pull request's current head; refusing to fetch it")
    out.print(f"PR #{args.pr} is open at {sha[:12]}", markup=False)
    return BotExit.OK


def _results_body(args: argparse.Namespace, out: Console) -> int:
    failed = _read_text(args.failed, "--failed") if args.failed and args.failed.exists() else ""
    out.file.write(results_summary.render(args.results_dir, failed))
    return BotExit.OK


def _changed_results(repo_dir: Path) -> dict[str, bytes | None]:
    """Files under results/ that differ from HEAD in the working tree (new, modified or deleted)."""
    command = ["git", "-C", str(repo_dir), "status", "--porcelain=v1", "-z", "--untracked-files=all", "--",
               results_guard.RESULTS_DIR]
    done = subprocess.run(command, capture_output=True, text=True, timeout=120, check=False)
    if done.returncode != 0:
        raise UserError(f"git status failed in {repo_dir}: {' '.join(done.stderr.split())[:300]}")
    files: dict[str, bytes | None] = {}
    for entry in filter(None, done.stdout.split("\0")):
        code, path = entry[:2], entry[3:]
        if not results_guard.touches_results(path):
            continue
        files[path] = None if "D" in code else (repo_dir / path).read_bytes()
    return files


def _open_results_pr(args: argparse.Namespace, out: Console) -> int:
    if not _BRANCH.match(args.branch) or ".." in args.branch:
        raise UserError(f"--branch {args.branch!r}: not a plain branch name")
    files = _changed_results(args.repo_dir)
    if not files:
        out.print("no file under results/ changed; no pull request opened", markup=False)
        return BotExit.OK
    body = args.body_file.read_text(encoding="utf-8") if args.body_file else ""
    url = _client(args).open_pull_with_files(args.base, args.branch, args.title, body, files)
    out.print(f"opened {url} with {len(files)} file(s)", markup=False)
    return BotExit.OK


def execute(args: argparse.Namespace, out: Console, err: Console) -> int:
    try:
        if args.action == "changed-files":
            return _changed_files(args, out)
        if args.action == "check-results-guard":
            return _guard(args, out, err)
        if args.action == "comment":
            return _comment(args, out)
        if args.action == "status":
            return _status(args, out)
        if args.action == "check-head":
            return _check_head(args, out)
        if args.action == "results-body":
            return _results_body(args, out)
        return _open_results_pr(args, out)
    except GitHubFailure as exc:
        err.print(f"kb-validate bot: error: {printable(exc)}", markup=False)
        return int(exc.exit_code)
    except UserError as exc:
        token = os.environ.get("GITHUB_TOKEN", "")
        err.print(f"kb-validate bot: error: {printable(one_line(str(exc), (token,)))}", markup=False)
        return int(exc.exit_code)
