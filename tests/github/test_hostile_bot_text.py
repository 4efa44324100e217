"""The bot on hostile text: lone surrogates, NUL, ANSI and bidi, rich markup and Markdown links, images and HTML in
every string of a report artifact, a results file and a changed file's name. No run ends in an internal error (3),
nothing posted or printed holds what UTF-8 cannot encode, and no link, image or HTML of that text is live."""

from __future__ import annotations

import json
import os
import re
from pathlib import Path

import pytest

from tests.fake_github import FakeGitHub
from tests.github.test_github_bot import _git, bot, fake, repo, report, write_artifact  # noqa: F401  (fixtures)
from validator import commands
from validator.github.client import BotExit
from validator.results.records import Environment, ProblemResult, ResultsFile, Status, save

FUZZ = ("\udcff", "\x00", "\x1b[2J\x1b]0;owned\x07", "\u202edesrever", "[bold red]x[/]", "[l](https://e.invalid)",
        "![i](https://e.invalid/i.png)", "<img src=x>", "</summary><h2>x</h2>", "`x|y`", "@maintainers")
HOSTILE = " ".join(FUZZ)
LIVE = re.compile(r"\]\(|!\[|<(?!/?(?:details|summary|code)>|!-- kb-validate)[a-z/!]|https?://|@maintainers")
CONTROLS = re.compile("[\x00-\x08\x0b-\x1f\x7f-\x9f\u202a-\u202e\ud800-\udfff]")


def _clean(text: str) -> None:
    """Encodable, and free of controls."""
    text.encode("utf-8")
    assert not CONTROLS.search(text), text


def _inert(markdown: str) -> None:
    """Clean, and nothing live outside code spans (HTML code elements count as code)."""
    _clean(markdown)
    outside = re.sub(r"<code>[^<]*</code>", "", re.sub(r"`[^`\n]*`", "", markdown))
    assert not LIVE.search(outside), outside


def test_a_hostile_report_artifact_is_posted_inert(fake: FakeGitHub, tmp_path: Path) -> None:  # noqa: F811
    fake.add_pull(7, "alice", "a" * 40)
    rep = report(1, message=HOSTILE, n_findings=2)
    submission = rep["submissions"][0]
    submission["file"] = submission["slug"] = HOSTILE
    stage = submission["stages"][0]
    stage["reason"], stage["stage"] = HOSTILE, HOSTILE[:90]
    for finding in stage["findings"]:
        finding.update(code=HOSTILE[:90], file=HOSTILE, json_path=HOSTILE, problem=HOSTILE)
    rep["validator_version"] = HOSTILE[:90]
    code, out, err = bot("comment", *write_artifact(tmp_path, rep))
    assert code == BotExit.OK, err
    _clean(out + err)
    _inert(fake.comments[7][0]["body"])


def test_a_hostile_results_file_makes_an_inert_results_body(tmp_path: Path) -> None:
    environment = Environment(HOSTILE, "", "", "", "", "", "", "")
    problem = ProblemResult(HOSTILE, 1, 1, HOSTILE, HOSTILE, HOSTILE, HOSTILE, Status.RUNTIME_ERROR, error=HOSTILE)
    save(ResultsFile(HOSTILE, HOSTILE, "0" * 64, HOSTILE, environment, {}, (problem,), "", ""),
         tmp_path / "results" / "hw" / "s.json")
    failed = tmp_path / "failed.txt"
    failed.write_text(f"results/hw/x.json: {HOSTILE}\n".encode("utf-8", "surrogateescape").decode("utf-8", "replace"))
    code, out, err = bot("results-body", "--results-dir", str(tmp_path / "results"), "--failed", str(failed))
    assert code == BotExit.OK, err
    _inert(out)
    _clean(err)


def test_a_file_name_that_is_not_utf8_is_listed_not_fatal(monkeypatch: pytest.MonkeyPatch, repo: Path) -> None:  # noqa: F811
    monkeypatch.setitem(commands.VERBS, "bot", "validator.commands.bot")
    monkeypatch.delenv("GITHUB_TOKEN", raising=False)
    base = _git(repo, "rev-parse", "HEAD")
    (repo / "submissions/s").mkdir(parents=True)
    (repo / "submissions/s.json").write_text("{}")
    (repo / "submissions/s" / os.fsdecode(b"\xff\x1b[2J\xe2\x80\xae.py")).write_text("x = 1\n")  # not UTF-8
    _git(repo, "add", ".")
    _git(repo, "commit", "-q", "-m", "add")
    for extra in ((), ("-z",), ("--submissions",)):
        code, out, err = bot("changed-files", "--git-diff", base, "HEAD", "--repo-dir", str(repo), *extra)
        assert code == BotExit.OK, err
        out.encode("utf-8")
        if extra != ("-z",):
            _clean(out + err)
    assert "submissions/s.json" in out
    assert json.dumps(out)
