"""The site as its readers see it, at 1400×900 and on a 390 px phone: leaders and the first table on the
first screen, usable charts on a phone, filters kept in the URL, tables without JavaScript, the home page's
weight."""

from __future__ import annotations

from urllib.parse import quote

import pytest

from tests.site_kit.headless import unavailable, wait_until
from tests.site_kit.local_server import served_file
from tests.site_kit.synthetic import SyntheticSpec

REASON = unavailable()
pytestmark = [pytest.mark.browser, pytest.mark.slow,
              pytest.mark.skipif(REASON is not None, reason=f"needs headless Chromium: {REASON}")]
SPEC = SyntheticSpec(submissions=6, problems_per_level=(8, 6, 4))
"""The data conftest.py builds the site from (it reads this constant)."""
LEVELS = len(SPEC.problems_per_level)
DESKTOP = {"width": 1400, "height": 900}
PHONE = {"width": 390, "height": 844}
HOME_BUDGET_BYTES = 1_000_000
VISIBLE_ROWS = "t => [...document.querySelectorAll('.kb-target table')[t].tBodies[0].rows].filter(r => !r.hidden)"


@pytest.fixture
def opened(browser, base_url):
    contexts = []

    def open_page(path: str = "", viewport: dict | None = None, javascript: bool = True):
        context = browser.new_context(viewport=viewport or DESKTOP, java_script_enabled=javascript)
        contexts.append(context)
        page = context.new_page()
        page.goto(base_url + path, wait_until="networkidle")
        return page

    yield open_page
    for context in contexts:
        context.close()


def top_of(page, selector: str) -> float:
    return page.evaluate("s => document.querySelector(s).getBoundingClientRect().top", selector)


@pytest.mark.parametrize("viewport", [DESKTOP, PHONE], ids=["desktop", "phone"])
def test_the_first_screen_names_each_levels_leader_and_its_margin(opened, viewport):
    page = opened(viewport=viewport)
    leaders = page.locator("li.kb-leader")
    assert leaders.count() == LEVELS
    assert "over #2" in leaders.first.inner_text() and "fast_1" in leaders.first.inner_text()
    box = leaders.first.bounding_box()
    assert box["y"] + box["height"] <= viewport["height"]
    if viewport is DESKTOP:  # on a desktop the first table starts on the first screen too
        assert top_of(page, ".kb-target table") < viewport["height"]


def test_the_tables_and_curves_are_there_without_javascript(opened):
    page = opened(javascript=False)
    assert page.locator(".kb-target table").count() == LEVELS
    assert page.locator(".kb-target table tbody tr").count() == (SPEC.submissions + 2) * LEVELS
    assert page.locator(".kb-target svg polyline:not(.kb-best)").count() == SPEC.submissions * LEVELS
    assert page.locator("li.kb-leader").count() == LEVELS


def test_the_home_page_with_all_it_loads_stays_within_a_megabyte_and_loads_no_plotly(browser, base_url, site_dir):
    context = browser.new_context(viewport=DESKTOP)
    requested: set[str] = set()
    page = context.new_page()
    page.on("request", lambda r: requested.add(r.url))
    page.goto(base_url, wait_until="networkidle")
    page.click("input.md-search__input")  # the search index counts too
    wait_until(page, "() => document.querySelector('.md-search-result__meta').textContent.includes('Type')")
    page.wait_for_load_state("networkidle")
    context.close()
    assert not [url for url in requested if "plotly" in url]
    assert not [url for url in requested if not url.startswith(base_url)]
    assert any(url.endswith("search_index.json") for url in requested)
    sizes = {url: served_file(site_dir, url.removeprefix(base_url)).stat().st_size for url in requested}
    assert sum(sizes.values()) <= HOME_BUDGET_BYTES, sorted(sizes.items(), key=lambda item: -item[1])[:5]


def test_filters_hide_rows_and_live_in_the_url(opened, base_url):
    page = opened()
    page.fill("input.kb-filter-text", "Synthetic submission 1")
    wait_until(page, "() => location.search.includes('q=Synthetic')")
    shown = page.evaluate(f"({VISIBLE_ROWS})(0).map(r => r.cells[1].textContent.trim())")
    assert shown == ["Synthetic submission 1"]
    shared = opened("?method=agent")
    wait_until(shared, "() => document.querySelector('select.kb-filter-select[data-key=method]').value === 'agent'")
    methods = shared.evaluate(f"({VISIBLE_ROWS})(0).map(r => r.cells[3].textContent.trim())")
    assert methods and set(methods) == {"agent"}
    cells = "r => [r.cells[2], r.cells[3], r.cells[4]].map(c => c.textContent.trim())"
    everything = opened().evaluate(f"[...document.querySelectorAll('.kb-target table')[0].tBodies[0].rows]"
                                   f".filter(r => !r.classList.contains('kb-ref-row')).map({cells})")
    run, method, backend = everything[0]
    both = opened(f"?run={quote(run)}&method={quote(method)}&backend={quote(backend)}")
    rows = both.evaluate(f"({VISIBLE_ROWS})(0).map({cells})")
    assert rows and rows == [r for r in everything if r == [run, method, backend]]


def test_a_phone_shows_priority_columns_and_the_rest_one_tap_away(opened):
    page = opened(viewport=PHONE)
    hidden = "() => [...document.querySelectorAll('.kb-target table')[0].tHead.rows[0].cells]" \
             ".filter(c => getComputedStyle(c).display === 'none').length"
    assert page.evaluate(hidden) > 0
    page.click("button.kb-wide-toggle")
    wait_until(page, "() => location.search.includes('cols=all')")
    assert page.evaluate(hidden) == 0


def test_a_phone_gets_curves_with_a_wide_plot_and_no_toolbar(opened):
    page = opened("curves/", viewport=PHONE)
    wait_until(page, "n => [...document.querySelectorAll('.js-plotly-plot')].filter(e => e._fullLayout).length >= n",
               arg=LEVELS)
    widths = page.evaluate("[...document.querySelectorAll('.js-plotly-plot')].map(e => e._fullLayout._size.w)")
    assert min(widths) >= 300, widths
    assert page.locator(".modebar-container .modebar").count() == 0
    legend = page.evaluate("document.querySelector('.js-plotly-plot')._fullLayout.legend.orientation")
    assert legend == "h"


def test_hardware_and_baseline_are_filters_kept_in_the_url(opened):
    page = opened()
    page.select_option(".kb-baseline", "torch-compile")
    wait_until(page, "() => location.search.includes('baseline=torch-compile')")
    other = page.locator(".kb-hardware option").nth(1).get_attribute("value")
    page.select_option(".kb-hardware", other)
    wait_until(page, "h => location.search.includes('hw=' + h)", arg=other)
    wait_until(page, "() => document.querySelector('.kb-loading').textContent === ''")
    shared = opened(page.url.split("/", 3)[3])
    assert shared.locator(".kb-baseline").input_value() == "torch-compile"
    assert shared.locator(".kb-hardware").input_value() == other
    wait_until(shared, "c => document.querySelector('.kb-target').dataset.kbCombo === c",
               arg=f"{other}--torch-compile")
    older = opened(f"?combo={other}--eager")  # links shared before the filters had their own parameters
    wait_until(older, "c => document.querySelector('.kb-target').dataset.kbCombo === c", arg=f"{other}--eager")


def test_the_correctness_rule_is_a_filter_kept_in_the_url_and_upstream_s_is_the_default(opened):
    page = opened()
    assert page.locator(".kb-rule").input_value() == "upstream"
    default = page.evaluate("document.querySelector('.kb-target').dataset.kbCombo")
    page.select_option(".kb-rule", "strict")
    wait_until(page, "() => location.search.includes('rule=strict')")
    wait_until(page, "c => document.querySelector('.kb-target').dataset.kbCombo === c", arg=f"{default}~strict")
    shared = opened(page.url.split("/", 3)[3])
    assert shared.locator(".kb-rule").input_value() == "strict"
    wait_until(shared, "c => document.querySelector('.kb-target').dataset.kbCombo === c", arg=f"{default}~strict")
    shared.select_option(".kb-rule", "upstream")
    wait_until(shared, "() => !location.search.includes('rule=')")


def test_the_compare_view_puts_submissions_side_by_side_and_keeps_them_in_the_url(opened):
    page = opened("submissions/synthetic-000/")
    page.click("a.md-button:has-text('Compare with other submissions')")
    wait_until(page, "() => location.pathname.endsWith('/compare/') && location.search.includes('s=synthetic-000')")
    page.wait_for_selector("select.kb-compare-pick option[value='synthetic-002']", state="attached")
    page.select_option("select.kb-compare-pick", ["synthetic-000", "synthetic-002"])
    wait_until(page, "() => document.querySelector('.kb-compare-table table') !== null")
    assert "s=synthetic-000%2Csynthetic-002" in page.url or "s=synthetic-000,synthetic-002" in page.url
    shared = opened(page.url.split("/", 3)[3])
    wait_until(shared, "() => document.querySelector('.kb-compare-table table') !== null")
    table = shared.locator(".kb-compare-table table")
    assert table.locator("tbody tr").count() == sum(SPEC.problems_per_level)
    labels = table.locator("thead th").all_inner_texts()
    assert [label.split(" ")[0] for label in labels[2:]] == ["A", "A", "B", "B", "B"]
    shared.locator(".kb-compare-table thead th", has_text="B ÷ A").click()
    assert shared.locator(".kb-compare-table thead th", has_text="B ÷ A").get_attribute("aria-sort")


@pytest.mark.parametrize("query", ["relu", "synthetic op"])
def test_search_finds_problems_by_operator_and_by_name(opened, query):
    page = opened()
    page.click("input.md-search__input")
    wait_until(page, "() => document.querySelector('.md-search-result__meta').textContent.includes('Type')")
    page.locator("input.md-search__input").press_sequentially(query, delay=20)
    page.wait_for_selector(".md-search-result__item")
    links = page.evaluate("[...document.querySelectorAll('.md-search-result__item a')].map(a => a.href)")
    assert [link for link in links if "/problems/level" in link], links


def test_a_pinned_p_reads_every_curve_at_that_p_and_lives_in_the_url(opened):
    page = opened("curves/?p=1.5")
    wait_until(page, "n => document.querySelectorAll('ol.kb-pin-readout li').length >= n",
               arg=SPEC.submissions * LEVELS)
    pins = page.evaluate("[...document.querySelectorAll('.kb-chart')].map(e => e.layout.shapes.filter(s => s.name"
                         " === 'pin').map(s => s.x0))")
    assert pins == [[1.5]] * LEVELS
    values = page.evaluate("[...document.querySelectorAll('ol.kb-pin-readout')[0].children]"
                           ".map(li => parseFloat(li.textContent.split(': ').pop()))")
    assert values == sorted(values, reverse=True)
    expected = page.evaluate("const c = document.querySelector('.kb-chart');"
                             "c.data.map(t => 100 * kb.pin.valueAt(t, 1.5)).sort((a, b) => b - a)")
    assert values == [round(v, 1) for v in expected]
    page.fill("input.kb-pin-p", "2")
    page.press("input.kb-pin-p", "Enter")
    wait_until(page, "() => location.search.includes('p=2')")
