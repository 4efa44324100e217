"""The records every stage speaks in: findings, stage outcomes, exit codes and the one user-facing error."""

from __future__ import annotations

from dataclasses import asdict, dataclass, field
from enum import IntEnum, StrEnum


class ExitCode(IntEnum):
    """Process exit status of every command; documented in the README."""

    OK = 0  # every stage that ran passed
    FAILED = 1  # a well-formed submission fails a check (semantics, policy, build, correctness, ...)
    UNUSABLE = 2  # the input cannot be used at all, or the command line is wrong
    INTERNAL = 3  # the validator itself broke; the message says where the trace was written
    UNSAFE_HERE = 4  # this machine cannot do what was asked safely (a --verified run without the runner sandbox)


class Severity(StrEnum):
    ERROR = "error"  # the submission fails
    WARNING = "warning"  # shown, flagged for review, does not fail
    INFO = "info"


class StageStatus(StrEnum):
    PASSED = "passed"
    FAILED = "failed"
    SKIPPED = "skipped"  # could not run on this machine or was not asked for; `reason` says which
    NOT_REACHED = "not_reached"  # an earlier stage failed, so this one had nothing sound to work on


@dataclass(frozen=True)
class Finding:
    """One thing a stage found, located as precisely as the stage can."""

    code: str
    """Stable reason code, kebab-case (`hash-mismatch`); tests and docs key on it."""
    stage: str
    """Name of the stage that produced it (`load`, `schema`, `semantics`, `policy`, ...)."""
    message: str
    """What is wrong and what was expected, in one or two sentences."""
    file: str = ""
    """The file it is about, as the user named it or relative to the repository."""
    json_path: str = ""
    """JSONPath into the submission document (`$.kernels[2].path`), when it is about the document."""
    line: int | None = None
    """1-based line (and `column`) in `file`, for syntax errors and source findings."""
    column: int | None = None
    problem: str = ""
    """The problem key (`level1/19_ReLU`), when it is about one problem."""
    severity: Severity = Severity.ERROR

    def location(self) -> str:
        """`file:line:col $.path` with whichever parts are known."""
        where = self.file
        if self.line is not None:
            where += f":{self.line}"
            if self.column is not None:
                where += f":{self.column}"
        if self.json_path:
            where = f"{where} {self.json_path}" if where else self.json_path
        return where

    def to_dict(self) -> dict:
        return {k: v for k, v in asdict(self).items() if v not in ("", None)}


@dataclass(frozen=True)
class StageOutcome:
    """What one stage did for one submission."""

    stage: str
    status: StageStatus
    reason: str = ""
    """Why it was skipped or not reached; empty when it ran."""
    findings: tuple[Finding, ...] = field(default_factory=tuple)
    seconds: float = 0.0

    @property
    def errors(self) -> tuple[Finding, ...]:
        return tuple(f for f in self.findings if f.severity == Severity.ERROR)


class UserError(Exception):
    """A problem with what the user asked for (bad option, unreadable directory); caught once per command."""

    def __init__(self, message: str, exit_code: ExitCode = ExitCode.UNUSABLE) -> None:
        super().__init__(message)
        self.exit_code = exit_code
