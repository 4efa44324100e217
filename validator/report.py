"""The one renderer of findings: terminal (rich), JSON and Markdown (PR comments, step summaries)."""

from __future__ import annotations

import html
import json
from collections.abc import Sequence
from dataclasses import asdict
from typing import IO, Any

from rich.console import Console
from rich.markup import escape
from rich.table import Table

from validator import __version__
from validator.findings import ExitCode, Severity, StageStatus
from validator.isolation.bwrap import Isolation
from validator.isolation.limits import LIMITS
from validator.machine import Machine
from validator.pipeline import SubmissionReport, join_names
from validator.untrusted import markdown_code, one_line, printable, printable_block

REPORT_VERSION = 1
STATUS_STYLE = {
    StageStatus.PASSED: "[green]passed[/]",
    StageStatus.FAILED: "[bold red]failed[/]",
    StageStatus.SKIPPED: "[yellow]skipped[/]",
    StageStatus.NOT_REACHED: "[dim]not reached[/]",
}
STATUS_ICON = {
    StageStatus.PASSED: "✅",
    StageStatus.FAILED: "❌",
    StageStatus.SKIPPED: "⏭️",
    StageStatus.NOT_REACHED: "➖",
}
VERDICT_STYLE = {"passed": "bold green", "failed": "bold red", "unusable": "bold red", "not_fetched": "bold yellow"}
INCOMPLETE_STYLE = "bold yellow"
"""A pass of only the stages this machine could run: not green, since not every check ran."""
HEADLINE_ICON = {ExitCode.OK: "✅", ExitCode.FAILED: "❌"}


def overall_exit(reports: Sequence[SubmissionReport]) -> ExitCode:
    """Unusable input outranks a failed check, which outranks success."""
    return max((r.exit_code for r in reports), default=ExitCode.OK)


def headline(reports: Sequence[SubmissionReport]) -> str:
    """The run in one line; "all checks passed" only when every stage of every submission ran and passed."""
    code = overall_exit(reports)
    if len(reports) == 1:
        return _verdict_line(reports[0])
    if code == ExitCode.OK and all(r.complete for r in reports):
        return f"all checks passed ({len(reports)} submissions)"
    if code == ExitCode.OK:
        left_out = dict.fromkeys(o.stage for r in reports for o in r.outcomes if o.status != StageStatus.PASSED)
        return f"every stage that ran passed ({len(reports)} submissions); {join_names(list(left_out))} did not run"
    word = {ExitCode.FAILED: "a submission fails a check",
            ExitCode.NOT_FETCHED: "referenced kernels could not be fetched"}.get(code, "unusable input")
    bad = sum(r.exit_code != ExitCode.OK for r in reports)
    return f"{word}: {bad} of {len(reports)} submissions did not pass"


def _verdict_line(report: SubmissionReport) -> str:
    """The summary, led by the verdict when it is not a pass (a pass is said by the stage counts)."""
    return report.summary if report.exit_code == ExitCode.OK else f"{report.verdict}: {report.summary}"


def _icon(reports: Sequence[SubmissionReport]) -> str:
    code = overall_exit(reports)
    if code == ExitCode.OK and not all(r.complete for r in reports):
        return "⚠️"
    return HEADLINE_ICON.get(code, "⛔")


def sandbox_record(isolation: Isolation | None) -> dict[str, Any]:
    """How submitted code was confined in this run, and the resource bounds it ran under; said in every report
    (issue 46: a run without the sandbox left no trace of it in report.json)."""
    if isolation is None:
        return {"sandbox": "unknown", "detail": "this report was not written by a validation run", "limits": None}
    return {"sandbox": isolation.sandbox, "detail": isolation.detail, "properties": isolation.properties,
            "limits": LIMITS.to_dict()}


def _sandbox_line(isolation: Isolation | None) -> str:
    record = sandbox_record(isolation)
    icon = "🔒" if record["sandbox"] == "bubblewrap" else "⚠️"
    return f"{icon} Sandbox: {record['sandbox']} ({_cell(record['detail'])})"


def to_json(reports: Sequence[SubmissionReport], machine: Machine | None,
            isolation: Isolation | None = None) -> dict[str, Any]:
    return {
        "report_version": REPORT_VERSION,
        "validator_version": __version__,
        "exit_code": int(overall_exit(reports)),
        "summary": headline(reports),
        "machine": asdict(machine) if machine else None,
        "sandbox": sandbox_record(isolation),
        "submissions": [
            {
                "file": r.shown,
                "slug": r.slug,
                "verdict": r.verdict,
                "complete": r.complete,
                "summary": r.summary,
                "exit_code": int(r.exit_code),
                "stages": [
                    {
                        "stage": o.stage,
                        "status": o.status.value,
                        "reason": o.reason,
                        "seconds": round(o.seconds, 3),
                        "findings": [f.to_dict() for f in o.findings],
                    }
                    for o in r.outcomes
                ],
            }
            for r in reports
        ],
    }


def write_json(reports: Sequence[SubmissionReport], machine: Machine | None, out: IO[str],
               isolation: Isolation | None = None) -> None:
    json.dump(to_json(reports, machine, isolation), out, indent=2)
    out.write("\n")


MARKDOWN_CELL_CHARS = 2000
"""The most of one finding's message or place a Markdown cell shows (the JSON report has it whole)."""


def _cell(text: str) -> str:
    """The validator's own text (headline, stage notes) inert inside a Markdown table cell. Text a submission
    controls (file names, findings' messages) goes in a code span instead (`markdown_code`), where nothing is live."""
    text = html.escape(one_line(text, MARKDOWN_CELL_CHARS), quote=False)
    return text.replace("\\", "\\\\").replace("|", "\\|").replace("`", "'").replace("[", "\\[").replace("]", "\\]")


def to_markdown(reports: Sequence[SubmissionReport], isolation: Isolation | None = None) -> str:
    lines = [f"## kb-validate {__version__}: {_icon(reports)} {_cell(headline(reports))}", "",
             _sandbox_line(isolation), ""]
    for r in reports:
        shown = one_line(r.shown, 300).replace("`", "'")  # a code span shows < and & as written
        lines += [f"### `{shown}`: {_cell(_verdict_line(r))}", "", "| stage | status | note |", "|---|---|---|"]
        for o in r.outcomes:
            note = o.reason or (f"{len(o.errors)} error(s)" if o.errors else f"{o.seconds:.2f} s")
            lines.append(f"| {o.stage} | {STATUS_ICON[o.status]} {o.status.value} | {_cell(note)} |")
        if r.findings:
            lines += ["", "| severity | code | where | message |", "|---|---|---|---|"]
            for f in r.findings:
                where = f.location() or f.problem
                lines.append(f"| {f.severity.value} | `{f.code}` | {markdown_code(where, MARKDOWN_CELL_CHARS)} | "
                             f"{markdown_code(f.message, MARKDOWN_CELL_CHARS)} |")
        lines.append("")
    return "\n".join(lines)


def print_terminal(reports: Sequence[SubmissionReport], console: Console) -> None:
    for r in reports:
        style = VERDICT_STYLE[r.verdict] if r.exit_code != ExitCode.OK or r.complete else INCOMPLETE_STYLE
        console.print(f"[bold]{escape(printable(r.shown))}[/]  [{style}]{escape(_verdict_line(r))}[/]")
        table = Table(show_header=True, header_style="bold", box=None, pad_edge=False)
        table.add_column("stage")
        table.add_column("status")
        table.add_column("note", overflow="fold")
        for o in r.outcomes:
            note = o.reason or (f"{len(o.errors)} error(s)" if o.errors else f"{o.seconds:.2f} s")
            table.add_row(o.stage, STATUS_STYLE[o.status], escape(printable(note)))
        console.print(table)
        for f in r.findings:
            colour = "red" if f.severity == Severity.ERROR else "yellow"
            where = escape(printable(f.location() or f.problem))  # C0/C1 from file names must not reach the terminal
            message = escape(printable_block(f.message))
            console.print(f"  [{colour}]{f.severity.value}[/] [bold]{f.code}[/] {where}: {message}")
        console.print()
