"""The trust boundary, read from the source (`ast`; nothing here is imported): the judge's package
(`validator/evaluate/judge/`) never imports submitted code nor the runner's package; the runner's
(`validator/evaluate/runner/`), the only process that imports submitted code, never imports the judge's; and the
modules both import (`validator/evaluate/*.py`) import neither. Imports inside functions count, and so do the
modules an import reaches through others, so a lazy import or a detour through a shared module is caught too."""

from __future__ import annotations

import ast
from functools import cache
from pathlib import Path

import pytest

from tests.paths import REPO

EVALUATE = REPO / "validator" / "evaluate"
JUDGE, RUNNER = "validator.evaluate.judge", "validator.evaluate.runner"
CODE_LOADING_MODULES = ("importlib", "runpy", "imp", "pkgutil", "zipimport")
"""Modules that load code by name or path: the judge has no use for any of them (the problem file it runs is loaded
by `validator.catalogue.problem_module`, which takes a path the job hashed, never a kernel's)."""
CODE_RUNNING_BUILTINS = ("exec", "eval", "compile", "__import__")


def name_of(path: Path) -> str:
    parts = path.relative_to(REPO).with_suffix("").parts
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def file_of(name: str) -> Path | None:
    """The source file of a `validator` module, or None (a name that is an attribute, or not ours)."""
    base = REPO.joinpath(*name.split("."))
    for path in (base.with_suffix(".py"), base / "__init__.py"):
        if path.is_file():
            return path
    return None


def package_modules(package: str) -> list[Path]:
    return sorted(REPO.joinpath(*package.split(".")).rglob("*.py"))


def shared_modules() -> list[Path]:
    """The modules beside the engine's in `validator/evaluate/` that both sides import (the engine's own, such as
    `scheduler.py`, may import the judge's package: the engine never imports submitted code either)."""
    both = {n for p in package_modules(JUDGE) for n in imports_of(p)}
    both &= {n for p in package_modules(RUNNER) for n in imports_of(p)}
    return sorted(p for p in EVALUATE.glob("*.py") if p.name != "__init__.py" and name_of(p) in both)


@cache
def tree_of(path: Path) -> ast.Module:
    return ast.parse(path.read_text(encoding="utf-8"), filename=str(path))


@cache
def imports_of(path: Path) -> frozenset[str]:
    """Every module an import statement in `path` names, anywhere in the file; `from P import n` names `P` and
    `P.n` (n may be a submodule); relative imports are resolved against the module's package."""
    name = name_of(path)
    package = name if path.name == "__init__.py" else name.rpartition(".")[0]
    found: set[str] = set()
    for node in ast.walk(tree_of(path)):
        if isinstance(node, ast.Import):
            found.update(alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:
                parts = package.split(".")
                parent = ".".join(parts[: len(parts) - node.level + 1])
                base = f"{parent}.{base}" if base else parent
            found.add(base)
            found.update(f"{base}.{alias.name}" for alias in node.names)
    return frozenset(found)


def within(name: str, package: str) -> bool:
    return name == package or name.startswith(package + ".")


def reached(start: Path) -> dict[str, str]:
    """Every `validator` module `start` may import, directly or through others (with the package `__init__`s an
    import runs), each with the module that imports it."""
    seen: dict[str, str] = {}
    todo = [start]
    while todo:
        path = todo.pop()
        for name in sorted(imports_of(path)):
            parts = name.split(".")
            for i in range(1, len(parts) + 1):
                dotted = ".".join(parts[:i])
                target = file_of(dotted) if parts[0] == "validator" else None
                if target is not None and dotted not in seen:
                    seen[dotted] = name_of(path)
                    todo.append(target)
    return seen


def test_the_packages_are_where_the_boundary_says():
    assert package_modules(JUDGE) and package_modules(RUNNER)
    assert not (EVALUATE / "worker").exists()
    assert {name_of(p) for p in shared_modules()} == {
        "validator.evaluate.channel",
        "validator.evaluate.correctness",
        "validator.evaluate.digest",
        "validator.evaluate.input_variants",
        "validator.evaluate.anticheat",
    }


@pytest.mark.parametrize("path", package_modules(JUDGE), ids=lambda p: p.name)
def test_the_judge_never_reaches_the_runner_package(path):
    bad = {name: via for name, via in reached(path).items() if within(name, RUNNER)}
    assert not bad, f"{name_of(path)} reaches the runner's package: " + ", ".join(
        f"{name} (imported by {via})" for name, via in sorted(bad.items())
    )


@pytest.mark.parametrize("path", package_modules(RUNNER), ids=lambda p: p.name)
def test_the_runner_never_reaches_the_judge_package(path):
    bad = {name: via for name, via in reached(path).items() if within(name, JUDGE)}
    assert not bad, f"{name_of(path)} reaches the judge's package: " + ", ".join(
        f"{name} (imported by {via})" for name, via in sorted(bad.items())
    )


@pytest.mark.parametrize("path", package_modules(RUNNER), ids=lambda p: p.name)
def test_the_runner_names_no_judge_module_to_import_by_name(path):
    """The runner's identity snapshot imports the modules it watches by name (`integrity.WATCHED_MODULES`): a judge
    module there would be imported into the kernel's process."""
    named = [
        node.value
        for node in ast.walk(tree_of(path))
        if isinstance(node, ast.Constant) and isinstance(node.value, str) and JUDGE in node.value
    ]
    assert not named, f"{name_of(path)} names the judge's package: {named}"


@pytest.mark.parametrize("path", shared_modules(), ids=lambda p: p.name)
def test_a_shared_module_imports_neither_side(path):
    bad = sorted(n for n in imports_of(path) if within(n, JUDGE) or within(n, RUNNER))
    assert not bad, f"{name_of(path)} sits beside both sides but imports {bad}"


@pytest.mark.parametrize("path", package_modules(JUDGE) + shared_modules(), ids=lambda p: p.name)
def test_the_judge_side_loads_no_code_by_name_or_path(path):
    """Submitted code is imported in one place, the runner (`runner/serve.py` compiles and executes the hashed
    bytes); nothing the judge imports of its own can load a module from a name or a file, or run source text."""
    loaders = sorted(n for n in imports_of(path) if any(within(n, m) for m in CODE_LOADING_MODULES))
    calls = sorted(
        {
            node.func.id
            for node in ast.walk(tree_of(path))
            if isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.func.id in CODE_RUNNING_BUILTINS
        }
    )
    assert not loaders and not calls, f"{name_of(path)} imports {loaders} and calls {calls}"


def test_the_judge_starts_the_runner_by_a_module_of_the_runner_package():
    """The one way the judge reaches the runner's code: a command line in another (sandboxed) process."""
    tree = tree_of(EVALUATE / "judge" / "launch.py")
    values = [
        node.value.value
        for node in ast.walk(tree)
        if isinstance(node, ast.Assign)
        and any(isinstance(t, ast.Name) and t.id == "RUNNER_MODULE" for t in node.targets)
        and isinstance(node.value, ast.Constant)
    ]
    assert len(values) == 1 and within(values[0], RUNNER) and file_of(values[0]) is not None
    assert "__main__" in tree_of(file_of(values[0])).body[-1].test.comparators[0].value
