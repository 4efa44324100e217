"""Site benchmark: `mkdocs build` time and the home page's weight for synthetic data at leaderboard scale.

    python bench/bench_site.py                      # 200 submissions x 250 problems (100/100/50), 2 GPUs
    python bench/bench_site.py --submissions 20 --problems 10,10,5 --json out.json

Steps: write synthetic problems, submissions and result files (tests.site_kit.synthetic, through the real
record types) into a temporary directory; run `mkdocs build --strict` on them in a child process
(KB_* environment variables point the generator there) and time it, wall and CPU; then weigh the
home page, and time the first chart on the home and curves pages. Weight = every byte the page loads
from the site (it draws its charts as static SVG, so no plotly.js), measured in headless Chromium when
it is available, and by reading the built files otherwise. Targets (issues 6 and 22): build <= 60 s,
home weight <= 1 MB, first chart <= 1 s after navigation.
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import statistics
import subprocess
import sys
import tempfile
import time
from html.parser import HTMLParser
from pathlib import Path
from typing import Any

REPO = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO))  # run as a script from anywhere: tests.site_kit is the repository's

from tests.site_kit.headless import CHART_DRAWN, first_chart_ms, launch, unavailable, wait_until  # noqa: E402
from tests.site_kit.local_server import serve, served_file  # noqa: E402
from tests.site_kit.synthetic import SyntheticSpec, write_synthetic  # noqa: E402

BUILD_TARGET_S = 60.0
WEIGHT_TARGET_BYTES = 1_000_000
FIRST_CHART_TARGET_MS = 1000
EXCLUDED: tuple[str, ...] = ()  # nothing is left out: the home page loads no plotly.js


def build_site(tree: Any, site_dir: Path) -> dict[str, float]:
    env = dict(os.environ, NO_MKDOCS_2_WARNING="1")
    env.update(
        KB_RESULTS_DIR=str(tree.results_dir),
        KB_SUBMISSIONS_DIR=str(tree.submissions_dir),
        KB_PROBLEMS_DIR=str(tree.problems_dir),
    )
    command = [sys.executable, "-m", "mkdocs", "build", "--strict", "-q", "-d", str(site_dir)]
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    load_before = os.getloadavg()[0]
    start = time.perf_counter()
    done = subprocess.run(command, cwd=REPO, env=env, capture_output=True, text=True, check=False)
    wall = time.perf_counter() - start
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    if done.returncode != 0:
        sys.exit(f"mkdocs build failed ({done.returncode}):\n{done.stderr[-4000:]}")
    return {
        "build_wall_s": round(wall, 2),
        "build_cpu_s": round((after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime), 2),
        "load_average_before": round(load_before, 2),
        "load_average_after": round(os.getloadavg()[0], 2),
    }


class _References(HTMLParser):
    """Scripts, stylesheets and icons a page references, and its leaderboard data file."""

    def __init__(self) -> None:
        super().__init__()
        self.urls: list[str] = []
        self.default_combo = ""

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        values = dict(attrs)
        if tag == "script" and values.get("src"):
            self.urls.append(values["src"] or "")
        elif tag == "link" and values.get("rel") in ("stylesheet", "icon") and values.get("href"):
            self.urls.append(values["href"] or "")
        if "data-kb-default" in values:
            self.default_combo = values["data-kb-default"] or ""


def static_weight(site_dir: Path) -> dict[str, Any]:
    """Bytes of index.html and what it references (its default tables and charts are in the page itself)."""
    parser = _References()
    parser.feed((site_dir / "index.html").read_text(encoding="utf-8"))
    files = [site_dir / "index.html"]
    files += [site_dir / url.split("?")[0] for url in parser.urls if "://" not in url]
    files = [f for f in files if f.is_file() and f.name not in EXCLUDED]
    sizes = {str(f.relative_to(site_dir)): f.stat().st_size for f in files}
    search = site_dir / "search" / "search_index.json"
    return {
        "bytes": sum(sizes.values()),
        "search_index_bytes": search.stat().st_size if search.is_file() else 0,
        "largest": sorted(sizes.items(), key=lambda item: -item[1])[:6],
    }


def browser_weight(site_dir: Path) -> dict[str, Any]:
    """Bytes of every file the home page requests until it is drawn and the network is idle (the search
    index and the sitemap the theme fetches included), read from the built files: reading response bodies
    races the browser's shutdown."""
    from playwright.sync_api import sync_playwright

    requested: set[str] = set()
    with serve(site_dir) as base, sync_playwright() as playwright:
        browser = launch(playwright)
        page = browser.new_page()
        page.on("request", lambda r: requested.add(r.url.removeprefix(base)) if r.url.startswith(base) else None)
        page.goto(base, wait_until="networkidle")
        drawn = "() => document.querySelectorAll('.kb-target table, .kb-target svg').length > 0"
        wait_until(page, drawn, timeout=60_000)
        page.wait_for_load_state("networkidle")
        page.wait_for_timeout(1000)  # the search worker fetches its index after start-up
        browser.close()
    files = {url: served_file(site_dir, url) for url in requested if not url.endswith(EXCLUDED)}
    counted = {url: f.stat().st_size for url, f in files.items() if f.is_file()}
    return {
        "bytes": sum(counted.values()),
        "requests": len(counted),
        "largest": sorted(counted.items(), key=lambda item: -item[1])[:8],
    }


TRIES = 5


def first_chart_timings(site_dir: Path) -> dict[str, dict[str, float]]:
    """Each chart of CHART_DRAWN: median, least and most ms from the navigation's start over TRIES cold
    navigations (a fresh context each), after one uncounted navigation: a freshly launched browser's first page
    pays the browser's own start-up (about 0.2 s more here), which a reader's running browser does not."""
    from playwright.sync_api import sync_playwright

    timings: dict[str, dict[str, float]] = {}
    with serve(site_dir) as base, sync_playwright() as playwright:
        browser = launch(playwright)
        first_chart_ms(browser, base, CHART_DRAWN["home_svg"][1])
        for name, (path, drawn) in CHART_DRAWN.items():
            values = [first_chart_ms(browser, base + path, drawn) for _ in range(TRIES)]
            timings[name] = {"median": round(statistics.median(values)), "min": round(min(values)),
                             "max": round(max(values))}
        browser.close()
    return timings


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--submissions", type=int, default=200)
    parser.add_argument("--problems", default="100,100,50", help="problems per level, comma-separated")
    parser.add_argument("--hardware", default="nvidia-h100-80gb-hbm3,nvidia-h200")
    parser.add_argument("--workdir", type=Path, help="keep the data and the site here (default: a temp dir)")
    parser.add_argument("--json", type=Path, help="also write the numbers to this file")
    parser.add_argument("--no-browser", action="store_true", help="weigh from the built files only")
    args = parser.parse_args(argv)
    spec = SyntheticSpec(
        submissions=args.submissions,
        problems_per_level=tuple(int(n) for n in args.problems.split(",")),
        hardware=tuple(args.hardware.split(",")),
    )
    with tempfile.TemporaryDirectory(prefix="kb-bench-site-") as scratch:
        root = args.workdir or Path(scratch)
        start = time.perf_counter()
        tree = write_synthetic(root / "data", spec)
        numbers: dict[str, Any] = {
            "submissions": spec.submissions,
            "problems": sum(spec.problems_per_level),
            "hardware": len(spec.hardware),
            "data_write_s": round(time.perf_counter() - start, 2),
        }
        site_dir = root / "site"
        numbers.update(build_site(tree, site_dir))
        numbers["static_weight"] = static_weight(site_dir)
        reason = "--no-browser" if args.no_browser else unavailable()
        numbers["browser_weight"] = {"skipped": reason} if reason else browser_weight(site_dir)
        numbers["first_chart_ms"] = {"skipped": reason} if reason else first_chart_timings(site_dir)
    weight = numbers["browser_weight"].get("bytes", numbers["static_weight"]["bytes"])
    # the bar is for the first chart a reader sees; curves_plotly is reported beside it
    charts = [v["median"] for k, v in numbers["first_chart_ms"].items() if k in ("home_svg", "curves_first")]
    numbers["targets_met"] = (numbers["build_wall_s"] <= BUILD_TARGET_S and weight <= WEIGHT_TARGET_BYTES
                              and all(ms <= FIRST_CHART_TARGET_MS for ms in charts))
    text = json.dumps(numbers, indent=1)
    print(text)
    if args.json:
        args.json.write_text(text + "\n", encoding="utf-8")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
