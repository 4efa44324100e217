"""Honest summaries: a report says "all checks passed" only when every stage ran and passed, in every rendering."""

from __future__ import annotations

import io
import json
from pathlib import Path

import pytest
from rich.console import Console

from tests.conftest import EXAMPLE_SLUG, REPO
from validator.catalogue.problems import load_catalogue
from validator.findings import ExitCode, Finding, StageOutcome, StageStatus
from validator.machine import Machine
from validator.pipeline import SubmissionReport, validate_submission
from validator.report import headline, print_terminal, to_json, to_markdown
from validator.run_context import BuildOptions, RunOptions

EXAMPLE = str(REPO / "submissions" / f"{EXAMPLE_SLUG}.json")
STAGES = ("load", "schema", "semantics", "policy", "build", "evaluate")


def report(statuses: dict[str, StageStatus], needs_gpu: tuple[str, ...] = (), shown: str = "s.json"
           ) -> SubmissionReport:
    outcomes = []
    for name in STAGES:
        status = statuses.get(name, StageStatus.PASSED)
        findings = (Finding("boom", name, "it broke"),) if status == StageStatus.FAILED else ()
        reason = "why" if status in (StageStatus.SKIPPED, StageStatus.NOT_REACHED) else ""
        outcomes.append(StageOutcome(name, status, reason=reason, findings=findings))
    failed = any(o.status == StageStatus.FAILED for o in outcomes)
    return SubmissionReport(shown, "s", tuple(outcomes), ExitCode.FAILED if failed else ExitCode.OK, needs_gpu)


def renderings(reports: list[SubmissionReport]) -> list[str]:
    console = Console(file=io.StringIO(), width=200, no_color=True)
    print_terminal(reports, console)
    return [console.file.getvalue(), json.dumps(to_json(reports, None), ensure_ascii=False), to_markdown(reports)]


GPU_SKIPPED = {"build": StageStatus.SKIPPED, "evaluate": StageStatus.SKIPPED}


def test_skipped_gpu_stages_are_named_in_the_summary():
    assert report(GPU_SKIPPED, ("build", "evaluate")).summary == "4 of 6 stages passed; build and evaluate need a GPU"


def test_a_stage_left_out_by_a_flag_gives_its_reason_instead_of_blaming_the_gpu():
    summary = report({"evaluate": StageStatus.SKIPPED}).summary
    assert summary == "5 of 6 stages passed; evaluate skipped (why)"


def test_only_a_complete_run_says_all_stages_passed():
    assert report({}).complete
    assert report({}).summary == "all 6 stages passed"
    assert "✅ all 6 stages passed" in to_markdown([report({})])


@pytest.mark.parametrize("statuses", [
    GPU_SKIPPED,
    {"evaluate": StageStatus.SKIPPED},
    {"policy": StageStatus.FAILED, "build": StageStatus.NOT_REACHED, "evaluate": StageStatus.NOT_REACHED},
])
def test_no_rendering_claims_all_checks_passed_unless_every_stage_passed(statuses):
    reports = [report(statuses, ("build", "evaluate") if statuses is GPU_SKIPPED else ())]
    summary = reports[0].summary
    for text in renderings(reports):
        assert "all checks passed" not in text
        assert "all 6 stages passed" not in text
        assert summary in text


def test_several_submissions_pass_only_as_far_as_the_least_complete():
    reports = [report({}, shown="a.json"), report(GPU_SKIPPED, ("build", "evaluate"), shown="b.json")]
    line = headline(reports)
    assert "all checks passed" not in line
    assert "build and evaluate did not run" in line
    assert headline([report({}), report({})]) == "all checks passed (2 submissions)"


def test_failures_lead_with_the_verdict_and_name_the_failed_stage():
    failed = report({"policy": StageStatus.FAILED, "build": StageStatus.NOT_REACHED,
                     "evaluate": StageStatus.NOT_REACHED})
    assert failed.summary == "3 of 6 stages passed; policy failed; build and evaluate not reached"
    assert headline([failed]).startswith("failed: 3 of 6")
    assert to_json([failed], None)["submissions"][0]["complete"] is False


def test_a_laptop_run_of_the_example_says_which_stages_need_a_gpu(cli, tmp_path):
    markdown, report_json = tmp_path / "summary.md", tmp_path / "report.json"
    result = cli(EXAMPLE, "--no-gpu", "--markdown", str(markdown), "--json", str(report_json))
    assert result.exit_code == 0, result.output
    data = json.loads(report_json.read_text())
    submission = data["submissions"][0]
    assert submission["verdict"] == "passed"
    assert submission["complete"] is False
    assert "need a GPU" in submission["summary"] or "skipped" in submission["summary"]
    assert "all checks passed" not in markdown.read_text()
    assert submission["summary"] in markdown.read_text()
    assert submission["summary"] in " ".join(result.stdout.split())


@pytest.mark.parametrize(("options", "needs_gpu", "phrase"), [
    (RunOptions(), ("build", "evaluate"), "build and evaluate need a GPU"),
    (RunOptions(gpu_stages=False), ("build", "evaluate"), "build and evaluate need a GPU"),
    (RunOptions(build=BuildOptions(only=True)), (), "evaluate skipped (--build-only"),
])
def test_the_pipeline_blames_the_gpu_only_for_what_the_machine_lacks(options, needs_gpu, phrase):
    laptop = Machine(torch_version="2.13.0+cpu", torch_cuda=None, nvcc=None, gpus=(), triton_version=None)
    catalogue = load_catalogue(REPO / "problems")
    result = validate_submission(Path(EXAMPLE), EXAMPLE, catalogue, laptop, options)
    assert result.exit_code == ExitCode.OK
    assert result.needs_gpu == needs_gpu
    assert phrase in result.summary
    assert not result.complete
