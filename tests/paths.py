"""Where the tests find the repository and their corpora, wherever a test file sits under tests/."""

from pathlib import Path

TESTS = Path(__file__).resolve().parent
REPO = TESTS.parent
FIXTURES = TESTS / "fixtures"
