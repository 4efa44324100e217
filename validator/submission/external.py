"""Kernels that live in their authors' own repositories: fetched at the pinned commit, verified against the
declared sha256, and laid out as ordinary kernel files before any later stage reads one.

Fail closed: the pipeline stops a submission at this stage if any of its references cannot be fetched or
does not match, so nothing of it is checked further, built or run. What is verified is kept in a cache keyed
by sha256 (`<cache>/external/sha256/`), so a rerun fetches nothing, and copied to a working directory
(`<cache>/external/runs/<key>/<slug>/<path>`) that the later stages read like `submissions/<slug>/`.

The fetcher is a parameter: GitHub over https by default, `KB_EXTERNAL_MIRROR` (a local directory laid out as
`<owner>/<name>/<commit>/<path>`) for tests and machines without a network.
"""

from __future__ import annotations

import contextlib
import dataclasses
import hashlib
import json
import os
import urllib.error
import urllib.request
from collections.abc import Callable
from dataclasses import dataclass
from enum import StrEnum
from pathlib import Path
from urllib.parse import urlsplit

from validator.files import write_bytes_atomic
from validator.findings import ExitCode, Finding, Severity, UserError
from validator.submission.records import MAX_KERNEL_BYTES, KernelEntry, Submission
from validator.submission.source import KernelSource

STAGE = "fetch"
MIRROR_ENV = "KB_EXTERNAL_MIRROR"
FETCH_TIMEOUT_S = 30.0
GITHUB_HOSTS = frozenset({"raw.githubusercontent.com", "github.com"})
"""The only hosts a fetch may be redirected to (a renamed repository redirects within them)."""


class Failure(StrEnum):
    """Why a file could not be fetched; each is its own finding code."""

    MISSING = "external-file-missing"
    """No such file at that commit (or the repository is private or gone): the reference is wrong."""
    UNREACHABLE = "external-unreachable"
    """Network error, time-out or a refusal from GitHub: nothing is known about the file; try again."""
    TOO_LARGE = "external-too-large"
    REDIRECTED = "external-redirect-refused"
    """Redirected off GitHub's hosts: refused rather than followed."""


WHAT_BECAME = {Failure.MISSING: "does not exist", Failure.UNREACHABLE: "could not be fetched",
               Failure.TOO_LARGE: "is too large", Failure.REDIRECTED: "was refused"}


class FetchError(Exception):
    def __init__(self, failure: Failure, detail: str) -> None:
        super().__init__(detail)
        self.failure = failure
        self.detail = detail


Fetch = Callable[[KernelSource], bytes]
"""The bytes of `source.path` at `source.commit`, at most MAX_KERNEL_BYTES + 1 of them, or FetchError."""


class _GithubOnly(urllib.request.HTTPRedirectHandler):
    def redirect_request(self, req, fp, code, msg, headers, newurl):  # type: ignore[no-untyped-def]  # noqa: PLR0917 - urllib's signature
        target = urlsplit(newurl)
        if target.scheme != "https" or target.hostname not in GITHUB_HOSTS:
            raise FetchError(Failure.REDIRECTED, f"HTTP {code} redirect to {newurl[:200]}, off GitHub's hosts")
        return super().redirect_request(req, fp, code, msg, headers, newurl)


def github_fetcher(timeout_s: float = FETCH_TIMEOUT_S, max_bytes: int = MAX_KERNEL_BYTES,
                   opener: urllib.request.OpenerDirector | None = None) -> Fetch:
    """Fetch from raw.githubusercontent.com with a time-out, a size cap and no redirect off GitHub."""
    opener = opener or urllib.request.build_opener(_GithubOnly())

    def fetch(source: KernelSource) -> bytes:
        request = urllib.request.Request(source.raw_url, headers={"User-Agent": "kb-validate"})
        try:
            with opener.open(request, timeout=timeout_s) as response:
                data = response.read(max_bytes + 1)
        except urllib.error.HTTPError as exc:
            if exc.code == 404:
                raise FetchError(Failure.MISSING, "HTTP 404: no such file at that commit, or the repository is "
                                 "private or does not exist") from None
            raise FetchError(Failure.UNREACHABLE, f"HTTP {exc.code} {exc.reason}") from None
        except (urllib.error.URLError, TimeoutError, OSError) as exc:
            reason = getattr(exc, "reason", exc)
            raise FetchError(Failure.UNREACHABLE, f"{type(exc).__name__}: {reason}") from None
        return data

    return fetch


def mirror_fetcher(root: Path, max_bytes: int = MAX_KERNEL_BYTES) -> Fetch:
    """Read `<root>/<owner>/<name>/<commit>/<path>`: a local copy of GitHub for tests and offline machines."""

    def fetch(source: KernelSource) -> bytes:
        if not root.is_dir():
            raise FetchError(Failure.UNREACHABLE, f"mirror {root} ({MIRROR_ENV}) is not a directory")
        top = root.resolve()
        file = top / source.owner_name / source.commit / source.path
        if not file.resolve().is_relative_to(top):
            raise FetchError(Failure.REDIRECTED, f"{file} leads outside the mirror {root}")
        if not file.is_file():
            raise FetchError(Failure.MISSING, f"no file {file} in the mirror {root}")
        try:
            with file.open("rb") as handle:
                return handle.read(max_bytes + 1)
        except OSError as exc:
            raise FetchError(Failure.UNREACHABLE, f"{file}: {exc.strerror or exc}") from None

    return fetch


def default_fetcher() -> Fetch:
    """The mirror `KB_EXTERNAL_MIRROR` names, else GitHub."""
    mirror = os.environ.get(MIRROR_ENV)
    return mirror_fetcher(Path(mirror)) if mirror else github_fetcher()


@dataclass(frozen=True)
class Fetched:
    """What the fetch stage hands the pipeline."""

    submission: Submission
    """The submission with each external kernel's `root` at its verified copy (unchanged where any failed)."""
    findings: tuple[Finding, ...]

    @property
    def exit_code(self) -> ExitCode:
        """A reference known to be wrong fails the submission; one that could not be reached says try again."""
        codes = {f.code for f in self.findings if f.severity == Severity.ERROR}
        if not codes:
            return ExitCode.OK
        return ExitCode.NOT_FETCHED if codes == {Failure.UNREACHABLE} else ExitCode.FAILED


def _sha256(data: bytes) -> str:
    return hashlib.sha256(data).hexdigest()


def _cached(cache: Path, sha256: str) -> bytes | None:
    """The cache's copy, if it is there and still hashes to its name."""
    try:
        data = (cache / sha256).read_bytes()
    except OSError:
        return None
    return data if _sha256(data) == sha256 else None


def _verified(entry: KernelEntry, source: KernelSource, fetch: Fetch, cache: Path, shown: str) -> bytes | Finding:
    """The declared bytes of one reference, from the cache or fetched and checked; else the finding why not."""
    data = _cached(cache, source.sha256)
    if data is not None:
        return data
    what = f"level {entry.level} problem {entry.problem_id}'s kernel {source.raw_url}"

    def bad(code: str, where: str, message: str) -> Finding:
        return Finding(code, STAGE, message, file=shown, json_path=f"{entry.json_path}{where}")

    try:
        data = fetch(source)
    except FetchError as exc:
        return bad(exc.failure.value, ".source",
                   f"{what} {WHAT_BECAME[exc.failure]}: {exc.detail}; expected the file at that commit")
    if len(data) > MAX_KERNEL_BYTES:
        return bad(Failure.TOO_LARGE.value, ".source",
                   f"{what} is over {MAX_KERNEL_BYTES} bytes; a kernel file is at most {MAX_KERNEL_BYTES}")
    got = _sha256(data)
    if got != source.sha256:
        return bad("external-hash-mismatch", ".source.sha256",
                   f"{what} hashes to {got}, expected {source.sha256} as declared; the file at that commit is not "
                   "the one the submission names (declare its hash, or pin the commit that holds your file)")
    with contextlib.suppress(OSError):  # the cache only saves a refetch; the working copy below is what counts
        write_bytes_atomic(cache / got, data)
    return data


def _local_differs(entry: KernelEntry, source: KernelSource, shown: str) -> Finding | None:
    """A committed copy beside the JSON must be the file the reference names: one kernel, never two."""
    local = entry.root / entry.path
    try:
        got = _sha256(local.read_bytes()) if local.is_file() and not local.is_symlink() else source.sha256
    except OSError:  # unreadable: the semantics stage never reads it either (the verified copy replaces it)
        return None
    if got == source.sha256:
        return None
    return Finding("external-local-differs", STAGE,
                   f"{local} hashes to {got} but its source declares {source.sha256}; remove the local copy or "
                   "make it the file at that commit", file=shown, json_path=f"{entry.json_path}.source.sha256")


def work_dir(cache_root: Path, submission: Submission) -> Path:
    """Where this submission's verified copies are laid out: named by what they are, so reruns reuse it."""
    refs = sorted((k.path, k.source.sha256) for k in submission.external if k.source)
    key = _sha256(json.dumps(refs).encode())[:24]
    return cache_root / "external" / "runs" / key / submission.slug


def fetch_kernels(submission: Submission, shown: str, cache_root: Path, fetch: Fetch | None = None) -> Fetched:
    """Fetch and verify every external kernel; on success point each at its verified copy in the work dir."""
    fetch = fetch or default_fetcher()
    cache = cache_root / "external" / "sha256"
    verified: dict[int, bytes] = {}
    findings: list[Finding] = []
    for entry in submission.external:
        source = entry.source
        result = _verified(entry, source, fetch, cache, shown) if source else None
        if isinstance(result, Finding):
            findings.append(result)
        elif source and result is not None:
            if differs := _local_differs(entry, source, shown):
                findings.append(differs)
            verified[entry.index] = result
    if findings:
        return Fetched(submission, tuple(findings))
    work = work_dir(cache_root, submission)
    for index, data in verified.items():
        target = work / submission.kernels[index].path
        try:
            if not (target.is_file() and target.read_bytes() == data):
                write_bytes_atomic(target, data)
        except OSError as exc:
            raise UserError(f"cannot write the verified copy {target}: {exc.strerror or exc}; point --cache-dir or "
                            "KB_VALIDATE_CACHE at a writable directory") from None
    kernels = tuple(dataclasses.replace(k, root=work) if k.index in verified else k for k in submission.kernels)
    return Fetched(dataclasses.replace(submission, kernels=kernels), ())
