"""Submission records, and the checks a JSON Schema cannot express (files, catalogue, hashes)."""

from __future__ import annotations

import ast
import hashlib
import stat
from dataclasses import dataclass
from pathlib import Path, PurePosixPath
from typing import Any

from validator.catalogue.problems import HEADLINE_VERSION, Catalogue, describe_version, ids_range
from validator.findings import Finding, Severity
from validator.submission.arity import arity_mismatches
from validator.submission.source import KernelSource

MAX_KERNEL_BYTES = 512 * 1024  # the largest real KernelBench kernels are ~40 KB; this leaves 10x room


@dataclass(frozen=True)
class KernelEntry:
    """One `kernels[i]` entry of a submission, with its file resolved."""

    index: int
    """Position in the document's `kernels` array (for `$.kernels[i]` paths)."""
    level: int
    problem_id: int
    problem_sha256: str
    path: str
    """As written in the document: relative to the submission's kernel directory."""
    backend: str
    root: Path
    """The directory `path` is relative to: the submission's kernel directory, or, once the fetch stage has
    verified an external kernel, the run's working directory holding the verified copy."""
    claimed: dict[str, Any] | None = None
    source: KernelSource | None = None
    """Where an external kernel lives (a pinned commit of a public repository); None for a committed file."""

    @property
    def file(self) -> Path:
        """Absolute path of the kernel file."""
        return self.root / self.path

    @property
    def json_path(self) -> str:
        return f"$.kernels[{self.index}]"

    def sha256(self) -> str:
        return hashlib.sha256(self.file.read_bytes()).hexdigest()


@dataclass(frozen=True)
class Submission:
    """A schema-valid submission document and where its files are."""

    slug: str
    name: str
    method: str
    document_path: Path
    kernel_dir: Path
    """`<dir of the JSON>/<slug>/`: every kernel file must be inside it."""
    kernels: tuple[KernelEntry, ...]
    document: dict[str, Any]

    @property
    def attempted_levels(self) -> tuple[int, ...]:
        """The levels whose every problem the submitter declares attempted (`attempted_levels`, schema-checked):
        a problem of one without a kernel here counts as a failure, and the entry is ranked there whatever its
        coverage."""
        return tuple(int(level) for level in self.document.get("attempted_levels", ()))

    @property
    def external(self) -> tuple[KernelEntry, ...]:
        """The kernels referenced at a pinned commit of a repository instead of carried beside the JSON."""
        return tuple(k for k in self.kernels if k.source is not None)


def submission_from_document(document: dict[str, Any], document_path: Path) -> Submission:
    """Build the record from a document that already passed the schema."""
    slug = document["slug"]
    kernel_dir = document_path.resolve().parent / slug
    kernels = tuple(
        KernelEntry(
            index=i,
            level=k["level"],
            problem_id=k["problem_id"],
            problem_sha256=k["problem_sha256"],
            path=k["path"],
            backend=k["backend"],
            root=kernel_dir,
            claimed=k.get("claimed"),
            source=KernelSource.from_json(k["source"]) if "source" in k else None,
        )
        for i, k in enumerate(document["kernels"])
    )
    return Submission(slug, document["name"], document["method"], document_path, kernel_dir, kernels, document)


def _path_findings(entry: KernelEntry, kernel_dir: Path, shown: str) -> list[Finding]:
    """The kernel path must name a regular file inside the kernel directory, reached without symlinks."""
    where = f"{entry.json_path}.path"

    def bad(code: str, message: str) -> list[Finding]:
        return [Finding(code, "semantics", message, file=shown, json_path=where)]

    relative = PurePosixPath(entry.path)
    if relative.is_absolute() or "\\" in entry.path or ".." in relative.parts:
        return bad("kernel-path-escapes", f"{entry.path!r} must be relative to {kernel_dir.name}/ without '..'")
    if not kernel_dir.is_dir() or kernel_dir.is_symlink():
        return bad("kernel-dir-missing", f"kernel directory {kernel_dir.name}/ beside the JSON file does not exist")
    current = kernel_dir
    for part in relative.parts:
        current = current / part
        if current.is_symlink():
            return bad("kernel-path-symlink", f"{entry.path!r} goes through a symbolic link; commit real files")
    try:
        info = entry.file.lstat()
    except FileNotFoundError:
        return bad("kernel-file-missing", f"{kernel_dir.name}/{entry.path} does not exist")
    except OSError as exc:
        return bad("kernel-file-unreadable", f"{kernel_dir.name}/{entry.path}: {exc.strerror}")
    if not stat.S_ISREG(info.st_mode):
        return bad("kernel-not-regular-file", f"{kernel_dir.name}/{entry.path} is not a regular file")
    if not entry.file.resolve().is_relative_to(kernel_dir.resolve()):
        return bad("kernel-path-escapes", f"{entry.path!r} resolves outside {kernel_dir.name}/")
    if info.st_size > MAX_KERNEL_BYTES:
        return bad("kernel-too-large", f"{info.st_size} bytes; a kernel file is at most {MAX_KERNEL_BYTES}")
    return []


def kernel_shown(shown: str, slug: str, entry: KernelEntry) -> str:
    """The kernel file as a user would name it: beside the JSON they named, under <slug>/; an external kernel by
    its page at the pinned commit."""
    return entry.source.blob_url if entry.source else str(Path(shown).parent / slug / entry.path)


def _source_findings(entry: KernelEntry, kernel_file: str) -> list[Finding]:
    """The kernel must be UTF-8 Python that defines `class ModelNew` at top level."""
    where = f"{entry.json_path}.path"
    try:
        tree = ast.parse(entry.file.read_bytes().decode("utf-8"), filename=entry.path)
    except UnicodeDecodeError as exc:
        return [Finding("kernel-not-utf8", "semantics", f"byte {exc.start} is not UTF-8; kernels are UTF-8 Python",
                        file=kernel_file, json_path=where)]
    except SyntaxError as exc:
        return [
            Finding("kernel-syntax-error", "semantics", f"Python syntax error: {exc.msg}", file=kernel_file,
                    json_path=where, line=exc.lineno, column=exc.offset)
        ]
    except ValueError as exc:  # NUL bytes
        return [Finding("kernel-syntax-error", "semantics", str(exc), file=kernel_file, json_path=where)]
    if not any(isinstance(node, ast.ClassDef) and node.name == "ModelNew" for node in tree.body):
        return [Finding("kernel-no-modelnew", "semantics", "defines no top-level class ModelNew (KernelBench format)",
                        file=kernel_file, json_path=where)]
    return []


def _problem_findings(entry: KernelEntry, catalogue: Catalogue, shown: str) -> list[Finding]:
    problem = catalogue.get(entry.level, entry.problem_id)
    if problem is None:
        return [
            Finding("problem-unknown", "semantics",
                    f"no problem with level {entry.level} and id {entry.problem_id} in {catalogue.root}; "
                    f"{ids_range(catalogue, entry.level)}", file=shown, json_path=entry.json_path)
        ]
    written_for = catalogue.resolve(entry.level, entry.problem_id, entry.problem_sha256)
    if written_for is None:
        return [Finding("problem-hash-mismatch", "semantics", _mismatch(entry, problem.key, catalogue), file=shown,
                        json_path=f"{entry.json_path}.problem_sha256", problem=problem.key)]
    if not written_for.headline:  # valid, but it ranks on another version's board: say which, never silently
        return [Finding("problem-other-track", "semantics",
                        f"problem_sha256 is {written_for.key}'s file at KernelBench {written_for.version}: the kernel "
                        f"is judged on that version and counts on the {written_for.version} track, not on the "
                        f"headline {HEADLINE_VERSION} track (whose file hashes to {problem.sha256}); to count there, "
                        f"write against the headline file and take its hash from 'kb-validate hash "
                        f"level{entry.level}/{entry.problem_id}'",
                        file=shown, json_path=f"{entry.json_path}.problem_sha256", problem=problem.key,
                        severity=Severity.INFO)]
    return []


def _mismatch(entry: KernelEntry, key: str, catalogue: Catalogue) -> str:
    """Full hashes (12-character prefixes can look the same), the problem a hash belongs to when it is another
    one's, and the command that prints the right one."""
    given = entry.problem_sha256
    known = "; ".join(f"{p.sha256} ({describe_version(p)})" for p in catalogue.versions_of(entry.level,
                                                                                           entry.problem_id))
    others = [p for p in catalogue.every_version if p.sha256 == given]
    if others:
        owner = others[0]
        where = (f"it is the hash of {owner.key} (level {owner.level}, problem_id {owner.problem_id}, "
                 f"{describe_version(owner)}): is problem_id or level wrong?")
    else:
        where = "it is no known version of any problem (an edited or mistyped file hash?)"
    return (f"problem_sha256 {given} is not a version of {key}; {where} Expected one of: {known}. "
            f"'kb-validate hash level{entry.level}/{entry.problem_id}' prints them")


def semantic_findings(submission: Submission, catalogue: Catalogue, shown: str) -> list[Finding]:
    """Everything about a schema-valid submission that needs the file system or the catalogue."""
    findings: list[Finding] = []
    expected_stem = submission.document_path.name.removesuffix(".json")
    if submission.document_path.suffix != ".json" or expected_stem != submission.slug:
        findings.append(
            Finding("slug-mismatch", "semantics",
                    f"slug is {submission.slug!r} so the file must be named {submission.slug}.json",
                    file=shown, json_path="$.slug")
        )
    first_seen: dict[tuple[int, int], int] = {}
    for entry in submission.kernels:
        key = (entry.level, entry.problem_id)
        if key in first_seen:
            findings.append(
                Finding("problem-duplicate", "semantics",
                        f"level {entry.level} problem {entry.problem_id} already has a kernel at "
                        f"$.kernels[{first_seen[key]}]; one kernel per problem",
                        file=shown, json_path=entry.json_path)
            )
            continue
        first_seen[key] = entry.index
        problem_bad = _problem_findings(entry, catalogue, shown)
        kernel_file = kernel_shown(shown, submission.slug, entry)
        source_bad = _path_findings(entry, entry.root, shown) or _source_findings(entry, kernel_file)
        findings.extend([*problem_bad, *source_bad])
        if not problem_bad and not source_bad:
            findings.extend(_arity_findings(entry, catalogue, kernel_file))
    findings.extend(_declared_level_findings(submission, catalogue, shown))
    return findings


def _declared_level_findings(submission: Submission, catalogue: Catalogue, shown: str) -> list[Finding]:
    """A level declared attempted with no kernel at all is allowed (KernelBench scores it fast_p 0: every problem a
    failure); it is said, so that a mistyped level does not pass unnoticed."""
    listed = {entry.level for entry in submission.kernels}
    return [Finding("declared-level-without-kernels", "semantics",
                    f"level {level} is declared attempted but lists no kernel: all {len(catalogue.level(level))} of "
                    "its problems count as failures there, and the entry is ranked on it at fast_p 0",
                    file=shown, json_path=f"$.attempted_levels[{index}]", severity=Severity.INFO)
            for index, level in enumerate(submission.attempted_levels) if level not in listed]


def _arity_findings(entry: KernelEntry, catalogue: Catalogue, kernel_file: str) -> list[Finding]:
    """ModelNew's constructor and forward against the version of the problem the kernel was written for."""
    problem = catalogue.resolve(entry.level, entry.problem_id, entry.problem_sha256)
    if problem is None:
        return []
    source = entry.file.read_bytes().decode("utf-8")
    return [Finding(f"kernel-arity-{m.method.strip('_')}", "semantics", m.message, file=kernel_file,
                    json_path=f"{entry.json_path}.path", problem=problem.key)
            for m in arity_mismatches(source, problem.path)]
