"""The compare view without JavaScript, a run on another KernelBench version's track, and how soon the first
chart is drawn after navigation (localhost): the home page's SVG and the curves page's first chart (its static
SVG), each within a second."""

from __future__ import annotations

import statistics

import pytest

from tests.site_kit.headless import CHART_DRAWN, DESKTOP, first_chart_ms, unavailable, wait_until
from tests.site_kit.synthetic import SyntheticSpec, add_track, move_run_to_track

REASON = unavailable()
pytestmark = [pytest.mark.browser, pytest.mark.slow,
              pytest.mark.skipif(REASON is not None, reason=f"needs headless Chromium: {REASON}")]
SPEC = SyntheticSpec(submissions=6, problems_per_level=(8, 6, 4))
"""The data conftest.py builds the site from (it reads this constant)."""
OLD = "0ldc0de"
H200 = "nvidia-h200"


def PREPARE(tree) -> None:  # the name conftest.py looks for
    """synthetic-001's H200 run becomes a run on another KernelBench version's track."""
    move_run_to_track(tree.results_dir / H200 / "synthetic-001.json", add_track(tree.problems_dir, OLD), OLD)


FIRST_CHART_MS = 1000.0
TRIES = 3
"""Each page is opened this many times in a fresh context (cold cache); the median counts, so one hiccup of a
shared CI machine does not fail the test."""


@pytest.mark.parametrize("chart", ["home_svg", "curves_first"])
def test_the_first_chart_is_drawn_within_a_second_of_navigation(browser, base_url, chart):
    """Issue 22's bar is for the first chart a reader sees: the home page's SVG and the curves page's static top
    curves. When Plotly's interactive chart replaces them is a speed figure on a shared 2-core machine
    (0.8-1.1 s here), so `bench/bench_site.py` reports it (`curves_plotly`); the next test checks that it does."""
    path, drawn = CHART_DRAWN[chart]
    times = [first_chart_ms(browser, base_url + path, drawn) for _ in range(TRIES)]
    print(f"first chart on /{path}: {', '.join(f'{t:.0f}' for t in times)} ms")
    assert statistics.median(times) <= FIRST_CHART_MS, times


def test_the_curves_pages_static_charts_show_without_javascript_and_give_way_to_plotly(browser, base_url):
    levels = len(SPEC.problems_per_level)
    static = browser.new_context(viewport=DESKTOP, java_script_enabled=False)
    page = static.new_page()
    page.goto(base_url + "curves/")
    assert page.locator(".kb-target svg.kb-svg-chart").count() == levels
    assert page.locator(".kb-target svg.kb-svg-chart polyline").count() == levels * min(SPEC.submissions, 10)
    static.close()
    context = browser.new_context(viewport=DESKTOP)
    page = context.new_page()
    page.goto(base_url + "curves/", wait_until="networkidle")
    wait_until(page, "n => document.querySelectorAll('.js-plotly-plot .main-svg').length >= n", arg=levels)
    wait_until(page, "() => document.querySelectorAll('.kb-static-chart').length === 0")
    assert page.locator(".kb-target .js-plotly-plot").count() == levels
    context.close()


def test_without_javascript_the_compare_view_reaches_static_tables_of_every_full_entry(browser, base_url):
    context = browser.new_context(viewport=DESKTOP, java_script_enabled=False)
    try:
        page = context.new_page()
        page.goto(base_url + "submissions/synthetic-000/")
        page.click("a.md-button:has-text('Compare with other submissions')")
        page.wait_for_load_state()
        assert "Picking submissions needs JavaScript" in page.inner_text(".kb-compare")
        links = page.locator("article ul a[href*='--eager']")
        tracks = len(SPEC.hardware) + 1  # each GPU's headline track, and the H200's older version
        assert links.count() == tracks * len(SPEC.problems_per_level)
        links.first.click()
        page.wait_for_load_state()
        table = page.locator("article table.kb-compare-static")
        assert table.locator("tbody tr").count() == SPEC.problems_per_level[0]
        entries = page.locator("ol.kb-compare-legend li").count()
        assert entries >= 2 and table.locator("thead th").count() == 1 + entries
        cells = table.locator("tbody td").all_inner_texts()
        assert any(text.endswith("×") for text in cells)
    finally:
        context.close()


def ranked_names(page) -> list[str]:
    return page.evaluate("[...document.querySelectorAll('.kb-target table')[0].tBodies[0].rows]"
                         ".filter(r => !r.classList.contains('kb-ref-row')).map(r => r.cells[1].textContent.trim())")


def test_the_track_selector_shows_a_versions_runs_apart_and_lives_in_the_url(browser, base_url):
    context = browser.new_context(viewport=DESKTOP)
    try:
        page = context.new_page()
        page.goto(base_url + f"?hw={H200}", wait_until="networkidle")
        wait_until(page, "c => document.querySelector('.kb-target').dataset.kbCombo === c", arg=f"{H200}--eager")
        assert "Synthetic submission 1" not in ranked_names(page)
        page.select_option(".kb-track", OLD)
        wait_until(page, "t => location.search.includes('track=' + t)", arg=OLD)
        wait_until(page, "c => document.querySelector('.kb-target').dataset.kbCombo === c",
                   arg=f"{H200}--eager--{OLD}")
        assert ranked_names(page) == ["Synthetic submission 1"]
        shared = context.new_page()
        shared.goto(page.url, wait_until="networkidle")
        assert shared.locator(".kb-track").input_value() == OLD
        wait_until(shared, "() => document.querySelector('li.kb-leader').textContent.includes('KernelBench')")
    finally:
        context.close()
