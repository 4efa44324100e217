"""Turn a KernelBench run directory into a leaderboard submission.

KernelBench writes one file per generated kernel, `level_{L}_problem_{P}_sample_{S}_kernel.py`, each
defining `ModelNew`. The importer picks one sample per problem, copies it under `submissions/<slug>/`,
fills each problem's hash from the catalogue, and reports every file it could not use and why.
"""

from __future__ import annotations

import ast
import re
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from validator.catalogue.problems import Catalogue
from validator.submission.schema import SCHEMA_VERSION

RUN_FILE = re.compile(r"^level_(\d+)_problem_(\d+)_sample_(\d+)_kernel\.py$")


@dataclass(frozen=True)
class Candidate:
    level: int
    problem_id: int
    sample: int
    path: Path


@dataclass(frozen=True)
class Skipped:
    file: str
    reason: str


@dataclass(frozen=True)
class ImportPlan:
    """What an import would write: the chosen kernels (file -> destination name) and what was left out."""

    chosen: tuple[tuple[Candidate, str, str], ...]
    """(candidate, destination file name, backend) per problem."""
    skipped: tuple[Skipped, ...]


@dataclass(frozen=True)
class Metadata:
    slug: str
    name: str
    method: str
    date: str
    authors: tuple[str, ...]
    target_hardware: tuple[str, ...]
    model: str | None = None
    description: str = ""
    links: tuple[tuple[str, str], ...] = field(default_factory=tuple)


def detect_backend(source: str) -> str:
    """cuda if the file builds a CUDA extension, triton if it defines a Triton kernel, else pytorch."""
    if "load_inline" in source or "cpp_extension" in source:
        return "cuda"
    if re.search(r"@triton\.(jit|autotune)", source):
        return "triton"
    return "pytorch"


def _usable(path: Path) -> str | None:
    """Why a kernel file cannot be used, or None."""
    try:
        tree = ast.parse(path.read_bytes().decode("utf-8"))
    except (UnicodeDecodeError, SyntaxError, ValueError) as exc:
        return f"not valid UTF-8 Python ({exc.__class__.__name__})"
    if not any(isinstance(node, ast.ClassDef) and node.name == "ModelNew" for node in tree.body):
        return "defines no top-level class ModelNew"
    return None


def plan_import(run_dir: Path, catalogue: Catalogue, sample: int | None = None) -> ImportPlan:
    """Choose one kernel per problem: the given sample, or the lowest-numbered usable one."""
    skipped: list[Skipped] = []
    by_problem: dict[tuple[int, int], list[Candidate]] = {}
    for path in sorted(run_dir.rglob("*")):
        if not path.is_file() or path.is_symlink():
            continue
        shown = str(path.relative_to(run_dir))
        match = RUN_FILE.match(path.name)
        if not match:
            if path.suffix == ".py":
                skipped.append(Skipped(shown, "name is not level_L_problem_P_sample_S_kernel.py"))
            continue
        level, problem_id, sample_id = (int(g) for g in match.groups())
        if sample is not None and sample_id != sample:
            continue
        if catalogue.get(level, problem_id) is None:
            skipped.append(Skipped(shown, f"no problem level {level} id {problem_id} in the catalogue"))
            continue
        reason = _usable(path)
        if reason:
            skipped.append(Skipped(shown, reason))
            continue
        by_problem.setdefault((level, problem_id), []).append(Candidate(level, problem_id, sample_id, path))
    chosen = []
    for key in sorted(by_problem):
        candidates = sorted(by_problem[key], key=lambda c: c.sample)
        best = candidates[0]
        for other in candidates[1:]:
            skipped.append(Skipped(str(other.path.relative_to(run_dir)), f"sample {best.sample} was chosen"))
        problem = catalogue.get(*key)
        assert problem is not None
        backend = detect_backend(best.path.read_text(encoding="utf-8"))
        chosen.append((best, f"level{problem.level}_{problem.name}.py", backend))
    return ImportPlan(tuple(chosen), tuple(skipped))


def submission_document(plan: ImportPlan, meta: Metadata, catalogue: Catalogue) -> dict[str, Any]:
    kernels = []
    for candidate, destination, backend in plan.chosen:
        problem = catalogue.get(candidate.level, candidate.problem_id)
        assert problem is not None
        kernels.append({
            "level": problem.level,
            "problem_id": problem.problem_id,
            "problem_sha256": problem.sha256,
            "path": destination,
            "backend": backend,
        })
    document: dict[str, Any] = {
        "schema_version": SCHEMA_VERSION,
        "slug": meta.slug,
        "name": meta.name,
        "authors": [{"name": author} for author in meta.authors],
        "method": meta.method,
        "date": meta.date,
        "target_hardware": list(meta.target_hardware),
        "kernels": kernels,
    }
    if meta.description:
        document["description"] = meta.description
    if meta.model:
        document["model"] = {"name": meta.model}
    if meta.links:
        document["links"] = [{"label": label, "url": url} for label, url in meta.links]
    return document
