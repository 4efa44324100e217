"""Load a problem directory in KernelBench's format into plain records, without running any of it.

A problem is `levelL/<id>_<Name>.py` defining `class Model`, `get_inputs()` and `get_init_inputs()`.
Its identity is the sha256 of the file's bytes: a result is valid only for the hash it was measured on.

Versions as tracks: `problems/levelL/` is upstream KernelBench at the headline commit; `tracks/<commit>.sha256`
lists what each known upstream version's files hash to (sha256sum format, paths `levelL/<file>`), and
`tracks/<commit>/levelL/` holds that version's files wherever they differ from the headline's. A kernel's
`problem_sha256` names the version it was written for, and it is judged on that version's file.
"""

from __future__ import annotations

import ast
import dataclasses
import hashlib
import re
from dataclasses import dataclass
from pathlib import Path

from validator.catalogue.overlay import OVERLAY_NAME, OverlayError, read_overlays
from validator.findings import Finding, UserError

DEFAULT_PROBLEMS_DIR = Path(__file__).resolve().parents[2] / "problems"
TRACKS_DIR = "tracks"
HEADLINE_VERSION = "423217d"
"""Upstream KernelBench commit of the headline track (2026-03-05)."""
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
    version: str = ""
    """Upstream commit whose file this is (`423217d`), from the hash lists; "" where none lists it."""
    headline: bool = True
    """False for a file of another version's track (`tracks/<commit>/`)."""

    @property
    def key(self) -> str:
        """`level1/19_ReLU` (`level1/19_ReLU@91bfc2c` on another version's track): unique, stable, used in
        results and on the site."""
        return f"level{self.level}/{self.name}" + ("" if self.headline else f"@{self.version}")


@dataclass(frozen=True)
class Catalogue:
    """Every well-formed problem of a directory, and what was wrong with the rest."""

    root: Path
    problems: tuple[Problem, ...]
    """The headline track: the files under `<root>/levelL/`."""
    findings: tuple[Finding, ...]
    other_versions: tuple[Problem, ...] = ()
    """Files of the other known versions that differ from the headline's (`<root>/tracks/<commit>/`)."""

    @property
    def every_version(self) -> tuple[Problem, ...]:
        """Every known version's file of every problem: the headline's, then the other versions' that differ."""
        return (*self.problems, *self.other_versions)

    def get(self, level: int, problem_id: int) -> Problem | None:
        for problem in self.problems:
            if problem.level == level and problem.problem_id == problem_id:
                return problem
        return None

    def resolve(self, level: int, problem_id: int, sha256: str) -> Problem | None:
        """The problem of any known version with this level, id and file hash (the headline's first)."""
        for problem in self.every_version:
            if (problem.level, problem.problem_id, problem.sha256) == (level, problem_id, sha256):
                return problem
        return None

    def versions_of(self, level: int, problem_id: int) -> tuple[Problem, ...]:
        """Every known version's file of one problem id, the headline's first."""
        return tuple(p for p in self.every_version
                     if (p.level, p.problem_id) == (level, problem_id))

    def tracks(self) -> dict[str, tuple[Problem, ...]]:
        """Each known version's problems as results key them, the headline's first. A version's track is the
        headline's problems with that version's files in their place: one equal to the headline's file stays
        the headline problem (`level1/19_ReLU`), one that differs is its own (`level1/19_ReLU@91bfc2c`)."""
        tracks = {HEADLINE_VERSION: self.problems}
        for version in dict.fromkeys(p.version for p in self.other_versions):
            track = {(p.level, p.problem_id): p for p in self.problems}
            for problem in self.other_versions:
                same = track.get((problem.level, problem.problem_id))
                if problem.version == version and (same is None or same.sha256 != problem.sha256):
                    track[(problem.level, problem.problem_id)] = problem
            tracks[version] = tuple(sorted(track.values(), key=lambda p: (p.level, p.problem_id)))
        return tracks

    def level(self, level: int) -> tuple[Problem, ...]:
        return tuple(p for p in self.problems if p.level == level)

    @property
    def levels(self) -> tuple[int, ...]:
        return tuple(sorted({p.level for p in self.problems}))


def ids_range(catalogue: Catalogue, level: int) -> str:
    """`ids 1..100` of a level, or the levels there are when the level has none: for 'no such problem' messages."""
    ids = [p.problem_id for p in catalogue.level(level)]
    if ids:
        return f"level {level} has ids {min(ids)}..{max(ids)}"
    return f"there is no level {level}; levels: {', '.join(str(n) for n in catalogue.levels)}"


def describe_version(problem: Problem) -> str:
    """`423217d, the headline track` or `91bfc2c track`: which version a hash belongs to, in words."""
    if problem.version == HEADLINE_VERSION or (problem.headline and not problem.version):
        return f"{problem.version or 'local'}, the headline track"
    return f"{problem.version or 'local'} track"


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


def read_hash_list(path: Path) -> dict[str, str]:
    """A `sha256sum` listing as {relative path: hex digest} (UserError if a line is not `<64 hex>  <path>`)."""
    listing: dict[str, str] = {}
    for number, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1):
        digest, _, rel = line.partition("  ")
        if not line.strip():
            continue
        if not re.fullmatch(r"[0-9a-f]{64}", digest) or not rel:
            raise UserError(f"{path}:{number}: expected '<sha256>  <levelL/file.py>', got {line[:80]!r}")
        listing[rel] = digest
    return listing


def known_versions(root: Path) -> dict[str, dict[str, str]]:
    """Every `<root>/tracks/<commit>.sha256`, by commit."""
    tracks = root / TRACKS_DIR
    if not tracks.is_dir():
        return {}
    return {p.name.removesuffix(".sha256"): read_hash_list(p) for p in sorted(tracks.glob("*.sha256"))}


def _version_of(rel: str, sha256: str, versions: dict[str, dict[str, str]]) -> str:
    ordered = sorted(versions, key=lambda commit: commit != HEADLINE_VERSION)
    return next((commit for commit in ordered if versions[commit].get(rel) == sha256), "")


def _read_levels(root: Path, shown_prefix: str) -> tuple[list[Problem], list[Finding]]:
    """The well-formed `levelL/<id>_<Name>.py` files directly under `root`, and findings for the rest."""
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
            shown = f"{shown_prefix}{level_dir.name}/{path.name}"
            problem_id = int(file_match.group(1))
            if (level, problem_id) in seen:
                findings.append(
                    Finding("problem-duplicate-id", "catalogue",
                            f"level {level} id {problem_id} is also {seen[(level, problem_id)].name}", file=shown)
                )
                continue
            bad = _check_format(path, shown)
            if bad is not None:
                findings.append(bad)
                continue
            seen[(level, problem_id)] = path
            problems.append(Problem(level, problem_id, path.stem, path, file_sha256(path)))
    return problems, findings


def _overlay_findings(root: Path, problems: list[Problem], shown_prefix: str) -> list[Finding]:
    """A sidecar entry must name a file of its root (UserError for a sidecar that is unreadable or malformed)."""
    try:
        overlays = read_overlays(root)
    except OverlayError as exc:
        raise UserError(str(exc)) from exc
    names = {f"level{p.level}/{p.name}" for p in problems}
    return [Finding("overlay-unknown-problem", "catalogue", f"entry {key!r} names no problem file of {root}",
                    file=f"{shown_prefix}{OVERLAY_NAME}") for key in sorted(set(overlays) - names)]


def _with_versions(problems: list[Problem], versions: dict[str, dict[str, str]], root: Path) -> list[Problem]:
    return [dataclasses.replace(p, version=_version_of(str(p.path.relative_to(root)), p.sha256, versions))
            for p in problems]


def load_catalogue(root: Path | str | None = None) -> Catalogue:
    """Read every `level*/<id>_<Name>.py` under `root` (default: the repository's `problems/`), and the
    files of the other known versions under `root/tracks/<commit>/`."""
    root = Path(root) if root is not None else DEFAULT_PROBLEMS_DIR
    if not root.is_dir():
        raise UserError(f"problems directory {root} does not exist or is not a directory")
    versions = known_versions(root)
    problems, findings = _read_levels(root, "")
    if not problems:
        raise UserError(f"problems directory {root} holds no level*/<id>_<Name>.py problem files")
    findings.extend(_overlay_findings(root, problems, ""))
    problems = _with_versions(problems, versions, root)
    others: list[Problem] = []
    for commit in versions:
        track_root = root / TRACKS_DIR / commit
        if track_root.is_dir():
            track, track_findings = _read_levels(track_root, f"{TRACKS_DIR}/{commit}/")
            findings.extend([*track_findings, *_overlay_findings(track_root, track, f"{TRACKS_DIR}/{commit}/")])
            for problem in _with_versions(track, {commit: versions[commit]}, track_root):
                if problem.version:
                    others.append(dataclasses.replace(problem, headline=False))
                else:
                    findings.append(Finding("track-hash-mismatch", "catalogue",
                                            f"not listed with this sha256 in {TRACKS_DIR}/{commit}.sha256",
                                            file=f"{TRACKS_DIR}/{commit}/{problem.path.relative_to(track_root)}"))
    problems.sort(key=lambda p: (p.level, p.problem_id))
    others.sort(key=lambda p: (p.version, p.level, p.problem_id))
    return Catalogue(root, tuple(problems), tuple(findings), tuple(others))
