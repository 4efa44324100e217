"""Results guard: only the results bot's pull requests may touch `results/`, and they may touch nothing else; a
change to the maintainers' decisions on held results (`reviews/`) comes in a pull request of its own.

Results are written by the validator on a maintainer's GPU runner and arrive through verified-rerun pull
requests opened by the bot account. A contributor's pull request that adds, edits, renames or deletes
anything under `results/` fails. The guard reads the changed-file list as plain data: it never opens
the files and never runs anything from the pull request.
"""

from __future__ import annotations

from dataclasses import dataclass

RESULTS_DIR = "results"
REVIEWS_DIR = "reviews"


@dataclass(frozen=True)
class GuardVerdict:
    allowed: bool
    message: str
    offending: tuple[str, ...] = ()
    """The paths that broke the rule (at most a few are named in `message`)."""


def _unquote(path: str) -> str:
    """git C-quotes unusual names (`"results/\\303\\251.json"`); the prefix test only needs the quotes gone."""
    if len(path) >= 2 and path[0] == '"' and path[-1] == '"':
        return path[1:-1]
    return path


def parse_path_list(text: str) -> tuple[str, ...]:
    """Paths separated by NUL (`git diff -z`) or by newlines; blank entries dropped."""
    parts = text.split("\0") if "\0" in text else text.splitlines()
    return tuple(_unquote(p.strip("\r\n")) for p in parts if p.strip())


def _top(path: str) -> str:
    norm = path.replace("\\", "/")
    while norm.startswith("./"):
        norm = norm[2:]
    return norm.lstrip("/").split("/", 1)[0].casefold()


def touches_results(path: str) -> bool:
    """True for `results` itself and anything below it, whatever the case or a leading `./`."""
    return _top(path) == RESULTS_DIR


def touches_reviews(path: str) -> bool:
    """True for `reviews` (the decisions on held results) and anything below it."""
    return _top(path) == REVIEWS_DIR


def _named(paths: tuple[str, ...]) -> str:
    shown = ", ".join(paths[:5])
    return shown + (f" and {len(paths) - 5} more" if len(paths) > 5 else "")


def is_results_bot(author: str, bot_login: str | None) -> bool:
    return bool(bot_login) and author.casefold() == (bot_login or "").casefold()


def named(paths: tuple[str, ...]) -> str:
    """The first few paths, comma-separated, and how many more there are."""
    return _named(paths)


def check(paths: tuple[str, ...], author: str, bot_login: str | None) -> GuardVerdict:
    """Judge one pull request by its changed paths and the login of the account that opened it."""
    is_bot = is_results_bot(author, bot_login)
    in_results = tuple(p for p in paths if touches_results(p))
    if is_bot:
        outside = tuple(p for p in paths if not touches_results(p))
        if outside:
            return GuardVerdict(
                False,
                f"the results bot ({author}) may only change {RESULTS_DIR}/, but this pull request also changes "
                f"{_named(outside)}",
                outside,
            )
        return GuardVerdict(True, f"results pull request by the results bot ({author}): {len(paths)} file(s)")
    if in_results:
        who = f"only the results bot ({bot_login})" if bot_login else "no one (KB_RESULTS_BOT is not configured)"
        return GuardVerdict(
            False,
            f"this pull request by {author or 'an unknown author'} changes {_named(in_results)}; {RESULTS_DIR}/ is "
            f"written by the validator on a maintainer's runner and may be changed by {who}. "
            "Remove these files from the pull request.",
            in_results,
        )
    in_reviews = tuple(p for p in paths if touches_reviews(p))
    if in_reviews and len(in_reviews) < len(paths):
        others = tuple(p for p in paths if not touches_reviews(p))
        return GuardVerdict(
            False,
            f"this pull request changes {_named(in_reviews)} and also {_named(others)}; a decision on held results "
            f"({REVIEWS_DIR}/) goes in a pull request of its own, so it is never merged unseen with a submission",
            in_reviews,
        )
    return GuardVerdict(True, f"no file under {RESULTS_DIR}/ is changed ({len(paths)} file(s) checked)")
