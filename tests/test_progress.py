"""Progress: a bar on an interactive terminal; in logs (pipes, CI=true) a counter stays quiet."""

from __future__ import annotations

import io

import pytest
from rich.console import Console

from validator import progress


def console(terminal: bool) -> tuple[Console, io.StringIO]:
    buffer = io.StringIO()
    return Console(file=buffer, force_terminal=terminal, width=100, no_color=True), buffer


def count_to(target: Console, total: int) -> None:
    with progress.counter(target, total, "checking problems") as advance:
        for i in range(total):
            advance(f"problem {i}")


def test_off_a_terminal_a_quick_counter_prints_one_closing_line(monkeypatch):
    monkeypatch.delenv("CI", raising=False)
    target, buffer = console(terminal=False)
    count_to(target, 250)
    lines = buffer.getvalue().splitlines()
    assert len(lines) == 1
    assert lines[0].startswith("checking problems: 250/250 (")


def test_off_a_terminal_a_slow_counter_says_how_far_it_got_between(monkeypatch):
    monkeypatch.delenv("CI", raising=False)
    monkeypatch.setattr(progress, "HEARTBEAT_S", 0.0)
    target, buffer = console(terminal=False)
    count_to(target, 3)
    assert [line.split(" (")[0] for line in buffer.getvalue().splitlines()] == [
        "checking problems: 1/3", "checking problems: 2/3", "checking problems: 3/3"]


def test_a_log_line_names_the_slowest_item_finished_since_the_last_one(monkeypatch):
    """A warm-up cut off by a time limit leaves only its log: which problems made its tail must be in it."""
    monkeypatch.delenv("CI", raising=False)
    clock = iter([0.0, 0.0, 1.0, 2.0, 40.0, 41.0, 42.0, 43.0, 44.0, 45.0])
    monkeypatch.setattr(progress.time, "monotonic", lambda: next(clock))
    target, buffer = console(terminal=False)
    with progress.counter(target, 5, "compile warm-up") as advance:
        for note, seconds in (("level1/1: warm", 3.0), ("level3/10: warm", 98.5), ("level2/1: warm", 12.0),
                              ("level1/2: compiled", None), ("level1/3: warm", 1.0)):
            advance(note, seconds)
    lines = buffer.getvalue().splitlines()
    assert lines[0].endswith("slowest since: level3/10: warm")
    assert lines[1].endswith("slowest since: level1/3: warm") and len(lines) == 2


@pytest.mark.parametrize("ci", ["true", "1"])
def test_ci_means_a_log_even_on_a_terminal(monkeypatch, ci):
    monkeypatch.setenv("CI", ci)
    target, buffer = console(terminal=True)
    assert not progress.live(target)
    count_to(target, 5)
    assert buffer.getvalue().splitlines()[-1].startswith("checking problems: 5/5")
    assert "━" not in buffer.getvalue()


def test_an_interactive_terminal_gets_a_bar(monkeypatch):
    monkeypatch.delenv("CI", raising=False)
    target, buffer = console(terminal=True)
    assert progress.live(target)
    count_to(target, 5)
    assert "5/5" in buffer.getvalue()
    assert "━" in buffer.getvalue()


def test_no_console_and_nothing_to_count_print_nothing(monkeypatch):
    monkeypatch.delenv("CI", raising=False)
    count_to(None, 3)
    target, buffer = console(terminal=False)
    count_to(target, 0)
    with progress.working(target, "reading"):
        pass
    assert buffer.getvalue() == ""


def test_the_catalogue_check_logs_one_progress_line_not_one_per_problem(cli, monkeypatch):
    monkeypatch.delenv("CI", raising=False)
    result = cli("catalogue", "check", "--reduced", "--only", "level1/19_ReLU", "level1/20_LeakyReLU")
    assert result.exit_code == 0, result.output
    progress_lines = [line for line in result.stderr.splitlines() if line.strip()]
    assert len(progress_lines) == 1 and progress_lines[0].startswith("checking problems (reduced): 2/2")
    assert "2 problems: 2 passed" in result.stdout
