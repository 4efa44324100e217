"""What a pull request changes, from git (no token needed) and which submissions that touches.

The PR check computes the changed paths with `git diff` against the base commit, not from the API, so a
fork's pull request needs no token at all; the paths are then mapped to the submission documents to
validate.
"""

from __future__ import annotations

import re
import subprocess
from pathlib import Path

from validator.findings import UserError
from validator.github.results_guard import parse_path_list

SUBMISSIONS_DIR = "submissions"
_REV = re.compile(r"^[A-Za-z0-9._/^~@{}-]{1,200}$")


def git_changed_paths(base: str, head: str, repo_dir: Path) -> tuple[str, ...]:
    """Paths changed between the merge base of `base` and `head`, and `head` (renames as delete + add)."""
    for rev in (base, head):
        if not _REV.match(rev) or rev.startswith("-"):
            raise UserError(f"{rev!r} is not a git revision (expected a SHA or a ref name)")
    command = ["git", "-C", str(repo_dir), "diff", "--name-only", "-z", "--no-renames", f"{base}...{head}", "--"]
    try:
        # a pull request may add a file whose name is not UTF-8: its bytes are kept, as `\xff`, not fatal
        done = subprocess.run(command, capture_output=True, encoding="utf-8", errors="backslashreplace", timeout=120,
                              check=False)
    except (OSError, subprocess.TimeoutExpired) as exc:
        raise UserError(f"could not run git diff in {repo_dir}: {exc}") from None
    if done.returncode != 0:
        reason = " ".join(done.stderr.split())[:300]
        raise UserError(f"git diff {base}...{head} failed in {repo_dir}: {reason}")
    return parse_path_list(done.stdout)


def submission_documents(paths: tuple[str, ...], repo_dir: Path) -> tuple[str, ...]:
    """`submissions/<slug>.json` for every submission whose document or kernel files changed and still exists."""
    found: set[str] = set()
    for path in paths:
        parts = path.split("/")
        if len(parts) < 2 or parts[0] != SUBMISSIONS_DIR or not parts[1]:
            continue
        if len(parts) == 2 and parts[1].endswith(".json"):
            slug = parts[1][: -len(".json")]
        elif len(parts) >= 3:
            slug = parts[1]
        else:
            continue
        document = f"{SUBMISSIONS_DIR}/{slug}.json"
        if slug and (repo_dir / document).is_file():
            found.add(document)
    return tuple(sorted(found))
