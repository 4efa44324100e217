"""A validation report that arrives as a workflow artifact: check its shape, then render the PR comment.

The artifact of the PR check is produced by a job that ran the pull request's own code, so everything
in it is untrusted data: its shape is checked against a strict schema (types, enums, lengths, counts)
before use, and every string from it is shown inside a code span so it cannot mention people, embed
images or links, or break the table.
"""

from __future__ import annotations

import html
import re
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from jsonschema import Draft202012Validator

from validator import files
from validator.findings import ExitCode, UserError
from validator.untrusted import markdown_code, one_line, printable

MAX_ARTIFACT_BYTES = files.ARTIFACT_BYTES
TRUNCATION_NOTE = "\n\n… truncated to fit GitHub's comment limit ({shown} of {total} characters). Full report: {url}\n"

_TEXT = {"type": "string", "maxLength": 4000}
_FINDING = {
    "type": "object",
    "required": ["code", "stage", "message"],
    "properties": {
        "code": {"type": "string", "maxLength": 100},
        "stage": {"type": "string", "maxLength": 100},
        "message": _TEXT,
        "file": _TEXT,
        "json_path": _TEXT,
        "problem": {"type": "string", "maxLength": 300},
        "line": {"type": ["integer", "null"]},
        "column": {"type": ["integer", "null"]},
        "severity": {"enum": ["error", "warning", "info"]},
    },
}
_STAGE = {
    "type": "object",
    "required": ["stage", "status"],
    "properties": {
        "stage": {"type": "string", "maxLength": 100},
        "status": {"enum": ["passed", "failed", "skipped", "not_reached"]},
        "reason": _TEXT,
        "seconds": {"type": "number", "minimum": 0},
        "findings": {"type": "array", "maxItems": 2000, "items": _FINDING},
    },
}
REPORT_SCHEMA: dict[str, Any] = {
    "type": "object",
    "required": ["report_version", "exit_code", "submissions"],
    "properties": {
        "report_version": {"const": 1},
        "validator_version": {"type": "string", "maxLength": 100},
        "exit_code": {"enum": [0, 1, 2, 3, 5]},
        "machine": {"type": ["object", "null"]},
        "submissions": {
            "type": "array",
            "maxItems": 500,
            "items": {
                "type": "object",
                "required": ["file", "verdict", "exit_code", "stages"],
                "properties": {
                    "file": {"type": "string", "maxLength": 500},
                    "slug": {"type": "string", "maxLength": 200},
                    "verdict": {"enum": ["passed", "failed", "unusable", "not_fetched"]},
                    "exit_code": {"enum": [0, 1, 2, 3, 5]},
                    "stages": {"type": "array", "maxItems": 50, "items": _STAGE},
                },
            },
        },
    },
}
META_SCHEMA: dict[str, Any] = {
    "type": "object",
    "required": ["workflow", "pr", "sha"],
    "properties": {
        "workflow": {"enum": ["pr-check", "gpu-verify"]},
        "pr": {"type": "integer", "minimum": 1},
        "sha": {"type": "string", "pattern": "^[0-9a-f]{40}$"},
        "run_url": {"type": "string", "pattern": "^https://[^\\s]{1,500}$"},
        "validated": {"type": "boolean"},
    },
}
_COMMIT_LINE = re.compile(r"<!-- kb-validate-commit:([0-9a-f]{40}) -->")
STALE_PREFIX = "> ⚠️ **Stale**"
ICON = {"passed": "✅", "failed": "❌", "unusable": "⛔", "not_fetched": "📡", "skipped": "⏭️", "not_reached": "➖"}
TITLES = {"pr-check": "PR check (CPU stages)", "gpu-verify": "GPU verification"}
STATE_FOR_EXIT = {ExitCode.OK: "success", ExitCode.FAILED: "failure", ExitCode.UNUSABLE: "failure"}


@dataclass(frozen=True)
class Artifact:
    """A checked report (None when no submission changed) plus the workflow's metadata."""

    meta: dict[str, Any]
    report: dict[str, Any] | None


def read_checked(path: Path, schema: dict[str, Any], what: str) -> dict[str, Any]:
    """Load a JSON file of bounded size and check it against `schema`; a bad one is a UserError."""
    try:
        data = files.read_json(path, MAX_ARTIFACT_BYTES, expected=what)
    except files.JsonError as exc:
        raise UserError(f"cannot read {what}: {printable(exc)}") from None
    errors = sorted(Draft202012Validator(schema).iter_errors(data), key=lambda e: list(e.absolute_path))
    if errors:
        where = "$" + "".join(f"[{p!r}]" if isinstance(p, str) else f"[{p}]" for p in errors[0].absolute_path)
        raise UserError(f"{path}: {what} is malformed at {where}: {errors[0].message[:200]}")
    return data


code = markdown_code
"""Untrusted text as an inline code span that it cannot close (`untrusted.markdown_code`)."""


def html_code(text: object, limit: int = 300) -> str:
    """Untrusted text inside an HTML element (GitHub does not read Markdown there): escaped, in <code>."""
    flat = one_line(text, limit)
    return f"<code>{html.escape(flat, quote=True)}</code>" if flat else ""


def commit_line(sha: str) -> str:
    """The GPU comment's second line: which commit its result is for (the bot writes it; sha is checked hex)."""
    return f"<!-- kb-validate-commit:{sha} -->"


def commit_of(body: str) -> str | None:
    """The commit a GPU comment reports on, from its second line."""
    lines = body.split("\n", 2)
    match = _COMMIT_LINE.fullmatch(lines[1].strip()) if len(lines) > 1 else None
    return match.group(1) if match else None


def mark_stale(body: str, head: str) -> str:
    """The GPU comment with a banner (replacing an older one) saying the pull request moved past its commit."""
    lines = body.split("\n")
    verified = commit_of(body) or "?"
    banner = (f"> ⚠️ **Stale**: this GPU result is for commit `{verified[:12]}`; the pull request's head is now "
              f"`{head[:12]}`, which has not been verified on the GPU. A maintainer must start gpu-verify for it.")
    kept = [line for line in lines[2:] if not line.startswith(STALE_PREFIX)]
    return "\n".join([*lines[:2], banner, *kept])


def status_state(artifact: Artifact) -> str:
    """Commit status: a run that did not finish is an error; no report (nothing to validate) a success."""
    if not artifact.meta.get("validated", True):
        return "error"
    if artifact.report is None:
        return "success"
    return STATE_FOR_EXIT.get(ExitCode(artifact.report["exit_code"]), "error")


def _first_error(sub: dict[str, Any]) -> str:
    for stage in sub["stages"]:
        for finding in stage.get("findings", []):
            if finding.get("severity", "error") == "error":
                return f"{code(finding['code'], 60)} {code(finding['message'], 160)}"
    return ""


def _details(sub: dict[str, Any]) -> list[str]:
    summary = f"<details><summary>{html_code(sub['file'], 120)}: stages</summary>"
    lines = ["", summary, "", "| stage | status | note |"]
    lines.append("|---|---|---|")
    for stage in sub["stages"]:
        note = stage.get("reason") or f"{stage.get('seconds', 0):.2f} s"
        lines.append(f"| {code(stage['stage'], 40)} | {ICON[stage['status']]} {stage['status']} | {code(note)} |")
    findings = [f for s in sub["stages"] for f in s.get("findings", [])]
    if findings:
        lines += ["", "| severity | code | where | message |", "|---|---|---|---|"]
        for f in findings:
            where = f.get("file", "") or f.get("problem", "")
            if f.get("json_path"):
                where = f"{where} {f['json_path']}".strip()
            severity = f.get("severity", "error")
            lines.append(f"| {severity} | {code(f['code'], 60)} | {code(where)} | {code(f['message'])} |")
    lines += ["", "</details>"]
    return lines


def render(artifact: Artifact, marker: str, run_url: str) -> str:
    """The sticky comment: a headline, one row per submission, then collapsed per-stage detail."""
    meta, report = artifact.meta, artifact.report
    title = TITLES[meta["workflow"]]
    sha = meta["sha"]
    lines = [marker, commit_line(sha)] if meta["workflow"] == "gpu-verify" else [marker]
    if not meta.get("validated", True):
        lines += [f"## {title}: ⚠️ did not finish", "", f"The run for commit `{sha[:12]}` stopped before it"
                  " validated anything (set-up or install failed); see the workflow run."]
    elif report is None:
        lines += [f"## {title}: no submission changed", "", f"Commit `{sha[:12]}` changes no file under submissions/."]
    else:
        state = status_state(artifact)
        headline = {"success": "✅ passed", "failure": "❌ failed"}.get(state, "⚠️ validator error")
        version = code(report.get("validator_version", "?"), 40)
        lines += [f"## {title}: {headline}", "", f"Commit `{sha[:12]}`, kb-validate {version}."]
        lines += ["", "| submission | verdict | first error |", "|---|---|---|"]
        for sub in report["submissions"]:
            verdict = f"{ICON[sub['verdict']]} {sub['verdict']}"
            lines.append(f"| {code(sub['file'], 120)} | {verdict} | {_first_error(sub)} |")
        for sub in report["submissions"]:
            lines += _details(sub)
    if run_url:
        lines += ["", f"[Workflow run and full report]({run_url})"]
    return "\n".join(lines) + "\n"


def fit_comment(body: str, limit: int, overflow_url: str) -> str:
    """Cut `body` at a line boundary so that it, plus a note linking the full report, fits in `limit`."""
    if len(body) <= limit:
        return body
    note = TRUNCATION_NOTE.format(shown="{shown}", total=len(body), url=overflow_url or "(see the workflow run)")
    room = limit - len(note) - 20
    cut = body.rfind("\n", 0, room)
    kept = body[: cut if cut > 0 else room]
    if kept.count("<details>") > kept.count("</details>"):
        kept += "\n\n</details>"
    return kept + note.format(shown=len(kept))
