"""A site built from hostile submissions, in headless Chromium: no dialog opens, no element carries an event
handler, the Content-Security-Policy blocks nothing the site itself needs, and the pages still work."""

from __future__ import annotations

import pytest

from tests.site_kit.headless import unavailable, wait_until
from tests.site_kit.hostile import poison_tree
from tests.site_kit.synthetic import SyntheticSpec

REASON = unavailable()
pytestmark = [pytest.mark.browser, pytest.mark.slow,
              pytest.mark.skipif(REASON is not None, reason=f"needs headless Chromium: {REASON}")]
SPEC = SyntheticSpec(submissions=3, problems_per_level=(3, 2), hardware=("nvidia-h200",))
"""The data conftest.py builds the site from, after PREPARE has poisoned every text field."""
HANDLERS = "[...document.querySelectorAll('*')].flatMap(e => [...e.attributes].map(a => a.name))" \
    ".filter(n => n.startsWith('on') || n === 'autofocus')"
PAGES = (
    "",
    "submissions/",
    "submissions/synthetic-000/",
    "submissions/synthetic-001/",
    "problems/level1/1_Synthetic_op_1_1/",
    "curves/",
    "curves/?p=1.5",
    "heatmap/",
    "downloads/",
    "compare/?hw=nvidia-h200&s=synthetic-000,synthetic-001,synthetic-002",
    "?q=alert&method=human",
)


def PREPARE(tree) -> None:  # the name conftest.py looks for
    poison_tree(tree.submissions_dir, tree.results_dir)


@pytest.mark.parametrize("uri", PAGES)
def test_a_page_built_from_hostile_text_opens_no_dialog_and_carries_no_handler(watched, uri):
    page = watched.page
    dialogs: list[str] = []
    page.on("dialog", lambda dialog: (dialogs.append(dialog.message), dialog.dismiss()))
    violations = []
    page.on("console", lambda m: violations.append(m.text) if "Content Security Policy" in m.text else None)
    page.goto(watched.base_url + uri)
    page.wait_for_load_state("networkidle")
    for details in page.locator("details").all()[:5]:
        details.evaluate("d => { d.open = true; }")
    page.mouse.move(200, 300)
    page.keyboard.press("Tab")
    page.wait_for_timeout(300)
    assert dialogs == []
    assert page.evaluate(HANDLERS) == []
    assert violations == [], "the policy blocked something the site needs (or the test's own payload)"
    assert watched.external == []
    assert page.evaluate("typeof window.__md_get") == "function"  # the theme's helpers loaded from a file


def test_the_submission_page_shows_the_payloads_as_text(watched):
    page = watched.page
    page.goto(watched.base_url + "submissions/synthetic-000/")
    text = page.locator("article").inner_text()
    assert "[click](javascript:alert(4))" in text
    assert "</title><script>alert(1)</script>" in text
    hrefs = page.evaluate("[...document.querySelectorAll('article a')].map(a => a.href)")
    assert not [h for h in hrefs if not h.startswith(("http://127.0.0.1", "https://trusted.example", "https://github.com"))]


def test_the_home_page_still_draws_its_tables_and_charts_under_the_policy(watched):
    page = watched.page
    page.goto(watched.base_url)
    wait_until(page, "() => document.querySelectorAll('.kb-target table').length >= 2")
    wait_until(page, "() => document.querySelectorAll('.kb-target svg.kb-svg-chart').length >= 2")
    page.goto(watched.base_url + "curves/")
    wait_until(page, "() => [...document.querySelectorAll('.js-plotly-plot')].filter(e => e._fullLayout).length >= 2")
    assert watched.errors == [] and watched.external == []


def test_switching_the_home_page_to_another_baseline_injects_only_text(watched):
    page = watched.page
    dialogs: list[str] = []
    page.on("dialog", lambda dialog: (dialogs.append(dialog.message), dialog.dismiss()))
    page.goto(watched.base_url)
    page.select_option(".kb-baseline", "torch-compile")
    wait_until(page, "() => document.querySelector('.kb-target').dataset.kbCombo.endsWith('--torch-compile')")
    page.mouse.move(200, 300)
    page.wait_for_timeout(300)
    assert dialogs == [] and page.evaluate(HANDLERS) == []
    assert page.locator(".kb-target table").count() >= 2 and "<script" not in page.locator("article").inner_html()
