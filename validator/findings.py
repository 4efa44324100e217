"""The records every stage speaks in: findings, stage outcomes, exit codes and the one user-facing error."""

from __future__ import annotations

from dataclasses import asdict, dataclass, field
from enum import IntEnum, StrEnum


class ExitCode(IntEnum):
    """Process exit status of every command; EXIT_STATUSES says what each means, for --help and the README."""

    OK = 0
    FAILED = 1
    UNUSABLE = 2
    INTERNAL = 3
    UNSAFE_HERE = 4
    NOT_FETCHED = 5
    INTERRUPTED = 130


EXIT_STATUSES: dict[ExitCode, str] = {
    ExitCode.OK: "every stage that ran passed",
    ExitCode.FAILED: "a well-formed submission fails a check (semantics, policy, build, correctness, integrity)",
    ExitCode.UNUSABLE: "unusable input (unreadable file, invalid JSON, schema violation, missing directory) "
                       "or a usage error",
    ExitCode.INTERNAL: "internal error in the validator (the message names a trace file; please report it)",
    ExitCode.UNSAFE_HERE: "this machine cannot do what was asked safely: a `--verified` run where the runner "
                          "sandbox cannot be set up (the message says why)",
    ExitCode.NOT_FETCHED: "a kernel the submission references at a pinned commit could not be fetched (network "
                          "error, GitHub unreachable or refusing): nothing was built or run; try again later",
    ExitCode.INTERRUPTED: "interrupted (Ctrl-C or SIGTERM); results written so far are kept",
}
"""The one definition of what each exit status means: `kb-validate --help` prints it and the README's table
must say the same (tests/test_cli.py compares them)."""


def exit_status_table() -> str:
    """EXIT_STATUSES as the Markdown table the README carries."""
    rows = [f"| {int(code)} | {meaning} |" for code, meaning in EXIT_STATUSES.items()]
    return "\n".join(["| status | meaning |", "|---|---|", *rows])


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
