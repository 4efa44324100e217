"""A local stand-in for the GitHub REST API, so the real github3.py client runs end to end in tests.

It listens on 127.0.0.1 only, answers the few endpoints the bot uses with GitHub's shapes, status codes,
pagination `Link` headers and rate-limit headers, and records every request. It is bounded: after
`max_requests` requests it answers 500 to everything, and a watchdog shuts it down after `lifetime_s`
seconds even if a test forgets to. Failures are scripted with `fail_next(...)`.
"""

from __future__ import annotations

import json
import re
import threading
import time
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any
from urllib.parse import parse_qs, urlsplit

_REPO_URL_KEYS = (
    "archive", "assignees", "blobs", "branches", "collaborators", "comments", "commits", "compare", "contents",
    "contributors", "deployments", "downloads", "events", "forks", "git_commits", "git_refs", "git_tags", "hooks",
    "issue_comment", "issue_events", "issues", "keys", "labels", "languages", "merges", "milestones",
    "notifications", "pulls", "releases", "stargazers", "statuses", "subscribers", "subscription", "tags",
    "teams", "trees",
)
_USER_URL_KEYS = (
    "events", "followers", "following", "gists", "organizations", "received_events", "repos", "starred",
    "subscriptions",
)
STAMP = "2026-11-22T00:00:00Z"


@dataclass
class Failure:
    method: str
    path: re.Pattern[str]
    status: int
    body: dict[str, Any]
    headers: dict[str, str]
    times: int


@dataclass
class Pull:
    number: int
    author: str
    head_sha: str
    files: list[dict[str, Any]] = field(default_factory=list)
    commits: list[str] = field(default_factory=list)
    association: str = "CONTRIBUTOR"


class FakeGitHub:
    """State of one fake repository plus the HTTP server that serves it."""

    def __init__(self, token: str, owner: str = "octo", repo: str = "board", *, max_requests: int = 400,
                 lifetime_s: float = 60.0, rate_limit: int = 5000) -> None:
        self.token, self.owner, self.name = token, owner, repo
        self.max_requests, self.lifetime_s = max_requests, lifetime_s
        self.rate_limit = rate_limit
        self.pulls: dict[int, Pull] = {}
        self.comments: dict[int, list[dict[str, Any]]] = {}
        self.statuses: list[dict[str, Any]] = []
        self.refs: dict[str, str] = {"heads/main": "b" * 40}
        self.blobs: dict[str, str] = {}
        self.trees: list[dict[str, Any]] = []
        self.git_commits: list[dict[str, Any]] = []
        self.opened: list[dict[str, Any]] = []
        self.runs: dict[int, dict[str, Any]] = {}
        self.approvals: dict[int, list[dict[str, Any]]] = {}
        self.workflows: dict[str, int] = {"gpu-verify.yml": 161, "pr-check.yml": 160}
        self.main_history: set[str] = {"b" * 40}
        """Commits on main: `compare/<sha>...main` says main is ahead of them."""
        self.requests: list[tuple[str, str]] = []
        self._failures: list[Failure] = []
        self._next_id = 1000
        self._lock = threading.Lock()
        self._server: ThreadingHTTPServer | None = None

    # -- lifecycle -------------------------------------------------------------------------------------
    def __enter__(self) -> FakeGitHub:
        handler = type("Handler", (_Handler,), {"fake": self})
        self._server = ThreadingHTTPServer(("127.0.0.1", 0), handler)
        threading.Thread(target=self._server.serve_forever, kwargs={"poll_interval": 0.05}, daemon=True).start()
        self._watchdog = threading.Timer(self.lifetime_s, self._expire)
        self._watchdog.daemon = True
        self._watchdog.start()
        return self

    def _expire(self) -> None:
        """Stop serving and close the socket, so later connections are refused rather than left hanging."""
        assert self._server is not None
        self._server.shutdown()
        self._server.server_close()

    def __exit__(self, *exc: object) -> None:
        self._watchdog.cancel()
        if self._server is not None and self._server.socket.fileno() != -1:
            self._expire()

    @property
    def url(self) -> str:
        assert self._server is not None
        return f"http://127.0.0.1:{self._server.server_address[1]}"

    @property
    def repo_url(self) -> str:
        return f"{self.url}/repos/{self.owner}/{self.name}"

    # -- scripting -------------------------------------------------------------------------------------
    def add_pull(self, number: int, author: str, head_sha: str, files: list[str] | None = None,
                 commits: list[str] | None = None) -> Pull:
        pull = Pull(number, author, head_sha, commits=list(commits or [head_sha]))
        for name in files or []:
            pull.files.append({"filename": name, "status": "modified"})
        self.pulls[number] = pull
        self.comments.setdefault(number, [])
        return pull

    def add_run(self, run_id: int, pr: int, sha: str, *, actor: str = "maint-a", approver: str | None = "maint-b",
                **fields: Any) -> dict[str, Any]:
        """A gpu-verify run as main's workflow file dispatched it, approved by `approver`; `fields` override."""
        main = self.refs["heads/main"]
        run = {"id": run_id, "name": "gpu-verify", "display_title": f"gpu-verify PR {pr} at {sha}",
               "path": ".github/workflows/gpu-verify.yml", "workflow_id": self.workflows["gpu-verify.yml"],
               "head_branch": "main", "head_sha": main, "event": "workflow_dispatch", "status": "completed",
               "conclusion": "success", "actor": self.user(actor), "triggering_actor": self.user(actor),
               "head_repository": self.repo(), "repository": self.repo(), **fields}
        self.runs[run_id] = run
        self.approvals[run_id] = [] if approver is None else [
            {"state": "approved", "comment": "", "user": self.user(approver),
             "environments": [{"id": 5, "name": "gpu-verification"}]}]
        return run

    def add_comment(self, number: int, login: str, body: str) -> dict[str, Any]:
        with self._lock:
            comment = self._comment(number, login, body)
            self.comments[number].append(comment)
        return comment

    def fail_next(self, method: str, path_regex: str, status: int, message: str = "", *,
                  headers: dict[str, str] | None = None, times: int = 1, errors: list[dict] | None = None) -> None:
        body: dict[str, Any] = {"message": message, "documentation_url": "https://docs.github.com/rest"}
        if errors:
            body["errors"] = errors
        self._failures.append(Failure(method, re.compile(path_regex), status, body, headers or {}, times))

    # -- JSON shapes -----------------------------------------------------------------------------------
    def user(self, login: str) -> dict[str, Any]:
        base = f"{self.url}/users/{login}"
        data: dict[str, Any] = {f"{k}_url": f"{base}/{k}" for k in _USER_URL_KEYS}
        kind = "Bot" if login.endswith("[bot]") else "User"
        data.update(login=login, id=abs(hash(login)) % 10**6, url=base, html_url=f"https://github.invalid/{login}",
                    avatar_url="", gravatar_id="", type=kind, site_admin=False)
        return data

    def repo(self) -> dict[str, Any]:
        base = self.repo_url
        data: dict[str, Any] = {f"{k}_url": f"{base}/{k}" for k in _REPO_URL_KEYS}
        data.update(
            url=base, id=1, name=self.name, full_name=f"{self.owner}/{self.name}", owner=self.user(self.owner),
            private=False, fork=False, description="", html_url=f"https://github.invalid/{self.owner}/{self.name}",
            archived=False, clone_url="", git_url="", ssh_url="", svn_url="", mirror_url=None, homepage=None,
            language="Python", default_branch="main", forks_count=0, network_count=0, open_issues_count=0,
            stargazers_count=0, subscribers_count=0, watchers_count=0, size=1, has_downloads=True,
            has_issues=True, has_pages=True, has_projects=False, has_wiki=False, created_at=STAMP,
            pushed_at=STAMP, updated_at=STAMP,
        )
        return data

    def pull(self, pull: Pull) -> dict[str, Any]:
        base = f"{self.repo_url}/pulls/{pull.number}"
        issue = f"{self.repo_url}/issues/{pull.number}"
        dest = {"label": "x", "ref": "main", "sha": "b" * 40, "user": self.user(self.owner), "repo": self.repo()}
        fork = {**self.repo(), "full_name": f"{pull.author}/{self.name}", "owner": self.user(pull.author)}
        head = {**dest, "label": f"{pull.author}:feature", "ref": "feature", "sha": pull.head_sha,
                "user": self.user(pull.author), "repo": fork}
        return {
            "url": base, "id": pull.number, "number": pull.number, "state": "open", "title": "t", "body": "",
            "body_html": "", "body_text": "", "user": self.user(pull.author), "assignee": None, "assignees": [],
            "base": dest, "head": head, "html_url": f"https://github.invalid/pull/{pull.number}",
            "active_lock_reason": None, "closed_at": None, "merged_at": None, "created_at": STAMP,
            "updated_at": STAMP, "comments_url": f"{issue}/comments", "commits_url": f"{base}/commits",
            "review_comments_url": f"{base}/comments",
            "review_comment_url": f"{self.repo_url}/pulls/comments{{/number}}",
            "statuses_url": f"{self.repo_url}/statuses/{pull.head_sha}", "issue_url": issue, "diff_url": "",
            "patch_url": "", "locked": False, "merge_commit_sha": None, "requested_reviewers": [],
            "requested_teams": [], "_links": {"comments": {"href": f"{issue}/comments"}},
            "additions": 1, "deletions": 0, "changes": 1, "author_association": pull.association, "comments": 0,
            "commits": len(pull.commits), "draft": False, "mergeable": True, "mergeable_state": "clean",
            "merged": False, "merged_by": None, "review_comments": 0, "changed_files": len(pull.files),
        }

    def _comment(self, number: int, login: str, body: str) -> dict[str, Any]:
        self._next_id += 1
        cid = self._next_id
        return {
            "url": f"{self.repo_url}/issues/comments/{cid}", "id": cid, "body": body, "body_html": "",
            "body_text": "", "user": self.user(login), "author_association": "NONE", "created_at": STAMP,
            "updated_at": STAMP, "html_url": f"https://github.invalid/pull/{number}#issuecomment-{cid}",
            "issue_url": f"{self.repo_url}/issues/{number}",
        }

    def file(self, pull: Pull, item: dict[str, Any]) -> dict[str, Any]:
        return {"sha": "c" * 40, "additions": 1, "deletions": 0, "changes": 1, "blob_url": "", "raw_url": "",
                "contents_url": f"{self.repo_url}/contents/{item['filename']}", **item}

    def git_commit(self, sha: str) -> dict[str, Any]:
        """A commit as the Git database API shows it."""
        person = {"name": "n", "email": "e@example.invalid", "date": STAMP}
        tree = {"url": f"{self.repo_url}/git/trees/{'d' * 40}", "sha": "d" * 40}
        return {"url": f"{self.repo_url}/git/commits/{sha}", "sha": sha, "author": person, "committer": person,
                "message": "m", "tree": tree, "parents": [], "verification": {"verified": False}}

    def commit(self, sha: str) -> dict[str, Any]:
        """A commit as the pull request's commit list shows it."""
        git = self.git_commit(sha)
        return {"url": f"{self.repo_url}/commits/{sha}", "sha": sha, "comments_url": "", "html_url": "",
                "commit": git, "author": None, "committer": None, "parents": []}


class _Handler(BaseHTTPRequestHandler):
    fake: FakeGitHub
    protocol_version = "HTTP/1.1"

    def log_message(self, *args: object) -> None:  # keep test output clean
        pass

    def do_GET(self) -> None:
        self._handle("GET")

    def do_POST(self) -> None:
        self._handle("POST")

    def do_PATCH(self) -> None:
        self._handle("PATCH")

    def _send(self, status: int, body: Any, headers: dict[str, str] | None = None) -> None:
        fake = self.fake
        data = json.dumps(body).encode()
        self.send_response(status)
        self.send_header("Content-Type", "application/json; charset=utf-8")
        self.send_header("Content-Length", str(len(data)))
        remaining = max(0, fake.rate_limit - len(fake.requests))
        base = {"X-RateLimit-Limit": str(fake.rate_limit), "X-RateLimit-Remaining": str(remaining),
                "X-RateLimit-Reset": str(int(time.time()) + 3600), "X-RateLimit-Used": str(len(fake.requests))}
        for key, value in {**base, **(headers or {})}.items():
            self.send_header(key, value)
        self.end_headers()
        self.wfile.write(data)

    def _handle(self, method: str) -> None:
        fake = self.fake
        parts = urlsplit(self.path)
        length = int(self.headers.get("Content-Length") or 0)
        raw = self.rfile.read(length) if length else b""
        with fake._lock:
            fake.requests.append((method, parts.path))
            over = len(fake.requests) > fake.max_requests
            failure = next((f for f in fake._failures if f.method == method and f.path.search(parts.path)), None)
            if failure:
                failure.times -= 1
                if failure.times <= 0:
                    fake._failures.remove(failure)
        if over:
            self._send(500, {"message": "fake GitHub: request budget exhausted"})
        elif self.headers.get("Authorization") != f"token {fake.token}":
            self._send(401, {"message": "Bad credentials"})
        elif failure:
            self._send(failure.status, failure.body, failure.headers)
        else:
            body = json.loads(raw) if raw else {}
            status, answer, headers = _route(fake, method, parts.path, parse_qs(parts.query), body)
            self._send(status, answer, headers)


def _page(fake: FakeGitHub, path: str, query: dict[str, list[str]], items: list[Any]) -> tuple[int, Any, dict]:
    per_page = min(100, int(query.get("per_page", ["30"])[0]))
    page = int(query.get("page", ["1"])[0])
    chunk = items[(page - 1) * per_page: page * per_page]
    last = max(1, -(-len(items) // per_page))
    links = []
    if page < last:
        links.append(f'<{fake.url}{path}?per_page={per_page}&page={page + 1}>; rel="next"')
        links.append(f'<{fake.url}{path}?per_page={per_page}&page={last}>; rel="last"')
    return 200, chunk, ({"Link": ", ".join(links)} if links else {})


def _not_found() -> tuple[int, Any, dict]:
    return 404, {"message": "Not Found"}, {}


def _route(fake: FakeGitHub, method: str, path: str, query: dict[str, list[str]], body: dict
           ) -> tuple[int, Any, dict]:
    prefix = f"/repos/{fake.owner}/{fake.name}"
    if not path.startswith(prefix):
        return _not_found()
    rest = path[len(prefix):]
    if method == "GET" and rest == "":
        return 200, fake.repo(), {}
    if rest == "/pulls" and method == "GET":  # every pull request here is open; the newest first
        return _page(fake, path, query, [fake.pull(p) for p in reversed(fake.pulls.values())])
    if m := re.fullmatch(r"/pulls/(\d+)(/files|/commits)?", rest):
        return _pull_route(fake, method, path, query, m)
    if m := re.fullmatch(r"/issues/(\d+)/comments", rest):
        return _comments_route(fake, method, path, query, number=int(m.group(1)), body=body)
    if (m := re.fullmatch(r"/issues/comments/(\d+)", rest)) and method == "PATCH":
        for comment in (c for cs in fake.comments.values() for c in cs):
            if comment["id"] == int(m.group(1)):
                comment["body"] = body["body"]
                return 200, comment, {}
        return _not_found()
    if (m := re.fullmatch(r"/statuses/([0-9a-f]{40})", rest)) and method == "POST":
        return _status_route(fake, m.group(1), body)
    if (m := re.fullmatch(r"/statuses/([0-9a-f]{40})", rest)) and method == "GET":  # newest first, as GitHub
        return _page(fake, path, query, [s for s in reversed(fake.statuses) if s["sha"] == m.group(1)])
    if method == "GET" and rest.startswith(("/actions/", "/compare/")):
        return _actions_route(fake, rest)
    return _git_route(fake, method, rest, body)


def _pull_route(fake: FakeGitHub, method: str, path: str, query: dict[str, list[str]], m: re.Match[str]
                ) -> tuple[int, Any, dict]:
    pull = fake.pulls.get(int(m.group(1)))
    if pull is None or method != "GET":
        return _not_found()
    if m.group(2) == "/files":
        return _page(fake, path, query, [fake.file(pull, f) for f in pull.files])
    if m.group(2) == "/commits":
        return _page(fake, path, query, [fake.commit(sha) for sha in pull.commits])
    return 200, fake.pull(pull), {}


def _comments_route(fake: FakeGitHub, method: str, path: str, query: dict[str, list[str]], *, number: int,
                    body: dict) -> tuple[int, Any, dict]:
    if number not in fake.pulls:
        return _not_found()
    if method == "GET":
        return _page(fake, path, query, fake.comments[number])
    if len(body.get("body", "")) > 65536:
        return 422, {"message": "Validation Failed", "errors": [{"message": "body is too long"}]}, {}
    return 201, fake.add_comment(number, "github-actions[bot]", body["body"]), {}


def _actions_route(fake: FakeGitHub, rest: str) -> tuple[int, Any, dict]:
    if (m := re.fullmatch(r"/actions/runs/(\d+)(/approvals)?", rest)) and int(m.group(1)) in fake.runs:
        run_id = int(m.group(1))
        return 200, (fake.approvals.get(run_id, []) if m.group(2) else fake.runs[run_id]), {}
    if (m := re.fullmatch(r"/actions/workflows/([\w.-]+)", rest)) and m.group(1) in fake.workflows:
        workflow_id = fake.workflows[m.group(1)]
        return 200, {"id": workflow_id, "name": m.group(1), "path": f".github/workflows/{m.group(1)}"}, {}
    if m := re.fullmatch(r"/compare/([0-9a-f]{40})\.\.\.main", rest):
        status = "identical" if m.group(1) == fake.refs["heads/main"] else (
            "ahead" if m.group(1) in fake.main_history else "diverged")
        return 200, {"status": status, "ahead_by": 0, "behind_by": 0, "commits": [], "files": []}, {}
    return _not_found()


def _status_route(fake: FakeGitHub, sha: str, body: dict) -> tuple[int, Any, dict]:
    known = {s for p in fake.pulls.values() for s in p.commits}
    if sha not in known:
        return 422, {"message": f"No commit found for SHA: {sha}"}, {}
    status = {"url": f"{fake.repo_url}/statuses/{sha}", "id": len(fake.statuses) + 1, "sha": sha,
              "created_at": STAMP, "updated_at": STAMP, "creator": fake.user("github-actions[bot]"),
              "description": body.get("description"), "context": body.get("context"),
              "state": body["state"], "target_url": body.get("target_url")}
    fake.statuses.append(status)
    return 201, status, {}


def _git_route(fake: FakeGitHub, method: str, rest: str, body: dict) -> tuple[int, Any, dict]:
    if (m := re.fullmatch(r"/git/ref/(heads/.+)", rest)) and method == "GET":
        sha = fake.refs.get(m.group(1))
        if sha is None:
            return _not_found()
        obj = {"url": f"{fake.repo_url}/git/commits/{sha}", "sha": sha, "type": "commit"}
        return 200, {"url": f"{fake.repo_url}/git/refs/{m.group(1)}", "ref": f"refs/{m.group(1)}", "object": obj}, {}
    if (m := re.fullmatch(r"/git/commits/([0-9a-f]{40})", rest)) and method == "GET":
        return 200, fake.git_commit(m.group(1)), {}
    if method != "POST":
        return _not_found()
    if rest == "/git/blobs":
        sha = f"{len(fake.blobs) + 1:040x}"
        fake.blobs[sha] = body["content"]
        return 201, {"url": f"{fake.repo_url}/git/blobs/{sha}", "sha": sha}, {}
    if rest == "/git/trees":
        fake.trees.append(body)
        sha = f"{len(fake.trees):040x}"
        return 201, {"url": f"{fake.repo_url}/git/trees/{sha}", "sha": sha, "tree": body["tree"]}, {}
    if rest == "/git/commits":
        fake.git_commits.append(body)
        sha = f"{len(fake.git_commits) + 0xC0:040x}"
        return 201, fake.git_commit(sha), {}
    if rest == "/git/refs":
        name = body["ref"].removeprefix("refs/")
        if name in fake.refs:
            return 422, {"message": "Reference already exists"}, {}
        fake.refs[name] = body["sha"]
        obj = {"url": "", "sha": body["sha"], "type": "commit"}
        return 201, {"url": f"{fake.repo_url}/git/refs/{name}", "ref": body["ref"], "object": obj}, {}
    if rest == "/pulls":
        number = 900 + len(fake.opened)
        fake.opened.append(body)
        pull = Pull(number, "kb-results-bot", "e" * 40)
        return 201, fake.pull(pull), {}
    return _not_found()
