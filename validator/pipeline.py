"""One submission through every stage, top to bottom: load, schema, fetch (only where kernels are referenced at a
pinned commit), semantics, then the later stages."""

from __future__ import annotations

import dataclasses
import time
from dataclasses import dataclass
from pathlib import Path

from validator.catalogue.problems import Catalogue
from validator.compile import stage as build
from validator.compile import toolchain
from validator.compile.stage import BuildResult, BuildStatus
from validator.evaluate import stage as evaluate
from validator.findings import ExitCode, Finding, Severity, StageOutcome, StageStatus
from validator.machine import Machine
from validator.policy import stage as policy
from validator.run_context import RunOptions, Stage, StageContext
from validator.submission import external
from validator.submission.document import DocumentError, read_json
from validator.submission.impersonation import identity_findings
from validator.submission.records import Submission, semantic_findings, submission_from_document
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
    needs_gpu: tuple[str, ...] = ()
    """Stages skipped only because this machine has no usable GPU."""

    @property
    def findings(self) -> tuple[Finding, ...]:
        return tuple(f for outcome in self.outcomes for f in outcome.findings)

    @property
    def verdict(self) -> str:
        """The exit class for machines (`passed` means every stage that ran passed); `summary` says which ran."""
        return {ExitCode.OK: "passed", ExitCode.FAILED: "failed",
                ExitCode.NOT_FETCHED: "not_fetched"}.get(self.exit_code, "unusable")

    @property
    def complete(self) -> bool:
        """Every stage ran and passed: only then may a report say that all checks passed."""
        return all(o.status == StageStatus.PASSED for o in self.outcomes)

    @property
    def summary(self) -> str:
        """One sentence for people: how many stages passed and what became of each other one."""
        def named(status: StageStatus) -> list[str]:
            return [o.stage for o in self.outcomes if o.status == status]

        total, passed = len(self.outcomes), named(StageStatus.PASSED)
        if self.complete:
            return f"all {total} stages passed"
        parts = [f"{len(passed)} of {total} stages passed"]
        if failed := named(StageStatus.FAILED):
            parts.append(f"{join_names(failed)} failed")
        if unreached := named(StageStatus.NOT_REACHED):
            parts.append(f"{join_names(unreached)} not reached")
        if gpu := [name for name in named(StageStatus.SKIPPED) if name in self.needs_gpu]:
            parts.append(f"{join_names(gpu)} {'needs' if len(gpu) == 1 else 'need'} a GPU")
        parts += [f"{o.stage} skipped ({o.reason})" for o in self.outcomes
                  if o.status == StageStatus.SKIPPED and o.stage not in self.needs_gpu]
        return "; ".join(parts)


def join_names(names: list[str]) -> str:
    """`a`, `a and b`, `a, b and c`."""
    return names[0] if len(names) == 1 else f"{', '.join(names[:-1])} and {names[-1]}"


def _outcome(stage: str, findings: list[Finding], started: float) -> StageOutcome:
    failed = any(f.severity == Severity.ERROR for f in findings)
    status = StageStatus.FAILED if failed else StageStatus.PASSED
    return StageOutcome(stage, status, findings=tuple(findings), seconds=time.perf_counter() - started)


def _unbuilt_as_skipped(outcome: StageOutcome, results: tuple[BuildResult, ...]) -> StageOutcome:
    """A build that passed but left kernels unbuilt (no nvcc, a CPU-only torch) did not pass for them: it is
    reported skipped, with how many and why, so `--build-only --arch 9.0` never reads as a CUDA build that passed."""
    unbuilt = [r for r in results if r.status == BuildStatus.SKIPPED]
    if outcome.status != StageStatus.PASSED or not unbuilt:
        return outcome
    reason = (f"{len(unbuilt)} of {len(results)} kernel(s) not built here, {len(results) - len(unbuilt)} built: "
              f"{unbuilt[0].message}")
    return dataclasses.replace(outcome, status=StageStatus.SKIPPED, reason=reason)


def _unreached(names: list[str], why: str) -> list[StageOutcome]:
    return [StageOutcome(name, StageStatus.NOT_REACHED, reason=why) for name in names]


def _fetch(submission: Submission, shown: str, options: RunOptions) -> tuple[StageOutcome, external.Fetched]:
    """The fetch stage: every external kernel fetched at its commit and verified, or the findings why not."""
    started = time.perf_counter()
    fetched = external.fetch_kernels(submission, shown, toolchain.cache_root(options.build), options.fetch)
    return _outcome(external.STAGE, list(fetched.findings), started), fetched


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

    submission = submission_from_document(document, path)
    if submission.external:  # fail closed: no stage reads a kernel of it until every reference is verified
        outcome, fetched = _fetch(submission, shown, options)
        outcomes.append(outcome)
        if outcome.status == StageStatus.FAILED:
            outcomes += _unreached(["semantics", *later], "a kernel referenced at a pinned commit could not be "
                                   "fetched and verified, so nothing of this submission was built or run")
            return SubmissionReport(shown, submission.slug, tuple(outcomes), fetched.exit_code)
        submission = fetched.submission

    started = time.perf_counter()
    checked = [*identity_findings(submission, shown), *semantic_findings(submission, catalogue, shown)]
    semantics = _outcome("semantics", checked, started)
    outcomes.append(semantics)
    failed = semantics.status == StageStatus.FAILED
    # A stage skipped for want of a GPU is named as such; one left out by a flag (--build-only) is not.
    gpu_missing = machine.cannot_run_gpu() is not None and not options.build.only
    needs_gpu: list[str] = []

    # Past semantics a batch keeps going: a kernel rejected by policy or failing its build is a result for
    # that problem; later stages see earlier findings and leave those kernels out themselves.
    builds: dict[str, BuildResult] = {}
    for stage in LATER_STAGES:
        reason = stage.unavailable(machine, options)
        if reason:
            outcomes.append(StageOutcome(stage.name, StageStatus.SKIPPED, reason=reason))
            needs_gpu += [stage.name] if gpu_missing else []
        elif semantics.status == StageStatus.FAILED:
            outcomes += _unreached([stage.name], "the semantic checks failed")
        else:
            context = StageContext(submission, catalogue, machine, options, shown, tuple(outcomes), dict(builds))
            started = time.perf_counter()
            run = stage.run(context)
            builds.update((result.build.key, result) for result in run.builds)
            outcome = _unbuilt_as_skipped(_outcome(stage.name, run.findings, started), run.builds)
            outcomes.append(outcome)
            failed = failed or outcome.status == StageStatus.FAILED
    exit_code = ExitCode.FAILED if failed else ExitCode.OK
    return SubmissionReport(shown, submission.slug, tuple(outcomes), exit_code, tuple(needs_gpu))
