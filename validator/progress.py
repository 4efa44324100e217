"""What a long run shows on the terminal: a progress bar and a live table, and the final table.

On a terminal the bar and table redraw in place. Elsewhere (pipes, and CI logs, where CI is set) a
counter stays quiet: a line at most every HEARTBEAT_S while it runs and one when it ends; the
evaluation still prints one line per problem, since those lines are its results. Without a console
(tests, library use) nothing is printed.
"""

from __future__ import annotations

import contextlib
import os
import threading
import time
from collections.abc import Iterator, Sequence
from typing import Protocol

from rich.console import Console, Group
from rich.live import Live
from rich.markup import escape
from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeElapsedColumn
from rich.table import Table

from validator.protocol import PROTOCOL
from validator.results.records import ProblemResult, Status
from validator.untrusted import printable

STATUS_STYLE = {
    Status.CORRECT: "green", Status.NEEDS_REVIEW: "yellow", Status.NOT_RUN: "dim",
}


HEARTBEAT_S = 30.0
"""Off a terminal, how often a running counter may say how far it got."""


def live(console: Console | None) -> bool:
    """Redraw in place only on an interactive terminal; CI=true means a log even behind a pseudo-terminal."""
    return console is not None and console.is_terminal and os.environ.get("CI", "").lower() not in ("true", "1")


def _bar(console: Console) -> Progress:
    return Progress(
        TextColumn("{task.description}"), BarColumn(), MofNCompleteColumn(), TimeElapsedColumn(),
        console=console, transient=False,
    )


class Advance(Protocol):
    def __call__(self, note: str, seconds: float | None = None) -> None: ...


@contextlib.contextmanager
def counter(console: Console | None, total: int, label: str) -> Iterator[Advance]:
    """A bar for `total` items; yields `advance(note, seconds=None)`, safe to call from several threads. In logs,
    the item with the most `seconds` since the last line is named on it."""
    if console is None or total == 0:
        yield lambda note, seconds=None: None
        return
    if not live(console):
        with _quiet_counter(console, total, label) as advance:
            yield advance
        return
    bar = _bar(console)
    task = bar.add_task(label, total=total)
    with bar:
        yield lambda note, seconds=None: bar.advance(task)


@contextlib.contextmanager
def _quiet_counter(console: Console, total: int, label: str) -> Iterator[Advance]:
    """For logs: `label: done/total (s)` at most every HEARTBEAT_S, with the slowest item finished since the last
    line (a warm-up's tail shows which problems make it), and once at the end."""
    lock = threading.Lock()
    started = time.monotonic()
    state: dict = {"done": 0, "said": started, "slowest": None}  # slowest: (seconds, note) since the last line

    def say() -> None:
        slowest = f"; slowest since: {state['slowest'][1]}" if state["slowest"] else ""
        console.print(f"{label}: {state['done']}/{total} ({time.monotonic() - started:.0f} s){slowest}",
                      highlight=False, markup=False)
        state["slowest"] = None

    def advance(note: str, seconds: float | None = None) -> None:
        with lock:
            state["done"] += 1
            if seconds is not None and (state["slowest"] is None or seconds >= state["slowest"][0]):
                state["slowest"] = (seconds, note)
            if time.monotonic() - state["said"] >= HEARTBEAT_S and state["done"] < total:
                state["said"] = time.monotonic()
                say()

    yield advance
    say()


@contextlib.contextmanager
def working(console: Console | None, what: str) -> Iterator[None]:
    """A spinner for one step of unknown length, on an interactive terminal only."""
    if not live(console):
        yield
        return
    assert console is not None
    with console.status(what):
        yield


def _speedup(result: ProblemResult) -> str:
    if result.speedup is None:
        return ""
    if result.speedup_ci:
        return f"{result.speedup:.2f}x [{result.speedup_ci[0]:.2f}, {result.speedup_ci[1]:.2f}]"
    return f"{result.speedup:.2f}x"


def _ms(result: ProblemResult, which: str) -> str:
    timing = getattr(result, which)
    return f"{timing.median:.3f}" if timing else ""


def _first_line(error: str, limit: int) -> str:
    """A result's error as one line of a terminal: a kernel's exception text may hold escapes, controls and lone
    surrogates (which no UTF-8 terminal can take), from this run or from a results file it resumes."""
    return printable(error.splitlines()[0][:limit]) if error.strip() else ""


def rule_verdicts(result: ProblemResult) -> str:
    """For a kernel the strict rule found incorrect that KernelBench's rule (the headline, `upstream`, which ranks)
    accepts, both verdicts: it must not read as plainly `incorrect`."""
    if result.status != Status.INCORRECT or result.upstream is None or not result.upstream.correct:
        return ""
    tolerance = f"{PROTOCOL.upstream_tolerance.atol:.0e}".replace("e-0", "e-")
    return f"correct at KernelBench's rule ({tolerance}), incorrect at the strict rule"


def _note(result: ProblemResult) -> str:
    detail = _first_line(result.error, 200) or ", ".join(f.code for f in result.flags)
    return "; ".join(part for part in (rule_verdicts(result), detail) if part)


def results_table(results: Sequence[ProblemResult], title: str = "") -> Group:
    """One row per problem, the table a run ends with and the body of the live view, then each problem's note on a
    line of its own. Cells that are names or numbers never wrap (a key folded at 80 columns reads as two); the
    notes, free text, wrap at word boundaries over the terminal's whole width; timing columns only when any was
    timed (an `--interpret` run times nothing)."""
    table = Table(title=title or None, show_header=True, header_style="bold", box=None, pad_edge=False)
    timed = any(r.speedup is not None or r.reference or r.kernel for r in results)
    columns = ("problem", "backend", "status", *(("ref ms", "kernel ms", "speedup [95% CI]") if timed else ()))
    for column in columns:
        table.add_column(column, no_wrap=True)
    notes = []
    for result in results:
        style = STATUS_STYLE.get(result.status, "red")
        status = f"[{style}]{result.status.value}[/]" + ("*" if rule_verdicts(result) else "")
        timing = (_ms(result, "reference"), _ms(result, "kernel"), _speedup(result)) if timed else ()
        table.add_row(escape(printable(result.key)), result.backend, status, *timing)
        if note := _note(result):
            notes.append(f"  [bold]{escape(printable(result.key))}[/]: {escape(printable(note))}")
    return Group(table, *notes)


class EvaluationView:
    """Live view of the evaluation: a bar, what each GPU runs now, and the finished rows."""

    def __init__(self, console: Console | None, total: int) -> None:
        self.console, self.total = console, total
        self.lock = threading.Lock()
        self.finished: list[ProblemResult] = []
        self.running: dict[str, str] = {}
        self.live: Live | None = None
        self.bar: Progress | None = None

    def __enter__(self) -> EvaluationView:
        if live(self.console) and self.total:
            self.bar = _bar(self.console)
            self.task = self.bar.add_task("evaluating", total=self.total)
            self.live = Live(self._render(), console=self.console, refresh_per_second=4, transient=True)
            self.live.__enter__()
        return self

    def __exit__(self, *exc: object) -> None:
        if self.live is not None:
            self.live.__exit__(None, None, None)

    def _render(self) -> Group:
        running = "\n".join(f"  {device}: {escape(key)}" for key, device in sorted(self.running.items()))
        parts = [self.bar] if self.bar else []
        return Group(*parts, running or "", results_table(self.finished[-15:]))

    def started(self, key: str, device: str) -> None:
        with self.lock:
            self.running[key] = device
            if self.live:
                self.live.update(self._render())

    def done(self, result: ProblemResult) -> None:
        with self.lock:
            self.running.pop(result.key, None)
            self.finished.append(result)
            if self.live and self.bar:
                self.bar.advance(self.task)
                self.live.update(self._render())
            elif self.console is not None:
                count = len(self.finished)
                detail = _speedup(result) or rule_verdicts(result) or _first_line(result.error, 120)
                self.console.print(
                    f"evaluate [{count}/{self.total}] {escape(printable(result.key))}: {result.status.value} "
                    f"{escape(detail)}",
                    highlight=False,
                )
