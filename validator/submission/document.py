"""Read a submission document from disk so that no input, however broken, raises past this module.

The parsing and its limits are `validator.files`'s (the one JSON reader of the project); this module
turns its errors into the located Finding the load stage reports.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from validator import files
from validator.findings import Finding

MAX_DOCUMENT_BYTES = files.SUBMISSION_BYTES
MAX_DEPTH = files.MAX_DEPTH


class DocumentError(Exception):
    def __init__(self, finding: Finding) -> None:
        super().__init__(finding.message)
        self.finding = finding


def read_json(path: Path, shown: str | None = None) -> Any:
    """Parse `path` as one strict JSON value or raise DocumentError carrying a located Finding."""
    shown = shown if shown is not None else str(path)
    try:
        return files.read_json(path, MAX_DOCUMENT_BYTES, shown, "a submission document")
    except files.JsonError as exc:
        problem = exc.problem
        raise DocumentError(
            Finding(problem.code, "load", problem.message, file=shown, line=problem.line, column=problem.column)
        ) from None
