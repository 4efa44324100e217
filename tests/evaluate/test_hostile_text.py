"""Text a kernel controls (its exception text, its prints) through the whole evaluation: the run ends with its
results file finished, a resume of it runs, and the terminal, the record and the Markdown summary stay intact."""

from __future__ import annotations

import dataclasses
import io
import json
import re
from pathlib import Path

import pytest
from rich.console import Console

from tests.engine_kit import context, fake_kernel, make_submission
from tests.evaluate.test_engine import options
from validator.cli import main
from validator.evaluate import stage as engine
from validator.results import records as results
from validator.results.records import Status

CONTROLS = re.compile("[\x00-\x08\x0b-\x1f\x7f-\x9f\u202a-\u202e\ud800-\udfff]")
HOSTILE_KERNEL = '''import torch


class ModelNew(torch.nn.Module):
    def forward(self, *args):
        print("\\x1b[2J\\x1b]0;owned\\x07\\u202edesrever [bold red]x[/] ![i](https://e.invalid/i.png)", flush=True)
        raise RuntimeError("\\udcff\\x00\\x1b[31m[bold red]boom[/] [l](https://e.invalid) <img src=x>")
'''


def _strict_console() -> tuple[Console, io.BytesIO]:
    raw = io.BytesIO()
    return Console(file=io.TextIOWrapper(raw, encoding="utf-8", errors="strict"), width=200), raw


@pytest.mark.slow  # two evaluations with the fake worker: about 2.5 s
def test_hostile_results_and_stderr_leave_a_finished_results_file_that_resumes(tmp_path: Path) -> None:
    kernels = {"a.py": (1, 1, "triton", fake_kernel("hostile-result")),
               "b.py": (1, 19, "triton", fake_kernel("hostile-stderr"))}
    document = make_submission(tmp_path, kernels)
    for _ in range(2):  # the second run resumes from the file the first wrote
        console, raw = _strict_console()
        engine.run_stage(context(document, dataclasses.replace(options(tmp_path), console=console)))
        console.file.flush()
        path = next((tmp_path / "results").rglob("*.json"))
        final = results.load(path)
        assert final.finished_at and {p.status for p in final.problems} == {Status.RUNTIME_ERROR}
        for problem in final.problems:
            texts = [problem.error, *(f.message for f in problem.flags)]
            assert all(len(t) <= 4000 and not CONTROLS.search(t) for t in texts), texts
        assert "\\udcff" in final.problems[0].error and "loud" in final.problems[1].error
        assert "\x1b" not in raw.getvalue().decode("utf-8")
        json.loads(path.read_text(encoding="utf-8"))


@pytest.mark.slow
def test_a_real_kernel_raising_hostile_text_ends_the_cli_run_finished(tmp_path: Path, monkeypatch) -> None:
    """`kb-validate --interpret` with the real judge: exit 1 (the kernel fails), never 3, on strict UTF-8 streams."""
    document = make_submission(tmp_path, {"k.py": (1, 19, "triton", HOSTILE_KERNEL)})
    monkeypatch.chdir(tmp_path)
    markdown = tmp_path / "summary.md"
    for directory in ("results", "cache"):
        (tmp_path / directory).mkdir()
    (out, out_raw), (err, err_raw) = _strict_console(), _strict_console()
    code = main([str(document), "--interpret", "--results-dir", str(tmp_path / "results"), "--cache-dir",
                 str(tmp_path / "cache"), "--markdown", str(markdown)], out.file, err.file)
    out.file.flush()
    err.file.flush()
    shown = (out_raw.getvalue() + err_raw.getvalue()).decode("utf-8")
    assert code == 1, shown
    assert "\x1b" not in shown and "boom" in shown
    final = results.load(next((tmp_path / "results").rglob("*.json")))
    assert final.finished_at and final.problems[0].status == Status.RUNTIME_ERROR
    assert not CONTROLS.search(final.problems[0].error) and "boom" in final.problems[0].error
    text = markdown.read_text(encoding="utf-8")
    assert not re.search(r"\]\(|!\[|<img", re.sub(r"`[^`\n]*`", "", text))
