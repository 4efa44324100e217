"""Where the tests find the repository and their corpora, wherever a test file sits under tests/."""

import functools
import importlib.util
import sys
from pathlib import Path
from types import ModuleType

TESTS = Path(__file__).resolve().parent
REPO = TESTS.parent
FIXTURES = TESTS / "fixtures"


@functools.cache
def bench_module(name: str) -> ModuleType:
    """bench/<name>.py imported as a module (bench/ is scripts, not a package), once per test process; registered
    in sys.modules first, since dataclasses look their module up while they are made."""
    spec = importlib.util.spec_from_file_location(name, REPO / "bench" / f"{name}.py")
    module = importlib.util.module_from_spec(spec)
    sys.modules[name] = module
    spec.loader.exec_module(module)
    return module
