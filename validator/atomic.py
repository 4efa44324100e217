"""Write files so that a crash or a full disk never leaves a half-written file in place of a good one."""

from __future__ import annotations

import os
import tempfile
from pathlib import Path

from validator.findings import UserError


def write_text_atomic(path: Path, text: str) -> None:
    """Write to a temporary file beside `path`, fsync, then rename over it (atomic on POSIX)."""
    path.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(prefix=f".{path.name}.", suffix=".tmp", dir=path.parent)
    try:
        with os.fdopen(fd, "w", encoding="utf-8") as handle:
            handle.write(text)
            handle.flush()
            os.fsync(handle.fileno())
        Path(tmp).replace(path)
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise


def check_writable_target(path: Path | None, flag: str) -> None:
    """Fail before any work if an output file named by `flag` could not be written, so no run is wasted."""
    if path is None:
        return
    if path.is_dir():
        raise UserError(f"{flag} {path}: is a directory; expected a file name")
    if not path.parent.is_dir():
        raise UserError(f"{flag} {path}: directory {path.parent} does not exist")
