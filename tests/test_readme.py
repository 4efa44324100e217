"""Every README command that needs no GPU works as written, in a temporary clone of the repository.

A fenced `bash` block is run line by line unless an HTML comment right above it says
`<!-- readme-test: skip (why) -->` (setting up the environment the test runs in, the test suite itself,
a sweep the slow tests already make). The clone gets its own virtual environment that sees the installed
packages, so the README's `pip install -e` installs the clone there and never touches the environment
running the tests; the installed packages' commands (`mkdocs`) get launchers in it, as an install into
the environment itself would give them, so they import the clone's code and not the environment's.
"""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import sys
from dataclasses import dataclass
from importlib.metadata import entry_points
from pathlib import Path

import pytest

from tests.conftest import REPO

BLOCK = re.compile(r"(?:<!-- readme-test: skip (?P<why>[^\n]*?) -->\n)?```bash\n(?P<body>.*?)```", re.S)
SETUP_LINE = ('pip install -e ".[dev]" && kb-validate submissions/kernelbench-team-examples.json'
              " && mkdocs build --strict")


@dataclass(frozen=True)
class Command:
    line: str
    skip: str
    """Why the test does not run it; empty when it does."""


def readme_commands(text: str) -> list[Command]:
    """The commands of every fenced bash block, in order; a line ending in a backslash goes on."""
    commands = []
    for block in BLOCK.finditer(text):
        pending = ""
        for raw in block["body"].splitlines():
            line = pending + raw.strip()
            if line.endswith("\\"):
                pending = line[:-1].rstrip() + " "
                continue
            pending = ""
            if line and not line.startswith("#"):
                commands.append(Command(line, block["why"] or ""))
    return commands


def _commands() -> list[Command]:
    return readme_commands((REPO / "README.md").read_text(encoding="utf-8"))


def test_skipped_blocks_say_why_and_the_setup_line_is_the_first_command_run():
    commands = _commands()
    assert all(c.skip.startswith("(") and c.skip.endswith(")") for c in commands if c.skip)
    run = [c.line for c in commands if not c.skip]
    assert run[0] == SETUP_LINE
    assert len(run) >= 8


def test_ci_runs_the_readme_setup_line_and_both_test_commands_as_written():
    ci = (REPO / ".ci" / "run").read_text(encoding="utf-8")
    assert SETUP_LINE in ci
    tests = [c.line.split("#")[0].strip() for c in _commands() if c.line.startswith("python -m pytest")]
    assert tests == ["python -m pytest -q", "python -m pytest -q -m slow"]
    for command in tests:
        assert re.search(rf"^\s*{re.escape(command)}( |$)", ci, re.M), command


def test_the_parser_joins_continued_lines_and_honours_skip_markers():
    text = ("```bash\n# a comment\necho one \\\n  two\n\n```\n<!-- readme-test: skip (needs a GPU) -->\n"
            "```bash\nkb-validate x.json --gpus 0\n```\n```python\nprint('not a command')\n```\n")
    assert readme_commands(text) == [Command("echo one two", ""),
                                     Command("kb-validate x.json --gpus 0", "(needs a GPU)")]


def _clone(target: Path) -> None:
    """The files git would commit (tracked, or new and not ignored), as a fresh repository."""
    listed = subprocess.run(["git", "ls-files", "-z", "-co", "--exclude-standard"], cwd=REPO, capture_output=True,
                            check=True).stdout.decode().split("\0")
    for name in filter(None, listed):
        source = REPO / name
        if source.is_file():
            (target / name).parent.mkdir(parents=True, exist_ok=True)
            shutil.copy2(source, target / name)
    git = ["git", "-c", "user.name=readme-test", "-c", "user.email=readme-test@invalid"]
    for step in (["init", "-q"], ["add", "-A"], ["commit", "-qm", "clone"]):
        subprocess.run([*git, *step], cwd=target, check=True, capture_output=True)


def _virtual_env(venv: Path) -> None:
    subprocess.run([sys.executable, "-m", "venv", "--system-site-packages", str(venv)], check=True)
    for script in entry_points(group="console_scripts"):
        launcher = venv / "bin" / script.name
        if script.attr and not launcher.exists():
            launcher.write_text(f"#!{venv / 'bin' / 'python'}\nimport sys\nfrom {script.module} import "
                                f"{script.attr.split('.')[0]}\nsys.exit({script.attr}())\n")
            launcher.chmod(0o755)


@pytest.mark.slow
def test_every_readme_command_that_needs_no_gpu_works_as_written(tmp_path):
    clone = tmp_path / "clone"
    clone.mkdir()
    _clone(clone)
    venv = clone / ".venv"
    _virtual_env(venv)
    env = {k: v for k, v in os.environ.items() if not k.startswith("KB_") and k != "PYTHONPATH"}
    env.update(PATH=f"{venv / 'bin'}{os.pathsep}{env.get('PATH', '')}", VIRTUAL_ENV=str(venv), CI="true",
               NO_MKDOCS_2_WARNING="1")
    ran = []
    for command in _commands():
        if command.skip:
            continue
        done = subprocess.run(["bash", "-c", command.line], cwd=clone, env=env, capture_output=True, text=True,
                              timeout=900, check=False)
        assert done.returncode == 0, f"README command failed ({done.returncode}): {command.line}\n" + (
            done.stdout[-2000:] + done.stderr[-2000:])
        ran.append(command.line)
    assert ran and ran[0].startswith("pip install -e")
    # The clone's own package answered, not the environment's.
    subprocess.run(["kb-validate", "--version"], cwd=tmp_path, env=env, capture_output=True, check=True)
    located = subprocess.run(["python", "-c", "import validator; print(validator.__file__)"], cwd=tmp_path, env=env,
                             capture_output=True, text=True, check=True).stdout
    assert located.startswith(str(clone))
    # Everything the commands wrote lies in folders git ignores.
    status = subprocess.run(["git", "status", "--porcelain", "--untracked-files=all"], cwd=clone,
                            capture_output=True, text=True, check=True).stdout
    assert status == "", status
    assert (clone / "out" / "report.json").is_file() and (clone / "out" / "summary.md").is_file()
