"""The built site in headless Chromium: tables, charts, sorting, instant navigation, dark mode, and no
request to any host but 127.0.0.1."""

from __future__ import annotations

import pytest

from tests.site_kit.headless import unavailable, wait_until
from tests.site_kit.synthetic import SyntheticSpec

REASON = unavailable()
pytestmark = [pytest.mark.browser, pytest.mark.slow,
              pytest.mark.skipif(REASON is not None, reason=f"needs headless Chromium: {REASON}")]
SPEC = SyntheticSpec(submissions=6, problems_per_level=(8, 6, 4))
"""The data conftest.py builds the site from (it reads this constant)."""
LEVELS = len(SPEC.problems_per_level)
CHARTS_DRAWN = "n => [...document.querySelectorAll('.js-plotly-plot')].filter(e => e._fullLayout).length >= n"
TABLES_DRAWN = "n => document.querySelectorAll('.kb-target table').length >= n"
SVG_CHARTS = "n => document.querySelectorAll('.kb-target svg.kb-svg-chart').length >= n"


def open_home(watched):
    page = watched.page
    page.goto(watched.base_url)
    wait_until(page, TABLES_DRAWN, arg=LEVELS)
    wait_until(page, SVG_CHARTS, arg=LEVELS)
    return page


def column_values(page, table_index: int, column: int) -> list[str]:
    return page.evaluate(
        "([t, c]) => [...document.querySelectorAll('.kb-target table')[t].tBodies[0].rows]"
        ".map(r => r.cells[c].dataset.sort ?? r.cells[c].textContent.trim())",
        [table_index, column],
    )


def save_screenshot(page, dirs, name: str) -> None:
    for directory in dirs:
        page.screenshot(path=str(directory / name), full_page=False)


def test_home_renders_a_table_and_a_chart_per_level(watched, screenshot_dirs):
    page = open_home(watched)
    assert page.locator(".kb-target table").count() == LEVELS
    rows = page.evaluate("[...document.querySelectorAll('.kb-target table')].map(t => t.tBodies[0].rows.length)")
    assert rows == [SPEC.submissions + 2] * LEVELS  # every entry, and the eager and torch.compile references
    assert page.locator(".kb-target tr.kb-ref-row").count() == 2 * LEVELS
    assert page.locator(".kb-target .kb-badge").count() == (SPEC.submissions + 2) * LEVELS
    save_screenshot(page, screenshot_dirs, "home.png")
    assert watched.errors == [] and watched.external == []


def test_clicking_a_header_sorts_rows_and_clicking_again_reverses_them(watched):
    page = open_home(watched)
    headers = page.locator(".kb-target table").first.locator("thead th")
    labels = headers.all_inner_texts()
    submission = next(i for i, label in enumerate(labels) if label.startswith("Submission"))
    headers.nth(submission).click()
    names = column_values(page, 0, submission)
    assert names == sorted(names, key=str.lower)
    assert headers.nth(submission).get_attribute("aria-sort") == "ascending"
    headers.nth(submission).click()
    assert column_values(page, 0, submission) == sorted(names, key=str.lower, reverse=True)
    geomean = next(i for i, label in enumerate(labels) if label.startswith("Geomean"))
    headers.nth(geomean).click()
    values = [float(v) for v in column_values(page, 0, geomean) if v not in ("", "–")]
    assert values == sorted(values, reverse=True)


def test_each_curve_chart_has_one_trace_per_submission(watched, screenshot_dirs):
    page = watched.page
    page.goto(watched.base_url + "curves/")
    wait_until(page, CHARTS_DRAWN, arg=LEVELS)
    traces = page.evaluate("[...document.querySelectorAll('.js-plotly-plot')].map(e => e.data.length)")
    assert traces == [SPEC.submissions] * LEVELS
    axis = page.evaluate("document.querySelector('.js-plotly-plot')._fullLayout.xaxis.type")
    assert axis == "log"
    save_screenshot(page, screenshot_dirs, "curves.png")
    assert watched.errors == [] and watched.external == []


def test_switching_the_baseline_loads_the_other_data(watched):
    page = open_home(watched)
    before = column_values(page, 0, 0)
    page.select_option(".kb-baseline", "torch-compile")
    wait_until(page, "() => document.querySelector('.kb-loading').textContent === ''")
    wait_until(page, TABLES_DRAWN, arg=LEVELS)
    assert page.evaluate("localStorage.getItem('kb.combo')").endswith("--torch-compile")
    assert len(column_values(page, 0, 0)) == len(before)


def test_instant_navigation_redraws_charts_without_reloading_the_page(watched):
    page = open_home(watched)
    page.evaluate("window.kbSamePage = true")
    page.locator("a.md-tabs__link", has_text="Curves").click()
    page.wait_for_url("**/curves/")
    wait_until(page, CHARTS_DRAWN, arg=LEVELS)
    page.locator("a.md-tabs__link", has_text="Leaderboard").click()
    wait_until(page, TABLES_DRAWN, arg=LEVELS)
    wait_until(page, SVG_CHARTS, arg=LEVELS)
    page.locator("a.md-tabs__link", has_text="Curves").click()
    wait_until(page, CHARTS_DRAWN, arg=LEVELS)
    assert page.evaluate("window.kbSamePage") is True
    live = page.evaluate("[...window.kb.charts.live].map(e => e.isConnected)")
    assert live == [True] * LEVELS
    assert watched.errors == [] and watched.external == []


def test_dark_mode_rethemes_every_chart(watched):
    page = watched.page
    page.goto(watched.base_url + "curves/")
    wait_until(page, CHARTS_DRAWN, arg=LEVELS)
    schemes = "[...document.querySelectorAll('.js-plotly-plot')].map(e => e.layout.meta.scheme)"
    fonts = "[...document.querySelectorAll('.js-plotly-plot')].map(e => e._fullLayout.font.color)"
    assert page.evaluate(schemes) == ["default"] * LEVELS
    light = page.evaluate(fonts)
    page.locator("form[data-md-component='palette'] label:visible").first.click()
    wait_until(page, "() => document.body.getAttribute('data-md-color-scheme') === 'slate'")
    wait_until(page, f"() => {schemes}.every(s => s === 'slate')")
    dark = page.evaluate(fonts)
    assert all(d != c for d, c in zip(dark, light, strict=True))


def test_a_kernel_source_opens_highlighted_from_its_bundle(watched):
    page = watched.page
    page.goto(watched.base_url + "submissions/synthetic-000/")
    page.locator("details.kb-source summary").first.click()
    page.wait_for_selector("details.kb-source .kb-code code span.k")
    assert "class" in page.locator("details.kb-source .kb-code").first.inner_text()
    assert watched.errors == [] and watched.external == []


@pytest.mark.slow  # over 10 s alone on a 2-core machine
def test_no_page_logs_an_error_or_asks_another_host(watched):
    page = watched.page
    for path in ("", "curves/", "heatmap/", "submissions/", "submissions/synthetic-001/",
                 "problems/", "problems/level1/1_Synthetic_op_1_1/", "methodology/", "submitting/", "downloads/"):
        page.goto(watched.base_url + path, wait_until="networkidle")
    page.click("input.md-search__input")
    # The search worker must have its index first (its ready message says "Type to start searching"),
    # and the theme reacts to key events, which fill() does not send.
    wait_until(page, "() => document.querySelector('.md-search-result__meta').textContent.includes('Type')")
    page.locator("input.md-search__input").press_sequentially("synthetic", delay=20)
    page.wait_for_selector(".md-search-result__item")
    assert watched.errors == []
    assert watched.external == []
