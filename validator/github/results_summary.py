"""The body of a verified rerun's results pull request: per results file, each kernel's sha256, status and
flags, so that a reviewer sees what was measured without opening the JSON; and the shards the merge could
not use. Everything from a results file is shown in code spans it cannot close."""

from __future__ import annotations

from pathlib import Path

from validator.files import JsonError
from validator.github.pr_report import code
from validator.results.records import load

MAX_ROWS = 2000
"""Rows across all files; GitHub bodies hold 65,536 characters, so a larger rerun is cut with a note."""


def _file_section(path: Path, root: Path) -> tuple[list[str], int]:
    shown = path.relative_to(root).as_posix()
    try:
        results = load(path)
    except (JsonError, OSError, ValueError, KeyError, TypeError, AttributeError) as exc:
        return [f"### {code(shown)}", "", f"Unreadable: {code(exc)}", ""], 0
    lines = [f"### {code(shown)}", "", f"{len(results.problems)} problem(s) on {code(results.hardware)}.", "",
             "| problem | kernel sha256 | status | flags |", "|---|---|---|---|"]
    for p in results.problems:
        flags = " ".join(f.code for f in p.flags)
        lines.append(f"| {code(p.key, 120)} | {code(p.kernel_sha256, 64)} | {code(p.status.value)} | {code(flags)} |")
    return [*lines, ""], len(results.problems)


def render(results_dir: Path, failed: str = "") -> str:
    """Markdown for every results file under `results_dir` and the `FILE: why` lines of unusable shards."""
    parts = ["## Results in this pull request", ""]
    rows = 0
    for path in sorted(results_dir.glob("*/*.json")):
        if rows >= MAX_ROWS:
            parts += ["", f"… cut after {MAX_ROWS} rows; the files themselves list every kernel.", ""]
            break
        lines, count = _file_section(path, results_dir)
        parts += lines
        rows += count
    problems = [line for line in failed.splitlines() if line.strip()]
    if problems:
        parts += ["## Shards the merge could not use", "",
                  "Their problems are missing from the files above and are measured again by the next rerun.", ""]
        parts += [f"- {code(line, 400)}" for line in problems[:200]]
    return "\n".join(parts) + "\n"
