"""Every page fits a 390 px phone and a 1366 px laptop: nothing but a designated scroll container (a table's
wrap, code) is wider than the screen, even with unbroken author, hardware and model strings; the heatmap
keeps its cells wide, the compare table shows more than its problem column, the home table keeps fast_1 in
view, and a reference is drawn as one."""

from __future__ import annotations

import json

import pytest

from tests.site_kit.headless import unavailable, wait_until
from tests.site_kit.synthetic import SyntheticSpec

REASON = unavailable()
pytestmark = [pytest.mark.browser, pytest.mark.slow,
              pytest.mark.skipif(REASON is not None, reason=f"needs headless Chromium: {REASON}")]
SPEC = SyntheticSpec(submissions=4, problems_per_level=(8, 6, 4), hardware=("nvidia-h200",))
"""The data conftest.py builds the site from, after PREPARE."""
PHONE = {"width": 390, "height": 844}
LAPTOP = {"width": 1366, "height": 900}
LONG = "x" * 240
REFERENCE = "synthetic-003"
COMPARED = "compare/?hw=nvidia-h200&s=synthetic-000,synthetic-001,synthetic-002"
PAGES = ("", "problems/level1/1_Synthetic_op_1_1/", "curves/", "heatmap/", COMPARED, "submissions/synthetic-000/")
SCROLLERS = ".kb-table-wrap, .md-typeset__scrollwrap, .highlight, pre, .md-sidebar, .md-search"
WIDER = f"""() => {{
  const width = document.documentElement.clientWidth;
  return [...document.querySelectorAll('.md-content *')]
    .filter(e => !e.closest('{SCROLLERS}') && e.getBoundingClientRect().right > width + 1)
    .slice(0, 3).map(e => e.tagName + '.' + e.className);
}}"""
PLOTS = "() => [...document.querySelectorAll('.js-plotly-plot')].map(e => e._fullLayout && e._fullLayout._size.w)"


def PREPARE(tree) -> None:  # the name conftest.py looks for
    """Unbroken strings where a submitter writes them; the last submission becomes a reference (`compiler`)."""
    path = tree.submissions_dir / "synthetic-000.json"
    document = json.loads(path.read_text())
    document["authors"] = [{"name": LONG}]
    document["model"] = {"name": LONG}
    document["target_hardware"] = [LONG]
    document["links"] = [{"label": LONG, "url": f"https://example.org/{LONG}"}]
    path.write_text(json.dumps(document))
    path = tree.submissions_dir / f"{REFERENCE}.json"
    document = json.loads(path.read_text())
    path.write_text(json.dumps({**document, "method": "compiler", "name": "torch.compile run"}))


@pytest.fixture
def opened(browser, base_url):
    contexts = []

    def open_page(path: str, viewport: dict):
        context = browser.new_context(viewport=viewport)
        contexts.append(context)
        page = context.new_page()
        page.goto(base_url + path, wait_until="networkidle")
        if "curves" in path or "heatmap" in path:  # Plotly draws after the page loads
            wait_until(page, "() => [...document.querySelectorAll('.kb-chart')].every(e => e._fullLayout)"
                       " && document.querySelectorAll('.kb-chart').length > 0")
        if path.startswith("compare/"):
            wait_until(page, "() => document.querySelector('.kb-compare-table table') !== null")
        return page

    yield open_page
    for context in contexts:
        context.close()


@pytest.mark.parametrize("viewport", [PHONE, LAPTOP], ids=["phone", "laptop"])
@pytest.mark.parametrize("uri", PAGES)
def test_no_page_is_wider_than_the_screen_outside_its_scroll_containers(opened, uri, viewport):
    page = opened(uri, viewport)
    assert page.evaluate("document.documentElement.scrollWidth") <= viewport["width"] + 1
    assert page.evaluate(WIDER) == []


def test_the_heatmap_keeps_its_cells_at_least_300_px_wide_on_a_phone(opened):
    widths = opened("heatmap/", PHONE).evaluate(PLOTS)
    assert widths and min(widths) >= 300, widths


def test_the_compare_table_shows_more_than_the_problem_column_on_a_phone(opened):
    page = opened(COMPARED, PHONE)
    shown = page.evaluate("() => [...document.querySelectorAll('.kb-compare-table thead th')].filter(th => {"
                          " const r = th.getBoundingClientRect(); return r.width > 0 && r.right <= innerWidth; })"
                          ".map(th => th.textContent)")
    assert len(shown) >= 2 and shown[0].startswith("Problem"), shown


def test_the_home_table_keeps_fast_1_in_view_on_a_phone_and_explains_ambiguous_inline(opened):
    page = opened("", PHONE)
    right = page.evaluate("() => [...document.querySelector('.kb-target table').tHead.rows[0].cells]"
                          ".find(c => c.textContent.trim() === 'fast_1').getBoundingClientRect().right")
    assert 0 < right <= PHONE["width"]
    for note in page.locator(".kb-ambiguous + .kb-note").all():
        assert note.is_visible() and "straddles" in note.inner_text()


def test_a_reference_is_a_reference_row_and_a_dashed_line_and_never_the_leader(opened):
    home = opened("", LAPTOP)
    assert REFERENCE not in home.locator("li.kb-leader a").first.get_attribute("href")
    row = home.locator(f".kb-target tr:has(a[href*='{REFERENCE}/'])").first
    assert "kb-ref-row" in row.get_attribute("class") and row.locator("td").first.inner_text() == "ref"
    curves = opened("curves/", LAPTOP)
    traces = curves.evaluate("() => document.querySelector('.kb-chart').data.map(t => [t.name, (t.line || {}).dash])")
    assert traces[-1] == ["torch.compile run (reference)", "dash"]
    assert all(dash != "dash" for _, dash in traces[:-1])
