"""Text from submissions reaches terminals and logs without control characters: nothing it holds can move the
cursor, retitle the terminal, reorder what is shown (bidi) or start a GitHub workflow command on a new line."""

from __future__ import annotations

import io
import re

from rich.console import Console

from validator.findings import ExitCode, Finding, StageOutcome, StageStatus
from validator.pipeline import SubmissionReport
from validator.report import print_terminal, to_markdown
from validator.untrusted import printable, printable_block

HOSTILE = "x\x1b]0;owned\x07\x1b[2J\x9b31m\u202edesrever\u2066\r\n::error file=a::forged\n::add-mask::x"


def _report() -> SubmissionReport:
    finding = Finding("kernel-syntax", "policy", HOSTILE, file=f"submissions/{HOSTILE}.py")
    outcome = StageOutcome("policy", StageStatus.FAILED, reason=HOSTILE, findings=(finding,))
    return SubmissionReport(HOSTILE, "s", (outcome,), ExitCode.FAILED)


def test_the_terminal_report_carries_no_control_character_and_starts_no_line_with_a_workflow_command():
    buffer = io.StringIO()
    print_terminal([_report()], Console(file=buffer, width=300, highlight=False, soft_wrap=True))
    text = buffer.getvalue()
    assert not [c for c in text if (ord(c) < 32 and c != "\n") or 0x7F <= ord(c) <= 0x9F or c in "\u202e\u2066"]
    assert not [line for line in text.splitlines() if line.lstrip().startswith("::")]
    assert "desrever" in text and "forged" in text  # shown, not dropped


def test_the_markdown_report_escapes_html_and_controls():
    text = to_markdown([_report()])
    assert "\x1b" not in text and "\u202e" not in text and "\r" not in text
    assert not [line for line in text.splitlines() if line.startswith("::")]
    finding = Finding("x", "policy", "<img src=x onerror=alert(1)>", file="<b>f</b>.py")
    outcome = StageOutcome("policy", StageStatus.FAILED, findings=(finding,))
    hostile_html = to_markdown([SubmissionReport("<img src=y>`.json", "s", (outcome,), ExitCode.FAILED)])
    outside_code_spans = re.sub(r"`[^`\n]*`", "", hostile_html)
    assert "<img" not in outside_code_spans and "<b>" not in outside_code_spans
    assert "&lt;img src=x" in hostile_html


def test_printable_keeps_one_line_and_printable_block_indents_every_further_line():
    assert printable("a\nb\x1bc") == "a\\u000ab\\u001bc"
    assert printable_block("one\n::error::x\r\ntwo\x07") == "one\n    | ::error::x\n    | two"
