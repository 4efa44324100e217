"""One submission through every stage, top to bottom: load, schema, semantics, then the later stages."""

from __future__ import annotations

import time
from dataclasses import dataclass
from pathlib import Path

from validator.build import stage as build
from validator.build.stage import BuildResult
from validator.catalogue.problems import Catalogue
from validator.evaluate import stage as evaluate
from validator.findings import ExitCode, Finding, Severity, StageOutcome, StageStatus
from validator.machine import Machine
from validator.policy import stage as policy
from validator.run_context import RunOptions, Stage, StageContext
from validator.submission.document import DocumentError, read_json
from validator.submission.records import semantic_findings, submission_from_document
from validator.submission.schema import schema_findings

LATER_STAGES: tuple[Stage, ...] = (
    Stage(policy.STAGE, policy.unavailable, policy.run_stage),
    Stage(build.STAGE, build.unavailable, build.run_stage),
    Stage(evaluate.STAGE, evaluate.unavailable, evaluate.run_stage),
)
"""The stages after semantics, in execution order."""


@dataclass(frozen=True)
class SubmissionReport:
    """Everything one submission went through."""

    shown: str
    """The path as the user gave it."""
    slug: str
    """From the document; empty when it could not be read."""
    outcomes: tuple[StageOutcome, ...]
    exit_code: ExitCode

    @property
    def findings(self) -> tuple[Finding, ...]:
        return tuple(f for outcome in self.outcomes for f in outcome.findings)

    @property
    def verdict(self) -> str:
        return {ExitCode.OK: "passed", ExitCode.FAILED: "failed"}.get(self.exit_code, "unusable")


def _outcome(stage: str, findings: list[Finding], started: float) -> StageOutcome:
    failed = any(f.severity == Severity.ERROR for f in findings)
    status = StageStatus.FAILED if failed else StageStatus.PASSED
    return StageOutcome(stage, status, findings=tuple(findings), seconds=time.perf_counter() - started)


def _unreached(names: list[str], why: str) -> list[StageOutcome]:
    return [StageOutcome(name, StageStatus.NOT_REACHED, reason=why) for name in names]


def validate_submission(
    path: Path, shown: str, catalogue: Catalogue, machine: Machine, options: RunOptions
) -> SubmissionReport:
    later = [stage.name for stage in LATER_STAGES]
    started = time.perf_counter()
    try:
        document = read_json(path, shown)
    except DocumentError as exc:
        outcomes = [_outcome("load", [exc.finding], started)]
        outcomes += _unreached(["schema", "semantics", *later], "the file could not be read as JSON")
        return SubmissionReport(shown, "", tuple(outcomes), ExitCode.UNUSABLE)
    outcomes = [_outcome("load", [], started)]

    started = time.perf_counter()
    schema = _outcome("schema", schema_findings(document, shown), started)
    outcomes.append(schema)
    if schema.status == StageStatus.FAILED:
        outcomes += _unreached(["semantics", *later], "the document does not follow the schema")
        slug = document.get("slug", "") if isinstance(document, dict) else ""
        return SubmissionReport(shown, slug if isinstance(slug, str) else "", tuple(outcomes), ExitCode.UNUSABLE)

    started = time.perf_counter()
    submission = submission_from_document(document, path)
    semantics = _outcome("semantics", semantic_findings(submission, catalogue, shown), started)
    outcomes.append(semantics)
    failed = semantics.status == StageStatus.FAILED

    # Past semantics a batch keeps going: a kernel rejected by policy or failing its build is a result for
    # that problem; later stages see earlier findings and leave those kernels out themselves.
    builds: dict[str, BuildResult] = {}
    for stage in LATER_STAGES:
        reason = stage.unavailable(machine, options)
        if reason:
            outcomes.append(StageOutcome(stage.name, StageStatus.SKIPPED, reason=reason))
        elif semantics.status == StageStatus.FAILED:
            outcomes += _unreached([stage.name], "the semantic checks failed")
        else:
            context = StageContext(submission, catalogue, machine, options, shown, tuple(outcomes), dict(builds))
            started = time.perf_counter()
            run = stage.run(context)
            builds.update((result.build.key, result) for result in run.builds)
            outcome = _outcome(stage.name, run.findings, started)
            outcomes.append(outcome)
            failed = failed or outcome.status == StageStatus.FAILED
    return SubmissionReport(shown, submission.slug, tuple(outcomes), ExitCode.FAILED if failed else ExitCode.OK)
