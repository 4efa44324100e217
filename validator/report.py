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
from validator.machine import Machine
from validator.pipeline import SubmissionReport
from validator.untrusted import CONTROL, printable, printable_block

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
VERDICT_STYLE = {"passed": "bold green", "failed": "bold red", "unusable": "bold red"}


def overall_exit(reports: Sequence[SubmissionReport]) -> ExitCode:
    """Unusable input outranks a failed check, which outranks success."""
    return max((r.exit_code for r in reports), default=ExitCode.OK)


def to_json(reports: Sequence[SubmissionReport], machine: Machine | None) -> dict[str, Any]:
    return {
        "report_version": REPORT_VERSION,
        "validator_version": __version__,
        "exit_code": int(overall_exit(reports)),
        "machine": asdict(machine) if machine else None,
        "submissions": [
            {
                "file": r.shown,
                "slug": r.slug,
                "verdict": r.verdict,
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


def write_json(reports: Sequence[SubmissionReport], machine: Machine | None, out: IO[str]) -> None:
    json.dump(to_json(reports, machine), out, indent=2)
    out.write("\n")


def _cell(text: str) -> str:
    """Make text (file names and messages can come from a submission) inert inside a Markdown table cell."""
    text = html.escape(" ".join(CONTROL.sub("", text).split()), quote=False)
    return text.replace("\\", "\\\\").replace("|", "\\|").replace("`", "'")


def to_markdown(reports: Sequence[SubmissionReport]) -> str:
    verdict = {ExitCode.OK: "✅ all checks passed", ExitCode.FAILED: "❌ a submission fails a check"}.get(
        overall_exit(reports), "❌ unusable input"
    )
    lines = [f"## kb-validate {__version__}: {verdict}", ""]
    for r in reports:
        shown = " ".join(CONTROL.sub("", r.shown).split()).replace("`", "'")  # a code span shows < and & as written
        lines += [f"### `{shown}`: {r.verdict}", "", "| stage | status | note |", "|---|---|---|"]
        for o in r.outcomes:
            note = o.reason or (f"{len(o.errors)} error(s)" if o.errors else f"{o.seconds:.2f} s")
            lines.append(f"| {o.stage} | {STATUS_ICON[o.status]} {o.status.value} | {_cell(note)} |")
        if r.findings:
            lines += ["", "| severity | code | where | message |", "|---|---|---|---|"]
            for f in r.findings:
                where = f.location() or f.problem
                lines.append(f"| {f.severity.value} | `{f.code}` | {_cell(where)} | {_cell(f.message)} |")
        lines.append("")
    return "\n".join(lines)


def print_terminal(reports: Sequence[SubmissionReport], console: Console) -> None:
    for r in reports:
        console.print(f"[bold]{escape(printable(r.shown))}[/]  [{VERDICT_STYLE[r.verdict]}]{r.verdict}[/]")
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
