"""A synthetic leaderboard built with `mkdocs build --strict` from the test module's SPEC, served on
127.0.0.1, and a headless Chromium page that refuses (and records) every request to another host and
records console errors."""

from __future__ import annotations

import os
import subprocess
import sys
from dataclasses import dataclass, field
from pathlib import Path
from urllib.parse import urlsplit

import pytest

from tests.site_kit.headless import launch
from tests.site_kit.local_server import free_port, serve
from tests.site_kit.synthetic import write_synthetic

REPO = Path(__file__).resolve().parents[2]


@pytest.fixture(scope="module")
def port() -> int:
    return free_port()


@pytest.fixture(scope="module")
def site_dir(request, tmp_path_factory, port) -> Path:
    root = tmp_path_factory.mktemp("browser-site")
    tree = write_synthetic(root / "data", request.module.SPEC)
    prepare = getattr(request.module, "PREPARE", None)  # a module may rewrite the data first (hostile text)
    if prepare is not None:
        prepare(tree)
    env = {k: v for k, v in os.environ.items() if not k.startswith("KB_")}
    env.update(
        NO_MKDOCS_2_WARNING="1",
        KB_RESULTS_DIR=str(tree.results_dir),
        KB_SUBMISSIONS_DIR=str(tree.submissions_dir),
        KB_PROBLEMS_DIR=str(tree.problems_dir),
        KB_SITE_URL=f"http://127.0.0.1:{port}/",
    )
    command = [sys.executable, "-m", "mkdocs", "build", "--strict", "-q", "-d", str(root / "site")]
    done = subprocess.run(command, cwd=REPO, env=env, capture_output=True, text=True, check=False)
    assert done.returncode == 0, done.stderr[-3000:]
    return root / "site"


@pytest.fixture(scope="module")
def base_url(site_dir, port):
    with serve(site_dir, port) as url:
        yield url


@pytest.fixture(scope="session")
def browser():
    from playwright.sync_api import sync_playwright

    with sync_playwright() as playwright:
        chromium = launch(playwright)
        yield chromium
        chromium.close()


@dataclass
class Watched:
    """What a page did besides rendering: requests to other hosts (refused) and console errors."""

    page: object
    base_url: str
    external: list[str] = field(default_factory=list)
    errors: list[str] = field(default_factory=list)


@pytest.fixture
def watched(browser, base_url):
    context = browser.new_context(viewport={"width": 1400, "height": 1000})
    record = Watched(context.new_page(), base_url)

    def route(route):
        if urlsplit(route.request.url).hostname == "127.0.0.1":
            route.continue_()
        else:
            record.external.append(route.request.url)
            route.abort()

    context.route("**/*", route)
    record.page.on("console", lambda m: record.errors.append(m.text) if m.type == "error" else None)
    record.page.on("pageerror", lambda e: record.errors.append(str(e)))
    yield record
    context.close()


@pytest.fixture(scope="session")
def screenshot_dirs(tmp_path_factory) -> list[Path]:
    dirs = [tmp_path_factory.mktemp("screenshots")]
    if os.environ.get("KB_SCREENSHOT_DIR"):
        dirs.append(Path(os.environ["KB_SCREENSHOT_DIR"]))
    for directory in dirs:
        directory.mkdir(parents=True, exist_ok=True)
    return dirs
