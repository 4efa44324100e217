"""Turn a KernelBench run directory into a leaderboard submission, saying exactly what it did and why.

KernelBench writes one file per generated kernel, `level_{L}_problem_{P}_sample_{S}_kernel.py`, each
defining `ModelNew`, and its evaluation writes `eval_results.json` beside them ({problem id: one record,
or a list of records, each with sample_id, compiled, correctness, runtime}). The importer:

- finds the KernelBench version the run was written against (`--kernelbench-commit`, or copies of the
  problem files in the run directory, matched by sha256) and never guesses: with no evidence it stops;
- takes each kernel's `problem_sha256` from that version's file, and warns where upstream redefined the id;
- picks one sample per problem: the fastest correct one by `eval_results.json` (`best`, the default), the
  lowest-numbered correct one (`first-correct`), or one sample id for all (`sample N`);
- reports every file it imported or skipped, with the reason;
- with an `Origin` (the public repository and commit the run directory is published at), writes each kernel as
  a `source` reference, hashed from the local file, instead of copying it: the validator fetches and verifies.
"""

from __future__ import annotations

import ast
import hashlib
import json
import re
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from validator.catalogue.problems import Catalogue, Problem
from validator.findings import UserError
from validator.submission.arity import arity_mismatches
from validator.submission.schema import SCHEMA_VERSION, submission_schema

RUN_FILE = re.compile(r"^level_(\d+)_problem_(\d+)_sample_(\d+)_kernel\.py$")
EVAL_RESULTS = "eval_results.json"
PICKS = ("best", "first-correct", "sample")
MAX_COPY_BYTES = 1 << 20  # problem copies are small Python files; larger files are not hashed


@dataclass(frozen=True)
class Pick:
    """How one sample per problem is chosen."""

    mode: str
    """best, first-correct or sample."""
    sample: int | None = None
    """The sample id with mode `sample`."""


@dataclass(frozen=True)
class Candidate:
    level: int
    problem_id: int
    sample: int
    path: Path


@dataclass(frozen=True)
class EvalRecord:
    """One sample's verdict in KernelBench's eval_results.json."""

    sample: int
    compiled: bool
    correct: bool
    runtime_ms: float | None
    """KernelBench's mean runtime; None where it reports none (-1)."""


@dataclass(frozen=True)
class Skipped:
    file: str
    reason: str


@dataclass(frozen=True)
class Chosen:
    candidate: Candidate
    problem: Problem
    """The file of the detected version this kernel is judged against."""
    destination: str
    backend: str
    why: str
    """Why this sample: `fastest correct sample (0.41 ms)`, ..."""


@dataclass(frozen=True)
class ImportPlan:
    """What an import would write, what it left out, and what the user should know."""

    version: str
    version_evidence: str
    chosen: tuple[Chosen, ...]
    skipped: tuple[Skipped, ...]
    warnings: tuple[str, ...] = ()


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
    attempted_levels: tuple[int, ...] = ()
    """Levels whose every problem the run attempted (`attempted_levels`); empty: the field is left out."""


@dataclass(frozen=True)
class Origin:
    """Where the run directory is published (`--repository`, `--commit`, `--path-prefix`)."""

    repository: str
    commit: str
    path_prefix: str
    """The run directory's path inside the repository; empty for its root."""
    run_dir: Path

    def source(self, kernel: Path) -> dict[str, str]:
        """The `source` of a kernel file of the run directory, with the local file's hash: the importer cannot
        see the repository, so the validator's fetch is what checks that the commit holds these bytes."""
        relative = kernel.relative_to(self.run_dir).as_posix()
        return {"repository": self.repository, "commit": self.commit,
                "path": f"{self.path_prefix}/{relative}" if self.path_prefix else relative,
                "sha256": hashlib.sha256(kernel.read_bytes()).hexdigest()}


def _source_field(name: str) -> dict[str, Any]:
    return submission_schema()["$defs"]["kernel"]["properties"]["source"]["properties"][name]


def check_origin(repository: str, commit: str, path_prefix: str, run_dir: Path) -> Origin:
    """The origin options, each held to the schema's own form for the field it fills (UserError naming the flag)."""
    prefix = path_prefix.strip("/")
    for flag, value, field_name in (("--repository", repository, "repository"), ("--commit", commit, "commit"),
                                    ("--path-prefix", prefix, "path")):
        spec = _source_field(field_name)
        if (value or field_name != "path") and not re.match(spec["pattern"], value):
            raise UserError(f"{flag} {value!r}: expected {spec['description']}")
    return Origin(repository, commit, prefix, run_dir)


def parse_pick(words: list[str]) -> Pick:
    """`best`, `first-correct` or `sample N` (UserError otherwise)."""
    if len(words) == 1 and words[0] in ("best", "first-correct"):
        return Pick(words[0])
    if len(words) == 2 and words[0] == "sample" and words[1].isdigit():
        return Pick("sample", int(words[1]))
    raise UserError(f"--pick {' '.join(words)}: expected best, first-correct or sample N")


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


def _known_versions(catalogue: Catalogue) -> list[str]:
    return sorted({p.version for p in catalogue.every_version if p.version})


def _versions_of_copies(run_dir: Path, catalogue: Catalogue) -> dict[str, list[str]]:
    """Known versions whose problem files the run directory holds copies of: version -> files."""
    by_hash: dict[str, set[str]] = {}
    for problem in catalogue.every_version:
        if problem.version:
            by_hash.setdefault(problem.sha256, set()).add(problem.version)
    found: dict[str, list[str]] = {}
    for path in sorted(run_dir.rglob("*.py")):
        if RUN_FILE.match(path.name) or path.is_symlink() or not path.is_file():
            continue
        if path.stat().st_size > MAX_COPY_BYTES:
            continue
        versions = by_hash.get(hashlib.sha256(path.read_bytes()).hexdigest(), set())
        if len(versions) == 1:  # a file equal in several versions says nothing about which one
            found.setdefault(next(iter(versions)), []).append(str(path.relative_to(run_dir)))
    return found


def detect_version(run_dir: Path, catalogue: Catalogue, commit: str | None) -> tuple[str, str]:
    """(version, the evidence for it); UserError where there is none or it conflicts."""
    known = _known_versions(catalogue)
    copies = _versions_of_copies(run_dir, catalogue)
    if len(copies) > 1:
        listed = "; ".join(f"{v}: {', '.join(files[:3])}" for v, files in sorted(copies.items()))
        raise UserError(f"{run_dir} holds problem files of several KernelBench versions ({listed})")
    if commit is not None:
        matches = [v for v in known if commit.startswith(v) or (len(commit) >= 7 and v.startswith(commit))]
        if len(matches) != 1:
            raise UserError(f"--kernelbench-commit {commit}: not a known version; known: {', '.join(known)}")
        if copies and matches[0] not in copies:
            raise UserError(f"--kernelbench-commit {commit} disagrees with the problem files in {run_dir}, which "
                            f"are {next(iter(copies))}'s")
        return matches[0], "--kernelbench-commit"
    if copies:
        version, files = next(iter(copies.items()))
        return version, f"{len(files)} problem file(s) in the run directory equal {version}'s ({files[0]}, ...)"
    raise UserError(f"cannot tell which KernelBench version {run_dir} was written against (no problem file in it "
                    f"equals a known version's); pass --kernelbench-commit, one of: {', '.join(known)}")


def _flag(record: dict[str, Any], name: str, where: str) -> bool:
    value = record.get(name)
    if not isinstance(value, bool):
        raise UserError(f"{where}.{name}: expected true or false, got {json.dumps(value)[:40]}")
    return value


def read_eval_results(path: Path) -> dict[int, dict[int, EvalRecord]]:
    """KernelBench's eval_results.json as {problem id: {sample id: record}} (UserError if malformed)."""
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, UnicodeDecodeError, json.JSONDecodeError) as exc:
        raise UserError(f"{path}: not readable JSON ({exc})") from exc
    if not isinstance(data, dict):
        raise UserError(f"{path}: $: expected an object keyed by problem id")
    results: dict[int, dict[int, EvalRecord]] = {}
    for key, value in data.items():
        if not key.isdigit():
            raise UserError(f"{path}: $[{key!r}]: expected a problem id")
        records = value if isinstance(value, list) else [value]  # December 2024 wrote one record per problem
        for index, record in enumerate(records):
            where = f"{path}: $[{key!r}]" + (f"[{index}]" if isinstance(value, list) else "")
            if not isinstance(record, dict) or not isinstance(record.get("sample_id"), int):
                raise UserError(f"{where}: expected an object with an integer sample_id")
            runtime = record.get("runtime")
            runtime_ms = float(runtime) if isinstance(runtime, int | float) and runtime > 0 else None
            results.setdefault(int(key), {})[record["sample_id"]] = EvalRecord(
                record["sample_id"], _flag(record, "compiled", where), _flag(record, "correctness", where),
                runtime_ms)
    return results


def _choose(candidates: list[Candidate], records: dict[int, EvalRecord] | None,
            pick: Pick) -> tuple[Candidate | None, str]:
    """The sample to import and why (None and why not)."""
    by_sample = {c.sample: c for c in candidates}
    if pick.mode == "sample":
        chosen = by_sample.get(pick.sample) if pick.sample is not None else None
        if chosen is None:
            return None, f"no usable sample {pick.sample}"
        record = records.get(chosen.sample) if records else None
        verdict = f"; {EVAL_RESULTS} says {'correct' if record.correct else 'incorrect'}" if record else ""
        return chosen, f"sample {pick.sample} as asked{verdict}"
    if records is None:
        first = min(candidates, key=lambda c: c.sample)
        return first, f"lowest-numbered sample; no {EVAL_RESULTS} verdict for this problem"
    correct = [r for r in records.values() if r.correct and r.sample in by_sample]
    if not correct:
        return None, f"no correct sample in {EVAL_RESULTS} ({len(records)} evaluated)"
    if pick.mode == "first-correct":
        first = min(correct, key=lambda r: r.sample)
        return by_sample[first.sample], "lowest-numbered correct sample"
    timed = [r for r in correct if r.runtime_ms is not None]
    if not timed:
        first = min(correct, key=lambda r: r.sample)
        return by_sample[first.sample], "lowest-numbered correct sample (no runtimes reported)"
    best = min(timed, key=lambda r: (r.runtime_ms, r.sample))
    return by_sample[best.sample], f"fastest correct sample ({best.runtime_ms:g} ms by {EVAL_RESULTS})"


def _candidates(run_dir: Path, skipped: list[Skipped]) -> dict[tuple[int, int], list[Candidate]]:
    by_problem: dict[tuple[int, int], list[Candidate]] = {}
    for path in sorted(run_dir.rglob("*")):
        if not path.is_file() or path.is_symlink():
            continue
        shown = str(path.relative_to(run_dir))
        match = RUN_FILE.match(path.name)
        if not match:
            if path.suffix == ".py":
                skipped.append(Skipped(shown, "not a kernel (name is not level_L_problem_P_sample_S_kernel.py)"))
            continue
        reason = _usable(path)
        if reason:
            skipped.append(Skipped(shown, reason))
            continue
        level, problem_id, sample_id = (int(g) for g in match.groups())
        by_problem.setdefault((level, problem_id), []).append(Candidate(level, problem_id, sample_id, path))
    return by_problem


def _redefined(catalogue: Catalogue, problem: Problem) -> str | None:
    """A warning where upstream gave this id another problem in another known version."""
    others = [p for p in catalogue.versions_of(problem.level, problem.problem_id) if p.name != problem.name]
    if not others:
        return None
    listed = ", ".join(f"{p.version or 'local'} has {p.name}" for p in others)
    return (f"level {problem.level} id {problem.problem_id} was redefined upstream ({listed}); this run's "
            f"kernel is judged against {problem.version}'s {problem.name}")


def _fit_warning(catalogue: Catalogue, problem: Problem, source: str, shown: str) -> str | None:
    """A warning where the kernel cannot be built or called against the detected version's file; it names the
    versions it does fit, if any (the semantics stage rejects it with both signatures)."""
    try:
        mismatches = arity_mismatches(source, problem.path)
    except SyntaxError:
        return None
    if not mismatches:
        return None
    fits = [p.version for p in catalogue.versions_of(problem.level, problem.problem_id)
            if p.version and p.version != problem.version and not arity_mismatches(source, p.path)]
    hint = f"; it fits {', '.join(fits)}'s (check --kernelbench-commit)" if fits else ""
    return f"{shown}: {mismatches[0].message}{hint}"


def plan_import(run_dir: Path, catalogue: Catalogue, pick: Pick, commit: str | None = None) -> ImportPlan:
    """Choose one kernel per problem of the detected version; record everything left out and why."""
    version, evidence = detect_version(run_dir, catalogue, commit)
    skipped: list[Skipped] = []
    warnings: list[str] = []
    by_problem = _candidates(run_dir, skipped)
    eval_path = run_dir / EVAL_RESULTS
    evals = read_eval_results(eval_path) if eval_path.is_file() else None
    levels = {level for level, _ in by_problem}
    if evals is not None and len(levels) > 1:
        warnings.append(f"{EVAL_RESULTS} is keyed by problem id alone and this run holds levels "
                        f"{sorted(levels)}; it was not used")
        evals = None
    if evals is None and pick.mode != "sample" and by_problem:
        warnings.append(f"no usable {EVAL_RESULTS}: the lowest-numbered sample of each problem is imported, "
                        "correct or not")
    chosen: list[Chosen] = []
    for (level, problem_id), candidates in sorted(by_problem.items()):
        problem = next((p for p in catalogue.versions_of(level, problem_id) if p.version == version), None)
        if problem is None:
            skipped.extend(Skipped(str(c.path.relative_to(run_dir)), f"KernelBench {version} has no level {level} "
                                   f"problem {problem_id}") for c in candidates)
            continue
        records = evals.get(problem_id) if evals is not None else None
        best, why = _choose(candidates, records, pick)
        for other in candidates:
            if other is not best:
                reason = f"sample {best.sample} was chosen ({why})" if best else why
                skipped.append(Skipped(str(other.path.relative_to(run_dir)), reason))
        if best is None:
            continue
        source = best.path.read_text(encoding="utf-8")
        chosen.append(Chosen(best, problem, f"level{problem.level}_{problem.name}.py", detect_backend(source), why))
        for note in (_redefined(catalogue, problem),
                     _fit_warning(catalogue, problem, source, str(best.path.relative_to(run_dir)))):
            if note:
                warnings.append(note)
    return ImportPlan(version, evidence, tuple(chosen), tuple(skipped), tuple(warnings))


def submission_document(plan: ImportPlan, meta: Metadata, origin: Origin | None = None) -> dict[str, Any]:
    """The submission JSON; with an origin each kernel is a `source` reference instead of a file to copy."""
    kernels = [
        {"level": c.problem.level, "problem_id": c.problem.problem_id, "problem_sha256": c.problem.sha256,
         "path": c.destination, **({"source": origin.source(c.candidate.path)} if origin else {}),
         "backend": c.backend}
        for c in plan.chosen
    ]
    document: dict[str, Any] = {
        "schema_version": SCHEMA_VERSION,
        "slug": meta.slug,
        "name": meta.name,
        "authors": [{"name": author} for author in meta.authors],
        "method": meta.method,
        "date": meta.date,
        "target_hardware": list(meta.target_hardware),
    }
    if meta.attempted_levels:  # before the kernels, so a reader meets the declaration first
        document["attempted_levels"] = sorted(set(meta.attempted_levels))
    document["kernels"] = kernels
    if meta.description:
        document["description"] = meta.description
    if meta.model:
        document["model"] = {"name": meta.model}
    if meta.links:
        document["links"] = [{"label": label, "url": url} for label, url in meta.links]
    return document
