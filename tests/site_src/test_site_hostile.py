"""Submitter text cannot steer the built site: `mkdocs build --strict` of submissions and results whose every
free-text field carries script, event-handler, attr_list, link and image payloads gives pages where all of it
is inert text, under a Content-Security-Policy that allows scripts from the site's own files only."""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
from html.parser import HTMLParser
from pathlib import Path
from urllib.parse import urlsplit

import pytest

from site_src.text import https_url, markdown_inline, page_title, plain
from tests.paths import REPO
from tests.site_kit.hostile import EVIL_HOST, poison_tree
from tests.site_kit.synthetic import SyntheticSpec, write_synthetic

URL_ATTRIBUTES = {"href", "src", "action", "formaction", "xlink:href", "srcset", "poster", "data"}
FOREIGN_HOSTS = {"trusted.example", "github.com"}
SITE_HOSTS = {"kernelbench-leaderboard.github.io", "squidfunk.github.io"}
"""Hosts the hostile submissions named in a `url` field (https) or as a GitHub account."""
"""The site's own address (canonical links) and the theme's credit in the footer."""


class PageAudit(HTMLParser):
    """Everything in one page that could run script, load from elsewhere or lead off the site."""

    def __init__(self) -> None:
        super().__init__(convert_charrefs=True)
        self.problems: list[str] = []
        self.policy: list[str] = []
        self.first_in_head: str | None = None
        self.in_head = False
        self.title = ""
        self.in_title = False

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        values = dict(attrs)
        if self.in_head and self.first_in_head is None:
            self.first_in_head = values.get("http-equiv") or tag
        self.in_head = self.in_head or tag == "head"
        self.in_title = tag == "title"
        if tag == "meta" and values.get("http-equiv") == "Content-Security-Policy":
            self.policy.append(values.get("content") or "")
        for name, value in attrs:
            if name.startswith("on") or name in {"autofocus", "srcdoc", "formaction"}:
                self.problems.append(f"<{tag} {name}={value!r}>")
            if name in URL_ATTRIBUTES and value is not None:
                self._check_url(tag, name, value)
        if tag == "script" and "src" not in values and values.get("type") != "application/json":
            self.problems.append("inline <script>")
        if tag in {"iframe", "frame", "object", "embed", "base", "img"} or values.get("http-equiv") == "refresh":
            self.problems.append(f"<{tag}> element")  # the site itself uses none of these

    def _check_url(self, tag: str, name: str, value: str) -> None:
        parts = urlsplit(value.strip())
        if parts.scheme in {"", "https"} and not parts.netloc:
            return  # a path of the site itself
        if tag in {"a", "link"} and parts.scheme == "https" and parts.hostname in FOREIGN_HOSTS | SITE_HOSTS:
            return
        self.problems.append(f"<{tag} {name}={value!r}>")

    def handle_data(self, data: str) -> None:
        if self.in_title:
            self.title += data

    def handle_endtag(self, tag: str) -> None:
        self.in_title = False
        if tag == "head":
            self.in_head = False


def audit(path: Path) -> PageAudit:
    parser = PageAudit()
    parser.feed(path.read_text(encoding="utf-8"))
    return parser


@pytest.fixture(scope="module")
def hostile_site(tmp_path_factory) -> Path:
    root = tmp_path_factory.mktemp("hostile")
    spec = SyntheticSpec(submissions=3, problems_per_level=(3, 2), hardware=("nvidia-h200",))
    tree = write_synthetic(root / "data", spec)
    poison_tree(tree.submissions_dir, tree.results_dir)
    env = {k: v for k, v in os.environ.items() if not k.startswith("KB_")}
    env.update(
        NO_MKDOCS_2_WARNING="1",
        KB_RESULTS_DIR=str(tree.results_dir),
        KB_SUBMISSIONS_DIR=str(tree.submissions_dir),
        KB_PROBLEMS_DIR=str(tree.problems_dir),
    )
    command = [sys.executable, "-m", "mkdocs", "build", "--strict", "-q", "-d", str(root / "site")]
    done = subprocess.run(command, cwd=REPO, env=env, capture_output=True, text=True, check=False)
    assert done.returncode == 0, done.stderr[-3000:]
    return root / "site"


def test_no_page_of_a_site_built_from_hostile_text_carries_a_live_payload(hostile_site):
    pages = sorted(hostile_site.rglob("*.html"))
    assert len(pages) > 10
    found = {str(p.relative_to(hostile_site)): audit(p).problems for p in pages}
    assert {page: problems for page, problems in found.items() if problems} == {}


def test_every_page_starts_its_head_with_a_policy_that_allows_only_the_sites_own_scripts(hostile_site):
    for path in sorted(hostile_site.rglob("*.html")):
        page = audit(path)
        assert len(page.policy) == 1, path
        directives = {d.split()[0]: d.split()[1:] for d in page.policy[0].split(";") if d.strip()}
        assert directives["script-src"] == ["'self'"], path
        assert directives["object-src"] == ["'none'"] and directives["base-uri"] == ["'self'"]
        assert page.first_in_head == "Content-Security-Policy", path


def test_titles_hold_no_markup_even_after_the_theme_unescapes_them(hostile_site):
    for path in sorted((hostile_site / "submissions").rglob("*.html")):
        title = audit(path).title
        assert "<" not in title and ">" not in title and "&" not in title, (path, title)


def test_submitted_text_is_on_the_submission_page_as_text(hostile_site):
    html = (hostile_site / "submissions" / "synthetic-000" / "index.html").read_text(encoding="utf-8")
    assert "[click](javascript:alert(4))" in html
    assert "{: autofocus onfocus=alert(3) }" in html
    assert "&lt;/title&gt;&lt;script&gt;alert(1)&lt;/script&gt;" in html
    assert 'href="https://trusted.example/paper"' in html
    assert [h for h in re.findall(r'(?:href|src)="([^"]*)"', html) if EVIL_HOST in h] == []


def test_figure_data_shows_names_and_statuses_without_plotly_markup(hostile_site):
    traces = 0
    for path in sorted((hostile_site / "data").rglob("*.json")):
        if path.name not in {"curves.json", "heatmap.json", "leaderboard.json"}:
            continue
        for level in json.loads(path.read_text())["levels"].values():
            for trace in level.get("figure", {}).get("data", []):
                labels = [trace.get("name", ""), *trace.get("x", [])]
                labels += [t for row in trace.get("text", []) for t in (row if isinstance(row, list) else [row])]
                assert not [t for t in labels if isinstance(t, str) and "<" in t], path
                traces += 1
    assert traces > 0


@pytest.mark.parametrize(
    "url",
    ["javascript:alert(1)", "http://example.org/", "https://", "https://user@host/", "https://host/ x",
     "https://a\u202eb/", " https://host/", "data:text/html,x", "https://host:99999/", "//host/x", "https:\\\\host"],
)
def test_only_plain_https_urls_with_a_host_become_links(url):
    assert https_url(url) is None


def test_markdown_inline_text_escapes_everything_markdown_reads_and_drops_controls():
    assert markdown_inline("a[b](c){: x}") == r"a\[b\]\(c\)\{: x\}"
    assert markdown_inline("<i>\n\u202e") == "&lt;i&gt;"
    assert plain("a\u0000b\u001bc\u2066d\u009be") == "abcde"
    assert page_title("</title>&x") == "‹/title›+x"


def test_an_edited_kernels_result_is_marked_stale_on_its_pages_and_not_ranked(tmp_path):
    from site_src.generate import generate
    from site_src.sources import SiteSources

    spec = SyntheticSpec(submissions=1, problems_per_level=(2,), hardware=("nvidia-h200",), coverage=1.0)
    tree = write_synthetic(tmp_path, spec)
    sources = SiteSources(tree.results_dir, tree.submissions_dir, tree.problems_dir, tree.problems_dir / "x.json")
    before = generate(sources).slots["submissions/synthetic-000.md"]
    assert "stale — awaiting rerun" not in "".join(before.values())
    kernel = tree.submissions_dir / "synthetic-000" / "level1_1.py"
    kernel.write_text(kernel.read_text() + "# edited after the run\n")
    after = generate(sources)
    page = "".join(after.slots["submissions/synthetic-000.md"].values())
    assert page.count("stale — awaiting rerun") == 1 and "kernel file changed" in page
    ranking = "".join(after.slots["problems/level1/1_Synthetic_op_1_1.md"].values())
    assert "stale — awaiting rerun" in ranking and ">1</td>" not in ranking
