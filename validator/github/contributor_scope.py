"""Contributor scope: a contributor's pull request changes one submission and nothing else.

A submission is `submissions/<slug>.json` and the kernel files under `submissions/<slug>/`. Anything else
(the validator, the workflows, the problems, the site, the tests, another team's submission) belongs to the
maintainers (see .github/CODEOWNERS), so a contributor's pull request that touches it fails, naming the paths.
Who is a maintainer comes from GitHub's `author_association` for the pull request's author, never from the
pull request: OWNER, MEMBER and COLLABORATOR are exempt. Like the results guard, this reads the changed-file
list as data only.
"""

from __future__ import annotations

from validator.github.results_guard import GuardVerdict, named

MAINTAINER_ASSOCIATIONS = frozenset({"OWNER", "MEMBER", "COLLABORATOR"})
SUBMISSIONS_DIR = "submissions"


def slug_of(path: str) -> str | None:
    """The slug a path belongs to (`submissions/<slug>.json` or `submissions/<slug>/…`), or None."""
    parts = path.split("/")
    if len(parts) < 2 or parts[0] != SUBMISSIONS_DIR or any(p in ("", ".", "..") for p in parts[1:]):
        return None
    document = len(parts) == 2
    slug = parts[1].removesuffix(".json") if document and parts[1].endswith(".json") else "" if document else parts[1]
    return slug if slug and not slug.startswith(".") else None


def check(paths: tuple[str, ...], author: str, association: str) -> GuardVerdict:
    """Judge the paths of a pull request by `author`, whose association with the repository is `association`."""
    if association.upper() in MAINTAINER_ASSOCIATIONS:
        return GuardVerdict(True, f"pull request by a maintainer ({author}, {association.upper()}): any path")
    outside = tuple(p for p in paths if slug_of(p) is None)
    if outside:
        return GuardVerdict(
            False,
            f"this pull request by {author or 'an unknown author'} changes {named(outside)}; a contributor's pull "
            f"request may change only {SUBMISSIONS_DIR}/<slug>.json and {SUBMISSIONS_DIR}/<slug>/ (the rest is "
            "the maintainers', see .github/CODEOWNERS). Remove these files from the pull request.",
            outside,
        )
    slugs = sorted({slug_of(p) or "" for p in paths})
    if len(slugs) > 1:
        return GuardVerdict(
            False,
            f"this pull request changes {len(slugs)} submissions ({named(tuple(slugs))}); a contributor's pull "
            "request changes one submission only: open one pull request per submission",
            tuple(paths),
        )
    return GuardVerdict(True, f"changes only submission {slugs[0]!r}" if slugs else "changes no file")
