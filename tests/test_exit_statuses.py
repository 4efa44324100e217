"""A kernel the worker rejects at run time, or that fails to build or crashes there, fails the run: an error
finding (so exit 1 and ✗ in the terminal, JSON and Markdown reports) and a failing commit status."""

from __future__ import annotations

from pathlib import Path

import pytest

from validator.evaluate.stage import findings_for
from validator.findings import ExitCode, Severity, StageOutcome, StageStatus
from validator.github import pr_report
from validator.pipeline import SubmissionReport
from validator.report import overall_exit, to_json, to_markdown
from validator.results.records import Environment, Flag, ProblemResult, ResultsFile, Status

FAILING = (Status.REJECTED, Status.COMPILE_ERROR, Status.RUNTIME_ERROR, Status.INCORRECT, Status.TIMEOUT, Status.OOM)


def results_with(status: Status, error: str = "", flags: tuple[Flag, ...] = ()) -> ResultsFile:
    problem = ProblemResult("level1/1_X", 1, 1, "a" * 64, "x.py", "b" * 64, "cuda", status, error=error, flags=flags)
    return ResultsFile(
        slug="s", submission_name="S", submission_sha256="c" * 64, hardware="h", environment=Environment(*["?"] * 8),
        protocol={}, problems=(problem,), started_at="2026-11-24T00:00:00Z", finished_at="2026-11-24T00:01:00Z",
    )


def report_of(findings: list) -> SubmissionReport:
    status = StageStatus.FAILED if any(f.severity == Severity.ERROR for f in findings) else StageStatus.PASSED
    exit_code = ExitCode.FAILED if status == StageStatus.FAILED else ExitCode.OK
    return SubmissionReport("s.json", "s", (StageOutcome("evaluate", status, findings=tuple(findings)),), exit_code)


@pytest.mark.parametrize("status", FAILING, ids=[s.value for s in FAILING])
def test_every_failing_status_found_in_evaluation_is_an_error_finding(status):
    findings = findings_for(results_with(status, error=f"why {status}"), Path("r.json"))
    errors = [f for f in findings if f.severity == Severity.ERROR]
    assert [f.code for f in errors] == [status.value.replace("_", "-")]
    report = report_of(findings)
    assert overall_exit([report]) == ExitCode.FAILED
    assert to_json([report], None)["submissions"][0]["verdict"] == "failed"
    assert "❌" in to_markdown([report]).splitlines()[0]
    artifact = pr_report.Artifact({"workflow": "gpu-verify", "pr": 1, "sha": "d" * 40}, to_json([report], None))
    assert pr_report.status_state(artifact) == "failure"


def test_a_rejection_without_an_error_text_names_its_flags():
    flags = (Flag("replayed-output", "the output is a replay of an earlier call", "error"),)
    findings = findings_for(results_with(Status.REJECTED, flags=flags), Path("r.json"))
    assert "replayed-output" in findings[0].message


def test_correct_and_held_results_do_not_fail_the_run():
    for status in (Status.CORRECT, Status.NEEDS_REVIEW):
        findings = findings_for(results_with(status), Path("r.json"))
        assert not [f for f in findings if f.severity == Severity.ERROR]
        assert overall_exit([report_of(findings)]) == ExitCode.OK
