"""Load a problem directory in KernelBench's format into plain records, without running any of it.

A problem is `levelL/<id>_<Name>.py` defining `class Model`, `get_inputs()` and `get_init_inputs()`.
Its identity is the sha256 of the file's bytes: a result is valid only for the hash it was measured on.
"""

from __future__ import annotations

import ast
import hashlib
import re
from dataclasses import dataclass
from pathlib import Path

from validator.findings import Finding, UserError

DEFAULT_PROBLEMS_DIR = Path(__file__).resolve().parents[2] / "problems"
LEVEL_DIR = re.compile(r"^level(\d+)$")
PROBLEM_FILE = re.compile(r"^(\d+)_(.+)\.py$")
REQUIRED_NAMES = ("Model", "get_inputs", "get_init_inputs")


@dataclass(frozen=True)
class Problem:
    """One problem file of the catalogue."""

    level: int
    problem_id: int
    name: str
    """File stem, as KernelBench names it: `19_ReLU`."""
    path: Path
    sha256: str
    """Hex sha256 of the file's bytes."""

    @property
    def key(self) -> str:
        """`level1/19_ReLU`: unique, stable, used in results and on the site."""
        return f"level{self.level}/{self.name}"


@dataclass(frozen=True)
class Catalogue:
    """Every well-formed problem of a directory, and what was wrong with the rest."""

    root: Path
    problems: tuple[Problem, ...]
    findings: tuple[Finding, ...]

    def get(self, level: int, problem_id: int) -> Problem | None:
        for problem in self.problems:
            if problem.level == level and problem.problem_id == problem_id:
                return problem
        return None

    def level(self, level: int) -> tuple[Problem, ...]:
        return tuple(p for p in self.problems if p.level == level)

    @property
    def levels(self) -> tuple[int, ...]:
        return tuple(sorted({p.level for p in self.problems}))


def file_sha256(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


def missing_definitions(source: str) -> list[str]:
    """Top-level names of REQUIRED_NAMES that `source` does not define (raises SyntaxError)."""
    tree = ast.parse(source)
    defined = {
        node.name
        for node in tree.body
        if isinstance(node, ast.ClassDef | ast.FunctionDef | ast.AsyncFunctionDef)
    }
    return [name for name in REQUIRED_NAMES if name not in defined]


def _check_format(path: Path, shown: str) -> Finding | None:
    try:
        missing = missing_definitions(path.read_text(encoding="utf-8"))
    except (UnicodeDecodeError, SyntaxError, ValueError) as exc:
        return Finding("problem-unparsable", "catalogue", f"not valid UTF-8 Python: {exc}", file=shown)
    if missing:
        return Finding(
            "problem-format",
            "catalogue",
            f"missing top-level {', '.join(missing)} (KernelBench format needs {', '.join(REQUIRED_NAMES)})",
            file=shown,
        )
    return None


def load_catalogue(root: Path | str | None = None) -> Catalogue:
    """Read every `level*/<id>_<Name>.py` under `root` (default: the repository's `problems/`)."""
    root = Path(root) if root is not None else DEFAULT_PROBLEMS_DIR
    if not root.is_dir():
        raise UserError(f"problems directory {root} does not exist or is not a directory")
    problems: list[Problem] = []
    findings: list[Finding] = []
    seen: dict[tuple[int, int], Path] = {}
    for level_dir in sorted(root.iterdir()):
        level_match = LEVEL_DIR.match(level_dir.name)
        if not level_match or not level_dir.is_dir():
            continue
        level = int(level_match.group(1))
        for path in sorted(level_dir.iterdir()):
            file_match = PROBLEM_FILE.match(path.name)
            if not file_match or not path.is_file():
                continue
            shown = f"{level_dir.name}/{path.name}"
            problem_id = int(file_match.group(1))
            if (level, problem_id) in seen:
                findings.append(
                    Finding(
                        "problem-duplicate-id",
                        "catalogue",
                        f"level {level} id {problem_id} is also {seen[(level, problem_id)].name}",
                        file=shown,
                    )
                )
                continue
            bad = _check_format(path, shown)
            if bad is not None:
                findings.append(bad)
                continue
            seen[(level, problem_id)] = path
            problems.append(Problem(level, problem_id, path.stem, path, file_sha256(path)))
    if not problems:
        raise UserError(f"problems directory {root} holds no level*/<id>_<Name>.py problem files")
    problems.sort(key=lambda p: (p.level, p.problem_id))
    return Catalogue(root, tuple(problems), tuple(findings))

