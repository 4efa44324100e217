"""A kernel cache directory's manifest: the sha256 of every file its build (and warm-up) left, written by the
trusted parent after that child has ended, and checked before a runner gets a copy of the directory.

A file added, changed or removed since then (a `.so` planted by anything else that could write there) makes
`verify_tree` answer what differs, and the evaluation refuses the cache instead of loading it.
"""

from __future__ import annotations

import hashlib
import json
from pathlib import Path

from validator.files import write_text_atomic

NAME = "manifest.json"
COVERED = ("ext", "triton", "inductor")
"""The subdirectories a runner receives; logs and markers beside them are not loaded by anything."""
SKIPPED = frozenset({"kb-warmed"})
"""Directories inside those that only the trusted parent writes and nothing loads (the warm-up's markers,
`validator.evaluate.warmup.MARKER_DIR`), written after a manifest and so left out of it."""


def _digests(root: Path) -> dict[str, str]:
    out = {}
    for sub in COVERED:
        base = root / sub
        if not base.is_dir():
            continue
        for path in sorted(base.rglob("*")):
            if SKIPPED & set(path.relative_to(base).parts):
                continue
            if path.is_symlink():
                out[str(path.relative_to(root))] = "symlink"
            elif path.is_file():
                out[str(path.relative_to(root))] = hashlib.sha256(path.read_bytes()).hexdigest()
    return out


def record_tree(root: Path) -> None:
    write_text_atomic(root / NAME, json.dumps(_digests(root), indent=0, sort_keys=True) + "\n")


def verify_tree(root: Path) -> str | None:
    """None when the directory matches its manifest; otherwise what differs (or that there is no manifest)."""
    if not any((root / sub).is_dir() for sub in COVERED):
        return None
    try:
        recorded = json.loads((root / NAME).read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return "it has no readable manifest"
    now = _digests(root)
    if "symlink" in now.values():
        return "it holds a symbolic link"
    changed = sorted(k for k in set(recorded) | set(now) if recorded.get(k) != now.get(k))
    return f"{len(changed)} file(s) differ, e.g. {changed[0]}" if changed else None
