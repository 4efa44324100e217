"""Where the site's data comes from, and reading it: catalogue, manifest, submissions, result records.

Every directory can be redirected by an environment variable so tests and the benchmark can point
`mkdocs build` at generated data: KB_RESULTS_DIR, KB_SUBMISSIONS_DIR, KB_PROBLEMS_DIR, KB_MANIFEST.
"""

from __future__ import annotations

import hashlib
import os
import re
from collections.abc import Mapping
from dataclasses import dataclass, field
from functools import cached_property
from pathlib import Path
from typing import Any

from validator import files
from validator.catalogue.manifest_entry import ManifestEntry, ManifestError, read_entries
from validator.catalogue.problems import Catalogue, load_catalogue
from validator.findings import UserError
from validator.results.layout import INTERPRETER_HARDWARE, whole_run_files
from validator.results.records import ResultsFile, load
from validator.results.reviews import REVIEWS_PATH, Review, ReviewsError, apply_reviews, load_reviews
from validator.submission.identity import Claim, collisions, text_problem

REPO_ROOT = Path(__file__).resolve().parent.parent
SCHEMA_PATH = REPO_ROOT / "validator" / "submission" / "schema" / "submission-v1.schema.json"


SLUG = re.compile(r"^[a-z0-9](?:[a-z0-9-]{0,62}[a-z0-9])?$")
"""The submission schema's slug pattern; slugs and hardware keys become paths of the built site."""
HARDWARE = re.compile(r"^[a-z0-9][a-z0-9-]{0,99}$")


class SiteDataError(Exception):
    """Committed data the site cannot use; the message names the file and what was wrong."""


@dataclass(frozen=True)
class SiteSources:
    results_dir: Path
    submissions_dir: Path
    problems_dir: Path
    manifest_path: Path
    schema_path: Path = SCHEMA_PATH
    reviews_path: Path | None = None
    """The maintainers' decisions on held results; None: `reviews/decisions.json` beside `results_dir`."""

    @property
    def reviews_file(self) -> Path:
        return self.reviews_path or self.results_dir.parent / REVIEWS_PATH

    @classmethod
    def from_env(cls, environ: Mapping[str, str], root: Path = REPO_ROOT) -> SiteSources:
        def pick(name: str, default: Path) -> Path:
            value = environ.get(name)
            return Path(value).resolve() if value else default

        problems = pick("KB_PROBLEMS_DIR", root / "problems")
        return cls(
            results_dir=pick("KB_RESULTS_DIR", root / "results"),
            submissions_dir=pick("KB_SUBMISSIONS_DIR", root / "submissions"),
            problems_dir=problems,
            manifest_path=pick("KB_MANIFEST", problems / "manifest.json"),
            reviews_path=pick("KB_REVIEWS", root / REVIEWS_PATH),
        )

    def require_data(self, environ: Mapping[str, str]) -> None:
        """A data directory that is missing or holds no data file is a mistake (a mistyped KB_RESULTS_DIR),
        never an empty leaderboard; KB_ALLOW_EMPTY=1 builds a board without results on purpose."""
        wanted = [("KB_SUBMISSIONS_DIR", self.submissions_dir, "*.json", "<slug>.json submission files", "")]
        if environ.get("KB_ALLOW_EMPTY") != "1":
            wanted.append(("KB_RESULTS_DIR", self.results_dir, "*/*.json", "<hardware>/<slug>.json result files",
                           " (or KB_ALLOW_EMPTY=1 to build a board with no results on purpose)"))
        for variable, directory, pattern, expected, hint in wanted:
            given = f"{variable}={environ[variable]}" if environ.get(variable) else f"the default, {variable} unset"
            if not directory.is_dir():
                problem = "no such directory"
            elif not any(path.is_file() for path in directory.glob(pattern)):
                problem = "holds no data file"
            else:
                continue
            raise SiteDataError(f"{directory} ({given}): {problem}; expected a directory of {expected}: "
                                f"set {variable} to one{hint}")
        if environ.get("KB_MANIFEST") and not self.manifest_path.is_file():
            raise SiteDataError(f"{self.manifest_path} (KB_MANIFEST={environ['KB_MANIFEST']}): no such file")

    def watched(self) -> list[Path]:
        """What `mkdocs serve` should watch besides the hand-written pages."""
        return [self.results_dir, self.submissions_dir, self.problems_dir, self.schema_path, self.reviews_file]


def regular_files(directory: Path) -> dict[str, Path]:
    """Regular files under `directory` by relative POSIX path, reached without following any link.

    One directory walk per submission instead of resolving each kernel path (hundreds per submission).
    """
    found: dict[str, Path] = {}
    if directory.is_symlink() or not directory.is_dir():
        return found
    pending = [("", str(directory))]
    while pending:
        prefix, current = pending.pop()
        with os.scandir(current) as entries:
            for entry in entries:
                if entry.is_symlink():
                    continue
                if entry.is_dir():
                    pending.append((f"{prefix}{entry.name}/", entry.path))
                elif entry.is_file():
                    found[prefix + entry.name] = Path(entry.path)
    return found


@dataclass(frozen=True)
class SubmissionDoc:
    """A submission document as the site shows it (the validator has already checked it in CI)."""

    slug: str
    path: Path
    document: dict[str, Any]

    @property
    def name(self) -> str:
        return str(self.document.get("name") or self.slug)

    @property
    def kernel_dir(self) -> Path:
        return self.path.parent / self.slug

    @cached_property
    def kernels(self) -> list[dict[str, Any]]:
        kernels = self.document.get("kernels")
        return [k for k in kernels if isinstance(k, dict)] if isinstance(kernels, list) else []

    @cached_property
    def attempted_levels(self) -> frozenset[int]:
        """The levels the submitter declares every problem of attempted (`attempted_levels`): ranked there whatever
        its coverage, a problem without a kernel counting as a failure. Anything but a list of integers reads as
        none (the validator refuses it; the site never ranks on a declaration it cannot read)."""
        declared = self.document.get("attempted_levels")
        if not isinstance(declared, list):
            return frozenset()
        return frozenset(int(v) for v in declared if isinstance(v, int | float) and not isinstance(v, bool)
                         and float(v).is_integer())

    @cached_property
    def kernel_sha256s(self) -> dict[tuple[int, int], str]:
        """sha256 of each listed kernel file as committed, by (level, problem id), or as its `source` declares for a
        kernel kept in its authors' repository; "" for a missing file.

        Results record the hash of the kernel they measured; scoring compares the two to find results
        of a kernel that was edited since (stale: shown, not ranked, measured again by the next rerun).
        """
        on_disk = regular_files(self.kernel_dir)
        hashes = {}
        for kernel in self.kernels:
            path = on_disk.get(str(kernel.get("path", "")))
            declared = kernel.get("source") if isinstance(kernel.get("source"), dict) else {}  # fetched, verified
            digest = hashlib.sha256(path.read_bytes()).hexdigest() if path is not None else declared.get("sha256", "")
            hashes[(kernel.get("level"), kernel.get("problem_id"))] = digest
        return hashes


@dataclass(frozen=True)
class SiteInputs:
    sources: SiteSources
    catalogue: Catalogue
    results: tuple[ResultsFile, ...]
    submissions: dict[str, SubmissionDoc]
    manifest: dict[str, ManifestEntry] = field(default_factory=dict)
    """Manifest entries by problem key, only those whose sha256 matches the catalogue's file."""
    reviews: tuple[Review, ...] = ()
    """Maintainers' decisions on held results (`reviews/decisions.json`), already applied to `results`."""
    unused_reviews: tuple[Review, ...] = ()
    """Those that match no held result (its kernel or problem changed since, or it is not held)."""


def _read_json(path: Path) -> Any:
    try:
        return files.read_json(path, files.RESULTS_BYTES)
    except files.JsonError as exc:
        raise SiteDataError(f"cannot be read as JSON: {exc}") from None


def load_results_dir(results_dir: Path) -> tuple[ResultsFile, ...]:
    """Every `results/<hardware>/<slug>.json`; none when the directory does not exist yet. A shard's file
    (`<slug>.shard-I-of-N.json`, the resume state of a split run) is not a result until `kb-validate merge`
    has combined all N: a part of a run would rank as if its unmeasured problems had failed. An `--interpret` run's
    folder is never read: it timed nothing, and a local check left there must not lead every level."""
    if not results_dir.is_dir():
        return ()
    loaded = []
    for path in whole_run_files(results_dir):
        if path.parent.name == INTERPRETER_HARDWARE:
            continue
        try:
            results = load(path)
        except (OSError, ValueError, KeyError, TypeError) as exc:
            raise SiteDataError(f"{path}: not a readable results file ({type(exc).__name__}: {exc})") from exc
        if (results.hardware, results.slug) != (path.parent.name, path.stem):
            raise SiteDataError(
                f"{path}: records hardware {results.hardware!r} and slug {results.slug!r}; "
                f"its path says {path.parent.name!r} and {path.stem!r}"
            )
        if not SLUG.match(results.slug) or not HARDWARE.match(results.hardware):
            raise SiteDataError(f"{path}: slug or hardware key has characters a site path cannot use")
        loaded.append(results)
    return tuple(loaded)


def load_submissions(submissions_dir: Path) -> dict[str, SubmissionDoc]:
    docs: dict[str, SubmissionDoc] = {}
    if not submissions_dir.is_dir():
        return docs
    for path in sorted(submissions_dir.glob("*.json")):
        document = _read_json(path)
        if not isinstance(document, dict):
            raise SiteDataError(f"{path}: expected a JSON object at $")
        slug = document.get("slug")
        if slug != path.stem or not SLUG.match(slug):
            raise SiteDataError(f"{path}: $.slug must be {path.stem!r}, matching {SLUG.pattern}")
        docs[slug] = SubmissionDoc(slug, path, document)
    _refuse_impersonation(docs)
    return docs


def _refuse_impersonation(docs: dict[str, SubmissionDoc]) -> None:
    """A name that looks like a baseline's or another submission's would rank under it: the validator refuses
    it in CI, and a file edited past CI stops the build here rather than pass for someone else."""
    claims = [Claim(str(doc.path), slug, doc.name) for slug, doc in docs.items()]
    for claim in claims:
        if found := collisions(claim, claims):
            raise SiteDataError(f"{claim.file}: " + "; ".join(message for _, message in found))
        if (problem := text_problem(claim.name)) is not None:
            raise SiteDataError(f"{claim.file}: $.name {problem}")


def load_manifest(path: Path, catalogue: Catalogue) -> dict[str, ManifestEntry]:
    """Manifest entries by key, every track's; an entry for another version of the file its key names is left out."""
    try:
        entries = read_entries(path)
    except ManifestError as exc:
        raise SiteDataError(str(exc)) from None
    current = {p.key: p.sha256 for p in catalogue.every_version}
    return {key: entry for key, entry in entries.items() if current.get(key) == entry.sha256}


def reviewed_results(reviews_file: Path, runs: tuple[ResultsFile, ...]) -> tuple[tuple[ResultsFile, ...],
                                                                                  tuple[Review, ...],
                                                                                  tuple[Review, ...]]:
    """The runs with the maintainers' decisions on held results applied (`reviews/decisions.json`), every
    decision, and those that applied to none."""
    try:
        reviews = load_reviews(reviews_file)
    except ReviewsError as exc:
        raise SiteDataError(str(exc)) from None
    used: set[Review] = set()
    decided = []
    for run in runs:
        reviewed, applied = apply_reviews(run, reviews)
        decided.append(reviewed)
        used |= applied
    return tuple(decided), reviews, tuple(r for r in reviews if r not in used)


def load_inputs(sources: SiteSources) -> SiteInputs:
    try:
        catalogue = load_catalogue(sources.problems_dir)
    except UserError as exc:
        raise SiteDataError(str(exc)) from exc
    results, reviews, unused = reviewed_results(sources.reviews_file, load_results_dir(sources.results_dir))
    return SiteInputs(
        sources=sources,
        catalogue=catalogue,
        results=results,
        submissions=load_submissions(sources.submissions_dir),
        manifest=load_manifest(sources.manifest_path, catalogue),
        reviews=reviews,
        unused_reviews=unused,
    )
