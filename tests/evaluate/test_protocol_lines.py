"""The redesign's bar, "correctness + timing <= 800 lines", held on the real tree, and bench/protocol_lines.py, the
count of code lines (no blank lines, comments or docstrings) that holds it."""

from __future__ import annotations

import subprocess
import sys
import textwrap

from tests.paths import REPO, bench_module

BAR = 800


def _counter():
    return bench_module("protocol_lines")


def test_correctness_and_timing_stay_within_the_bar() -> None:
    rows = _counter().count()
    assert [name for name, _, _ in rows] == list(_counter().FILES)
    assert all(0 < code < total for _, code, total in rows)
    total = sum(code for _, code, _ in rows)
    assert total <= BAR, f"{total} code lines in correctness and timing, over the bar of {BAR}: bench/protocol_lines.py"


def test_blank_lines_comments_and_docstrings_are_not_code() -> None:
    source = textwrap.dedent('''\
        """A module's docstring,

        over three lines."""

        # a comment
        import os  # a comment after code

        LIMIT = 3
        """An attribute's docstring."""


        def f(x: int) -> str:
            """A function's docstring."""
            text = """a string that is no docstring,
            # nor is this a comment"""
            return text + "# not a comment" + os.sep


        class C:
            """A class's docstring."""

            def g(self) -> None:
                \'\'\'Quoted otherwise.\'\'\'
                "a string statement after another is no docstring"
    ''')
    # import, LIMIT, def f, text (two lines), return, class C, def g, the last string statement
    assert _counter().code_lines(source) == 9


def test_the_counter_prints_each_file_and_exits_1_only_over_the_bar_it_is_given() -> None:
    script = [sys.executable, str(REPO / "bench" / "protocol_lines.py")]
    total = sum(code for _, code, _ in _counter().count())
    at = subprocess.run([*script, "--max", str(total)], capture_output=True, text=True, timeout=60, check=False)
    assert at.returncode == 0, at.stderr
    table = at.stdout.splitlines()
    assert [line.split()[0] for line in table[1:-1]] == list(_counter().FILES)
    assert table[-1].split()[:2] == ["total", str(total)]
    over = subprocess.run([*script, "--max", str(total - 1)], capture_output=True, text=True, timeout=60, check=False)
    assert over.returncode == 1 and f"over the bar of {total - 1}" in over.stderr
