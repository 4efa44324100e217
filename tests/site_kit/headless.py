"""Headless Chromium for the browser tests and the site benchmark: the Debian package driven by
Playwright's Python API through `executable_path` (Playwright's own browser downloads are never used)."""

from __future__ import annotations

import importlib.util
import os
from pathlib import Path
from typing import Any

CHROMIUM = Path(os.environ.get("KB_CHROMIUM", "/usr/bin/chromium"))
CHROMIUM_ARGS = (
    "--no-sandbox",
    "--disable-gpu",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--no-first-run",
    "--disable-quic",
)


def unavailable() -> str | None:
    """Why the browser cannot run here, or None when it can."""
    if importlib.util.find_spec("playwright") is None:
        return "the playwright Python package is not installed (pip install playwright)"
    if not CHROMIUM.is_file():
        return f"{CHROMIUM} not found (apt-get install chromium)"
    return None


def launch(playwright: Any) -> Any:
    return playwright.chromium.launch(executable_path=str(CHROMIUM), args=list(CHROMIUM_ARGS))
