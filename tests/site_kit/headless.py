"""Headless Chromium for the browser tests and the site benchmark: the Debian package driven by
Playwright's Python API through `executable_path` (Playwright's own browser downloads are never used)."""

from __future__ import annotations

import importlib.util
import os
import time
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


def wait_until(page: Any, expression: str, arg: Any = None, timeout: float = 30_000) -> None:
    """Poll a JavaScript function expression until it returns true.

    Playwright's `wait_for_function` evaluates its predicate with `eval` inside the page, which the site's
    Content-Security-Policy (script-src 'self') refuses; `page.evaluate` goes through the debugger protocol,
    which the policy does not govern.
    """
    deadline = time.monotonic() + timeout / 1000
    while not page.evaluate(f"arg => ({expression})(arg)", arg):
        if time.monotonic() > deadline:
            raise TimeoutError(f"timed out after {timeout:.0f} ms waiting for {expression}")
        page.wait_for_timeout(50)


DESKTOP = {"width": 1400, "height": 900}
_SHOWN = "s => s.getBoundingClientRect().width > 0"
CHART_DRAWN = {
    "home_svg": ("", f"() => [...document.querySelectorAll('.kb-target svg')].some({_SHOWN})"),
    # the page's static top curves, or the Plotly chart that replaced them
    "curves_first": ("curves/", "() => [...document.querySelectorAll('.kb-target svg.kb-svg-chart, "
                                f".js-plotly-plot .main-svg')].some({_SHOWN})"),
    "curves_plotly": ("curves/", "() => [...document.querySelectorAll('.js-plotly-plot')].some(e => e._fullLayout)"),
}
"""Page path and the predicate that says its chart is drawn: the home page's SVG, the curves page's first chart
(static SVG or Plotly's), and the curves page's first interactive Plotly chart."""


def first_chart_ms(browser: Any, url: str, drawn: str) -> float:
    """Milliseconds from the navigation's start to the first poll that finds `drawn` true, in a fresh context
    (cold cache)."""
    context = browser.new_context(viewport=DESKTOP)
    try:
        page = context.new_page()
        page.goto(url, wait_until="commit")
        for _ in range(2000):
            at = page.evaluate(f"() => ({drawn})() ? performance.now() : null")
            if at is not None:
                return float(at)
            page.wait_for_timeout(5)
        raise AssertionError(f"{url}: no chart drawn after 10 s")
    finally:
        context.close()
