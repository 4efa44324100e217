"""Text from submissions reaches terminals and logs without control characters: nothing it holds can move the
cursor, retitle the terminal, reorder what is shown (bidi) or start a GitHub workflow command on a new line; it
enters result records bounded, inert and encodable; and in Markdown it makes no link, image or HTML."""

from __future__ import annotations

import dataclasses
import io
import json
import re
from pathlib import Path

from rich.console import Console

from validator.evaluate.jobs import Job
from validator.evaluate.scheduler import WorkItem, to_result
from validator.findings import ExitCode, Finding, StageOutcome, StageStatus
from validator.isolation.sandbox import SandboxResult
from validator.pipeline import SubmissionReport
from validator.progress import EvaluationView, results_table
from validator.report import print_terminal, to_markdown
from validator.results.records import (
    Environment,
    Flag,
    ProblemResult,
    ResultsFile,
    Status,
    problem_from_dict,
    to_dict,
    with_safe_text,
)
from validator.untrusted import RECORD_CHARS, markdown_code, printable, printable_block, record_text

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
    assert "`<img src=x onerror=alert(1)>`" in hostile_html  # shown as written, inside a code span


def test_printable_keeps_one_line_and_printable_block_indents_every_further_line():
    assert printable("a\nb\x1bc") == "a\\u000ab\\u001bc"
    assert printable_block("one\n::error::x\r\ntwo\x07") == "one\n    | ::error::x\n    | two"


# Lone surrogates (an undecodable file name, `"\udcff"` in JSON), NUL, ANSI and OSC escapes, bidi overrides, rich
# markup and Markdown links, images and HTML: everything text a submission controls may hold.
FUZZ = ("\udcff", "\ud800x", "\x00", "\x1b[2J\x1b[31m", "\x1b]0;owned\x07", "\u202edesrever", "[bold red]x[/]",
        "[l](https://e.invalid)", "![i](https://e.invalid/i.png)", "<img src=x>", "https://e.invalid", "`x|y`")
LIVE_MARKDOWN = re.compile(r"\]\(|!\[|<[a-z/]|https?://")


def _strict_console() -> tuple[Console, io.BytesIO]:
    """A console on a UTF-8 stream that raises on what it cannot encode, as a real terminal or pipe does."""
    raw = io.BytesIO()
    return Console(file=io.TextIOWrapper(raw, encoding="utf-8", errors="strict"), width=200), raw


def _result(error: str, flags: tuple[Flag, ...] = ()) -> ProblemResult:
    return ProblemResult("level1/19_ReLU", 1, 19, "0" * 64, "k.py", "1" * 64, "triton", Status.RUNTIME_ERROR,
                         error=error, flags=flags)


def _item(tmp_path: Path) -> WorkItem:
    job = Job("level1/19_ReLU", 1, 19, str(tmp_path / "p.py"), "0" * 64, str(tmp_path / "k.py"), "1" * 64, "triton",
              str(tmp_path), 1, {})
    return WorkItem(job, "k.py")


def _outside_code_spans(markdown: str) -> str:
    return re.sub(r"`[^`\n]*`", "", markdown)


def test_record_text_escapes_surrogates_and_controls_bounds_the_text_and_is_idempotent():
    assert record_text("a\udcff\x1b[31m\u202e\r\nb\tc") == "a\\udcff\\u001b[31m\\u202e\nb\tc"
    long = "head " + "x" * 20_000 + " tail\x00"
    kept = record_text(long)
    assert len(kept) <= RECORD_CHARS and kept.startswith("head ") and kept.endswith(" tail\\u0000")
    assert "characters cut" in kept and record_text(kept) == kept
    for text in FUZZ:
        kept = record_text(text * 3)
        kept.encode("utf-8")
        assert not re.search("[\x00-\x08\x0b-\x1f\x7f-\x9f\u202a-\u202e]", kept)


def test_a_kernel_exception_with_a_lone_surrogate_is_printed_and_stored(tmp_path: Path):
    """Finding 11: `raise RuntimeError("\\udcff")` in a kernel made the progress line raise UnicodeEncodeError (exit 3,
    no `finished_at`, and the same crash on every resume, which prints the stored result again)."""
    console, raw = _strict_console()
    hostile = _result("".join(FUZZ), (Flag("kernel-raised", "".join(FUZZ)),))
    with EvaluationView(console, 2) as view:
        view.done(hostile)  # a result straight from a results file written before text was made safe
        view.done(with_safe_text(hostile))
    console.print(results_table([hostile]))
    console.file.flush()
    shown = raw.getvalue().decode("utf-8")
    assert "\\udcff" in shown and "\x1b[2J" not in shown and "\u202e" not in shown and "[bold red]x[/]" in shown
    stored = json.dumps(dataclasses.asdict(with_safe_text(hostile)), ensure_ascii=False)  # as a UTF-8 file holds it
    assert stored.encode("utf-8") and "\\udcff" in stored and "\x1b" not in stored
    assert problem_from_dict(json.loads(stored)).error == with_safe_text(hostile).error


def test_runner_stderr_reaches_a_result_bounded_and_sanitised(tmp_path: Path):
    """Finding 10: a crashed runner's stderr and a worker's own error text were published raw in `error`."""
    loud = "\ufffd\x00\x1b[31m\u202e[bold]loud[/] ![i](https://e.invalid/i.png)\n" * 5000
    crashed = SandboxResult(1, False, 1.0, "", loud, True, "test")
    result = to_result(_item(tmp_path), crashed, tmp_path / "absent.json", 10.0)
    assert result.status == Status.RUNTIME_ERROR and "loud" in result.error
    assert len(result.error) <= RECORD_CHARS and not re.search("[\x00-\x08\x0b-\x1f\x7f-\x9f\u202e]", result.error)
    out = tmp_path / "out.json"
    written = to_dict(_results_file_of(_result(loud * 2, (Flag("x", loud),))))["problems"][0]
    out.write_text(json.dumps(written))
    result = to_result(_item(tmp_path), SandboxResult(0, False, 1.0, "", "", True, "test"), out, 10.0)
    assert len(result.error) <= RECORD_CHARS and "\x1b" not in result.error and "\x1b" not in result.flags[0].message
    assert result.upstream is None or "\x1b" not in result.upstream.error


def _results_file_of(result: ProblemResult) -> ResultsFile:
    environment = Environment("cpu", "", "", "", "", "", "", "")
    return ResultsFile("s", "n", "0" * 64, "cpu", environment, {}, (result,), "", "")


def test_markdown_from_submission_text_has_no_live_link_image_or_html():
    """Finding 7: a link or image in a submission's name, slug or file (quoted in a finding) was live in the job
    summary; now every text a submission controls is in a code span, where GitHub shows it as written."""
    for text in FUZZ:
        finding = Finding("schema-enum", "schema", f"{text} is not one of the methods",
                          file=f"submissions/{text}.json", json_path=f"$.kernels[{text}]")
        outcome = StageOutcome("schema", StageStatus.FAILED, findings=(finding,))
        markdown = to_markdown([SubmissionReport(f"submissions/{text}.json", text, (outcome,), ExitCode.UNUSABLE)])
        markdown.encode("utf-8")
        assert not LIVE_MARKDOWN.search(_outside_code_spans(markdown)), markdown
        assert not [c for c in markdown if c in "\x00\x1b\x07\u202e"]
    assert markdown_code("[l](https://e.invalid) `x` | \udcff") == "`[l](https://e.invalid) 'x' \\| \\udcff`"
