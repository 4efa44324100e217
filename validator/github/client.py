"""The only module that talks to GitHub: a small facade over github3.py for the bot's few calls.

Every GitHub or network failure becomes a `GitHubFailure`: one line of text with the token scrubbed out,
and an exit code that says which class of failure it was (`BotExit`). Callers never see a github3 or
requests exception, so no traceback (and no header or URL carrying a credential) reaches a log.
"""

from __future__ import annotations

import re
import time
from collections.abc import Iterator, Mapping
from contextlib import contextmanager
from dataclasses import dataclass
from enum import IntEnum
from typing import Any

import github3
from github3 import exceptions as gh_errors

DEFAULT_API_URL = "https://api.github.com"
DEFAULT_BOT_LOGIN = "github-actions[bot]"
"""Author of comments made with a workflow's GITHUB_TOKEN; the sticky comment must be by this account."""
COMMENT_LIMIT = 65536
"""GitHub refuses issue comments longer than this many characters."""
MAX_FILES = 3000
"""GitHub lists at most 3000 files of a pull request; past that the list is incomplete."""
MAX_COMMITS = 250
"""GitHub lists at most 250 commits of a pull request."""
MAX_COMMENTS = 2000
"""Stop looking for the sticky comment after this many comments (a bound on the request loop)."""
MAX_PULLS = 300
"""Open pull requests read, most recently updated first, when looking for the one a push belongs to."""
STATUS_STATES = ("pending", "success", "failure", "error")
_TOKEN_SHAPES = re.compile(r"\b(?:gh[pousr]_[A-Za-z0-9_]{10,}|github_pat_[A-Za-z0-9_]{10,})")


class BotExit(IntEnum):
    """Exit status of `kb-validate bot ...`; documented in site_src/pages/maintainers.md."""

    OK = 0
    CHECK_FAILED = 1  # the results guard refused the pull request
    UNUSABLE = 2  # bad arguments, missing token, malformed artifact, SHA not on the pull request
    INTERNAL = 3  # a bug in the bot
    AUTH = 4  # 401: the token is missing, wrong or expired
    FORBIDDEN = 5  # 403: the token lacks a permission
    RATE_LIMITED = 6  # 403/429 with rate-limit headers: wait for the reset time
    NOT_FOUND = 7  # 404: no such repository, pull request or commit (or the token cannot see it)
    REJECTED = 8  # 422: GitHub refused the data (bad SHA, over-long body, branch exists)
    NETWORK = 9  # connection refused, DNS failure, timeout, TLS error
    SERVER = 10  # any other HTTP error or an answer the client could not read


class GitHubFailure(Exception):
    """A GitHub call failed; `str()` is one scrubbed line, `exit_code` its class."""

    def __init__(self, message: str, exit_code: BotExit) -> None:
        super().__init__(message)
        self.exit_code = exit_code


@dataclass(frozen=True)
class Settings:
    """Where and as whom the bot talks to GitHub."""

    token: str
    api_url: str
    owner: str
    repo: str


@dataclass(frozen=True)
class PullInfo:
    number: int
    author: str
    """Login of the account that opened the pull request."""
    head_sha: str
    state: str
    html_url: str
    association: str = "NONE"
    """The author's `author_association` with the repository (OWNER, MEMBER, COLLABORATOR, CONTRIBUTOR, …)."""


@dataclass(frozen=True)
class CommentResult:
    action: str
    """`created`, `updated` or `unchanged`."""
    comment_id: int
    html_url: str


def scrub(text: str, secrets: tuple[str, ...] = ()) -> str:
    """Remove every given secret and anything shaped like a GitHub token from `text`."""
    for secret in secrets:
        if secret:
            text = text.replace(secret, "***")
    return _TOKEN_SHAPES.sub("***", text)


def one_line(text: str, secrets: tuple[str, ...] = (), limit: int = 400) -> str:
    flat = " ".join(scrub(str(text), secrets).split())
    return flat if len(flat) <= limit else flat[: limit - 1] + "…"


def settings_from_env(env: Mapping[str, str], repo: str | None = None, api_url: str | None = None) -> Settings:
    """Read GITHUB_TOKEN, GITHUB_REPOSITORY and GITHUB_API_URL (as set in GitHub Actions)."""
    token = env.get("GITHUB_TOKEN", "").strip()
    if not token:
        raise GitHubFailure("GITHUB_TOKEN is not set; the bot needs a token in the environment", BotExit.UNUSABLE)
    full = repo or env.get("GITHUB_REPOSITORY", "")
    owner, _, name = full.partition("/")
    if not owner or not name or "/" in name:
        raise GitHubFailure(
            f"repository {full!r} is not OWNER/NAME; pass --repo or set GITHUB_REPOSITORY", BotExit.UNUSABLE
        )
    url = (api_url or env.get("GITHUB_API_URL") or DEFAULT_API_URL).rstrip("/")
    if not url.startswith(("https://", "http://127.0.0.1", "http://localhost")):
        raise GitHubFailure(f"API URL {url!r} must be https:// (http only on loopback)", BotExit.UNUSABLE)
    return Settings(token=token, api_url=url, owner=owner, repo=name)


def _rate_limit_text(headers: Mapping[str, str], now: float) -> str | None:
    """Describe an exhausted rate limit from the response headers, or None if it was not one."""
    retry_after = headers.get("Retry-After")
    if retry_after and retry_after.isdigit():
        return f"secondary rate limit hit; GitHub asks to retry after {retry_after} s"
    if headers.get("X-RateLimit-Remaining") != "0":
        return None
    reset = headers.get("X-RateLimit-Reset", "")
    limit = headers.get("X-RateLimit-Limit", "?")
    if not reset.isdigit():
        return f"rate limit of {limit} requests exhausted"
    when = time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime(int(reset)))
    wait = max(0, int(reset) - int(now))
    return f"rate limit of {limit} requests exhausted; it resets at {when} (in {wait} s)"


def _network_reason(exc: gh_errors.TransportError) -> str:
    text = str(getattr(exc, "exception", exc))
    match = re.search(r"\[Errno -?\d+\] ([^'\")\]]+)", text)
    if match:
        return match.group(1).strip().lower()
    if "timed out" in text.lower():
        return "timed out"
    return type(getattr(exc, "exception", exc)).__name__


def _api_message(exc: gh_errors.GitHubError) -> str:
    msg = exc.msg if isinstance(exc.msg, str) else "(no message)"
    details = [e.get("message") or e.get("code") for e in exc.errors if isinstance(e, dict)]
    details = [str(d) for d in details if d]
    return f"{msg} ({'; '.join(details)})" if details else msg


def translate(exc: Exception, doing: str, api_url: str) -> tuple[str, BotExit]:
    """Map a github3 exception to (message, exit code); the message is not yet scrubbed."""
    if isinstance(exc, gh_errors.TransportError):
        return f"could not reach GitHub at {api_url} while {doing}: {_network_reason(exc)}", BotExit.NETWORK
    if not isinstance(exc, gh_errors.GitHubError) or exc.response is None:
        return f"unexpected answer from GitHub while {doing}: {exc}", BotExit.SERVER
    code, message = exc.code, _api_message(exc)
    if code == 401:
        return (
            f"GitHub rejected the token (401 {message}) while {doing}; check that GITHUB_TOKEN is valid and unexpired",
            BotExit.AUTH,
        )
    if code in (403, 429):
        limited = _rate_limit_text(exc.response.headers, time.time())
        if limited or "rate limit" in message.lower():
            return f"{limited or message} while {doing}", BotExit.RATE_LIMITED
        text = f"the token may not do this (403 {message}) while {doing}; check the job's permissions"
        return text, BotExit.FORBIDDEN
    if code == 404:
        return f"not found (404) while {doing}; check the repository, number or SHA", BotExit.NOT_FOUND
    if code == 422:
        return f"GitHub refused the request (422 {message}) while {doing}", BotExit.REJECTED
    return f"GitHub answered {code} {message} while {doing}", BotExit.SERVER


class GitHubClient:
    """The bot's calls, each a few github3 operations with bounded loops and translated errors."""

    def __init__(self, settings: Settings) -> None:
        self._settings = settings
        self._gh = github3.GitHub(token=settings.token)
        self._gh.session.base_url = settings.api_url
        self._repo_obj = None
        self._pulls: dict[int, object] = {}

    @property
    def full_name(self) -> str:
        """OWNER/NAME of the repository this client talks to."""
        return f"{self._settings.owner}/{self._settings.repo}"

    @contextmanager
    def _call(self, doing: str) -> Iterator[None]:
        try:
            yield
        except GitHubFailure:
            raise
        except gh_errors.GitHubException as exc:
            message, code = translate(exc, doing, self._settings.api_url)
            raise GitHubFailure(one_line(message, (self._settings.token,)), code) from None

    def _repo(self):  # github3 Repository; untyped library object
        if self._repo_obj is None:
            s = self._settings
            with self._call(f"reading repository {s.owner}/{s.repo}"):
                self._repo_obj = self._gh.repository(s.owner, s.repo)
        return self._repo_obj

    def _pull(self, number: int):  # github3 PullRequest, read once per client
        if number not in self._pulls:
            s = self._settings
            with self._call(f"reading pull request #{number}"):
                self._pulls[number] = self._gh.pull_request(s.owner, s.repo, number)
        return self._pulls[number]

    def pull(self, number: int) -> PullInfo:
        pr = self._pull(number)
        association = str(pr.as_dict().get("author_association") or "NONE")
        return PullInfo(number, pr.user.login, pr.head.sha, pr.state, pr.html_url, association)

    def _get_json(self, path: str, doing: str) -> Any:
        """GET `repos/OWNER/NAME/<path>` for endpoints github3 has no model for (Actions, compare)."""
        s = self._settings
        with self._call(doing):
            answer = self._gh._json(self._gh._get(f"{s.api_url}/repos/{s.owner}/{s.repo}/{path}"), 200)
        if answer is None:
            raise GitHubFailure(f"GitHub gave no answer while {doing}", BotExit.SERVER)
        return answer

    def default_branch(self) -> str:
        return str(self._repo().default_branch)

    def workflow_run(self, run_id: int) -> dict[str, Any]:
        """The workflow run as the Actions API reports it (path, head_branch, event, workflow_id, actors, …)."""
        run = self._get_json(f"actions/runs/{int(run_id)}", f"reading workflow run {run_id}")
        return run if isinstance(run, dict) else {}

    def workflow_id(self, file_name: str) -> int:
        """The id of the workflow defined by `.github/workflows/<file_name>`."""
        workflow = self._get_json(f"actions/workflows/{file_name}", f"reading workflow {file_name}")
        return int(workflow.get("id", -1)) if isinstance(workflow, dict) else -1

    def run_approvals(self, run_id: int) -> list[dict[str, Any]]:
        """Who approved or rejected the run's environment deployments (the review history)."""
        answer = self._get_json(f"actions/runs/{int(run_id)}/approvals", f"reading the approvals of run {run_id}")
        return [a for a in answer if isinstance(a, dict)] if isinstance(answer, list) else []

    def is_ancestor(self, sha: str, branch: str) -> bool:
        """True when commit `sha` is on `branch` (the branch is at it or ahead of it)."""
        answer = self._get_json(f"compare/{sha}...{branch}", f"comparing {sha[:12]} with {branch}")
        return isinstance(answer, dict) and answer.get("status") in ("ahead", "identical")

    def latest_status(self, sha: str, context: str) -> str | None:
        """The state of the newest status `context` on `sha`, or None when it has none."""
        repo = self._repo()
        with self._call(f"reading the statuses of {sha[:12]}"):
            for index, status in enumerate(repo.statuses(sha)):
                if index >= MAX_COMMENTS:
                    return None
                if status.context == context:
                    return str(status.state)
        return None

    def changed_files(self, number: int) -> tuple[str, ...]:
        """Every path the pull request adds, modifies, removes or renames (both names of a rename)."""
        pr = self._pull(number)
        paths: list[str] = []
        with self._call(f"listing the files of pull request #{number}"):
            for index, item in enumerate(pr.files()):
                if index >= MAX_FILES:
                    raise GitHubFailure(
                        f"pull request #{number} changes more than {MAX_FILES} files; GitHub cannot list them all",
                        BotExit.UNUSABLE,
                    )
                paths.append(item.filename)
                previous = item.as_dict().get("previous_filename")  # set on renames; github3 has no attribute
                if previous:
                    paths.append(previous)
        return tuple(paths)

    def commit_shas(self, number: int) -> frozenset[str]:
        pr = self._pull(number)
        with self._call(f"listing the commits of pull request #{number}"):
            return frozenset(c.sha for c in pr.commits(number=MAX_COMMITS))

    def pulls_for_head(self, repo: str, sha: str) -> tuple[int, ...]:
        """Open pull requests from repository `repo` (`owner/name`, a fork or this one) whose head is `sha`.

        The most recently updated open pull requests are read (a push updates its PR), so the search needs
        no branch name: branch names are chosen by the contributor, the commit and repository are not.
        """
        found = []
        with self._call("listing the open pull requests"):
            for pull in self._repo().pull_requests(state="open", sort="updated", direction="desc", number=MAX_PULLS):
                head = pull.as_dict().get("head") or {}
                if head.get("sha") == sha and ((head.get("repo") or {}).get("full_name") or "").lower() == repo.lower():
                    found.append(pull.number)
        return tuple(found)

    def _own_comment(self, number: int, marker: str, bot_login: str):  # github3 IssueComment or None
        """The bot's sticky comment: written by `bot_login`, with `marker` as its whole first line.

        Anyone can write the marker into a comment, and submitted text can carry it into the bot's own
        comments; only the first line of a comment the bot account wrote counts.
        """
        pr = self._pull(number)
        with self._call(f"reading the comments of pull request #{number}"):
            for index, comment in enumerate(pr.issue_comments()):
                if index >= MAX_COMMENTS:
                    return None
                first_line = (comment.body or "").split("\n", 1)[0].strip()
                if first_line == marker and comment.user.login.lower() == bot_login.lower():
                    return comment
        return None

    def comment_body(self, number: int, marker: str, bot_login: str) -> str | None:
        """The body of the bot's sticky comment for `marker`, or None when there is none."""
        comment = self._own_comment(number, marker, bot_login)
        return None if comment is None else comment.body or ""

    def upsert_comment(self, number: int, marker: str, body: str, bot_login: str) -> CommentResult:
        """Edit the bot's own comment that starts with `marker`, or create it."""
        if body.split("\n", 1)[0] != marker:
            raise ValueError("the comment body must start with its marker line")
        pr = self._pull(number)
        mine = self._own_comment(number, marker, bot_login)
        if mine is None:
            with self._call(f"commenting on pull request #{number}"):
                created = pr.create_comment(body)
            return CommentResult("created", created.id, created.html_url)
        if mine.body == body:
            return CommentResult("unchanged", mine.id, mine.html_url)
        with self._call(f"editing comment {mine.id} on pull request #{number}"):
            mine.edit(body)
        return CommentResult("updated", mine.id, mine.html_url)

    def set_status(self, sha: str, state: str, context: str, description: str, target_url: str | None) -> str:
        if state not in STATUS_STATES:
            raise GitHubFailure(f"status state {state!r} is not one of {', '.join(STATUS_STATES)}", BotExit.UNUSABLE)
        repo = self._repo()
        with self._call(f"setting status {context!r} on {sha[:12]}"):
            status = repo.create_status(sha, state, target_url or None, description[:140], context)
        return status.url

    def open_pull_with_files(
        self, base: str, branch: str, title: str, body: str, files: Mapping[str, bytes | None]
    ) -> str:
        """Commit `files` (path -> content, None deletes) on a new branch off `base` and open a pull request."""
        repo = self._repo()
        with self._call(f"reading branch {base}"):
            base_sha = repo.ref(f"heads/{base}").object.sha
            base_tree = repo.git_commit(base_sha).tree.sha
        entries = []
        with self._call("uploading result files"):
            for path, content in sorted(files.items()):
                sha = repo.create_blob(content.decode("utf-8"), "utf-8") if content is not None else None
                entries.append({"path": path, "mode": "100644", "type": "blob", "sha": sha})
        with self._call(f"committing {len(entries)} file(s) to branch {branch}"):
            tree = repo.create_tree(entries, base_tree)
            commit = repo.create_commit(title, tree.sha, [base_sha])
            repo.create_ref(f"refs/heads/{branch}", commit.sha)
        with self._call(f"opening a pull request from {branch}"):
            pull = repo.create_pull(title, base, branch, body)
        return pull.html_url
